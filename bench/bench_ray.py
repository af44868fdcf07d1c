"""A 10^8-row sweep of bench/tp-step.yaml (the ~20-cell TP step model) to
Parquet: `--on local` (one process, Polars on every core) against `--on ray`
(a local Ray runtime, 2 workers of one Polars thread each).

Both sides do the same work in this process: compile the plans, evaluate
every row with the same Polars plan, write Parquet (one file locally, one part
per row range on Ray). Runs are paired and interleaved (local, Ray, Ray,
local ...) after one cold Ray run that includes starting the runtime; min and
median wall time, CPU time beside it (Ray: the tasks' CPU plus the driver's).

* Speed-up: local wall time / Ray wall time (medians), warm (a runtime
  already running) and cold (the first run of a command: its start-up in).
  Below 1 Ray is slower; on 2 cores, where the local path already runs
  Polars on both, no speed-up is to be had, only Ray's fixed cost.
* Ray start-up: the seconds `ray.init` takes (a fresh local runtime).
* Workers busy: the tasks' summed wall time over (workers x the run's wall
  time): how busy the workers were, not how much faster the sweep was.
* Peak memory per worker: the largest peak RSS a worker process reached
  (a fresh runtime per grid size, so the two sizes do not share history;
  parts of the same size, --part-rows, at both sizes).
* CPU per row on both sides: under load a process with more threads gets
  more of the cores, so CPU time is the fair measure of the work.

The machine is shared: the load average is printed, and when it is above the
core count the 10^7-row grid is measured as well (or always, with --both).

    .venv/bin/python bench/bench_ray.py              # 10^8 rows (and 10^7 when busy)
    .venv/bin/python bench/bench_ray.py --rows 1e7   # one size
    .venv/bin/python bench/bench_ray.py --pairs 3    # more pairs
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from supersheet.engine.scenarios.axes import cli_axis  # noqa: E402
from supersheet.engine.scenarios.grid import Grid  # noqa: E402
from supersheet.engine.scenarios.output import write_parquet  # noqa: E402
from supersheet.engine.scenarios.sweep import iterate_chunks, plans_for, units_metadata  # noqa: E402
from supersheet.engine.scenarios.sweep_ray import sweep_to_dataset  # noqa: E402
from supersheet.engine.workbook import open_workbook  # noqa: E402

SHEET = ROOT / "bench" / "tp-step.yaml"
SHOW = ["kv", "read_per_card", "local", "message", "rounds", "allreduce", "step", "tokens_per_s", "comm_share",
        "per_card", "fits"]
WORKERS = 2


def grid_of(workbook, rows: int) -> Grid:
    """tp x context x batch with `rows` rows (tp and batch 100 values each; context the rest)."""
    contexts = rows // 10_000
    return Grid([cli_axis(workbook, "tp=1..100"), cli_axis(workbook, "batch=1..100"),
                 cli_axis(workbook, f"context=1024token..131072token:{contexts}")])


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_local(workbook, grid: Grid, out: Path) -> tuple[float, float]:
    started, cpu0 = time.perf_counter(), cpu()
    plans = plans_for(workbook, grid, SHOW, None)
    first = next(iterate_chunks(plans, grid, 1))
    rows = write_parquet(iterate_chunks(plans, grid), first.schema, out, units_metadata(plans))
    assert rows == grid.size()
    return time.perf_counter() - started, cpu() - cpu0


def run_ray(workbook, grid: Grid, out: Path, part_rows: int | None):
    started, cpu0 = time.perf_counter(), cpu()
    units: dict = {}
    plans = plans_for(workbook, grid, SHOW, None, None, (None, None), units)
    written = sweep_to_dataset(plans, grid, SHOW, None, None, (None, None), units, str(out), num_cpus=WORKERS,
                               part_rows=part_rows)
    wall = time.perf_counter() - started
    assert written.rows == grid.size()
    return wall, cpu() - cpu0 + sum(p.cpu for p in written.parts), written


def summary(times: list[float]) -> str:
    return f"min {min(times):6.1f} s  median {statistics.median(times):6.1f} s"


def measure(rows: int, pairs: int, scratch: Path, part_rows: int | None) -> None:
    workbook = open_workbook(SHEET)
    grid = grid_of(workbook, rows)
    print(f"\n== {grid.size():,} rows ({len(SHOW)} cells shown), load average {os.getloadavg()[0]:.1f} ==")
    local_out, ray_out = scratch / "local.parquet", scratch / "ray"

    # Cold: a fresh runtime, its start-up included.
    cold_wall, _, cold = run_ray(workbook, grid, ray_out, part_rows)
    startup = cold.startup
    print(f"ray, cold (fresh runtime):  {cold_wall:6.1f} s, of which ray.init {startup:.1f} s; "
          f"{len(cold.parts)} parts of {grid.size() // len(cold.parts):,} rows")
    local_times, local_cpu, ray_times, ray_cpu, efficiency, peaks = [], [], [], [], [], []
    def local() -> None:
        wall, used = run_local(workbook, grid, local_out)
        local_times.append(wall)
        local_cpu.append(used)
        local_out.unlink()

    def on_ray() -> None:
        wall, used, written = run_ray(workbook, grid, ray_out, part_rows)
        ray_times.append(wall)
        ray_cpu.append(used)
        efficiency.append(sum(p.seconds for p in written.parts) / (WORKERS * wall))
        peaks.append(max(p.peak_rss for p in written.parts))

    for i in range(pairs):   # the order flips each round (A B B A ...), as bench/paired.py's interleave
        for side in ((local, on_ray) if i % 2 == 0 else (on_ray, local)):
            side()
        print(f"  pair: local {local_times[-1]:6.1f} s (cpu {local_cpu[-1]:6.1f} s)   "
              f"ray {ray_times[-1]:6.1f} s (cpu {ray_cpu[-1]:6.1f} s)   load {os.getloadavg()[0]:.1f}")
    shutil.rmtree(ray_out, ignore_errors=True)
    best_local, best_ray = min(local_times), min(ray_times)
    print(f"local (1 process, Polars on {os.cpu_count()} threads): {summary(local_times)}   "
          f"{grid.size() / best_local / 1e6:5.1f} M rows/s")
    print(f"ray, warm ({WORKERS} workers x 1 thread):     {summary(ray_times)}   "
          f"{grid.size() / best_ray / 1e6:5.1f} M rows/s")
    print(f"ray start-up (ray.init, fresh local runtime): {startup:.1f} s")
    print(f"speed-up (local wall / Ray wall, medians): warm {statistics.median(local_times) / statistics.median(ray_times):.2f}x, "
          f"cold {statistics.median(local_times) / cold_wall:.2f}x (ray.init's {startup:.1f} s included)")
    print(f"CPU per row: local {min(local_cpu) / grid.size() * 1e6:.3f} us, ray {min(ray_cpu) / grid.size() * 1e6:.3f} us "
          f"(tasks + driver): {grid.size() / min(ray_cpu) / 1e6:.2f} M rows per CPU-second on Ray")
    print(f"workers busy (task time / ({WORKERS} x wall), not a speed-up): median {statistics.median(efficiency):.0%}")
    print(f"per-core throughput on Ray: {grid.size() / (best_ray * WORKERS * statistics.median(efficiency)) / 1e6:.1f}"
          " M rows/s per busy worker")
    print(f"peak RSS per worker: {max(peaks) / 2**20:.0f} MiB")
    on_ray_shutdown()


def on_ray_shutdown() -> None:
    import ray
    ray.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, help="one grid size (default 1e8, plus 1e7 when the machine is busy)")
    parser.add_argument("--pairs", type=int, default=2, help="local/Ray pairs per size (default 2)")
    parser.add_argument("--both", action="store_true", help="measure 1e8 and 1e7 rows whatever the load")
    parser.add_argument("--part-rows", type=float, default=1e6,
                        help="rows per Ray task, the same for every grid size so that peak memory per worker "
                             "compares (default 1e6; 0: --on ray's own choice)")
    args = parser.parse_args()
    load = os.getloadavg()
    cores = os.cpu_count() or 1
    print(f"cores {cores}, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    sizes = [int(args.rows)] if args.rows else [10**8]
    if not args.rows and (args.both or load[0] > cores):
        print(f"the machine is busy (load {load[0]:.1f} on {cores} cores): measuring 10^7 rows as well")
        sizes.append(10**7)
    scratch = Path(tempfile.mkdtemp(prefix="bench-ray-"))
    try:
        for rows in sizes:
            measure(rows, args.pairs, scratch, int(args.part_rows) or None)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"\nload average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
