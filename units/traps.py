"""Unit symbols that are almost always a slip in this domain (format 9.3).

Pint knows thousands of symbols, and some short ones catch a typist: ``128K``
is 128 kelvin, not a context length; ``70 G`` is 70 gauss; ``80 mb`` is 80
*milli*-bits, which stays "information" so nothing downstream would notice.
A unit written as a **symbol** (or a short alias such as ``L``) whose dimension
is outside the ones these sheets use is refused with a hint that names what
the symbol is and what was likely meant; the same unit stays available by its
full name (``kelvin``, ``gauss``), because a name is never typed by accident.
Information below one bit or byte (a milli-, micro- ... prefix) is refused
whatever the spelling: it does not exist.
"""

from __future__ import annotations

from typing import Any

from supersheet.units.dimensions import Dimensions, describe, make_dimensions

# The dimensions of this domain: information, time, frequency, FLOP, token,
# request, session, GPU, money, power, energy, length, area, dimensionless --
# and what a single unit symbol builds from them (FLOPS, bps, Wh, knots).
_DOMAIN_BASES = frozenset({"information", "time", "FLOP", "token", "request", "session", "GPU", "money"})
_ENERGY = {"mass": 1.0, "length": 2.0, "time": -2.0}


def in_domain(dims: Dimensions) -> bool:
    """Whether a unit of these dimensions is one this domain uses (energy and
    power are the only places mass appears; length only as a length or an area)."""
    rest = dict(dims)
    if rest.get("mass") == 1.0 and rest.get("length") == 2.0 and rest.get("time", 0.0) in (-2.0, -3.0):
        for name, exponent in _ENERGY.items():
            rest[name] = rest.get(name, 0.0) - exponent
    if rest.get("length", 0.0) not in (0.0, 1.0, 2.0):
        return False
    return all(name in _DOMAIN_BASES or name == "length" for name, exponent in rest.items() if exponent != 0.0)


# A short alias (``L``, ``°K``) is as easy to type by accident as a symbol.
_SHORT = 3

# What a dimension is called, for hints; others are spelled out (``length^3``).
_QUANTITIES: dict[Dimensions, str] = {make_dimensions(d): word for d, word in (
    ({"temperature": 1}, "a temperature"),
    ({"mass": 1}, "a mass"),
    ({"length": 3}, "a volume"),
    ({"mass": 1, "length": -1, "time": -2}, "a pressure"),
    ({"mass": 1, "length": 1, "time": -2}, "a force"),
    ({"mass": 1, "current": -1, "time": -2}, "a magnetic flux density"),
    ({"mass": 0.5, "length": -0.5, "time": -1}, "a magnetic flux density (CGS)"),
    ({"mass": 1, "length": 2, "time": -2, "temperature": -1}, "energy per temperature"),
    ({"current": 1}, "an electric current"),
    ({"mass": 1, "length": 2, "time": -3, "current": -1}, "an electric potential"),
)}

# What the typist most likely meant, for the classic slips (by canonical unit name).
_MEANT: dict[str, str] = {
    "kelvin": 'for a context length write "131072 token" or "128 Kitoken" ("128 ktoken" is 128,000)',
    "boltzmann_constant": 'for a thousand write "128000" or a unit with a prefix: "128 ktoken"',
    "gauss": 'for giga- write the unit too: "70 GB", "70 GFLOP", "70 GHz"',
    "tesla": 'for tera- write the unit too: "1 TB", "1 TFLOP"',
    "pint": 'for parts per thousand write "‰"',
    "carat": 'for a percentage write "%"',
    "technical_atmosphere": 'information is written in bits ("bit", "b") or bytes ("B")',
}


def domain_trap(name: str, prefix: str, prefix_name: str, definition: Any, dims: Dimensions,
                prefix_scale: float) -> tuple[str, str] | None:
    """(message, hint) when the written unit ``name`` is a slip, else None.

    ``prefix`` is the prefix as written, ``definition`` Pint's UnitDefinition of
    the unit after it, ``dims`` that unit's dimensions.
    """
    unit_name: str = definition.name
    base = name[len(prefix):]
    if dims == make_dimensions({"information": 1}) or ("information", 1.0) in dims:
        if prefix_scale < 1:
            spellings = " or ".join(f'"M{b}"' for b in _other_case(base))
            return (f'"{name}" has the prefix {prefix_name}- (×{prefix_scale:g}): a fraction of a bit or byte',
                    f"information has no fractions of a bit: did you mean {spellings}?")
        return None
    if in_domain(dims):
        return None
    symbol = definition.symbol
    if base != symbol and (len(base) > _SHORT or "_" in base or base == unit_name):
        return None   # a full name (kelvin, gauss, delta_degC): written on purpose
    what = f"{prefix_name}-{unit_name}" if prefix_name else unit_name
    quantity = _QUANTITIES.get(dims, describe(dims))
    full = f"{prefix_name}{unit_name}" if prefix_name else unit_name
    meant = _MEANT.get(unit_name)
    hint = f"{meant}; {quantity} is written by name: " if meant else f"if you mean {quantity}, write it by name: "
    return (f'"{name}" is the {what.replace("_", " ")} ({quantity}), not a unit of this domain',
            f'{hint}"{full}"')


def _other_case(base: str) -> tuple[str, ...]:
    """``b`` -> (b, B); ``B`` -> (B, b); ``bit`` -> (bit,): the bit/byte twin of a symbol."""
    if base[:1] in ("b", "B") and (len(base) == 1 or base[1:] == "ps"):
        twin = base.swapcase() if len(base) == 1 else base[0].swapcase() + base[1:]
        return (base, twin)
    return (base,)
