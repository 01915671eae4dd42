"""Unit conversions between IO500's binary and IBM's decimal bandwidth units."""
import pytest

from iobook.inference.units import gb_to_gib, gib_to_gb


def test_gib_to_gb_is_exact_powers():
    assert gib_to_gb(1) == 1.073741824
    assert gib_to_gb(205) == pytest.approx(220.117073920, abs=1e-9)


def test_gb_to_gib_inverts_gib_to_gb():
    # Seed 000's 126 GB/s per ESS 3500 building block, in IO500's unit.
    assert gb_to_gib(126) == pytest.approx(117.346644402, abs=1e-9)
    assert gib_to_gb(gb_to_gib(310)) == pytest.approx(310, rel=1e-15)

