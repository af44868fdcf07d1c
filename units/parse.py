"""Unit text -> Unit: the tokenizer, name resolution against Pint, and errors.

Grammar of a unit (no spaces, no parentheses; ``*``/``·`` and ``/`` read left
to right, so ``USD/GPU/h`` is USD/(GPU*h))::

    unit   := factor ( ("*" | "·" | "/") factor )*
    factor := ( NAME | NUMBER ) ( ("^" | "**") ["-" | "+"] NUMBER )?

Each NAME is looked up in the registry: first as written (so our explicit
``Gb``/``KB`` win), then as prefix + unit, then as a plural (``tokens``) --
never a plural of a one-letter unit, as in Pint, so ``GBs`` is unknown.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from supersheet.units._names import known as resolved_before
from supersheet.units._names import remember as remember_resolved
from supersheet.units._registry import registry
from supersheet.units.dimensions import Dimensions, make_dimensions
from supersheet.units.traps import domain_trap

if TYPE_CHECKING:
    import pint


@dataclass(frozen=True, slots=True)
class Unit:
    """A parsed unit: ``base_magnitude = magnitude * factor``.

    Base units: byte, second, meter, kilogram (SI: J and W have factor 1), FLOP,
    token, request, session, GPU, USD.
    """

    text: str
    factor: float
    dimensions: Dimensions


class UnitError(Exception):
    """A unit that cannot be read; ``offset``/``length`` locate the bad part of the text."""

    def __init__(self, message: str, offset: int, length: int, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.length = length
        self.hint = hint

    def __reduce__(self) -> tuple[type[UnitError], tuple[str, int, int, str | None]]:
        # Picklable (e.g. across process pools) despite the extra constructor arguments.
        return (type(self), (self.message, self.offset, self.length, self.hint))

    def __repr__(self) -> str:
        return f"UnitError({self.message!r}, offset={self.offset}, length={self.length}, hint={self.hint!r})"


# Units offered in did-you-mean hints before the rest of Pint's thousand names.
COMMON_UNITS: tuple[str, ...] = (
    "B", "kB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB", "PiB",
    "bit", "byte", "Kbit", "Mbit", "Gbit", "Tbit", "Gb", "Mbps", "Gbps", "Tbps",
    "FLOP", "GFLOP", "TFLOP", "PFLOP", "token", "request", "session", "GPU", "card", "USD", "%",
    "s", "ms", "μs", "us", "ns", "min", "h", "day", "Hz", "kHz", "MHz", "GHz",
    "W", "kW", "MW", "J", "kJ", "MJ", "Wh", "kWh", "MWh", "m", "km", "cm", "mm", "nm", "g", "kg",
)

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
    | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
    | (?P<pow>\^|\*\*)
    | (?P<op>[*/·⋅])
    | (?P<sign>[-+])
    | (?P<name>(?:[^\W\d]|[%‰°Ω$])(?:\w|°)*)
    """,
    re.VERBOSE,
)

_GRAMS_PER_KILOGRAM = 1000.0
# Every spelling of the micro prefix is shown as U+03BC.
_MICRO = "μ"
_AMBIGUOUS_FLOPS = re.compile(r"(.*)(FLOPs|flops|Flops)")


@dataclass(frozen=True, slots=True)
class _Token:
    """One token of a unit expression: its kind, text and offset."""
    kind: str
    text: str
    offset: int


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise UnitError(f'unexpected "{text[position]}" in unit "{text}"', position, 1)
        kind = match.lastgroup or ""
        if kind == "space":
            raise UnitError(
                "a unit contains no spaces", position, match.end() - position,
                "write the unit without spaces (GB/s, GPU*s); with spaces * and / are arithmetic",
            )
        tokens.append(_Token(kind, match.group(), position))
        position = match.end()
    return tokens


