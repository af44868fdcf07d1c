"""Showing values: base magnitude -> text in a unit, and picking a compact unit.

Everything here works on float magnitudes in base units (see ``Unit``) and
Dimensions; Pint is only touched through ``parse_unit`` (cached).
"""

from __future__ import annotations

import functools
import math

from supersheet.units.dimensions import Dimensions, format_exponent
from supersheet.units.parse import UnitError, parse_unit

# Outside [1e-9, 1e15] positional notation gets unreadable: use "1.235e-12".
_SMALLEST_POSITIONAL = 1e-9
_LARGEST_POSITIONAL = 1e15


# Any decimal of at most 15 significant digits survives a trip through a double (DBL_DIG).
EXACT_DIGITS = 15
_EXACT_FORMAT = f".{EXACT_DIGITS}g"   # (built once: in_unit runs for every value shown)


def convert(base_magnitude: float, unit: str) -> float:
    """A magnitude in base units -> the magnitude in ``unit`` (see ``in_unit``)."""
    return in_unit(base_magnitude, parse_unit(unit).factor)


def in_unit(base_magnitude: float, factor: float) -> float:
    """``base_magnitude / factor``, without conversion noise (format 9.4).

    A value the user typed as ``0.1 us`` is stored as ``0.1 * 1e-6`` in seconds,
    and dividing back gives ``0.09999999999999999``. The quotient rounded to 15
    significant digits is taken instead whenever it converts back to the very
    same base magnitude -- so it is the same value, in the user's spelling, and
    every typed number comes back exactly. Otherwise the plain quotient stays.
    """
    quotient = base_magnitude / factor
    if factor == 1.0 or quotient == 0 or not math.isfinite(quotient):
        return quotient
    short = float(format(quotient, _EXACT_FORMAT))
    return short if short * factor == base_magnitude else quotient


def format_number(x: float, digits: int = 4) -> str:
    """``digits`` significant digits, positional, no trailing zeros: 61.4966 -> "61.5".

    Numbers with more integer digits than ``digits`` are rounded to an integer
    (1234567.8 -> "1234568"), never shown as "1.235e+06"; only magnitudes
    outside [1e-9, 1e15] use exponent notation.
    """
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    digits = max(1, digits)
    magnitude = abs(x)
    if magnitude < _SMALLEST_POSITIONAL or magnitude > _LARGEST_POSITIONAL:
        mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
        return f"{_strip_zeros(mantissa)}e{exponent}"
    if magnitude >= 10**digits:
        return str(round(x))
    # Python's `g` is this text wherever it writes no exponent (the same correctly rounded digits,
    # its trailing zeros and point dropped): the exponent only where rounding reaches 10**digits
    # or below 1e-4, which take the general path
    text = format(x, _GENERAL[digits] if digits < len(_GENERAL) else f".{digits}g")
    if "e" not in text:
        return text
    return _strip_zeros(positional(f"{x:.{digits - 1}e}"))


_GENERAL = [f".{digits}g" for digits in range(18)]   # format specs, built once (a value shown a cell)


def positional(scientific: str) -> str:
    """`format(Decimal(scientific), "f")` for Python's `e` format of a float (`-6.150e+01` ->
    `-61.50`), placing the point in the digits as written: ~5x faster than through Decimal
    (`run` shows every cell: 7 % of its text's rendering on a 20,000-cell sheet)."""
    mantissa, _, exponent = scientific.partition("e")
    sign = "-" if mantissa[0] == "-" else ""
    figures = mantissa.lstrip("-").replace(".", "")
    point = int(exponent) + 1   # how many of the figures stand before the point
    if point <= 0:
        return f"{sign}0.{'0' * -point}{figures}"
    if point >= len(figures):
        return sign + figures + "0" * (point - len(figures))
    return f"{sign}{figures[:point]}.{figures[point:]}"


def _strip_zeros(text: str) -> str:
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def format_quantity(base_magnitude: float, dims: Dimensions, unit: str | None = None, digits: int = 4) -> str:
    """``"3.35 TB/s"``: the value in ``unit`` (or in ``compact_unit`` when None) with its unit.

    A dimensionless value without a unit is just the number.  Raises UnitError
    when ``unit`` does not have the dimensions ``dims``.
    """
    if not unit:
        unit = compact_unit(base_magnitude, dims)
        if unit is None:
            return format_number(base_magnitude, digits)
    parsed = parse_unit(unit)
    if parsed.dimensions != dims:
        raise UnitError(f'cannot show a value of dimensions {dims!r} in "{unit}"', 0, len(unit))
    return f"{format_number(base_magnitude / parsed.factor, digits)} {parsed.text}"


