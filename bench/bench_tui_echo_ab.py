"""Keystroke echo during a Monte Carlo resample (bench_tui.py's part 4), paired
and interleaved: the code of a git revision (default: the first parent of
HEAD, exported with `git archive`) against this work tree, in fresh processes,
A B A B …; prints each round and the median of each side's median, p95 and the
UI thread's CPU time per echo, with the load average. With `--load N`, N busy
processes run beside both sides (bench/paired.py's busy_load), a load anyone
can reproduce; `--cells` sizes the generated sheet (5 of its inputs random
draws, 10,000 samples). Prints figures; not a test.

Run: .venv/bin/python bench/bench_tui_echo_ab.py [--base REV] [--rounds 5] [--keys 30] [--load N] [--cells 50]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

from paired import busy_load  # noqa: E402

# one round, in a fresh interpreter whose `supersheet` is the tree at argv[1]
# ("-": this work tree): the editable install's finder is pointed there first
ROUND = """
import asyncio, importlib.util, json, os, sys, tempfile
from pathlib import Path
tree, repo, keys, cells = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
import __editable___supersheet_0_1_0_finder as finder
if tree != "-":
    for name, path in list(finder.MAPPING.items()):
        finder.MAPPING[name] = path.replace(repo, tree)
spec = importlib.util.spec_from_file_location("bench_tui", repo + "/bench/bench_tui.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
import supersheet.tui.app as app
assert app.__file__.startswith(tree if tree != "-" else repo), app.__file__
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "draws.yaml"
    path.write_text(bench.generate_sheet(cells, draws=5), encoding="utf-8")
    load = os.getloadavg()[0]
    figures = asyncio.run(bench.echo_latency(path, keys))
    print(json.dumps({**figures, "load": load}))
"""


def export(revision: str, into: Path) -> None:
    archive = subprocess.run(["git", "archive", revision], cwd=REPO, check=True, capture_output=True).stdout
    with tempfile.TemporaryFile() as handle:
        handle.write(archive)
        handle.seek(0)
        with tarfile.open(fileobj=handle) as tar:
            tar.extractall(into, filter="data")


def one_round(tree: str, keys: int, cells: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    out = subprocess.run([sys.executable, "-c", ROUND, tree, str(REPO), str(keys), str(cells)], check=True,
                         capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="HEAD^", help="the revision to compare with (default HEAD^)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--keys", type=int, default=30)
    parser.add_argument("--cells", type=int, default=50, help="cells of the generated sheet")
    parser.add_argument("--load", type=int, default=0, metavar="N", help="N busy-loop processes beside both sides")
    args = parser.parse_args()
    sides: dict[str, list[dict]] = {"A": [], "B": []}
    with tempfile.TemporaryDirectory() as tmp, busy_load(args.load) as load:
        export(args.base, Path(tmp))
        trees = {"A": tmp, "B": "-"}
        print(f"A = {args.base} (exported), B = this work tree; {args.keys} keys a round, {args.cells} cells; "
              f"{load.said()}")
        for i in range(args.rounds):
            for side in ("AB" if i % 2 == 0 else "BA"):
                figures = one_round(trees[side], args.keys, args.cells)
                sides[side].append(figures)
                print(f"round {i + 1} {side}: echo median {figures['median']:.1f} ms, p95 {figures['p95']:.1f} ms; "
                      f"UI CPU median {figures['cpu_median']:.1f} ms; load {figures['load']:.2f}", flush=True)
        said = load.said()
    for side, label in (("A", args.base), ("B", "this work tree")):
        rounds = sides[side]
        print(f"{side} ({label}): echo median {statistics.median(r['median'] for r in rounds):.1f} ms, "
              f"p95 {statistics.median(r['p95'] for r in rounds):.1f} ms, UI thread CPU per echo "
              f"{statistics.median(r['cpu_median'] for r in rounds):.1f} ms (medians over {len(rounds)} rounds; "
              f"load {min(r['load'] for r in rounds):.1f}-{max(r['load'] for r in rounds):.1f})")
    print(said)


if __name__ == "__main__":
    main()
