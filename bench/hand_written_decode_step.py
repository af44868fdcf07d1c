"""sheets/supernodes/6.2.2-qwen3-32b-decode-step.yaml swept by hand: tp over
1, 2, 4, 8 and the context s over 250,000 values (10^6 rows), every cell of
the sheet in display units with the `outside` column of its two assumptions
(`within_one_server`, `whole_heads`, row by row as the sheet writes them) —
the second sheet of bench_sweep.py's in-process comparison. The imported
hardware and model values are written in as numbers (base units: bytes,
seconds, FLOP), as a script's author copies them from the sheets.

`frame` computes every cell inline in one lazy `select`; `frame_staged`
computes each cell once, one `with_columns` per dependency layer, and reads
it by name (what a Polars user writes for a model with shared terms).
"""
from __future__ import annotations

import numpy as np
import polars as pl

LAYERS, LAYER_BYTES, KV_PER_TOKEN, HEAD, KV_PROJ_PARAMS = 64.0, 975175680.0, 262144.0, 1555824640.0, 10485760.0
HBM, DTYPE, ATTN, BF16 = 3350e9, 2.0, 2097152.0, 989.4e12
HIDDEN, ALPHA, LINK, KV_HEADS, CARDS, HEADS = 5120.0, 0.822e-6, 450e9, 8.0, 8.0, 64.0
VARY = ["tp=1,2,4,8", "s=1024token..131064token:250000"]   # the same axes, from text (bench_sweep.py)


def grid() -> tuple[np.ndarray, np.ndarray]:
    return tuple(a.ravel() for a in np.meshgrid(np.array([1.0, 2.0, 4.0, 8.0]), np.linspace(1024.0, 131064.0, 250000),
                                                indexing="ij"))


def _outside(tp: pl.Expr) -> pl.Expr:
    """The sheet's two assumptions (`assume:`), by name where a row violates them."""
    def whole(count: float, by: pl.Expr) -> pl.Expr:   # floor(count / by) * by == count
        return (count / by).floor() * by == count
    whole_heads = whole(HEADS, tp) & (whole(KV_HEADS, tp) | ((tp / KV_HEADS).floor() * KV_HEADS == tp))
    parts = [pl.when(held).then(pl.lit(None, pl.String)).otherwise(pl.lit(name))
             for name, held in (("within_one_server", tp <= CARDS), ("whole_heads", whole_heads))]
    names = pl.concat_str(parts, separator=", ", ignore_nulls=True)
    return pl.when(names != "").then(names).otherwise(pl.lit(None, pl.String)).alias("outside [assumptions]")


LAYER_WEIGHTS = LAYERS * LAYER_BYTES
STEP_WEIGHTS = LAYER_WEIGHTS + HEAD
MESSAGE = HIDDEN * DTYPE
KV_PROJ = LAYERS * KV_PROJ_PARAMS * DTYPE
SPLIT = STEP_WEIGHTS - KV_PROJ   # split evenly over the cards


def frame() -> pl.DataFrame:
    t, s = grid()
    tp, ctx = pl.col("tp"), pl.col("s")
    kv_read = KV_PER_TOKEN * (ctx + 1)
    step_bytes = LAYER_WEIGHTS + kv_read + HEAD
    local = step_bytes / HBM
    step_flops = 2 * (STEP_WEIGHTS / DTYPE) + ATTN * (ctx + 1)
    compute = step_flops / BF16
    allreduce = 2 * (tp - 1) * ALPHA + 2 * (tp - 1) * MESSAGE / (tp * LINK)
    kv_split = pl.min_horizontal(tp, pl.lit(KV_HEADS))
    head_bytes = KV_PROJ + kv_read
    local_per_card = pl.max_horizontal((SPLIT / tp + head_bytes / kv_split) / HBM, compute / tp)
    reductions = 2 * LAYERS * allreduce
    step = local_per_card + reductions
    doubled = 2 * (2 * tp - 1) * ALPHA + 2 * (2 * tp - 1) * MESSAGE / (2 * tp * LINK)
    added = 2 * LAYERS * (doubled - allreduce)
    per_card_doubled = pl.max_horizontal((SPLIT / (2 * tp) + head_bytes / pl.min_horizontal(2 * tp, pl.lit(KV_HEADS))) / HBM,
                                         compute / (2 * tp))
    saved = local_per_card - per_card_doubled
    return pl.LazyFrame({"tp": t, "s": s}).select(
        tp, ctx.alias("s [token]"), pl.lit(LAYER_WEIGHTS / 1e9).alias("layer_weights [GB]"),
        (kv_read / 1e9).alias("kv_read [GB]"), (kv_read / LAYERS / 1048576).alias("kv_read_per_layer [MiB]"),
        pl.lit(HEAD / 1e9).alias("head_weights [GB]"), pl.lit(STEP_WEIGHTS / 1e9).alias("step_weights [GB]"),
        (step_bytes / 1e9).alias("step_bytes [GB]"), (local * 1e3).alias("local [ms]"),
        (step_flops / 1e12).alias("step_flops [TFLOP]"), (compute * 1e3).alias("compute [ms]"),
        pl.lit(2 * LAYERS).alias("reductions_per_step"), pl.lit(MESSAGE / 1024).alias("message [KiB]"),
        pl.lit(ALPHA * 1e9).alias("alpha [ns]"), pl.lit(LINK / 1e9).alias("link [GB/s]"),
        (allreduce * 1e6).alias("allreduce [us]"), kv_split.alias("kv_split"),
        pl.lit(KV_PROJ / 1e9).alias("kv_proj_weights [GB]"), pl.lit(SPLIT / 1e9).alias("split_bytes [GB]"),
        (head_bytes / 1e9).alias("head_bytes [GB]"), (local_per_card * 1e3).alias("local_per_card [ms]"),
        (reductions * 1e3).alias("reductions [ms]"), (step * 1e3).alias("step [ms]"), (pl.max_horizontal(local, compute) / step).alias("speedup"),
        (doubled * 1e6).alias("allreduce_doubled [us]"), (added * 1e3).alias("added_reductions [ms]"),
        (per_card_doubled * 1e3).alias("local_per_card_doubled [ms]"), (saved * 1e3).alias("saved_local [ms]"),
        (local > compute).alias("memory_bound"), (added < saved).alias("adding_cards_helps"),
        _outside(tp)).collect()


