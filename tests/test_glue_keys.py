"""Every chapter template is thin (its parameters, at most MAX_CODE_LINES lines of code, markdown), every glue key its
markdown pastes is in the report its study returns, and every finding that states a measured number carries the
evidence records it rests on (issue 36: one route to a claim) and no family is decided in parts, on each of the four
test databases."""
import importlib
import json
import re
from collections import Counter

import pandas as pd
import pytest
from conftest import REPO

from iobook.book import chapters
from iobook.book.report import FIRST_FINDING_WORDS, MAX_FINDING_WORDS, Prose, Report
from iobook.inference import evidence

MAX_CODE_LINES = 15  # after the parameters cell (issue 26)
# {glue:text}`key:format`, {glue:md}`key`, {glue}`key`, ```{glue:figure} key, ```{glue:md} key
# A measured number in a finding: a decimal, a percentage, a ratio, "k of n", or a count of units (a year, a version
# or a setting such as "10 client nodes" is none)
MEASURED = re.compile(r"\d[\d,]*\.\d|\d\s?%|\d×|\b\d[\d,]* of (?:the |its |all )?\d|"
                      r"\b\d[\d,]* (?:runs|files|systems|machines|phases|histories|rounds|configurations)\b")
ROLES = re.compile(r"\{\w+(?::\w+)?\}`[^`]*`")  # {numref}`...`, {cite:p}`...`: no number of the finding's
PASTED = re.compile(r"\{glue(?::\w+)?\}`([^`:]+)|```\{glue(?::\w+)?\}\s+([^\s`]+)")
MAX_QUALIFIER_REPEATS = 3  # a page says one bracketed qualifier at most this often (issue 50)
# A bracketed qualifier: words in brackets; an interval with its numbers is a value, not a qualifier
QUALIFIER = re.compile(r"\(([^()]*[A-Za-z]{3,}[^()]*)\)")
AN_INTERVAL = re.compile(r"\binterval [−-]?\d")


def words(text: str) -> int:
    """A finding's words as a reader counts them: its links to figures and tables ({numref}) aside."""
    return len([w for w in ROLES.sub("", text).split() if re.search(r"\w", w)])


def repeated_qualifiers(texts) -> dict[str, int]:
    """Bracketed qualifiers said more than MAX_QUALIFIER_REPEATS times in `texts` (a page's prose), an interval
    with its numbers aside: '(no interval; 1 round vs 6; too few units)' after every ratio of a list."""
    said = Counter(q.strip() for text in texts for q in QUALIFIER.findall(ROLES.sub("", str(text)))
                   if not AN_INTERVAL.search(q))
    return {q: n for q, n in said.items() if n > MAX_QUALIFIER_REPEATS}


def _template(name: str) -> dict:
    return json.loads((REPO / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))


NUMREF = re.compile(r"\{numref\}`(?:[^`<]*<)?([^`>]+)>?`")  # {numref}`tab-x` or {numref}`Table %s <tab-x>`


def shown_cells(cells: list[dict], values: dict) -> list[str]:
    """The text of the markdown cells that show: a cell tagged only-if:<key> shows only when values[key] is True."""
    shown = []
    for cell in cells:
        conditions = [t[len(chapters.ONLY_IF):] for t in cell.get("metadata", {}).get("tags", [])
                      if t.startswith(chapters.ONLY_IF)]
        if cell["cell_type"] == "markdown" and all(values.get(c) is True for c in conditions):
            shown.append("".join(cell["source"]))
    return shown


def pasted_keys(cells: list[dict], values: dict) -> set[str]:
    """Keys pasted by markdown cells that show."""
    return {a or b for text in shown_cells(cells, values) for a, b in PASTED.findall(text)}


@pytest.mark.parametrize("chapter", [c.name for c in chapters.load_registry()])
def test_template_is_parameters_one_call_and_markdown(chapter):
    code = [cell for cell in _template(chapter)["cells"] if cell["cell_type"] == "code"
            and "parameters" not in cell.get("metadata", {}).get("tags", [])]
    lines = [line for cell in code for line in "".join(cell["source"]).splitlines() if line.strip()]
    assert len(lines) <= MAX_CODE_LINES, "\n".join(lines)
    assert any(".report(" in line for line in lines) and any("nb.glue_report(" in line for line in lines)


# A table's interval columns, and the columns that count the units behind a row (evidence.MIN_UNITS: below it, the
# rule withholds an interval: issue 36's "6,104 ±116 % (0.00277-13,436,786,190)" on two runs)
INTERVAL_COLUMNS = [("low", "high"), ("95% low", "95% high"), ("interval low (%)", "interval high (%)")]
UNIT_COLUMNS = ("n", "n baseline", "n none", "machines", "rounds", "DAOS machines", "Lustre machines")