@functools.lru_cache(maxsize=4096)
def parse_unit(text: str) -> Unit:
    """Read a unit such as ``GB/s``, ``USD/GPU/h``, ``m/s^2``, ``μs``, ``%``; raises UnitError."""
    if not text:
        raise UnitError("empty unit", 0, 0)
    tokens = _tokenize(text)
    factor = 1.0
    exponents: list[tuple[str, float]] = []
    pieces: list[str] = []
    sign = 1.0
    i = 0
    while True:
        if i >= len(tokens):  # only after an operator: "GB/"
            raise UnitError(f'unit "{text}" ends after "{tokens[-1].text}"', len(text), 0)
        token = tokens[i]
        if token.kind == "number":
            value = float(token.text)
            names: tuple[tuple[str, float], ...] = ()
            pieces.append(token.text)
        elif token.kind == "name":
            value, names, shown = _resolve(token, text)
            pieces.append(shown)
        else:
            raise UnitError(f'expected a unit name, found "{token.text}"', token.offset, len(token.text))
        i += 1
        exponent = 1.0
        if i < len(tokens) and tokens[i].kind == "pow":
            pieces.append(tokens[i].text)
            exponent, used, written = _read_exponent(tokens, i + 1, text)
            pieces.append(written)
            i += 1 + used
        try:
            factor *= value ** (sign * exponent)
        except OverflowError:
            factor = math.inf
        if not math.isfinite(factor) or factor == 0.0:  # e.g. GB^1000: beyond a 64-bit float
            raise UnitError(f'unit "{text}" is out of range (its factor is not a finite number)', 0, len(text),
                            "use a smaller power or a plain number")
        exponents.extend((name, e * sign * exponent) for name, e in names)
        if i >= len(tokens):
            break
        token = tokens[i]
        if token.kind != "op":
            raise UnitError(
                f'expected "*", "/" or the end of the unit, found "{token.text}"', token.offset, len(token.text)
            )
        sign = -1.0 if token.text == "/" else 1.0
        pieces.append(token.text)
        i += 1
    return Unit("".join(pieces), factor, make_dimensions(exponents))


def _read_exponent(tokens: list[_Token], i: int, text: str) -> tuple[float, int, str]:
    """The exponent after ``^``/``**``: (value, tokens used, text)."""
    written = ""
    used = 0
    negative = False
    if i < len(tokens) and tokens[i].kind == "sign":
        negative = tokens[i].text == "-"
        written = tokens[i].text
        i += 1
        used += 1
    if i >= len(tokens) or tokens[i].kind != "number":
        where = tokens[i].offset if i < len(tokens) else len(text)
        raise UnitError("expected a number after the power sign", where, 0 if i >= len(tokens) else len(tokens[i].text))
    value = float(tokens[i].text)
    if not math.isfinite(value):
        raise UnitError("the power is too large", tokens[i].offset, len(tokens[i].text))
    return (-value if negative else value), used + 1, written + tokens[i].text


def _resolve(token: _Token, text: str) -> tuple[float, tuple[tuple[str, float], ...], str]:
    """A unit name -> (factor to base units, dimension exponents, normalised spelling)."""
    name = token.text
    ambiguous = _AMBIGUOUS_FLOPS.fullmatch(name)
    if ambiguous:
        prefix = ambiguous.group(1)
        raise UnitError(
            f'ambiguous unit "{name}"', token.offset, len(name),
            f'write "{prefix}FLOP/s" for a rate or "{prefix}FLOP" for an amount',
        )
    known = resolved_before().get(name)
    if known is not None:   # resolved by an earlier process: no Pint (units/_names.py)
        return known[0], known[1], known[2]
    ureg = registry()
    found = _lookup(ureg, name)
    if found is None:
        raise UnitError(f'unknown unit "{name}"', token.offset, len(name), _hint(ureg, token, text))
    prefix_written, prefix_name, unit_name = found
    definition = ureg._units[unit_name]
    if not definition.is_multiplicative:
        message, hint = _not_a_factor(name, definition)
        raise UnitError(message, token.offset, len(name), hint)
    from pint.util import UnitsContainer   # deferred: numpy, pint

    root_factor, _ = ureg.get_root_units(UnitsContainer({unit_name: 1}))
    dims = ureg.get_dimensionality(UnitsContainer({unit_name: 1}))
    scale = ureg._prefixes[prefix_written].converter.scale if prefix_written else 1
    exponents = tuple((str(d), float(e.real)) for d, e in dims.items())   # pint types them as any number
    trap = domain_trap(name, prefix_written, prefix_name, definition, make_dimensions(exponents), float(scale))
    if trap is not None:
        raise UnitError(trap[0], token.offset, len(name), trap[1])
    shown = name
    if prefix_name == "micro":
        shown = _MICRO + name[len(prefix_written):]
    shown = shown.replace("µ", _MICRO)
    # Pint's root mass unit is the gram; ours is the SI kilogram, so that J and W have factor 1.
    kilograms = _GRAMS_PER_KILOGRAM ** -float(dims.get("[mass]", 0).real)
    factor = float(scale) * float(root_factor.real) * kilograms
    remember_resolved(name, (factor, exponents, shown, prefix_name, unit_name))
    return factor, exponents, shown


