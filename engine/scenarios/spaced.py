"""A range axis's values, known by their count before any is built (axes.py
counts and checks a range; this computes its values when the grid needs them).

Values are computed in the unit the range is written in, then scaled to base
units, and an arithmetic range is snapped to the decimals it is written with:
`1 GB..3 GB+0.5 GB` holds exactly what the literals 1 GB, 1.5 GB … hold, and
0.1 + 2 * 0.1 is 0.3, the number a user types.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # NumPy is imported where values are built: `check` of a sheet reads none
    import numpy as np


@dataclass(frozen=True)
class Spaced:
    """A range's values, known by their count before any is built."""

    start: float            # in the written unit
    stop: float
    count: int
    kind: str               # "step" | "times" | "lin" | "log"
    by: float = 0.0         # the step or the factor
    factor: float = 1.0     # written unit -> base unit
    unit: str | None = None
    decimals: int | None = None   # places of the written decimals an arithmetic range steps through

    def values(self) -> np.ndarray:
        import numpy as np   # deferred: numpy
        i = np.arange(self.count, dtype=np.float64)
        if self.kind == "step":
            with np.errstate(over="ignore", invalid="ignore"):   # (tried first: exact where it is finite)
                written = self.start + i * self.by
            if not np.isfinite(written[-1]):   # i * by beyond a float (-1e308..1e308+1e307): halved, then doubled
                written = 2 * (self.start / 2 + i * (self.by / 2))
        elif self.kind == "times":
            written = _geometric(self.start, self.by, i)
        elif self.kind == "log":   # start * ratio^(i/(n-1)): exact where the ratio allows (geomspace is not)
            t = i / max(self.count - 1, 1)
            ratio = self.stop / self.start
            written = self.start * ratio ** t if math.isfinite(ratio) else \
                np.exp(math.log(self.start) + decades(self.start, self.stop) * t)   # 1e99 / 1e-300 is beyond a float
            written[0], written[-1] = self.start, self.stop if self.count > 1 else self.start
        elif math.isfinite(self.stop - self.start):
            written = np.linspace(self.start, self.stop, self.count)
        else:   # the span is beyond a float (-1e308..1e308): each value as a mean of the ends
            t = i / max(self.count - 1, 1)
            written = self.start * (1 - t) + self.stop * t
            written[0], written[-1] = self.start, self.stop if self.count > 1 else self.start
        if self.decimals is not None and self.kind in ("step", "lin"):
            written = _on_decimals(written, self.decimals)
        return written * self.factor if self.factor != 1.0 else written

    def label(self, value: float) -> str:
        return repr(float(value) / self.factor) + (f" {self.unit}" if self.unit else "")

    def ends(self) -> list[float]:
        """The first and last values in base units: every value lies between them (the kinds are
        monotone: a geometric range's factor is positive), up to the snapping to decimals."""
        if self.kind == "step":
            last = self.start + (self.count - 1) * self.by
            if not math.isfinite(last):
                last = 2 * (self.start / 2 + (self.count - 1) * (self.by / 2))
        elif self.kind == "times":
            try:        # (no NumPy for what needs none)
                last = self.start * self.by ** (self.count - 1)
            except OverflowError:   # by**n alone beyond a float: the value itself need not be
                last = float(_geometric(self.start, self.by, float(self.count - 1)))
        else:
            last = self.stop
        return [self.start * self.factor, float(last) * self.factor]

    def finite_nonzero(self) -> tuple[bool, bool]:
        """Whether every value is finite, and none 0, known from the ends (the values lie
        between them) without building any."""
        ends = (self.start * self.factor, self.stop * self.factor)
        finite = all(math.isfinite(e) for e in ends)
        smallest = min(abs(self.start), abs(self.stop))
        rounded_away = self.decimals is not None and smallest < 10.0 ** -self.decimals
        return finite, finite and ends[0] * ends[1] > 0 and not rounded_away


def decades(lo: float, hi: float) -> float:
    """log(hi / lo) for 0 < lo <= hi, also where the ratio itself is beyond a float
    (1e99 / 1e-300): the span a geometric range's count is taken from."""
    ratio = hi / lo
    return math.log(ratio) if math.isfinite(ratio) else math.log(hi) - math.log(lo)


def _geometric(start: float, by: float, i):
    """start * by**i (i: a float or an array of them), finite wherever that value is: by**i
    alone overflows when start < 1 (1e-300 * 10**399 is 1e99, not inf). Where it does, the
    power is taken in two halves around start, and failing that (a subnormal start) in logs."""
    import numpy as np   # deferred: numpy
    with np.errstate(over="ignore", invalid="ignore"):
        written = start * np.power(by, i)
        if np.all(np.isfinite(written)):
            return written
        half = np.floor(np.asarray(i) / 2)
        halves = start * np.power(by, half) * np.power(by, i - half)
        logs = np.exp(math.log(start) + np.asarray(i) * math.log(by))
    return np.where(np.isfinite(written), written, np.where(np.isfinite(halves), halves, logs))


_MAX_PLACES = 12


def decimal_places(*numbers: float | Decimal) -> int | None:
    """How many decimal places the written numbers need together, or None when one
    is not a short decimal (1/3, 0.09999999999999999): then values stay as computed."""
    places = 0
    for x in numbers:
        d = (x if isinstance(x, Decimal) else Decimal(repr(float(x)))).normalize()
        exponent = d.as_tuple().exponent
        if not isinstance(exponent, int) or -exponent > _MAX_PLACES:
            return None
        places = max(places, -exponent)
    return places


def _on_decimals(values: np.ndarray, places: int) -> np.ndarray:
    """Values of an arithmetic range snapped to the written decimals, so that
    0.1 + 2 * 0.1 is stored as 0.3 (the number a user types) and not as
    0.30000000000000004. Only where scaling keeps whole numbers exact."""
    import numpy as np   # deferred: numpy
    scale = 10.0 ** places
    if not np.all(np.abs(values) * scale < 2.0 ** 52):
        return values
    return np.rint(values * scale) / scale
