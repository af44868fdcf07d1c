"""Engine speed (issue 14), every figure a paired, interleaved comparison:

1. cold start: `supersheet run` of a generated 100-cell chain and `supersheet
   calc` against `python -c "import polars, pint"` and `python -c "import
   pint"` (fresh processes, ABAB…; CPU is user + system of the child);
2. re-evaluation after an edit that changes 10 cells of a 20,000-cell sheet
   (`evaluate.reevaluate`, what the editor calls) against evaluating the whole
   sheet again;
3. one scenario of a 2,000-cell chain: the scalar path (`evaluate`) against
   the same sheet as a one-row Polars plan (`evaluate_with_polars`).

    .venv/bin/python bench/bench_engine.py [--rounds N]
"""
from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from generate import write_chain_sheet  # noqa: E402
from paired import child, in_process, interleave, load_average, table  # noqa: E402

from supersheet.engine.base.limits import set_limits  # noqa: E402
from supersheet.engine.compile.evaluate import evaluate, evaluate_with_polars, literal_for, reevaluate  # noqa: E402
from supersheet.engine.workbook import open_workbook  # noqa: E402


def blocks_sheet(blocks: int, length: int) -> str:
    """`blocks` independent chains of `length` cells: editing a chain's input changes `length` cells."""
    lines = ["title: blocks", "cells:"]
    for j in range(blocks):
        lines.append(f"  x{j}: {j % 50 + 1} GB")
        previous = f"x{j}"
        for k in range(1, length):
            lines.append(f"  y{j}_{k}: = {previous} * 2 + 1 MB")
            previous = f"y{j}_{k}"
    return "\n".join(lines) + "\n"


def main() -> None:
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 10
    folder = Path(tempfile.mkdtemp())
    python = sys.executable
    supersheet = str(Path(python).parent / "supersheet")
    sheet100 = write_chain_sheet(folder, 100)

    print(f"1. cold start, fresh processes, {rounds} rounds interleaved; {load_average()}")
    cold = interleave({
        'python -c "import polars, pint"': lambda: child([python, "-c", "import polars, pint"]),
        "supersheet run (100-cell chain)": lambda: child([supersheet, "run", str(sheet100)]),
        'python -c "import pint"': lambda: child([python, "-c", "import pint"]),
        'supersheet calc "1 GB -> GiB"': lambda: child([supersheet, "calc", "1 GB -> GiB"]),
    }, rounds)
    print(table(cold, baseline='python -c "import polars, pint"'))
    base = cold['python -c "import polars, pint"'].stat("cpu", statistics.median)
    run = cold["supersheet run (100-cell chain)"].stat("cpu", statistics.median)
    print(f"run - import polars, pint: {(run - base) * 1e3:+.0f} ms CPU (median)   [target <= +100 ms]")

    path = folder / "blocks.yaml"
    path.write_text(blocks_sheet(2000, 10), encoding="utf-8")
    set_limits(max_cells=100_000)   # past the default load limit of 10,000 cells (docs/security.md), as --max-cells
    workbook = open_workbook(path)
    assert workbook.ok and len(workbook.model.cells) == 20_000
    scenario = workbook.evaluate()
    values = iter(range(1, 10**9))
    edited = []

    def edit() -> None:
        j = next(values) % 2000
        after, recomputed = reevaluate(scenario, {f"x{j}": literal_for(float(j + 7) * 1e9, None)})
        edited.append(len(recomputed))

    print(f"\n2. re-evaluation after one input changes 10 cells of a 20,000-cell sheet, in process, "
          f"{rounds * 5} rounds; {load_average()}")
    edits = interleave({"evaluate the whole sheet": lambda: in_process(lambda: evaluate(workbook.checked)),
                        "reevaluate (10 cells)": lambda: in_process(edit)}, rounds * 5)
    assert set(edited) == {10}, set(edited)
    print(table(edits, baseline="evaluate the whole sheet"))
    print(f"reevaluate: median {edits['reevaluate (10 cells)'].stat('wall', statistics.median) * 1e3:.2f} ms wall"
          "   [target <= 5 ms]")

    chain = open_workbook(write_chain_sheet(folder, 2000))
    print(f"\n3. one scenario of a 2,000-cell chain, in process, {rounds} rounds; {load_average()}")
    one_row = interleave({"one-row Polars plan (evaluate_with_polars)": lambda: in_process(
                              lambda: evaluate_with_polars(chain.checked)),
                          "scalar path (evaluate)": lambda: in_process(lambda: evaluate(chain.checked))}, rounds)
    assert evaluate(chain.checked).values == evaluate_with_polars(chain.checked)
    print(table(one_row, baseline="one-row Polars plan (evaluate_with_polars)"))
    print(f"{load_average()} (at the end)")


if __name__ == "__main__":
    main()