def withheld_intervals(report: Report) -> list[str]:
    """Rows of the report's tables that show an interval on fewer units than the rule allows."""
    found = []
    for key, table in report.tables.items():
        frame = table.frame
        units = [c for c in UNIT_COLUMNS if c in frame.columns]
        for low, high in [pair for pair in INTERVAL_COLUMNS if set(pair) <= set(frame.columns)]:
            if not units:
                continue
            fewest = frame[units].apply(pd.to_numeric, errors="coerce").min(axis=1)
            shown = frame[low].notna() | frame[high].notna()
            found += [f"{key} row {i}" for i in frame.index[(fewest < evidence.MIN_UNITS) & shown]]
    return found


def split_families(report: Report) -> list[str]:
    """Families the report decided in parts (evidence.decide called on some of a family's records, then on the
    others): Holm's correction then counts each part alone, so the family's records disagree on its size, or
    state a size below the number of its tested records the report holds."""
    sizes: dict[str, set[int]] = {}
    tested: dict[str, set[tuple]] = {}
    for record in [*report.evidence, *(r for f in report.findings for r in f.evidence)]:
        if isinstance(record, (evidence.Comparison, evidence.Correlation)) and record.verdict is not None:
            sizes.setdefault(record.family, set()).add(record.family_size)
            if record.p is not None:
                names = [getattr(record, a, None) for a in ("label", "baseline_label", "x_name", "y_name")]
                tested.setdefault(record.family, set()).add((record.quantity, *names, record.p))
    return sorted(family for family, size in sizes.items()
                  if len(size) > 1 or min(size) < len(tested.get(family, ())))


@pytest.mark.slow
@pytest.mark.parametrize("chapter", [c.name for c in chapters.load_registry()])
def test_every_pasted_key_is_in_the_report(chapter, any_db):
    name, con = any_db
    registry = {c.name: c for c in chapters.load_registry()}[chapter]
    study = importlib.import_module(f"iobook.studies.{chapter}")
    report = study.report(con, **registry.parameters)
    assert isinstance(report, Report)
    missing = pasted_keys(_template(chapter)["cells"], report.values) - report.keys()
    assert not missing, f"{chapter} on the {name} database pastes keys its report lacks: {sorted(missing)}"
    unsupported = [f.text for f in report.findings if MEASURED.search(ROLES.sub("", f.text)) and not f.evidence]
    assert not unsupported, f"{chapter} on the {name} database: findings with numbers and no records: {unsupported}"
    shown = withheld_intervals(report)
    assert not shown, f"{chapter} on the {name} database: intervals on fewer than {evidence.MIN_UNITS} units: {shown}"
    assert not split_families(report), f"{chapter} on the {name} database decided these families in parts"
    # a finding links to its figure or table ({numref}): one a removed cell would hold is a broken link, which
    # fails the build (on built-tools' logs alone the IO500 score chapter linked the audit's table it did not show)
    cells = _template(chapter)["cells"]
    linked = {f.target for f in report.findings if f.target} | {
        n for text in shown_cells(cells, report.values) for n in NUMREF.findall(text)}
    unshown = linked - pasted_keys(cells, report.values)
    assert not unshown, f"{chapter} on the {name} database: links to what the page does not show: {unshown}"
    if report.findings:
        first = re.sub(r"\{[^}]+\}`[^`]*`", "x", report.findings[0].text)
        assert len(first.split()) <= FIRST_FINDING_WORDS, report.findings[0].text
    long = [f"{words(f.text)} words: {f.text}" for f in report.findings if words(f.text) > MAX_FINDING_WORDS]
    assert not long, f"{chapter} on the {name} database: findings over {MAX_FINDING_WORDS} words: {long}"
    prose = [f.text for f in report.findings] + [v for v in report.values.values() if isinstance(v, Prose)]
    repeated = repeated_qualifiers(prose)
    assert not repeated, f"{chapter} on the {name} database repeats qualifiers: {repeated}"


def test_a_repeated_qualifier_is_found_and_an_interval_is_not_one():
    # Page cache's findings as issue 50 quoted them: the qualifier after every ratio of a list
    qualifier = "(no interval; 1 round vs 6; too few units; no n can be sized from these data)"
    listed = [f"the {n}th step ran 0.{n}× {qualifier}" for n in range(4)]
    assert repeated_qualifiers(listed) == {qualifier[1:-1]: 4}
    assert repeated_qualifiers(listed[:3]) == {}
    assert repeated_qualifiers(["2.1× (95% interval 1.9–2.3; 6 runs vs 6; decided)"] * 5) == {}
    assert words("Buffered writes ran 1.8× direct ones ({numref}`tab-x`).") == 6


def test_a_family_decided_in_parts_is_found():
    """IOR's write bandwidth of both real histories (data/examples/ior-history), one family decided in two calls:
    each part is corrected as a family of one."""
    from test_comparison import split

    whole = evidence.decide([split("change", "ior"), split("steady", "ior")])
    parts = evidence.decide([split("change", "ior")]) + evidence.decide([split("steady", "ior")])
    assert split_families(Report(evidence=whole)) == []
    assert split_families(Report(evidence=parts)) == ["ior"]