def _not_a_factor(name: str, definition: Any) -> tuple[str, str]:
    """(message, hint) for a unit that is not a multiple of a base unit: an offset or a logarithm."""
    if type(definition.converter).__name__ == "LogarithmicConverter":  # Pint's UnitDefinition (Any: Pint is untyped here)
        return (f'unit "{name}" is logarithmic (a ratio on a log scale, like dB) and cannot be used here',
                "write the ratio as a plain number: a decade is a factor of 10, 3 dB about 2")
    return (f'unit "{name}" has an offset (like °C) and cannot be used here',
            'write a temperature in "kelvin", a temperature difference in "delta_degC"')


def _lookup(ureg: pint.UnitRegistry, name: str) -> tuple[str, str, str] | None:
    """(prefix as written, prefix's name, unit's canonical name), or None when unknown."""
    units = ureg._units
    if name in units:
        return "", "", units[name].name
    prefixes = [p for p in ureg._prefixes if p and name.startswith(p)]
    for prefix in prefixes:
        if name[len(prefix):] in units:
            return prefix, ureg._prefixes[prefix].name, units[name[len(prefix):]].name
    if name.endswith("s"):
        stem = name[:-1]
        if len(stem) > 1 and stem in units:
            return "", "", units[stem].name
        for prefix in prefixes:
            rest = stem[len(prefix):]
            if len(rest) > 1 and rest in units:
                return prefix, ureg._prefixes[prefix].name, units[rest].name
    return None


def _hint(ureg: pint.UnitRegistry, token: _Token, text: str) -> str | None:
    """'did you mean "GB/s"?': the whole unit with the bad name replaced by a close known one."""
    import difflib   # deferred: difflib (~1 ms at every start of the command): only an unknown unit needs it
    name = token.text
    cased = next((c for c in (name.lower(), name[:1].lower() + name[1:]) if c != name and _lookup(ureg, c)), None)
    if cased is not None:   # `Gigabytes`: the unit in lower case, not a near spelling of another (`byte`)
        return f'units are case-sensitive: did you mean "{text[: token.offset]}{cased}{text[token.offset + len(name):]}"?'
    match = next((u for u in COMMON_UNITS if u.lower() == name.lower()), None)
    if match is None:
        close = difflib.get_close_matches(name, COMMON_UNITS, n=1, cutoff=0.6)
        if not close:
            others = [u for u in ureg._units if len(u) > 2 and u.isascii()]
            close = difflib.get_close_matches(name, others, n=1, cutoff=0.8)
        match = close[0] if close else None
    if match is None:
        return None
    return f'did you mean "{text[: token.offset]}{match}{text[token.offset + len(name):]}"?'



# Information units defined with a decimal multiple rather than a prefix (definitions.txt).
_DECIMAL_INFORMATION = frozenset({"kilobyte", "kilobit", "gigabit"})


@functools.lru_cache(maxsize=4096)
def prefix_family(text: str) -> str | None:
    """The prefix family of a unit's information part, so that a result can be
    shown in its operands' family: ``"binary"`` (KiB, Gibit), ``"decimal"``
    (kB, Gb, Mbps), ``"mixed"`` (both), or None (B, bit, s, %)."""
    found: set[str] = set()
    for token in _tokenize(text):
        if token.kind != "name":
            continue
        known = resolved_before().get(token.text)
        resolved = ("", known[3], known[4]) if known is not None else _lookup(registry(), token.text)
        if resolved is None:
            continue
        _, prefix_name, unit_name = resolved
        if prefix_name.endswith("bi"):
            found.add("binary")
        elif (prefix_name or unit_name in _DECIMAL_INFORMATION) \
                and any(name == "information" for name, _ in parse_unit(token.text).dimensions):
            found.add("decimal")
    return ("mixed" if len(found) > 1 else next(iter(found))) if found else None
