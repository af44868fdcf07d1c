"""Cost of writing sweep columns in their display unit without conversion noise
(supersheet.engine.compile.values.in_unit, used for axis and input columns only) against the plain
quotient (computed columns), on 2,000,000 rows x 4
columns, paired and interleaved (ABAB...), min and median of wall and CPU.

Then a whole in-process sweep of bench/tp-step.yaml, 10^6 rows, whose axes are
typed in units the columns convert (`alpha` in us, `message` in KiB to GiB):
its axis columns shown exactly per row (`in_unit` on every row, as before
issue 30) against once per axis value (`sweep_columns.shown_axis`, as
shipped), interleaved, the outputs checked bit for bit equal.

    .venv/bin/python bench/bench_display_exact.py [--rounds N]
"""
from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np
import polars as pl

from supersheet.engine.compile.values import in_unit

ROWS, REPEATS, FACTOR = 2_000_000, 7, 1e-6


def frame() -> pl.DataFrame:
    rng = np.random.default_rng(1)
    return pl.DataFrame({f"c{i}": np.round(rng.uniform(0, 1000, ROWS), 3) * FACTOR for i in range(4)})


def run(df: pl.DataFrame, exact: bool) -> tuple[float, float]:
    exprs = [(in_unit(pl.col(c), FACTOR) if exact else pl.col(c) / FACTOR).alias(c) for c in df.columns]
    wall, cpu = time.perf_counter(), time.process_time()
    df.lazy().select(exprs).collect()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    print(f"load average {os.getloadavg()}")
    df = frame()
    results: dict[str, list[tuple[float, float]]] = {"quotient": [], "in_unit": []}
    for _ in range(REPEATS):
        results["quotient"].append(run(df, False))
        results["in_unit"].append(run(df, True))
    for name, times in results.items():
        walls, cpus = [t[0] for t in times], [t[1] for t in times]
        print(f"{name:9s} wall min {min(walls) * 1e3:7.1f} ms  median {statistics.median(walls) * 1e3:7.1f} ms   "
              f"cpu min {min(cpus) * 1e3:7.1f} ms  median {statistics.median(cpus) * 1e3:7.1f} ms")
    print(f"{ROWS:,} rows x {len(df.columns)} columns")
    per_value_against_per_row(int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 11)


def per_value_against_per_row(rounds: int) -> None:
    import gc
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from paired import in_process, interleave, load_average, table

    import supersheet.engine.scenarios.sweep_columns as sweep_columns
    from supersheet.engine.scenarios.axes import cli_axis
    from supersheet.engine.scenarios.sweep import Grid, SweepSpec, run_in_memory
    from supersheet.engine.workbook import open_workbook
    # a workbook of its own for each way: run_in_memory keeps a sweep's compiled plan per workbook,
    # so one workbook would compile the display once and time that same plan both ways
    sheet = Path(__file__).resolve().parent / "tp-step.yaml"
    workbooks = {False: open_workbook(sheet), True: open_workbook(sheet)}
    vary = ["alpha=0.5us..2us+0.0015us", "message=1KiB..1GiB:1000log"]   # 1001 x 1000 rows
    shipped = sweep_columns.shown_axis

    def sweep(per_value: bool):
        sweep_columns.shown_axis = shipped if per_value else (lambda values, factor: None)
        try:
            return run_in_memory(workbooks[per_value], SweepSpec("bench", Grid([cli_axis(workbooks[per_value], v) for v in vary]),
                                                     ["step", "allreduce"]))
        finally:
            sweep_columns.shown_axis = shipped
    before, after = sweep(False), sweep(True)
    assert before.height == after.height > 10**6 - 1 and before.columns == after.columns
    for column in before.columns:
        assert before[column].to_numpy().tobytes() == after[column].to_numpy().tobytes(), column
    print(f"\nsweep of {after.height:,} rows, axes typed in us and KiB-GiB (outputs bit for bit equal), "
          f"{rounds} rounds interleaved; {load_average()}")

    def sample(per_value: bool):
        gc.collect()
        return in_process(lambda: sweep(per_value))
    series = interleave({"exact display per row (in_unit)": lambda: sample(False),
                         "exact display per axis value": lambda: sample(True)}, rounds)
    print(table(series, baseline="exact display per row (in_unit)"))
    print(f"{load_average()} (at the end)")


if __name__ == "__main__":
    main()
