"""The tp-step sweep as a competent Polars user writes it by hand: the grid
built with NumPy, every cell in one lazy `select`, in display units — the
baseline of bench_sweep.py (in process, and as a script writing Parquet).

    python bench/hand_written_sweep.py out.parquet
"""
from __future__ import annotations

import sys

import numpy as np
import polars as pl


def grid() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The benchmark's 10^6 scenarios (tp x context x batch, slowest first), as every alternative builds them."""
    return tuple(a.ravel() for a in np.meshgrid(np.array([1.0, 2.0, 4.0, 8.0]), np.linspace(1024.0, 131072.0, 2500),
                                                np.arange(1.0, 101.0), indexing="ij"))


def frame() -> pl.DataFrame:
    t, c, b = grid()
    tp, ctx, batch = pl.col("tp"), pl.col("context"), pl.col("batch")
    kv = 262144.0 * ctx * batch
    read = (65.52e9 + kv) / tp
    local = read / 3350e9
    message = 10240.0 * batch
    rounds = 2 * (tp - 1)
    allreduce = rounds * 0.822e-6 + rounds * message / (tp * 450e9)
    step = local + 128 * allreduce
    per_card = 65.52e9 / tp + kv / pl.min_horizontal(tp, pl.lit(8.0))
    return pl.LazyFrame({"tp": t, "context": c, "batch": b}).select(
        tp, ctx.alias("context [token]"), batch, (kv / 1e9).alias("kv [GB]"),
        (read / 1e9).alias("read_per_card [GB]"), (local * 1e3).alias("local [ms]"),
        (message / 1024).alias("message [KiB]"), rounds.alias("rounds"), (allreduce * 1e6).alias("allreduce [us]"),
        (step * 1e3).alias("step [ms]"), (batch / step).alias("tokens_per_s [1/s]"),
        (128 * allreduce / step * 100).alias("comm_share [%]"), (per_card / 1e9).alias("per_card [GB]"),
        (per_card <= 80e9).alias("fits")).collect()


if __name__ == "__main__":
    frame().write_parquet(sys.argv[1])
