"""Edit -> new values on screen with the editor's heap frozen (tui/heap.py) and
without, paired and interleaved: each side a fresh process editing the largest
library sheet (bench_tui.py's edit_latency), sides alternating A B B A ...
Prints, per side, the median of each run's median / p95 / max latency, the
longest full (generation 2) collection seen and the peak RSS, with the load
average. The frozen side never sweeps during the run (no 5 s pause), so its
RSS is the cost of waiting for idleness.

    .venv/bin/python bench/bench_tui_heap.py [--rounds 3] [--edits 150]
"""
from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from paired import CHILD_ENV, load_average  # noqa: E402


def one_side(frozen: bool, edits: int) -> dict:
    """Run in the child: the edits, timed, with gc callbacks measuring full collections."""
    import bench_tui

    from supersheet.tui.heap import QuietHeap
    if not frozen:
        QuietHeap.freeze = lambda self: None   # type: ignore[method-assign]
    full: list[float] = []
    started = [0.0]

    def watch(phase: str, info: dict) -> None:
        if info["generation"] == 2:
            if phase == "start":
                started[0] = time.perf_counter()
            else:
                full.append((time.perf_counter() - started[0]) * 1000)

    gc.callbacks.append(watch)
    path, key, _ = bench_tui.largest_library_sheet()
    figures = asyncio.run(bench_tui.edit_latency(path, edits, key, texts=lambda i: f"{0.5 + i * 0.01}"))
    figures["longest_full_gc"] = max(full, default=0.0)
    figures["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--edits", type=int, default=150)
    parser.add_argument("--side", choices=("frozen", "unfrozen"))
    args = parser.parse_args()
    if args.side:
        print(json.dumps(one_side(args.side == "frozen", args.edits)))
        return
    env = {**CHILD_ENV, "TEXTUAL_ANIMATIONS": "none"}
    env.pop("NO_COLOR", None)
    print(f"edit -> screen, largest library sheet, {args.edits} edits per run, {args.rounds} rounds "
          f"interleaved; {load_average()}")
    runs: dict[str, list[dict]] = {"unfrozen": [], "frozen": []}
    for i in range(args.rounds):
        for side in (("unfrozen", "frozen") if i % 2 == 0 else ("frozen", "unfrozen")):
            out = subprocess.run([sys.executable, __file__, "--side", side, "--edits", str(args.edits)],
                                 env=env, capture_output=True, text=True, check=True, cwd=HERE.parent)
            runs[side].append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"{'(ms, median over runs)':24} {'median':>8} {'p95':>8} {'max':>8} {'full gc':>8} {'peak MiB':>9}")
    for side, figures in runs.items():
        def med(what: str) -> float:
            return statistics.median(f[what] for f in figures)
        print(f"{side:24} {med('median'):8.1f} {med('p95'):8.1f} {med('max'):8.1f} {med('longest_full_gc'):8.1f} "
              f"{med('peak_mib'):9.0f}")
    print(f"{load_average()} (at the end)")


if __name__ == "__main__":
    os.environ.pop("NO_COLOR", None)
    main()
