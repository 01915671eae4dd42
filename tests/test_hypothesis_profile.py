"""Every property test runs as many examples as the loaded profile says (conftest.py): `make test` the bounded
count, `make fuzz` 2,000. A test that pinned its own max_examples would keep its count under `make fuzz`."""
import importlib
from pathlib import Path

from hypothesis import settings


def property_tests() -> dict[str, object]:
    found = {}
    for path in sorted(Path(__file__).parent.glob("test_*.py")):
        if "@given" not in path.read_text(encoding="utf-8"):
            continue
        module = importlib.import_module(path.stem)  # the module pytest imported (tests/ is on sys.path)
        found |= {f"{path.stem}.{name}": test for name, test in vars(module).items()
                  if name.startswith("test_") and hasattr(test, "hypothesis")}
    return found


def test_every_property_test_follows_the_profile():
    tests = property_tests()
    assert len(tests) >= 9  # the parsers' and ingest's property tests
    # hypothesis keeps a test's effective settings (its own @settings over the profile) on the test
    pinned = {name: test._hypothesis_internal_use_settings.max_examples for name, test in tests.items()
              if test._hypothesis_internal_use_settings.max_examples != settings.default.max_examples}
    assert pinned == {}
