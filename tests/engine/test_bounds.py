"""Bounds of sweep columns (engine/compile/bounds.py) and the axis columns they describe: an
axis's bounds hold every value it builds (and Grid.chunk builds the right ones); a cell proven
finite gets no guard and no error column, and its values are exactly those of the guarded plan;
where the proof fails (overflow, a divisor that may be 0) the errors are still found. (The
differential test compares bounded programs with the Python reference.)"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import polars as pl
import pytest

from supersheet.engine.compile import bounds as B
from supersheet.engine.scenarios import sweep as S
from supersheet.engine.scenarios.axes import cli_axis
from supersheet.engine.workbook import open_workbook
from repo_paths import REPO

TP_STEP = REPO / "bench" / "tp-step.yaml"
TP_VARY = ["tp=1,2,4,8", "context=1024token..131072token:25", "batch=1..10"]


def test_widening_and_limits():
    lo, hi = B.bounded(1.0, 2.0)  # type: ignore[misc]
    assert lo < 1.0 and hi > 2.0 and hi - 2.0 < 1e-8
    assert B.bounded(0.0, 1e201) is None and B.bounded(float("nan"), 1.0) is None
    assert B.multiply((1e150, 1e150), (1e60, 1e60)) is None   # 1e210: no claim beyond LIMIT
    assert not B.excludes_zero(B.bounded(0.0, 1.0)) and not B.excludes_zero(B.bounded(1e-250, 1.0))
    assert B.excludes_zero(B.bounded(0.5, 1.0)) and B.excludes_zero(B.negate(B.bounded(0.5, 1.0)))  # type: ignore[arg-type]
    assert B.divide((1.0, 2.0), B.bounded(-1.0, 1.0)) is None   # type: ignore[arg-type]
    assert B.absolute((-3.0, 2.0)) == (0.0, 3.0) and B.smallest([(1.0, 5.0), (2.0, 3.0)]) == (1.0, 3.0)


@pytest.mark.parametrize("vary", ["x=0.1..0.7+0.1", "x=-3..9+0.25", "x=1..1000*3", "x=1e-3..7:50log",
                                  "x=-2.5..1e6:1001", "x=1KiB..1GiB:40log", "x=1 GB..3 GB+0.1 GB", "x=5,-2,0.5"])
def test_an_axis_lies_within_its_bounds(vary, write_sheet):
    workbook = open_workbook(write_sheet("cells:\n  x: 1 GB\n  y: = x * 2\n" if "GB" in vary or "KiB" in vary
                                         else "cells:\n  x: 1\n  y: = x * 2\n"))
    axis = cli_axis(workbook, vary)
    lo, hi = axis.bounds()  # type: ignore[misc]
    assert lo <= axis.values.min() and axis.values.max() <= hi
    assert hi - lo <= (axis.values.max() - axis.values.min()) * (1 + 1e-8) + 1e-100


def _unbounded(plan_inputs):
    return {k: dataclasses.replace(v, bounds=None) for k, v in plan_inputs.items()}


def test_a_proven_sweep_has_no_guard_and_the_same_values(monkeypatch):
    workbook = open_workbook(TP_STEP)
    spec = S.SweepSpec("t", S.Grid([cli_axis(workbook, v) for v in TP_VARY]), None)
    plan = S.plans_for(workbook, spec.grid, spec.show, None, None)[0]
    assert not [c.header for c in plan.columns if c.is_error]      # every cell proven finite, every divisor nonzero
    assert "when" not in plan.program.apply(pl.LazyFrame({"tp": [1.0], "context": [1.0], "batch": [1.0]}),
                                            errors=True).explain()
    proven = S.run_in_memory(workbook, spec)
    real = S.axis_source
    monkeypatch.setattr(S, "axis_source", lambda axis: dataclasses.replace(real(axis), bounds=None))
    guarded = S.plans_for(workbook, spec.grid, spec.show, None, None)[0]
    assert [c.header for c in guarded.columns if c.is_error]        # without bounds: the error columns are back ...
    assert S.run_in_memory(workbook, spec).equals(proven)          # ... and hold nothing: the same table


def test_overflow_beyond_the_bounds_is_still_num(write_sheet):
    workbook = open_workbook(write_sheet("cells:\n  x: 1\n  y: = x * x * x\n  z: = 1 / (x - 2)\n"))
    frame = S.run_in_memory(workbook, S.SweepSpec("t", S.Grid([cli_axis(workbook, "x=1e90..1e110*10")]), None))
    assert frame["y [error]"].to_list()[-2:] == ["#NUM", "#NUM"] and frame["y [error]"][0] is None
    frame = S.run_in_memory(workbook, S.SweepSpec("t", S.Grid([cli_axis(workbook, "x=1..3+0.5")]), None))
    assert frame["z [error]"].to_list() == [None, None, "#DIV/0", None, None]


def test_bounds_survive_a_cancelling_divisor(write_sheet):
    """x - 1 over x = 1..2 is 0 at x = 1 however the ends round: the divisor stays guarded."""
    workbook = open_workbook(write_sheet("cells:\n  x: 1\n  y: = 1 / (x * 3 / 3 - 1)\n"))
    frame = S.run_in_memory(workbook, S.SweepSpec("t", S.Grid([cli_axis(workbook, "x=1..2:3")]), None))
    assert frame["y [error]"][0] == "#DIV/0" and np.isclose(frame["y"][2], 1.0)


@pytest.mark.parametrize("n, stride", [(1, 1), (3, 1), (4, 250), (25, 10), (100, 1), (7, 13), (5, 1000)])
def test_a_grid_chunk_is_its_rows_of_the_axis_column(n, stride):
    """Grid.chunk's column for rows [start, stop): values[(row // stride) % n], wherever the chunk starts and
    ends (whole periods broadcast and copied once, or a few long blocks)."""
    from supersheet.engine.scenarios.grid import _axis_chunk
    values = np.random.default_rng(n * stride).random(n)
    total = n * stride * 3 + 17
    for start, stop in [(0, total), (5, 6), (0, 1), (stride - 1, stride + 1), (13, total - 3),
                        (n * stride, 2 * n * stride), (999, 5000)]:
        stop = min(stop, total)
        if start < stop:
            want = values[(np.arange(start, stop) // stride) % n]
            assert np.array_equal(_axis_chunk(values, stride, start, stop), want)


def test_roundings_branches_and_powers_keep_zero_in_their_bounds(write_sheet):
    """Each rule's bounds include the 0 its rows reach: the division by it stays guarded."""
    workbook = open_workbook(write_sheet("""
        cells:
          x: 1
          by_floor: = 1 / floor(x)
          by_round_step: = 1 / round(x, 2)
          by_branch: = 1 / if(x > 1, x, x - 0.5)
          by_square: = 1 / (x - 1) ^ 2
          proven: = floor(x) + round(x, 0.5) * if(x > 1, x, 2) + (x + 1) ^ 3
        """))
    spec = S.SweepSpec("t", S.Grid([cli_axis(workbook, "x=0.5..3+0.5")]), None)
    plan = S.plans_for(workbook, spec.grid, None, None, None)[0]
    assert [c.header for c in plan.columns if c.is_error] == [f"{n} [error]" for n in
                                                              ("by_floor", "by_round_step", "by_branch", "by_square")]
    frame = S.run_in_memory(workbook, spec)
    for name, zero_at in (("by_floor", 0.5), ("by_round_step", 0.5), ("by_branch", 0.5), ("by_square", 1.0)):
        errors = dict(zip(frame["x"], frame[f"{name} [error]"]))
        assert errors.pop(zero_at) == "#DIV/0" and set(errors.values()) == {None}, name
    assert frame["proven"].to_list() == [0 + 0.5 * 2 + 1.5 ** 3 * 1.0, 1 + 1 * 2 + 8.0, 1 + 1.5 * 1.5 + 2.5 ** 3,
                                         2 + 2 * 2 + 27.0, 2 + 2.5 * 2.5 + 3.5 ** 3, 3 + 3 * 3 + 64.0]


def test_a_geometric_range_past_the_largest_float_has_no_bounds():
    """Its values overflow to inf (NumPy): no bounds, and no OverflowError from computing its last value."""
    from supersheet.engine.scenarios.axes import Axis
    from supersheet.engine.scenarios.spaced import Spaced
    assert Axis("x", "x", spaced=Spaced(1.0, 1e308, 2000, "times", 2.0)).bounds() is None
    # a finite one has its ends for bounds (widened by a millionth for rounding), not just some bounds
    lo, hi = Axis("x", "x", spaced=Spaced(1.0, 1e3, 4, "times", 10.0)).bounds() or (math.nan, math.nan)
    assert 1.0 - 1e-5 < lo <= 1.0 and 1e3 <= hi < 1e3 * (1 + 1e-5), (lo, hi)
    lo, hi = Axis("x", "x", spaced=Spaced(1e3, 1.0, 4, "times", 0.1)).bounds() or (math.nan, math.nan)
    assert 1.0 - 1e-5 < lo <= 1.0 and 1e3 <= hi < 1e3 * (1 + 1e-5), (lo, hi)
