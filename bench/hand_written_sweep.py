"""The tp-step sweep as a competent Polars user writes it by hand: the grid
built with NumPy, in display units, either every cell inline in one lazy
`select` (`frame`) or staged, one `with_columns` per dependency layer, each
cell computed once and read by name (`frame_staged`: what a Polars user
writes for a model with shared subexpressions) — the baselines of
bench_sweep.py (in process, and as a script writing Parquet).

    python bench/hand_written_sweep.py out.parquet [--staged]
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


def frame_staged() -> pl.DataFrame:
    t, c, b = grid()
    tp, ctx, batch = pl.col("tp"), pl.col("context"), pl.col("batch")
    return pl.LazyFrame({"tp": t, "context": c, "batch": b}).with_columns(
        (262144.0 * ctx * batch).alias("kv"),
        (10240.0 * batch).alias("message"),
        (2 * (tp - 1)).alias("rounds"),
    ).with_columns(
        ((65.52e9 + pl.col("kv")) / tp).alias("read_per_card"),
        (pl.col("rounds") * 0.822e-6 + pl.col("rounds") * pl.col("message") / (tp * 450e9)).alias("allreduce"),
        (65.52e9 / tp + pl.col("kv") / pl.min_horizontal(tp, pl.lit(8.0))).alias("per_card"),
    ).with_columns(
        (pl.col("read_per_card") / 3350e9).alias("local"),
    ).with_columns(
        (pl.col("local") + 128 * pl.col("allreduce")).alias("step"),
    ).select(
        tp, ctx.alias("context [token]"), batch, (pl.col("kv") / 1e9).alias("kv [GB]"),
        (pl.col("read_per_card") / 1e9).alias("read_per_card [GB]"), (pl.col("local") * 1e3).alias("local [ms]"),
        (pl.col("message") / 1024).alias("message [KiB]"), pl.col("rounds"),
        (pl.col("allreduce") * 1e6).alias("allreduce [us]"), (pl.col("step") * 1e3).alias("step [ms]"),
        (batch / pl.col("step")).alias("tokens_per_s [1/s]"),
        (128 * pl.col("allreduce") / pl.col("step") * 100).alias("comm_share [%]"),
        (pl.col("per_card") / 1e9).alias("per_card [GB]"), (pl.col("per_card") <= 80e9).alias("fits")).collect()


if __name__ == "__main__":
    (frame_staged() if "--staged" in sys.argv else frame()).write_parquet(sys.argv[1])
