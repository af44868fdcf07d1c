"""Why checking and evaluating cost more per cell on a larger sheet (issue 30): the same
work on a larger working set, not more work per cell.

For a shape (bench/generate.py: random DAG or chain) and two sizes SMALL and LARGE = K x SMALL,
each in fresh processes, rounds interleaved, CPU median (min), µs a cell:

* one LARGE-cell sheet: load it, then time `check_model` and `evaluate`;
* K SMALL-cell sheets loaded, checked and evaluated one after another in one process, each
  kept: the heap grows as large as with the LARGE sheet, but one check reads one copy's
  tables and cells;
* one SMALL-cell sheet alone;

and the Python calls a cell costs in each phase (cProfile's count, every built-in call
included) at both sizes. Equal calls a cell, the K copies as fast as one SMALL sheet, and
the LARGE sheet slower say the growth comes from the size of what one check (one evaluation)
reads — its per-node tables and cells no longer fit the CPU's caches — not from a step that
grows with the sheet, nor from the heap's size.

    .venv/bin/python bench/bench_locality.py [--shape dag|chain] [--small 5000] [--copies 10] [--rounds 3]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import write_chain_sheet, write_random_dag_sheet  # noqa: E402
from paired import CHILD_ENV, load_average  # noqa: E402

SHAPES = {"chain": write_chain_sheet, "dag": write_random_dag_sheet}

CHILD = """\
import cProfile, gc, json, pstats, sys, time
from supersheet.engine.base.limits import set_limits
from supersheet.engine.check.check import check_model
from supersheet.engine.compile.evaluate import evaluate
from supersheet.engine.load.resolve import build_model
set_limits(max_file_size=10**8, max_cells=10**7, max_yaml_nodes=10**8)
gc.disable()   # as `run` pauses it (engine/base/gcpause.py)
path, copies, count = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "calls"
clock, kept, check, value, cells = time.process_time, [], 0.0, 0.0, 0
for _ in range(copies):
    model = build_model(path)
    if count:
        calls = {}
        for phase, run in (("check", lambda: check_model(model)), ("evaluate", lambda: evaluate(checked))):
            profile = cProfile.Profile()
            profile.enable()
            result = run()
            profile.disable()
            calls[phase] = sum(stat[1] for stat in pstats.Stats(profile).stats.values()) / len(model.cells)
            if phase == "check":
                checked = result
        print(json.dumps(calls))
        sys.exit()
    t = clock(); checked = check_model(model); check += clock() - t
    t = clock(); scenario = evaluate(checked); value += clock() - t
    kept.append((model, checked, scenario))
    cells += len(model.cells)
print(json.dumps({"check": check / cells, "evaluate": value / cells}))
"""


def run_child(path: Path, copies: int, what: str = "time") -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), str(copies), what], capture_output=True,
                         text=True, cwd=HERE.parent, env=CHILD_ENV, check=True).stdout
    return json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", choices=tuple(SHAPES), default="dag")
    parser.add_argument("--small", type=int, default=5000)
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    large = args.small * args.copies
    small_sheet, large_sheet = SHAPES[args.shape](folder, args.small), SHAPES[args.shape](folder, large)
    sides = {f"one {large:,}-cell sheet": (large_sheet, 1),
             f"{args.copies} x {args.small:,} cells, one process": (small_sheet, args.copies),
             f"one {args.small:,}-cell sheet": (small_sheet, 1)}
    print(f"check and evaluate of a {args.shape}, µs a cell, CPU median (min), fresh process per run, "
          f"{args.rounds} rounds interleaved; {load_average()}")
    results: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
    for _ in range(args.rounds):
        for name, (path, copies) in sides.items():
            results[name].append(run_child(path, copies))
    print(f"{'':40} {'check':>16} {'evaluate':>16}")
    for name, rounds in results.items():
        cells = [f"{statistics.median(r[p] for r in rounds) * 1e6:7.1f} ({min(r[p] for r in rounds) * 1e6:5.1f})"
                 for p in ("check", "evaluate")]
        print(f"{name:40} {cells[0]:>16} {cells[1]:>16}")
    for size, path in ((args.small, small_sheet), (large, large_sheet)):
        calls = run_child(path, 1, "calls")
        print(f"Python calls a cell, {size:,} cells: check {calls['check']:.2f}, evaluate {calls['evaluate']:.2f}")
    print(f"{load_average()} (at the end)")


if __name__ == "__main__":
    main()
