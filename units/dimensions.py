"""Dimensions: a unit's exponents over named base dimensions, and their algebra.

A ``Dimensions`` value is a tuple of ``(name, exponent)`` pairs sorted by name,
without zero exponents and without Pint's brackets, e.g.
``(("information", 1.0), ("time", -1.0))``; dimensionless is ``()``.  Plain
tuples so the engine can hash, compare and print them without Pint.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

Dimensions = tuple[tuple[str, float], ...]
DIMENSIONLESS: Dimensions = ()

# Exponents are rounded so that e.g. sqrt(m^3)^2 compares equal to m^3.
_EXPONENT_DIGITS = 9


def make_dimensions(exponents: Mapping[str, float] | Iterable[tuple[str, float]]) -> Dimensions:
    """Normalise exponents (names may carry Pint's brackets) into Dimensions."""
    items = exponents.items() if isinstance(exponents, Mapping) else exponents
    total: dict[str, float] = {}
    for name, exponent in items:
        key = name.strip("[]")
        total[key] = total.get(key, 0.0) + float(exponent)
    result = []
    for name in sorted(total):
        exponent = round(total[name], _EXPONENT_DIGITS) + 0.0  # +0.0 turns -0.0 into 0.0
        if exponent != 0.0:
            result.append((name, exponent))
    return tuple(result)


@functools.lru_cache(maxsize=4096)   # a sheet multiplies the same few dimensions thousands of times
def multiply(a: Dimensions, b: Dimensions) -> Dimensions:
    """Dimensions of a product."""
    return make_dimensions((*a, *b))


@functools.lru_cache(maxsize=4096)
def divide(a: Dimensions, b: Dimensions) -> Dimensions:
    """Dimensions of a quotient."""
    return make_dimensions((*a, *((name, -exponent) for name, exponent in b)))


def power(a: Dimensions, p: float) -> Dimensions:
    """Dimensions of ``a ** p`` (``p = 0.5`` for a square root)."""
    return make_dimensions((name, exponent * p) for name, exponent in a)


def format_exponent(exponent: float) -> str:
    """``2.0 -> "2"``, ``0.5 -> "0.5"``."""
    return str(int(exponent)) if float(exponent).is_integer() else repr(float(exponent))


def describe(d: Dimensions) -> str:
    """Human words: ``"information/time"``, ``"GPU*time"``, ``"length^2"``, ``"dimensionless"``."""
    if not d:
        return "dimensionless"

    def term(name: str, exponent: float) -> str:
        return name if exponent == 1 else f"{name}^{format_exponent(exponent)}"

    numerator = "*".join(term(n, e) for n, e in d if e > 0) or "1"
    denominator = "".join(f"/{term(n, -e)}" for n, e in d if e < 0)
    return numerator + denominator
