"""The editor's edit path (issue 30): `Document.apply` of one input, in
process, on generated sheets (bench/generate.py: the random DAG and the chain)
of 1,000 to 50,000 cells, for inputs read by 0, 10, 100 and 1,000 formulas
(`--fans`): an input no cell reads costs the edit's own work, not the sheet's;
the others show whether the cost is ∝ the cells it changes. The heap is frozen
after the sheet opens and after each edit, as the editor does (tui/heap.py).
Prints min and median CPU (and wall) per edit over `--edits` edits, sheets and
inputs interleaved (the order flipping each round), and the load.

    .venv/bin/python bench/bench_edit.py [--edits N] [--sizes 1000,5000,10000,20000,50000]
                                         [--fans 0,10,100,1000] [--shapes dag,chain] [--load N]
"""
from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from generate import chain_sheet, random_dag_sheet  # noqa: E402
from paired import busy_load, load_average  # noqa: E402

from supersheet.editor.document import Document  # noqa: E402
from supersheet.engine.base.limits import set_limits  # noqa: E402

SHAPES = {"dag": random_dag_sheet, "chain": chain_sheet}


def sheet(folder: Path, shape: str, n: int, fans: list[int]) -> Path:
    """A generated sheet of n cells, plus for each K of `fans` an input `fanK` read by K formulas."""
    extra = []
    for k in fans:
        extra.append(f"  fan{k}: 1 GB")
        extra += [f"  fan{k}_{i}: = fan{k} * {i + 1} -> GB" for i in range(k)]
    path = folder / f"{shape}-{n}.yaml"
    text = SHAPES[shape](n).replace("cells:\n", "cells:\n" + "\n".join(extra) + "\n", 1)
    path.write_text(text, encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--sizes", default="1000,5000,10000,20000,50000")
    parser.add_argument("--fans", default="0,10,100,1000", help="edit inputs read by this many formulas")
    parser.add_argument("--shapes", default="dag,chain")
    parser.add_argument("--load", type=int, default=0, help="that many busy-loop processes beside")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    fans = [int(k) for k in args.fans.split(",")]
    shapes = args.shapes.split(",")
    set_limits(max_file_size=10**8, max_cells=10**6, max_yaml_nodes=10**7)
    folder = Path(tempfile.mkdtemp())
    documents = {(shape, n): Document(sheet(folder, shape, n, fans)) for shape in shapes for n in sizes}
    gc.freeze()
    times: dict[tuple[str, int, int], list[tuple[float, float]]] = {
        (shape, n, k): [] for shape in shapes for n in sizes for k in fans}
    print(f"Document.apply of one input, {args.edits} edits per sheet and input, interleaved; {load_average()}")
    keys = list(documents)
    with busy_load(args.load) as busy:
        for i in range(args.edits):
            for shape, n in (keys if i % 2 == 0 else reversed(keys)):
                for k in (fans if i % 2 == 0 else reversed(fans)):
                    document = documents[(shape, n)]
                    wall, cpu = time.perf_counter(), time.process_time()
                    result = document.apply(f"fan{k}", f"{i % 50 + 2} GB")
                    times[(shape, n, k)].append((time.perf_counter() - wall, time.process_time() - cpu))
                    assert result.ok, result.message
                    assert len(result.changes) == k + 1, (len(result.changes), k)
                    gc.freeze()   # as the editor does after each edit
        print(busy.said())
    print(f"{'sheet, input (cells changed)':40} {'CPU min':>8} {'CPU med':>8} {'wall min':>9} {'wall med':>9}  (ms)")
    for (shape, n, k), samples in times.items():
        cpu, wall = [c for _, c in samples], [w for w, _ in samples]
        label = f"{shape} {n:,} cells, fan{k} ({k + 1})"
        print(f"{label:40} {min(cpu) * 1e3:8.2f} "
              f"{statistics.median(cpu) * 1e3:8.2f} {min(wall) * 1e3:9.2f} {statistics.median(wall) * 1e3:9.2f}")
    print(f"[target: <= 2 ms at 20,000 cells for an input no cell reads (fan0), and ∝ the cells it changes]; "
          f"{load_average()} (at the end)")


if __name__ == "__main__":
    main()
