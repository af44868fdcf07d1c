"""`supersheet plot` of a sweep of N rows, the whole command: CPU and wall per size.

The chart is of the decode-step sheet against its context, one line per TP
degree (4 TP x N/4 contexts). Rows beyond what a chart shows are binned, so
the rendering cost stays flat and the sweep's evaluation grows with N: the
printed curve shows both. Each size runs `--rounds` times in fresh processes
(the CLI as a user runs it), min and median of CPU (user + sys of the child)
and wall, with the load average.

Run: .venv/bin/python bench/bench_plot.py [--rows 10000,100000,1000000] [--rounds 3]
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paired import load_average  # noqa: E402

SHEET = Path(__file__).resolve().parents[1] / "sheets" / "supernodes" / "6.2.2-qwen3-32b-decode-step.yaml"


def one(rows: int, out: Path) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "supersheet.cli.main", "plot", str(SHEET), "--vary", "tp=1,2,4,8",
                    "--vary", f"s=1024token..131072token:{rows // 4}", "--x", "s", "--y", "step", "--color", "tp",
                    "-o", str(out)], check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="10000,100000,1000000")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"before: {load_average()}")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "chart.svg"
        for rows in (int(r) for r in args.rows.split(",")):
            samples = [one(rows, out) for _ in range(args.rounds)]
            cpu, wall = [s[0] for s in samples], [s[1] for s in samples]
            print(f"{rows:>10,} rows: CPU min {min(cpu):.2f} s, median {statistics.median(cpu):.2f} s; "
                  f"wall min {min(wall):.2f} s, median {statistics.median(wall):.2f} s; {out.stat().st_size:,} B SVG")
    print(f"after: {load_average()}")


if __name__ == "__main__":
    main()
