"""format_number, format_quantity, convert and compact_unit."""

from __future__ import annotations

import math

import pytest

from supersheet.units import DIMENSIONLESS, UnitError, compact_unit, convert, format_number, format_quantity, parse_unit


def dims(text: str) -> tuple[tuple[str, float], ...]:
    return parse_unit(text).dimensions


def base(value: float, unit: str) -> float:
    return value * parse_unit(unit).factor


@pytest.mark.parametrize(("x", "text"), [
    (61.4966, "61.5"), (3350, "3350"), (0.000661747, "0.0006617"), (1234567.8, "1234568"),
    (2.0, "2"), (-4, "-4"), (0, "0"), (-0.0, "0"), (math.inf, "inf"), (-math.inf, "-inf"), (math.nan, "nan"),
    (1.2345e-12, "1.235e-12"), (3e-12, "3e-12"), (2.5e18, "2.5e+18"), (1e15, "1000000000000000"), (1.5e15, "1.5e+15"), (0.1 + 0.2, "0.3"), (9999.7, "10000"),
    (61.50, "61.5"), (1e-9, "0.000000001"), (437.8999, "437.9"), (-0.0012345, "-0.001234"),
])
def test_format_number(x: float, text: str) -> None:
    assert format_number(x) == text


def test_format_number_digits() -> None:
    assert format_number(61.4966, 2) == "61"
    assert format_number(61.4966, 6) == "61.4966"
    assert format_number(3.14159, 1) == "3"
    assert "e" not in format_number(123456789012.0)


def test_convert() -> None:
    assert convert(base(470.2, "GB"), "GiB") == pytest.approx(437.9, abs=0.05)
    assert convert(base(0.822, "us"), "μs") == pytest.approx(0.822)
    assert convert(base(400, "Gbit/s"), "GB/s") == pytest.approx(50)


def test_format_quantity_with_unit() -> None:
    assert format_quantity(base(470.2, "GB"), dims("GB"), "GiB") == "437.9 GiB"
    assert format_quantity(base(3350, "GB/s"), dims("GB/s"), "TB/s") == "3.35 TB/s"
    assert format_quantity(base(2, "GiB"), dims("GB"), "GB") == "2.147 GB"
    assert format_quantity(base(0.822, "µs"), dims("s"), "us") == "0.822 μs"
    assert format_quantity(0.7273, DIMENSIONLESS, "%") == "72.73 %"
    assert format_quantity(base(188, "KiB"), dims("B"), "KiB") == "188 KiB"


def test_format_quantity_compact() -> None:
    assert format_quantity(base(3350, "GB/s"), dims("GB/s")) == "3.35 TB/s"
    assert format_quantity(0.75 * 4, DIMENSIONLESS) == "3"
    cost = base(2.5, "USD/GPU/h") * base(0.9528, "GPU*s")
    assert format_quantity(cost, dims("USD")) == "0.0006617 USD"
    t = base(2.47, "TFLOP") / base(989.4, "TFLOP/s")
    assert format_quantity(t, dims("s")) == "2.496 ms"


def test_format_quantity_wrong_dimension() -> None:
    with pytest.raises(UnitError):
        format_quantity(1.0, dims("GB"), "s")


