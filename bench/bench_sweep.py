"""Sweep speed (issue 14) on bench/tp-step.yaml (a ~20-cell TP step-time
model), every figure a paired, interleaved comparison with the same work on
both sides — the grid built, the same 14 columns computed in display units:

1. whole process, 10^6 rows to Parquet: `supersheet sweep … -o out.parquet`
   against a hand-written script (NumPy grid, lazy Polars with one `select`,
   `write_parquet`: bench/hand_written_sweep.py), run as a user runs it and with
   OPENBLAS_NUM_THREADS=1 (what the command asks for itself: the like-for-like ratio);
2. in process, 10^6 rows in memory, axes parsed from text included:
   `run_in_memory` against hand-written lazy Polars written two ways (one
   `select` with every formula inline; staged, one `with_columns` per
   dependency layer), on tp-step and on the library's 6.2.2 decode-step
   sheet (bench/hand_written_decode_step.py), interleaved; the target is the
   ratio to the better of the two; then vectorised Pint over NumPy arrays
   and plain NumPy against the one-select plan;
3. the share of a large sweep to Parquet spent building axis columns
   (`Grid.tiled`), 10^7 rows (10^8 with --huge; --axes-only: this part alone).

    .venv/bin/python bench/bench_sweep.py [--rounds N] [--huge] [--parts 1,2,3] [--axes-only] [--load N]

(15 rounds unless `--rounds`; `--parts` picks the comparisons to run; `--axes-only` is `--parts 3`; `--load N` runs part 2's comparisons
beside N busy-loop processes, bench/paired.py's busy_load: a load anyone can reproduce.)
"""
from __future__ import annotations

import gc
import math
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import hand_written_decode_step  # noqa: E402
import hand_written_sweep  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from paired import CHILD_ENV, Sample, busy_load, child, in_process, interleave, load_average, table  # noqa: E402

from supersheet.engine.scenarios.axes import cli_axis  # noqa: E402
from supersheet.engine.scenarios.sweep import Grid, SweepSpec, run_in_memory  # noqa: E402
from supersheet.engine.workbook import open_workbook  # noqa: E402

SHEET = HERE / "tp-step.yaml"
DECODE_STEP = ROOT / "sheets" / "supernodes" / "6.2.2-qwen3-32b-decode-step.yaml"
SHOW = ["kv", "read_per_card", "local", "message", "rounds", "allreduce", "step", "tokens_per_s", "comm_share",
        "per_card", "fits"]
VARY = ["tp=1,2,4,8", "context=1024token..131072token:2500", "batch=1..100"]

def pint_vectorised():
    """The same cells as Pint quantities over NumPy arrays (what a Pint user writes)."""
    import pint
    ureg = pint.UnitRegistry()
    ureg.define("token = [token]")
    q = ureg.Quantity
    t, c, b = hand_written_sweep.grid()
    ctx = q(c, "token")
    kv = q(256, "KiB/token") * ctx * b
    read = (q(65.52, "GB") + kv) / t
    local = read / q(3350, "GB/s")
    message = 5120 * q(2, "B") * b
    rounds = 2 * (t - 1)
    allreduce = rounds * q(0.822, "us") + rounds * message / (t * q(450, "GB/s"))
    step = local + 128 * allreduce
    per_card = q(65.52, "GB") / t + kv / np.minimum(t, 8)
    return {"tp": t, "context": ctx.m, "batch": b, "kv": kv.to("GB").m, "read_per_card": read.to("GB").m,
            "local": local.to("ms").m, "message": message.to("KiB").m, "rounds": rounds,
            "allreduce": allreduce.to("us").m, "step": step.to("ms").m, "tokens_per_s": (b / step).to("1/s").m,
            "comm_share": (128 * allreduce / step).to("percent").m, "per_card": per_card.to("GB").m,
            "fits": (per_card <= q(80, "GB"))}


def numpy_only():
    t, c, b = hand_written_sweep.grid()
    kv = 262144.0 * c * b
    read = (65.52e9 + kv) / t
    local = read / 3350e9
    message = 10240.0 * b
    rounds = 2 * (t - 1)
    allreduce = rounds * 0.822e-6 + rounds * message / (t * 450e9)
    step = local + 128 * allreduce
    per_card = 65.52e9 / t + kv / np.minimum(t, 8)
    return {"tp": t, "context": c, "batch": b, "kv": kv / 1e9, "read_per_card": read / 1e9, "local": local * 1e3,
            "message": message / 1024, "rounds": rounds, "allreduce": allreduce * 1e6, "step": step * 1e3,
            "tokens_per_s": b / step, "comm_share": 128 * allreduce / step * 100, "per_card": per_card / 1e9,
            "fits": per_card <= 80e9}


