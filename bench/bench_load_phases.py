"""Where `supersheet run` of a large sheet spends its CPU (issue 30): the phases of
one fresh process on an N-cell random DAG (bench/generate.py's shape: three
references a cell, mixed units), each timed with the process's own CPU clock,
min and median over the rounds, the load printed.

Phases, in the order `run` takes them: importing the engine (as `run` does, without
building Pint's unit registry: units resolved by an earlier process are read from its
disk cache, units/_names.py; the first `run` after an installation pays the registry
in "load"); reading the YAML (libyaml and the documents it builds, fastyaml.py:
timed alone first, on the same text); loading (the YAML again, every formula
lexed and parsed, `use:` resolved: build_model); checking (names, order, types:
check_model); evaluating one scenario; rendering the text table `run` prints.
The cycle collector is paused as `run` pauses it (engine/base/gcpause.py).

    .venv/bin/python bench/bench_load_phases.py [--cells 20000] [--rounds 5] [--shape dag|chain|fan-in]
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

from generate import write_chain_sheet, write_fanin_sheet, write_random_dag_sheet  # noqa: E402
from paired import CHILD_ENV, load_average  # noqa: E402

SHAPES = {"chain": write_chain_sheet, "fan-in": write_fanin_sheet, "dag": write_random_dag_sheet}
PHASES = ("import", "YAML alone", "load", "check", "evaluate", "render")

CHILD = """\
import gc, json, sys, time
clock = time.process_time
t = clock()
from supersheet.engine.base.limits import set_limits
from supersheet.engine.check.check import check_model
from supersheet.engine.compile.evaluate import evaluate
from supersheet.engine.load import fastyaml
from supersheet.engine.load.resolve import build_model
from supersheet.engine.load.sheet import yaml_loader
from supersheet.engine.present.report import render_run
from supersheet.engine.workbook import Workbook
set_limits(max_file_size=10**8, max_cells=10**7, max_yaml_nodes=10**8)
fastyaml.available()
times = {"import": clock() - t}
gc.disable()
text = open(sys.argv[1], encoding="utf-8").read()
t = clock(); assert fastyaml.load_fast(text, yaml_loader()) is not None; times["YAML alone"] = clock() - t
t = clock(); model = build_model(sys.argv[1]); times["load"] = clock() - t
t = clock(); checked = check_model(model); times["check"] = clock() - t
assert checked.ok, checked.diagnostics[:1]
t = clock(); scenario = evaluate(checked); times["evaluate"] = clock() - t
t = clock(); out = render_run(Workbook(model, checked), scenario, "text"); times["render"] = clock() - t
print(json.dumps(times))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cells", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--shape", choices=tuple(SHAPES), default="dag")
    args = parser.parse_args()
    sheet = SHAPES[args.shape](Path(tempfile.mkdtemp()), args.cells)
    print(f"phases of `run` on a {args.cells:,}-cell {args.shape}, fresh process per round, "
          f"{args.rounds} rounds; {load_average()}")
    rounds = []
    for _ in range(args.rounds):
        out = subprocess.run([sys.executable, "-c", CHILD, str(sheet)], capture_output=True, text=True,
                             cwd=HERE.parent, env=CHILD_ENV, check=True).stdout
        rounds.append(json.loads(out))
    print(f"{'(ms CPU)':12} {'min':>7} {'median':>7} {'per cell (µs)':>14}")
    for phase in (*PHASES, "total"):
        values = [sum(r[p] for p in PHASES if p != "YAML alone") if phase == "total" else r[phase] for r in rounds]
        median = statistics.median(values)
        print(f"{phase:12} {min(values) * 1e3:7.0f} {median * 1e3:7.0f} {median * 1e6 / args.cells:14.1f}")
    print("(total: every phase but 'YAML alone', which 'load' includes)")
    print(f"{load_average()} (at the end)")


if __name__ == "__main__":
    main()
