"""Ranges whose values are floats near the ends of the double range: each is counted,
built and bounded as the values it holds, which are all finite. A ratio or a span beyond
a float on the way (1e99 / 1e-300, 10**399, 1e308 - -1e308) once refused the range
("infinitely many values") or filled it with inf and NaN, and a geometric range's last
value was taken as infinite from 2**1023 on (`Axis.bounds`)."""
from __future__ import annotations

import csv
import io
import math
from decimal import Decimal, getcontext

import pytest

from supersheet.engine.compile.bounds import LIMIT
from supersheet.engine.scenarios.axes import Axis
from supersheet.engine.scenarios.spaced import Spaced

SHEET = "cells:\n  x: 1\n  y: = x / 2\n"
getcontext().prec = 60


def _geometric(start: str, factor: str, count: int) -> list[float]:
    return [float(Decimal(start) * Decimal(factor) ** i) for i in range(count)]


def _log(start: str, stop: str, count: int) -> list[float]:
    lo, hi = Decimal(start).ln(), Decimal(stop).ln()
    return [float((lo + (hi - lo) * i / (count - 1)).exp()) for i in range(count)]


def _linear(start: str, step: str, count: int) -> list[float]:
    return [float(Decimal(start) + Decimal(step) * i) for i in range(count)]


CASES = {   # --vary x=… : the values it holds, computed in 60 digits
    "1e-300..1e99*10": _geometric("1e-300", "10", 400),
    "1e-10..1e300*10": _geometric("1e-10", "10", 311),
    "0.5..8.98846567431158e307*2": _geometric("0.5", "2", 1025),
    "1e-300..1e99:5log": _log("1e-300", "1e99", 5),
    "-1e308..1e308+1e307": _linear("-1e308", "1e307", 21),
    "-1e308..1e308:5lin": _linear("-1e308", "5e307", 5),
}


@pytest.mark.parametrize("vary", list(CASES))
def test_a_range_near_the_float_limits_holds_its_values(vary, run_cli, write_sheet) -> None:
    expected = CASES[vary]
    out = run_cli("sweep", str(write_sheet(SHEET)), "--vary", f"x={vary}", "--format", "csv")
    assert out.code == 0 and not out.err, out.err
    rows = list(csv.DictReader(io.StringIO(out.out)))
    xs = [float(r["x"]) for r in rows]
    assert len(xs) == len(expected)
    compared = 0
    for got, want in zip(xs, expected):
        assert math.isfinite(got) and math.isclose(got, want, rel_tol=1e-12), (got, want)
        compared += 1
    assert compared == len(expected)
    assert xs[0] == float(vary.split("..")[0])                  # the typed start, exactly
    assert all(r.get("y [error]", "") == "" and math.isfinite(float(r["y"])) for r in rows)


def test_the_last_value_of_a_geometric_range_is_what_it_holds() -> None:
    """`Axis.bounds` of 1 × 2 … 2**1023: the last value is 2**1023, not inf. Beyond LIMIT no
    bounds are claimed anyway (bounds.py), so that one stays None; a range whose power alone
    overflows (10**399) but whose values stay under LIMIT is bounded, so its cells need no
    error column (the schema decided by the bounds, README "One schema")."""
    top = Axis("x", spaced=Spaced(1.0, 2.0 ** 1023, 1024, "times", 2.0))
    assert top.spaced is not None and top.spaced.ends() == [1.0, 2.0 ** 1023]
    assert top.values[-1] == 2.0 ** 1023 and top.bounds() is None and 2.0 ** 1023 > LIMIT
    small = Axis("x", spaced=Spaced(1e-300, 1e99, 400, "times", 10.0))
    bounds = small.bounds()
    assert bounds is not None and bounds[0] <= 1e-300 and math.isclose(bounds[1], 1e99, rel_tol=1e-9)
    assert bounds[0] <= small.values.min() and small.values.max() <= bounds[1]


def test_a_bounded_extreme_range_has_no_error_column(run_cli, write_sheet) -> None:
    out = run_cli("sweep", str(write_sheet(SHEET)), "--vary", "x=1e-300..1e99*10", "--format", "csv")
    assert out.code == 0 and out.out.splitlines()[0] == "x,y"
