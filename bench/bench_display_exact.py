"""Cost of writing sweep columns in their display unit without conversion noise
(supersheet.engine.compile.values.in_unit, used for axis and input columns only) against the plain
quotient (computed columns), on 2,000,000 rows x 4
columns, paired and interleaved (ABAB...), min and median of wall and CPU.

    .venv/bin/python bench/bench_display_exact.py
"""
from __future__ import annotations

import os
import statistics
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


if __name__ == "__main__":
    main()
