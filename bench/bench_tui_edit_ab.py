"""Edit -> new values on screen (bench_tui.py's parts 1 and 3), paired and
interleaved: the code of a git revision (default: the first parent of HEAD,
exported with `git archive`) against this work tree, in fresh processes,
A B A B …, on the generated 300-cell sheet and on the largest library sheet;
prints each round and, per side and sheet, the median over the rounds of the
edits' median and p95 latency and of the UI thread's CPU per edit (the figure
least disturbed by the load), with the load average. With `--load N`, N busy
processes run beside both sides (bench/paired.py's busy_load). Prints figures;
not a test.

Run: .venv/bin/python bench/bench_tui_edit_ab.py [--base REV] [--rounds 3] [--edits 30] [--load N] [--cells 300]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

from bench_tui_echo_ab import export  # noqa: E402
from paired import busy_load  # noqa: E402

# one round on one sheet, in a fresh interpreter whose `supersheet` is the tree at
# argv[1] ("-": this work tree): the editable install's finder is pointed there first
ROUND = """
import asyncio, importlib.util, json, os, sys, tempfile
from pathlib import Path
tree, repo, edits, cells, sheet, key = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
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
    if sheet == "-":
        path = Path(tmp) / "generated.yaml"
        path.write_text(bench.generate_sheet(cells), encoding="utf-8")
        figures = asyncio.run(bench.edit_latency(path, edits))
    else:
        figures = asyncio.run(bench.edit_latency(Path(sheet), edits, key, lambda i: str(2 + i % 7)))
    print(json.dumps({**figures, "load": os.getloadavg()[0]}))
"""


def one_round(tree: str, edits: int, cells: int, sheet: str, key: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    for attempt in range(3):
        run = subprocess.run([sys.executable, "-c", ROUND, tree, str(REPO), str(edits), str(cells), sheet, key],
                             capture_output=True, text=True, env=env)
        if run.returncode == 0:
            return json.loads(run.stdout.strip().splitlines()[-1])
        # a round that fails (under a heavy load, once in a while) is said and run again, not hidden
        print(f"  (a round of {tree} failed, run again: {run.stderr.strip().splitlines()[-1:]})", flush=True)
    raise RuntimeError(run.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="HEAD^", help="the revision to compare with (default HEAD^)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--cells", type=int, default=300, help="cells of the generated sheet")
    parser.add_argument("--load", type=int, default=0, metavar="N", help="N busy-loop processes beside both sides")
    args = parser.parse_args()
    from bench_tui import largest_library_sheet
    largest, key, count = largest_library_sheet()
    sheets = {f"{args.cells} cells": ("-", "x0"),
              f"{largest.relative_to(REPO)} ({count} cells)": (str(largest), key)}
    results: dict[tuple[str, str], list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp, busy_load(args.load) as load:
        export(args.base, Path(tmp))
        trees = {"A": tmp, "B": "-"}
        print(f"A = {args.base} (exported), B = this work tree; {args.edits} edits a round; {load.said()}")
        for i in range(args.rounds):
            for name, (sheet, cell) in sheets.items():
                for side in ("AB" if i % 2 == 0 else "BA"):
                    figures = one_round(trees[side], args.edits, args.cells, sheet, cell)
                    results.setdefault((side, name), []).append(figures)
                    print(f"round {i + 1} {side} {name}: edit -> screen median {figures['median']:.1f} ms, "
                          f"p95 {figures['p95']:.1f} ms; UI CPU per edit {figures['cpu_median']:.1f} ms; "
                          f"load {figures['load']:.2f}", flush=True)
        said = load.said()
    for (side, name), rounds in results.items():
        label = args.base if side == "A" else "this work tree"
        print(f"{side} ({label}) {name}: edit -> screen median {statistics.median(r['median'] for r in rounds):.1f} ms, "
              f"p95 {statistics.median(r['p95'] for r in rounds):.1f} ms, UI thread CPU per edit "
              f"{statistics.median(r['cpu_median'] for r in rounds):.1f} ms (medians over {len(rounds)} rounds; "
              f"load {min(r['load'] for r in rounds):.1f}-{max(r['load'] for r in rounds):.1f})")
    print(said)


if __name__ == "__main__":
    main()