@pytest.mark.parametrize(("value", "unit", "expected"), [
    (3.35e12, "B/s", "TB/s"), (470.2e9, "B", "GB"), (512, "B", "B"), (0, "B", "B"),
    (5e-10, "s", "ns"), (5e-6, "s", "μs"), (5e-3, "s", "ms"), (5e-4, "s", "μs"), (5, "s", "s"), (5000, "s", "s"),
    (5e9, "FLOP", "GFLOP"), (2e15, "FLOP", "PFLOP"), (989.4e12, "FLOP/s", "TFLOP/s"),
    (700, "W", "W"), (10_200, "W", "kW"), (5e6, "W", "MW"), (3.6e6, "J", "MJ"), (3, "m", "m"),
    (100, "token/s", "token/s"), (1e6, "token/s", "token/s"), (192_512, "B/token", "kB/token"),
    (3, "GPU*s", "GPU*s"), (3e6, "USD", "USD"), (2e9, "Hz", "GHz"), (4, "m^2", "m^2"),
    (700, "W/GPU", "W/GPU"), (1, "USD/GPU/h", "USD/GPU/s"), (1, "request/s", "request/s"),
    (1, "1/token", "1/token"), (-3e9, "B", "GB"), (1, "session", "session"),
])
def test_compact_unit(value: float, unit: str, expected: str) -> None:
    d = dims(unit)
    chosen = compact_unit(value, d)
    assert chosen == expected
    assert parse_unit(chosen).dimensions == d


def test_compact_unit_binary() -> None:
    assert compact_unit(470.2e9, dims("B"), binary=True) == "GiB"
    assert compact_unit(188 * 1024, dims("B"), binary=True) == "KiB"
    assert compact_unit(3.35e12, dims("B/s"), binary=True) == "TiB/s"
    assert compact_unit(5e9, dims("FLOP"), binary=True) == "GFLOP"


def test_compact_unit_dimensionless_and_odd() -> None:
    assert compact_unit(3.0, DIMENSIONLESS) is None
    assert compact_unit(math.nan, dims("B")) == "B"
    assert compact_unit(math.inf, dims("s")) == "s"
    odd = (("GPU", 2.0), ("information", -1.0), ("session", 1.0), ("token", -0.5))
    text = compact_unit(1.0, odd)
    assert text is not None and parse_unit(text).dimensions == odd


def test_compact_unit_value_lands_in_range() -> None:
    for value in (1.0, 999.0, 1000.0, 1.5e3, 2.5e7, 8e11, 3e14):
        text = compact_unit(value, dims("B"))
        assert text is not None
        assert 1 <= convert(value, text) < 1000


def test_positional_places_the_point_as_decimal_does() -> None:
    """format_number's positional text (no Decimal, for speed) is Decimal's, over magnitudes from
    1e-12 to 1e17, both signs, 1 to 17 digits, and values that round up to the next power of ten."""
    import random
    from decimal import Decimal

    from supersheet.units.display import positional
    pick = random.Random(30)
    values = [9.9995, 99.995, 0.00099995, 999.95, 1.0, 10.0, 1e15, 5e-10, 123456789.0, 0.1 + 0.2]
    values += [pick.choice((-1, 1)) * 10 ** pick.uniform(-12, 17) for _ in range(20000)]
    compared = 0
    for x in values:
        for digits in (1, 2, 3, 4, 6, 15, 17):
            scientific = f"{x:.{digits - 1}e}"
            assert positional(scientific) == format(Decimal(scientific), "f"), (x, digits)
            compared += 1
    assert compared == len(values) * 7


def test_format_number_takes_the_g_format_where_it_is_the_same_text() -> None:
    """format_number's short path (Python's `g` where it writes no exponent) gives the text of its
    general path (the e-format's digits with the point placed, trailing zeros dropped), over
    magnitudes from 1e-9 to 1e15, both signs, 1 to 17 digits, values rounding up to a power of ten."""
    import random

    from supersheet.units.display import _strip_zeros, positional
    pick = random.Random(31)
    values = [9.9995, 99.995, 0.00099995, 0.000099995, 999.95, 9999.5, 1.0, 10.0, 1e-4, 9.99995e-5, 123456789.0]
    values += [pick.choice((-1, 1)) * 10 ** pick.uniform(-9, 15) for _ in range(20000)]
    compared = 0
    for x in values:
        for digits in (1, 2, 3, 4, 6, 15, 17):
            if abs(x) >= 10 ** digits:
                continue   # shown rounded to an integer, before either path
            assert format_number(x, digits) == _strip_zeros(positional(f"{x:.{digits - 1}e}")), (x, digits)
            compared += 1
    assert compared > 50000