# The sheet divides exactly (by a constant, into a display unit: a column of the divisor);
# the hand-written scripts write `x / 1e9` and `x * 1e3`, which Polars computes with the
# reciprocal, each up to 1 ulp off, and a few of those compound along a cell's chain
# (tp-step's tokens_per_s and comm_share: 5 ulps at most, measured over all 10^6 rows).
ULPS = 8


def ulps_apart(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How many doubles lie between a and b, row by row (0: bit for bit the same)."""
    def ordered(x: np.ndarray) -> np.ndarray:
        bits = x.astype(np.float64).view(np.int64)
        return np.where(bits < 0, np.int64(-2**63) - bits, bits)
    return np.abs(ordered(a) - ordered(b))


def every_value_equal(ours: pl.DataFrame, hand: pl.DataFrame) -> str:
    """Every value of both frames compared, every column and row: the same headers ("μs" is
    the script's "us"), the same nulls, non-numbers equal, numbers within ULPS ulps; what
    differs is counted in the line returned."""
    assert ours.shape == hand.shape, (ours.shape, hand.shape)
    floats = identical = worst = 0
    for ours_column, hand_column in zip(ours.columns, hand.columns):
        assert ours_column.replace("μ", "u") == hand_column, (ours_column, hand_column)
        a, b = ours[ours_column], hand[hand_column]
        assert a.is_null().equals(b.is_null()), ours_column
        if not (a.dtype.is_numeric() and b.dtype.is_numeric()):
            assert a.equals(b), ours_column
            continue
        apart = ulps_apart(a.drop_nulls().to_numpy(), b.drop_nulls().to_numpy())
        assert apart.max(initial=0) <= ULPS, (ours_column, int(apart.max()))
        floats += len(apart)
        identical += int((apart == 0).sum())
        worst = max(worst, int(apart.max(initial=0)))
    return (f"every value compared: {ours.width} columns x {ours.height} rows; of {floats} numbers "
            f"{identical} bit for bit, {floats - identical} at most {worst} ulps apart (≤ {ULPS})")


def collected(fn) -> Sample:
    """One in-process sample that starts with no garbage left by the sample before."""
    gc.collect()
    return in_process(fn)


def ours_in_memory(workbook, vary=VARY, show=SHOW) -> pl.DataFrame:
    """The sweep as `--vary` writes it: axes parsed from text, grid built, every column computed."""
    spec = SweepSpec("bench", Grid([cli_axis(workbook, v) for v in vary]), show)
    return run_in_memory(workbook, spec)


def in_process_pair(title: str, sheet: Path, vary: list[str], show: list[str] | None, hand, rounds: int,
                    load_processes: int) -> None:
    """supersheet's `run_in_memory` against both hand-written plans (one `select`; staged, one
    `with_columns` per dependency layer), every value checked equal first; the target is the
    ratio to the better of the two (by CPU median)."""
    workbook = open_workbook(sheet)
    assert workbook.ok, workbook.diagnostics
    frame = ours_in_memory(workbook, vary, show)
    assert frame.height == 1_000_000
    equal = [every_value_equal(frame, reference) for reference in (hand.frame(), hand.frame_staged())]
    print(f"\n2. in process, 10^6 rows in memory, axes from text included: {title} ({frame.width} columns, "
          f"values equal), {rounds} rounds interleaved; {load_average()}")
    print(f"(against one select: {equal[0]}; staged: {equal[1]})")
    # Every sample starts after a collection, on both sides (Pint, measured after, leaves garbage).
    one, staged = "hand-written lazy Polars, one select", "hand-written lazy Polars, staged"
    with busy_load(load_processes) as load:
        pair = interleave({one: lambda: collected(hand.frame),
                           "supersheet run_in_memory": lambda: collected(lambda: ours_in_memory(workbook, vary, show)),
                           staged: lambda: collected(hand.frame_staged)}, rounds)
        print(load.said())
    better = min((one, staged), key=lambda name: pair[name].stat("cpu", statistics.median))
    print(table(pair, baseline=better))
    print(f"[ratios to the better hand-written plan by CPU median ({better}); target: supersheet <= 1.0x CPU median]")


def main() -> None:
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 15
    folder = Path(tempfile.mkdtemp())
    python = sys.executable
    supersheet = str(Path(python).parent / "supersheet")
    script = HERE / "hand_written_sweep.py"
    ours_out, hand_out = folder / "ours.parquet", folder / "hand.parquet"
    sweep = [supersheet, "sweep", str(SHEET), *[a for v in VARY for a in ("--vary", v)], "--show", ",".join(SHOW)]

    parts = sys.argv[sys.argv.index("--parts") + 1].split(",") if "--parts" in sys.argv else ["1", "2", "3"]
    if "--axes-only" in sys.argv:
        parts = ["3"]
    if "1" in parts:
        print(f"1. whole process, 10^6 rows to Parquet, {rounds} rounds interleaved; {load_average()}")
        # The command asks NumPy's OpenBLAS for no threads beside its own (cli/main.py: each spins as
        # it starts, ~35 ms of CPU on 2 CPUs); the script as a user runs it does not, so the script is
        # also run with OPENBLAS_NUM_THREADS=1: the ratio to it is the like-for-like one.
        one_blas = {**CHILD_ENV, "OPENBLAS_NUM_THREADS": CHILD_ENV.get("OPENBLAS_NUM_THREADS", "1")}
        script_blas1 = "hand-written script, OPENBLAS_NUM_THREADS=1"
        whole = interleave({"hand-written Polars script": lambda: child([python, str(script), str(hand_out)]),
                            "supersheet sweep -o out.parquet": lambda: child(sweep + ["-o", str(ours_out)]),
                            script_blas1: lambda: child([python, str(script), str(hand_out)], env=one_blas)}, rounds)
        print(table(whole, baseline="hand-written Polars script", memory=True))
        like = (whole["supersheet sweep -o out.parquet"].stat("cpu", statistics.median)
                / whole[script_blas1].stat("cpu", statistics.median))
        print(f"supersheet / the script with one BLAS thread, CPU median: {like:.2f}x")
        ours, hand = pl.read_parquet(ours_out), pl.read_parquet(hand_out)
        assert ours.height == hand.height == 1_000_000   # no error column: none held one
        print(f"({every_value_equal(ours, hand)})   [target: supersheet <= 1.05x CPU median (issue 30)]")
    if "2" in parts:
        load_processes = int(sys.argv[sys.argv.index("--load") + 1]) if "--load" in sys.argv else 0
        for title, sheet, vary, show, hand in (
                ("bench/tp-step.yaml", SHEET, VARY, SHOW, hand_written_sweep),
                ("sheets/supernodes/6.2.2-qwen3-32b-decode-step.yaml, every cell", DECODE_STEP,
                 hand_written_decode_step.VARY, None, hand_written_decode_step)):
            in_process_pair(title, sheet, vary, show, hand, rounds, load_processes)
        workbook = open_workbook(SHEET)
        assert math.isclose(ours_in_memory(workbook)["step [ms]"][98765], pint_vectorised()["step"][98765], rel_tol=1e-9)
        others = interleave({"hand-written lazy Polars, one select": lambda: collected(hand_written_sweep.frame),
                             "vectorised Pint over NumPy": lambda: collected(pint_vectorised),
                             "NumPy": lambda: collected(numpy_only)}, rounds)
        print(f"the other alternatives on bench/tp-step.yaml, {rounds} rounds interleaved; {load_average()}")
        print(table(others, baseline="hand-written lazy Polars, one select"))
    if "3" not in parts:
        shutil.rmtree(folder)
        return

    rows = 100_000_000 if "--huge" in sys.argv else 10_000_000
    context = rows // 400
    spent, spent_cpu = [0.0], [0.0]
    real_chunk = Grid.tiled   # (a sweep's chunk builds its axis columns as tiles: engine/scenarios/tiling.py)

    def timed_chunk(self, tiling, start, stop, also=None):
        # wall, and the CPU of the thread building the columns (Polars' threads write meanwhile,
        # so on a loaded machine the wall time of a chunk includes waiting for a CPU)
        began, began_cpu = time.perf_counter(), time.thread_time()
        try:
            return real_chunk(self, tiling, start, stop, also)
        finally:
            spent[0] += time.perf_counter() - began
            spent_cpu[0] += time.thread_time() - began_cpu
    Grid.tiled = timed_chunk  # type: ignore[method-assign]
    from supersheet.cli.main import main as cli
    big = folder / "big.parquet"
    print(f"\n3. {rows:,} rows to Parquet in process; {load_average()}")
    began_cpu = time.process_time()
    started = time.perf_counter()
    code = cli(["sweep", str(SHEET), "--vary", "tp=1,2,4,8", "--vary", f"context=1024token..131072token:{context}",
                "--vary", "batch=1..100", "--show", ",".join(SHOW), "--max-rows", str(rows), "-o", str(big)])
    total = time.perf_counter() - started
    assert code == 0
    Grid.tiled = real_chunk  # type: ignore[method-assign]
    cpu = time.process_time() - began_cpu
    print(f"total {total:.1f} s wall, {cpu:.1f} s CPU; building axis columns {spent[0]:.2f} s wall = "
          f"{spent[0] / total * 100:.1f} %, {spent_cpu[0]:.2f} s CPU = {spent_cpu[0] / cpu * 100:.1f} %   [target < 5 %]")
    shutil.rmtree(folder)
    print(f"{load_average()} (at the end)")


if __name__ == "__main__":
    main()