def frame_staged() -> pl.DataFrame:
    t, s = grid()
    tp, ctx, c = pl.col("tp"), pl.col("s"), pl.col
    return pl.LazyFrame({"tp": t, "s": s}).with_columns(
        (KV_PER_TOKEN * (ctx + 1)).alias("kv_read"),
        (2 * (STEP_WEIGHTS / DTYPE) + ATTN * (ctx + 1)).alias("step_flops"),
        (2 * (tp - 1) * ALPHA + 2 * (tp - 1) * MESSAGE / (tp * LINK)).alias("allreduce"),
        (2 * (2 * tp - 1) * ALPHA + 2 * (2 * tp - 1) * MESSAGE / (2 * tp * LINK)).alias("allreduce_doubled"),
        pl.min_horizontal(tp, pl.lit(KV_HEADS)).alias("kv_split"),
    ).with_columns(
        (LAYER_WEIGHTS + c("kv_read") + HEAD).alias("step_bytes"),
        (KV_PROJ + c("kv_read")).alias("head_bytes"),
        (c("step_flops") / BF16).alias("compute"),
        (2 * LAYERS * c("allreduce")).alias("reductions"),
        (2 * LAYERS * (c("allreduce_doubled") - c("allreduce"))).alias("added_reductions"),
    ).with_columns(
        (c("step_bytes") / HBM).alias("local"),
        pl.max_horizontal((SPLIT / tp + c("head_bytes") / c("kv_split")) / HBM, c("compute") / tp)
        .alias("local_per_card"),
        pl.max_horizontal((SPLIT / (2 * tp) + c("head_bytes") / pl.min_horizontal(2 * tp, pl.lit(KV_HEADS))) / HBM,
                          c("compute") / (2 * tp)).alias("local_per_card_doubled"),
    ).with_columns(
        (c("local_per_card") + c("reductions")).alias("step"),
        (c("local_per_card") - c("local_per_card_doubled")).alias("saved_local"),
    ).select(
        tp, ctx.alias("s [token]"), pl.lit(LAYER_WEIGHTS / 1e9).alias("layer_weights [GB]"),
        (c("kv_read") / 1e9).alias("kv_read [GB]"), (c("kv_read") / LAYERS / 1048576).alias("kv_read_per_layer [MiB]"),
        pl.lit(HEAD / 1e9).alias("head_weights [GB]"), pl.lit(STEP_WEIGHTS / 1e9).alias("step_weights [GB]"),
        (c("step_bytes") / 1e9).alias("step_bytes [GB]"), (c("local") * 1e3).alias("local [ms]"),
        (c("step_flops") / 1e12).alias("step_flops [TFLOP]"), (c("compute") * 1e3).alias("compute [ms]"),
        pl.lit(2 * LAYERS).alias("reductions_per_step"), pl.lit(MESSAGE / 1024).alias("message [KiB]"),
        pl.lit(ALPHA * 1e9).alias("alpha [ns]"), pl.lit(LINK / 1e9).alias("link [GB/s]"),
        (c("allreduce") * 1e6).alias("allreduce [us]"), c("kv_split"),
        pl.lit(KV_PROJ / 1e9).alias("kv_proj_weights [GB]"), pl.lit(SPLIT / 1e9).alias("split_bytes [GB]"),
        (c("head_bytes") / 1e9).alias("head_bytes [GB]"), (c("local_per_card") * 1e3).alias("local_per_card [ms]"),
        (c("reductions") * 1e3).alias("reductions [ms]"), (c("step") * 1e3).alias("step [ms]"),
        (pl.max_horizontal(c("local"), c("compute")) / c("step")).alias("speedup"), (c("allreduce_doubled") * 1e6).alias("allreduce_doubled [us]"),
        (c("added_reductions") * 1e3).alias("added_reductions [ms]"),
        (c("local_per_card_doubled") * 1e3).alias("local_per_card_doubled [ms]"),
        (c("saved_local") * 1e3).alias("saved_local [ms]"),
        (c("local") > c("compute")).alias("memory_bound"), (c("added_reductions") < c("saved_local")).alias("adding_cards_helps"),
        _outside(tp)).collect()
