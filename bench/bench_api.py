"""What `Sheet.with_inputs` costs against evaluating the whole sheet again.

`with_inputs` re-evaluates only the set cells and their dependents
(supersheet.engine.compile.evaluate.reevaluate). The alternative is the engine's full one-
scenario path on the same loaded, checked workbook: the same `--set` parsing
(apply_assignments), then `Workbook.evaluate(fixed)`, every cell with Python
floats. Both sides run interleaved (paired.py); loading is outside the timing.

    .venv/bin/python bench/bench_api.py [--rounds N] [--cells N]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from generate import write_fanin_sheet  # noqa: E402
from paired import in_process, interleave, load_average, table  # noqa: E402

import supersheet as ss  # noqa: E402
from supersheet.engine.workbook import apply_assignments  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def compare(label: str, path: Path, name: str, values: list[str], rounds: int) -> None:
    sheet = ss.load(path)
    workbook = sheet._base
    turn = {"i": 0}

    def value() -> str:
        turn["i"] += 1
        return values[turn["i"] % len(values)]

    def incremental() -> None:
        sheet.with_inputs(**{name: value()})

    def full() -> None:
        variant, fixed = apply_assignments(workbook, [f"{name}={value()}"])
        variant.evaluate(fixed)

    series = interleave({"Sheet.with_inputs (dependents only)": lambda: in_process(incremental),
                         "apply_assignments + Workbook.evaluate (all)": lambda: in_process(full)}, rounds)
    print(f"\n{label}: {len(workbook.model.cells):,} cells, set {name}; {rounds} rounds, {load_average()}")
    print(table(series, baseline="apply_assignments + Workbook.evaluate (all)"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--cells", type=int, default=5_000)   # under the default --max-cells
    args = parser.parse_args()
    compare("running example", REPO / "sheets/supernodes/6.1.2-running-example.yaml", "context",
            ["32768 token", "16384 token"], args.rounds)
    with tempfile.TemporaryDirectory() as folder:
        path = write_fanin_sheet(Path(folder), args.cells)
        compare("generated fan-in sheet", path, "g0", ["3 GB", "4 GB"], args.rounds)


if __name__ == "__main__":
    main()
