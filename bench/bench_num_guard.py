"""Where the #NUM guard's cost is (issue 12 made every number cell #NUM where it is
not finite; issue 14 measures sweeps): the in-process 10^6-row sweep of
bench/tp-step.yaml (bench_sweep.py's `ours_in_memory`), paired and interleaved,
against hand-written lazy Polars (one `select`):

* as shipped: the axes' bounds prove every cell of this sheet finite and every
  divisor nonzero (engine/compile/bounds.py): no guard, no error column;
* without bounds, the guard: a #NUM cell's column keeps its inf (its error column
  says #NUM), what reads it guards where inf could turn finite, and a sweep checks
  the rows it shows (engine/compile/values.py) — what a sheet the bounds do not
  prove gets;
* without bounds, every cell masked: each number cell's column null where it is not finite (the
  design before: a `when(is_finite)` pass over every cell's column);
* without bounds, no #NUM at all: no error sites, no masks (not a correct engine: a diagnostic).

    .venv/bin/python bench/bench_num_guard.py [--rounds N]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import dataclasses  # noqa: E402

import bench_sweep  # noqa: E402
import hand_written_sweep  # noqa: E402
import polars as pl  # noqa: E402
from paired import interleave, load_average, table  # noqa: E402

from supersheet.engine.compile import compile as compiling  # noqa: E402
from supersheet.engine.compile.errorcodes import NUM  # noqa: E402
from supersheet.engine.compile.values import elementwise  # noqa: E402
from supersheet.engine.scenarios import sweep  # noqa: E402

SHIPPED = compiling.Compiler.finite
AXIS_SOURCE = sweep.axis_source


def every_cell_masked(self, val):
    def masked(x: pl.Expr) -> pl.Expr:
        self.sites.append(pl.when(~x.is_finite()).then(pl.lit(NUM)))
        return pl.when(x.is_finite()).then(x)
    return elementwise(masked, val, nullable=True)


def with_finite(finite, bounds: bool = False):
    def run():
        compiling.Compiler.finite = finite
        if not bounds:
            sweep.axis_source = lambda axis: dataclasses.replace(AXIS_SOURCE(axis), bounds=None)
        try:
            return bench_sweep.collected(lambda: bench_sweep.ours_in_memory(workbook))
        finally:
            compiling.Compiler.finite = SHIPPED
            sweep.axis_source = AXIS_SOURCE
    return run


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    workbook = bench_sweep.open_workbook(bench_sweep.SHEET)
    series = interleave({"hand-written lazy Polars": lambda: bench_sweep.collected(hand_written_sweep.frame),
                         "as shipped (bounds: no guard needed)": with_finite(SHIPPED, bounds=True),
                         "without bounds: the #NUM guard": with_finite(SHIPPED),
                         "without bounds, every cell masked": with_finite(every_cell_masked),
                         "without bounds, no #NUM at all": with_finite(lambda self, val: val)}, rounds)
    print(f"in-process sweep, 10^6 rows of {bench_sweep.SHEET.name}; {load_average()}")
    print(table(series, baseline="hand-written lazy Polars"))
