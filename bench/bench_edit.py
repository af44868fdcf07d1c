"""The editor's edit path (issue 30): `Document.apply` of one input, in
process, on random-DAG sheets of 1,000 to 20,000 cells (bench/generate.py),
for an input no cell reads (`spare`: its cost is the edit's own, not the
sheet's) and for one read by a fan of K formulas (`fan`: ∝ the cells it
changes). The heap is frozen after the sheet opens and after each edit, as
the editor does (tui/heap.py). Prints min and median CPU (and wall) per
edit over `--edits` edits, sizes interleaved, and the load.

    .venv/bin/python bench/bench_edit.py [--edits N] [--sizes 1000,5000,20000] [--fan 100] [--load N]
"""
from __future__ import annotations

import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from generate import random_dag_sheet  # noqa: E402
from paired import busy_load, load_average  # noqa: E402

from supersheet.editor.document import Document  # noqa: E402
from supersheet.engine.base.limits import set_limits  # noqa: E402


def sheet(folder: Path, n: int, fan: int) -> Path:
    """A random DAG of n cells, plus `spare` (read by nothing) and `fan` read by `fan` formulas."""
    extra = ["  spare: 1 GB", "  fan: 1 GB"] + [f"  fan{i}: = fan * {i + 1} -> GB" for i in range(fan)]
    path = folder / f"dag-{n}.yaml"
    path.write_text(random_dag_sheet(n).replace("cells:\n", "cells:\n" + "\n".join(extra) + "\n", 1), encoding="utf-8")
    return path


def main() -> None:
    edits = int(sys.argv[sys.argv.index("--edits") + 1]) if "--edits" in sys.argv else 30
    sizes = [int(s) for s in sys.argv[sys.argv.index("--sizes") + 1].split(",")] if "--sizes" in sys.argv \
        else [1000, 5000, 20000]
    fan = int(sys.argv[sys.argv.index("--fan") + 1]) if "--fan" in sys.argv else 100
    load = int(sys.argv[sys.argv.index("--load") + 1]) if "--load" in sys.argv else 0
    set_limits(max_file_size=10**8, max_cells=10**6, max_yaml_nodes=10**7)
    folder = Path(tempfile.mkdtemp())
    documents = {n: Document(sheet(folder, n, fan)) for n in sizes}
    gc.freeze()
    times: dict[tuple[int, str], list[tuple[float, float]]] = {(n, k): [] for n in sizes for k in ("spare", "fan")}
    print(f"Document.apply of one input, {edits} edits per sheet and input, interleaved; {load_average()}")
    with busy_load(load) as busy:
        for i in range(edits):
            for n in (sizes if i % 2 == 0 else reversed(sizes)):
                for key in ("spare", "fan"):
                    wall, cpu = time.perf_counter(), time.process_time()
                    result = documents[n].apply(key, f"{i % 50 + 2} GB")
                    times[(n, key)].append((time.perf_counter() - wall, time.process_time() - cpu))
                    assert result.ok, result.message
                    assert len(result.changes) == (1 if key == "spare" else fan + 1), len(result.changes)
                    gc.freeze()   # as the editor does after each edit
        print(busy.said())
    print(f"{'sheet, input (cells changed)':40} {'CPU min':>8} {'CPU med':>8} {'wall min':>9} {'wall med':>9}  (ms)")
    for (n, key), samples in times.items():
        cpu, wall = [c for _, c in samples], [w for w, _ in samples]
        label = f"{n:,} cells, {key} ({1 if key == 'spare' else fan + 1})"
        print(f"{label:40} {min(cpu) * 1e3:8.2f} "
              f"{statistics.median(cpu) * 1e3:8.2f} {min(wall) * 1e3:9.2f} {statistics.median(wall) * 1e3:9.2f}")
    print(f"[target: <= 2 ms at 20,000 cells for an input no cell reads, and ∝ the cells it changes]; "
          f"{load_average()} (at the end)")


if __name__ == "__main__":
    main()
