"""Format 9.3: unit symbols that are a slip in this domain are refused with a
hint naming what the symbol is and what was meant; full names stay available."""
from __future__ import annotations

import pytest

from supersheet.units import parse_unit
from supersheet.units.parse import UnitError
from supersheet.units.traps import in_domain

# symbol -> (words the message must contain, words the hint must contain)
REFUSED: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "K": (("kelvin", "temperature"), ("131072 token", "128 Kitoken", '"128 ktoken" is 128,000', '"kelvin"')),
    "°K": (("kelvin",), ('"kelvin"',)),
    "k": (("boltzmann constant",), ("128000", '"boltzmann_constant"')),
    "G": (("gauss", "magnetic"), ("70 GB", '"gauss"')),
    "T": (("tesla", "magnetic"), ("1 TB", '"tesla"')),
    "ppt": (("pico-pint", "volume"), ("‰", '"picopint"')),
    "pct": (("pico-carat", "mass"), ("%", '"picocarat"')),
    "nat": (("nano-technical atmosphere", "pressure"), ('"bit"', '"B"')),
    "g": (("gram", "mass"), ('"gram"',)),
    "kg": (("kilo-gram", "mass"), ('"kilogram"',)),
    "L": (("liter", "volume"), ('"liter"',)),
    "V": (("volt",), ('"volt"',)),
    "A": (("ampere", "current"), ('"ampere"',)),
    "N": (("newton", "force"), ('"newton"',)),
    "Pa": (("pascal", "pressure"), ('"pascal"',)),
    "mb": (("milli-", "fraction of a bit"), ('"Mb"', '"MB"')),
    "mB": (("milli-", "fraction of a bit"), ('"MB"', '"Mb"')),
    "ub": (("micro-", "fraction of a bit"), ('"Mb"', '"MB"')),
    "μB": (("micro-", "fraction of a bit"), ('"MB"', '"Mb"')),
    "nbit": (("nano-",), ('"Mbit"',)),
    "mbps": (("milli-",), ('"Mbps"', '"MBps"')),
    "cB": (("centi-",), ('"MB"',)),
}


@pytest.mark.parametrize("symbol", list(REFUSED))
def test_trap_symbol_is_refused_with_its_hint(symbol: str) -> None:
    with pytest.raises(UnitError) as info:
        parse_unit(symbol)
    message_words, hint_words = REFUSED[symbol]
    error = info.value
    assert (error.offset, error.length) == (0, len(symbol))
    for word in message_words:
        assert word in error.message, (word, error.message)
    assert error.hint is not None
    for word in hint_words:
        assert word in error.hint, (word, error.hint)


def test_trap_inside_a_compound_unit_points_at_the_symbol() -> None:
    with pytest.raises(UnitError) as info:
        parse_unit("mb/s")
    assert (info.value.offset, info.value.length) == (0, 2)
    with pytest.raises(UnitError) as info:
        parse_unit("USD/K")
    assert (info.value.offset, info.value.length) == (4, 1)


@pytest.mark.parametrize("name", ["kelvin", "gauss", "tesla", "delta_degC", "kilogram", "gram", "liter", "picopint",
                                  "boltzmann_constant", "k_B", "newton", "pascal"])
def test_full_names_stay_available(name: str) -> None:
    assert parse_unit(name).factor > 0


@pytest.mark.parametrize("unit", ["MB", "Mb", "kB", "KiB", "bit", "b", "B", "Gbps", "GB/s", "TFLOPS", "TFLOP/s",
                                  "ktoken", "token/s", "USD/GPU/h", "W", "kW", "kWh", "MJ", "Hz", "GHz", "ms", "μs",
                                  "min", "h", "day", "m", "km", "m^2", "%", "‰", "ppm", "mm", "nm"])
def test_domain_units_are_accepted(unit: str) -> None:
    assert in_domain(parse_unit(unit).dimensions)


@pytest.mark.parametrize(("unit", "words"), [
    ("decade", ("logarithmic",)), ("dB", ("logarithmic",)), ("degC", ("offset",)),
])
def test_units_that_are_not_a_factor_are_explained(unit: str, words: tuple[str, ...]) -> None:
    with pytest.raises(UnitError) as info:
        parse_unit(unit)
    assert all(w in info.value.message for w in words)
    assert "offset" not in info.value.message or unit == "degC"
    assert info.value.hint is not None and '"K"' not in info.value.hint   # never suggests a trap
