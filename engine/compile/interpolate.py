"""Interpolation in a table of points (`interp`, `log_interp`, their `_extrapolate`
forms, and `lookup`): one definition in Python floats for the one-row path
(scalar.py) and one over a whole column for sweeps and fits (numpy, called by
the Polars plan: compile_calls.py), which agree to the last bit on every row
because both do the same float operations in the same order.

`xs` must be strictly increasing (else #NUM). `interp` is piecewise linear;
`log_interp` is linear in log x and log y (a power law between points, for
sizes that span decades: every x, xs, ys must be > 0, else #NUM). Outside
[xs[0], xs[-1]] both are #NUM unless extrapolating, where the first or last
segment is extended. `lookup` is `ys[i]` where `x == xs[i]` exactly, else #NUM.
Imports nothing heavy: scalar.py must start without numpy (a numpy array is only
passed in by the column path).
"""
from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from typing import Any

INTERPOLATIONS = ("interp", "log_interp", "interp_extrapolate", "log_interp_extrapolate", "lookup")


def increasing(xs: list[float]) -> bool:
    return all(a < b for a, b in zip(xs, xs[1:]))


def interpolate(kind: str, x: float, xs: list[float], ys: list[float]) -> float | None:
    """The value at `x`, or None where it has none (#NUM). `xs` and `ys` are floats of one length."""
    n = len(xs)
    if n == 0 or n != len(ys) or not increasing(xs) or x != x:
        return None
    if kind == "lookup":
        i = bisect_left(xs, x)
        return ys[i] if i < n and xs[i] == x else None
    log = kind.startswith("log")
    if log and (x <= 0 or xs[0] <= 0 or min(ys) <= 0):
        return None
    if not kind.endswith("_extrapolate") and not xs[0] <= x <= xs[-1]:
        return None
    if n == 1:
        return ys[0] if x == xs[0] else None
    i = min(max(bisect_right(xs, x) - 1, 0), n - 2)
    return _between(x, xs[i], xs[i + 1], ys[i], ys[i + 1], log)


def _between(x: float, x0: float, x1: float, y0: float, y1: float, log: bool) -> float:
    if log:
        t = (math.log(x) - math.log(x0)) / (math.log(x1) - math.log(x0))
        exponent = math.log(y0) + t * (math.log(y1) - math.log(y0))
        return math.inf if exponent > 709.8 else math.exp(exponent)   # beyond a float: #NUM (finite())
    return y0 + (x - x0) / (x1 - x0) * (y1 - y0)


def interpolate_column(kind: str, x: Any, xs: list[float], ys: list[float]) -> Any:
    """`interpolate` over a numpy array `x`: NaN where a row has no value."""
    import numpy as np   # deferred: numpy
    x = np.asarray(x, dtype=np.float64)
    out = np.full(x.shape, np.nan)
    n = len(xs)
    if n == 0 or n != len(ys) or not increasing(xs):
        return out
    grid, values = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
    valid = ~np.isnan(x)
    if kind == "lookup":
        i = np.clip(np.searchsorted(grid, x, side="left"), 0, n - 1)
        hit = valid & (grid[i] == x)
        out[hit] = values[i[hit]]
        return out
    log = kind.startswith("log")
    if log:
        if xs[0] <= 0 or min(ys) <= 0:
            return out
        valid &= x > 0
    if not kind.endswith("_extrapolate"):
        valid &= (x >= grid[0]) & (x <= grid[-1])
    if n == 1:
        hit = valid & (x == grid[0])
        out[hit] = values[0]
        return out
    i = np.clip(np.searchsorted(grid, x, side="right") - 1, 0, n - 2)
    at = x[valid]
    j = i[valid]
    x0, x1, y0, y1 = grid[j], grid[j + 1], values[j], values[j + 1]
    if log:
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (np.log(at) - np.log(x0)) / (np.log(x1) - np.log(x0))
            out[valid] = np.exp(np.log(y0) + t * (np.log(y1) - np.log(y0)))
    else:
        out[valid] = y0 + (at - x0) / (x1 - x0) * (y1 - y0)
    return out
