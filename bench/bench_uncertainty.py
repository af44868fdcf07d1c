"""Uncertainty speed (issue 7): 10,000 samples of a generated 50-cell sheet
with 5 uncertain inputs (warm), and a 1,000-row sweep x 1,000 samples.

    .venv/bin/python bench/bench_uncertainty.py
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from supersheet.engine.scenarios.axes import value_axis  # noqa: E402
from supersheet.engine.scenarios.sweep import Grid, iterate_chunks, plans_for  # noqa: E402
from supersheet.engine.scenarios.uncertainty import evaluate_samples  # noqa: E402
from supersheet.engine.workbook import open_workbook  # noqa: E402


def uncertain_sheet() -> str:
    """50 cells: 5 draws, 2 inputs, 43 formulas chained over them."""
    lines = ["title: 50 cells, 5 uncertain inputs", "samples: 10000", "cells:",
             "  eff: = uniform(70 %, 90 %)", "  ar: = lognormal(10 us, 50 us)",
             "  peak: = normal(3350 GB/s, 100 GB/s)", "  ctx: = triangular(4096 token, 8192 token, 32768 token)",
             "  tokens: = poisson(64)", "  w: 65.52 GB", "  kvpt: 256 KiB/token"]
    prev = "w"
    for i in range(43):
        if i % 3 == 0:
            lines.append(f"  c{i}: = {prev} + kvpt * ctx -> GB")
        elif i % 3 == 1:
            lines.append(f"  c{i}: = {prev} / (peak * eff) + 128 * ar -> ms")
        else:
            lines.append(f"  c{i}: = c{i - 2} * (1 + tokens / 1000)")
        prev = f"c{i - (i % 3)}"
    return "\n".join(lines) + "\n"


def main() -> None:
    path = Path(tempfile.mkdtemp()) / "uncertain-50.yaml"
    path.write_text(uncertain_sheet(), encoding="utf-8")
    workbook = open_workbook(path)
    assert workbook.ok, workbook.diagnostics[:1]
    evaluate_samples(workbook)   # warm
    times = []
    for _ in range(7):
        start = time.perf_counter()
        evaluate_samples(workbook)
        times.append(time.perf_counter() - start)
    print(f"10,000 samples of a {len(workbook.model.cells)}-cell sheet with 5 uncertain inputs (warm): "
          f"best {min(times):.3f} s   [target <= 0.5 s]")
    grid = Grid([value_axis(workbook, "w", [f"{x} GB" for x in range(1, 1001)])])
    times = []
    for _ in range(3):
        start = time.perf_counter()
        plans = plans_for(workbook, grid, ["c40", "c41"], None, None, (1000, 0))
        rows = sum(frame.height for frame in iterate_chunks(plans, grid))
        times.append(time.perf_counter() - start)
    print(f"{rows:,}-row sweep x 1,000 samples (percentiles per row): best {min(times):.2f} s   [target <= 5 s]")


if __name__ == "__main__":
    main()
