"""Format 9.4, property tests: a value typed in a unit comes back exactly in
that unit, a conversion never changes the value it shows, and every display
unit supersheet picks can be typed back and has the value's dimensions."""
from __future__ import annotations

import math
from decimal import Decimal

from hypothesis import given, settings, strategies as st

from supersheet.units import compact_unit, convert, in_unit, parse_unit
from supersheet.units.parse import prefix_family

UNITS = ["us", "μs", "ms", "ns", "min", "h", "GB", "GiB", "KiB/token", "MB/s", "Gbps", "%", "‰", "USD/h",
         "USD/GPU/h", "TFLOP/s", "W", "kW", "kWh", "MJ", "GHz", "km", "m^2", "token/s", "ktoken"]

# A number as a person types it: at most 15 significant digits.
typed = st.builds(lambda digits, exponent: Decimal(digits).scaleb(exponent),
                  st.integers(min_value=-(10**15 - 1), max_value=10**15 - 1), st.integers(min_value=-12, max_value=6))


@settings(max_examples=2000, deadline=None)
@given(typed, st.sampled_from(UNITS))
def test_a_typed_value_comes_back_exactly(number: Decimal, unit: str) -> None:
    written = float(number)
    base = written * parse_unit(unit).factor     # how the engine stores `<number> <unit>`
    assert convert(base, unit) == written
    assert repr(convert(base, unit)) == repr(written)


@settings(max_examples=2000, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(UNITS))
def test_conversion_never_shows_another_value(base: float, unit: str) -> None:
    factor = parse_unit(unit).factor
    shown = in_unit(base, factor)
    assert shown == base / factor or shown * factor == base


DIMENSIONS = sorted({parse_unit(u).dimensions for u in UNITS if parse_unit(u).dimensions})


@settings(max_examples=1000, deadline=None)
@given(st.floats(min_value=1e-12, max_value=1e18), st.sampled_from(DIMENSIONS), st.booleans())
def test_display_units_can_be_typed_back(magnitude: float, dims, binary: bool) -> None:
    unit = compact_unit(magnitude, dims, binary=binary)
    assert unit is not None
    parsed = parse_unit(unit)                     # never a refused symbol (9.3)
    assert parsed.dimensions == dims
    shown = convert(magnitude, unit)
    assert math.isclose(shown * parsed.factor, magnitude, rel_tol=1e-12)
    if binary and dims and dims[0] == ("information", 1.0) and unit[0] != "B":
        assert prefix_family(unit) == "binary"
