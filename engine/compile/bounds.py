"""What a sweep column's values are known to lie between, before any row is computed.

A sweep's axes have known ends, and most sheets combine them with + - * / min
max abs, roundings (floor, ceil, round), `if` and whole powers, with constants:
every such cell is then bounded by plain interval arithmetic. A
cell whose bounds are proven finite can never be #NUM, and a divisor whose
bounds exclude 0 never #DIV/0: the compiler then emits neither the guard, nor
the #NUM check, nor the error column — the rows' values are the same, without
the work that could only ever find nothing (bench/bench_sweep.py part 2).

Soundness: the rows are computed in floating point, so a claim here must hold
for the computed values, not the real ones. IEEE rounding is monotone, so the
same operation on the ends bounds it, except that Polars divides a column by a
scalar as a product with its reciprocal (an ulp off) and a sum may cancel:
every result is widened by a relative SLACK (far above an ulp) and an absolute
TINY, and no claim is made beyond LIMIT (a display unit may still scale a value
by 1e30 either way without overflowing). Anything this module does not know
(arrays, nulls, other functions) has no bounds: the compiler guards as before.
"""
from __future__ import annotations

import math
from typing import Iterable, Optional

Bounds = tuple[float, float]

LIMIT = 1e200
SLACK = 1e-9
TINY = 1e-200


def bounded(lo: float, hi: float) -> Optional[Bounds]:
    """[lo, hi] widened by the slack, or None where it may not be finite."""
    magnitude = max(abs(lo), abs(hi))
    if not magnitude <= LIMIT:   # inf or NaN too
        return None
    pad = magnitude * SLACK + TINY
    return lo - pad, hi + pad


def of_values(values: Iterable[float]) -> Optional[Bounds]:
    """The bounds of known numbers (an axis's ends or values, a constant)."""
    items = list(values)
    if not items or not all(isinstance(v, float) and math.isfinite(v) for v in items):
        return None
    return bounded(min(items), max(items))


def excludes_zero(b: Optional[Bounds]) -> bool:
    return b is not None and (b[0] > 0 or b[1] < 0)


def add(a: Bounds, b: Bounds) -> Optional[Bounds]:
    return bounded(a[0] + b[0], a[1] + b[1])


def subtract(a: Bounds, b: Bounds) -> Optional[Bounds]:
    return bounded(a[0] - b[1], a[1] - b[0])


def multiply(a: Bounds, b: Bounds) -> Optional[Bounds]:
    corners = [x * y for x in a for y in b]
    return bounded(min(corners), max(corners))


def divide(a: Bounds, b: Bounds) -> Optional[Bounds]:
    if not excludes_zero(b):
        return None
    corners = [x / y for x in a for y in b]
    return bounded(min(corners), max(corners))


def negate(a: Bounds) -> Bounds:
    return -a[1], -a[0]


def absolute(a: Bounds) -> Bounds:
    if a[0] >= 0:
        return a
    if a[1] <= 0:
        return negate(a)
    return 0.0, max(-a[0], a[1])


def whole(a: Bounds) -> Optional[Bounds]:
    """Of a rounding to whole numbers (floor, ceil, round)."""
    return bounded(float(math.floor(a[0])), float(math.ceil(a[1])))


def power(a: Bounds, exponent: int) -> Optional[Bounds]:
    """Of a ^ n for a whole n >= 0 (the only exponents that need no guard)."""
    try:
        ends = [a[0] ** exponent, a[1] ** exponent]
    except OverflowError:
        return None
    if a[0] < 0 < a[1] and exponent % 2 == 0:
        ends.append(0.0)
    return bounded(min(ends), max(ends))


def union(a: Bounds, b: Bounds) -> Bounds:
    return min(a[0], b[0]), max(a[1], b[1])


def smallest(items: list[Bounds]) -> Bounds:
    return min(b[0] for b in items), min(b[1] for b in items)


def largest(items: list[Bounds]) -> Bounds:
    return max(b[0] for b in items), max(b[1] for b in items)


BINARY = {"+": add, "-": subtract, "*": multiply, "/": divide}
