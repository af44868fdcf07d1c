"""Where the #NUM guard's cost is (issue 12 made every number cell #NUM where it is
not finite; issue 14 measures sweeps): the in-process 10^6-row sweep of
bench/tp-step.yaml (bench_sweep.py's `ours_in_memory`), paired and interleaved,
with the guard as it is, with only its error sites (values not masked to null),
and with no guard — against hand-written lazy Polars (one `select`).

    .venv/bin/python bench/bench_num_guard.py [--rounds N]

The two variants are diagnostics for the engine's developers, not correct
engines: without the mask a cell that reads a #NUM cell computes from inf."""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_sweep  # noqa: E402
import hand_written_sweep  # noqa: E402
import polars as pl  # noqa: E402
from paired import in_process, interleave, load_average, table  # noqa: E402

from supersheet.engine.compile import compile as compiling  # noqa: E402
from supersheet.engine.compile.errorcodes import NUM  # noqa: E402
from supersheet.engine.compile.values import elementwise  # noqa: E402

GUARDED = compiling.Compiler.finite


def sites_only(self, val):
    if isinstance(val.constant, float) and math.isfinite(val.constant):
        return val

    def site(x: pl.Expr) -> pl.Expr:
        self.sites.append(pl.when(~x.is_finite()).then(pl.lit(NUM)))
        return x
    return elementwise(site, val, nullable=True)


def with_guard(finite):
    def run():
        compiling.Compiler.finite = finite
        try:
            return in_process(lambda: bench_sweep.ours_in_memory(workbook))
        finally:
            compiling.Compiler.finite = GUARDED
    return run


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    workbook = bench_sweep.open_workbook(bench_sweep.SHEET)
    series = interleave({"hand-written lazy Polars": lambda: in_process(hand_written_sweep.frame),
                         "guarded (as shipped)": with_guard(GUARDED),
                         "error sites only": with_guard(sites_only),
                         "no guard": with_guard(lambda self, val: val)}, rounds)
    print(f"in-process sweep, 10^6 rows of {bench_sweep.SHEET.name}; {load_average()}")
    print(table(series, baseline="hand-written lazy Polars"))
