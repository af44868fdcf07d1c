"""Percentiles of a sample of finite numbers, by the definition docs/format.md gives.

The q-th percentile of n values is read at position p = (n - 1) * q / 100 of
the values in ascending order: the value there when p is whole, otherwise
lower + (p - floor p) * (upper - lower) between the values at floor p and
floor p + 1. These are the floating-point operations of Polars'
`quantile(q / 100, "linear")` (and NumPy's default method, up to its rounding
above the midpoint), so a summary is the same to the bit whichever computes it.

Selection, not sorting: NumPy partitions around one position with a
vectorised quickselect. Each percentile, in ascending order, selects among
the values above the one before, in place, in one copy of the sample; where
three `Series.quantile` calls copy and select the whole sample three times
(~3x the time), and `np.percentile` partitions around six positions at once,
which NumPy does without its vectorised path.
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np


def percentiles(values: np.ndarray, qs: Iterable[float]) -> dict[float, float]:
    """Each q-th percentile (0 <= q <= 100) of `values`: a non-empty float64 array of finite
    numbers, which this reorders in place."""
    n = len(values)
    places = {}
    for q in qs:
        position = (n - 1.0) * (q / 100)
        lower = min(int(position), n - 1)
        places[q] = (position, lower, math.ceil(position))
    selected = sorted({lower for _, lower, _ in places.values()})
    start = 0
    for k in selected:   # values[:k] hold the k smallest, values[k] the next
        values[start:].partition(k - start)
        start = k + 1
    out = {}
    for q, (position, k, top) in places.items():
        low = float(values[k])
        if k == top:
            out[q] = low
            continue
        # the next value up: the least of those between k and the next position selected (inclusive)
        bound = next((s for s in selected if s > k), n - 1)
        high = float(values[k + 1:bound + 1].min())
        out[q] = low if low == high else (position - k) * (high - low) + low
    return out