# The unit shown for each base dimension. Dimensions outside this domain are
# shown by name (kelvin, not K): their symbols are refused as slips (units/traps.py).
_SYMBOLS: dict[str, str] = {
    "money": "USD", "information": "B", "FLOP": "FLOP", "length": "m", "mass": "gram",
    "current": "ampere", "temperature": "kelvin", "substance": "mole", "luminosity": "candela",
    "GPU": "GPU", "token": "token", "request": "request", "session": "session", "time": "s",
}
# Order of factors in a built unit: the first one is the one that gets a prefix.
_ORDER: tuple[str, ...] = (
    "money", "information", "FLOP", "W", "J", "Hz", "length", "mass", "current", "temperature",
    "substance", "luminosity", "GPU", "token", "request", "session", "time",
)

_DECIMAL = {"n": 1e-9, "μ": 1e-6, "m": 1e-3, "": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
_BINARY = {"": 1.0, "Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50, "Ei": 2.0**60}


def _decimal(*names: str) -> dict[str, float]:
    return {name: _DECIMAL[name] for name in names}


# Prefixes each symbol may take when it leads the unit, smallest first.
_PREFIXES: dict[str, dict[str, float]] = {
    "B": _decimal("", "k", "M", "G", "T", "P", "E"),
    "FLOP": _decimal("", "k", "M", "G", "T", "P", "E"),
    "s": _decimal("n", "μ", "m", ""),
    "m": _decimal("n", "μ", "m", "", "k"),
    "gram": {"micro": 1e-6, "milli": 1e-3, "": 1.0, "kilo": 1e3},
    "W": _decimal("m", "", "k", "M", "G"),
    "J": _decimal("μ", "m", "", "k", "M", "G", "T"),
    "Hz": _decimal("", "k", "M", "G", "T"),
}

# Derived units recognised inside a dimension product: (symbol, exponents taken out).
_COMPOSITES: tuple[tuple[str, dict[str, float]], ...] = (
    ("W", {"mass": 1.0, "length": 2.0, "time": -3.0}),
    ("J", {"mass": 1.0, "length": 2.0, "time": -2.0}),
)


def compact_unit(base_magnitude: float, dims: Dimensions, binary: bool = False) -> str | None:
    """A display unit for a value whose sheet gives none, or None when dimensionless.

    The leading factor gets the prefix that puts the value in [1, 1000)
    (binary=True: KiB, MiB ... for information); counts (token, GPU, USD ...)
    are never prefixed; ``time`` is never prefixed above s.
    """
    shape = _compact_shape(dims, binary)
    if shape is None or isinstance(shape, str):
        return shape
    lead, tail, prefixes, factor = shape
    value = abs(base_magnitude / factor)
    chosen = "" if "" in prefixes else next(iter(prefixes))
    if math.isfinite(value) and value > 0:
        chosen = next(iter(prefixes))
        for prefix, scale in prefixes.items():
            if value >= scale * (1 - 1e-12):
                chosen = prefix
    return chosen + lead + tail


@functools.lru_cache(maxsize=1024)   # a large sheet shows thousands of values of the same few dimensions
def _compact_shape(dims: Dimensions, binary: bool) -> str | tuple[str, str, dict[str, float], float] | None:
    """What of `compact_unit` does not depend on the value: None (no unit), the unit (no
    prefix to choose), or the leading symbol, the rest, its prefixes and the unit's factor."""
    if not dims:
        return None
    factors = _factor(dims)
    if factors is None:
        return None
    numerator = [(s, e) for s, e in factors if e > 0]
    denominator = [(s, -e) for s, e in factors if e < 0]

    def term(symbol: str, exponent: float) -> str:
        return symbol if exponent == 1 else f"{symbol}^{format_exponent(exponent)}"

    rest = "".join(f"/{term(s, e)}" for s, e in denominator)
    if not numerator:
        return "1" + rest
    lead, lead_exponent = numerator[0]
    tail = "".join(f"*{term(s, e)}" for s, e in numerator[1:]) + rest
    prefixes = _PREFIXES.get(lead)
    if lead_exponent != 1 or prefixes is None:
        return term(lead, lead_exponent) + tail
    if binary and lead == "B":
        prefixes = _BINARY
    return lead, tail, prefixes, parse_unit(lead + tail).factor


def _factor(dims: Dimensions) -> list[tuple[str, float]] | None:
    """Dimensions -> ordered (symbol, exponent) factors, with W/J/Hz recognised."""
    remaining = dict(dims)
    found: dict[str, float] = {}
    for symbol, parts in _COMPOSITES:
        if all(remaining.get(name) == exponent for name, exponent in parts.items()):
            for name in parts:
                del remaining[name]
            found[symbol] = 1.0
            break
    if remaining == {"time": -1.0} and not found:
        return [("Hz", 1.0)]
    for name, exponent in remaining.items():
        if _SYMBOLS.get(name) is None:
            return None
        found[name] = exponent
    ordered = sorted(found.items(), key=lambda item: _ORDER.index(item[0]))
    return [(_SYMBOLS.get(key, key), exponent) for key, exponent in ordered]
