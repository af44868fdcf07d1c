"""Generated sheets for the benchmarks: N cells shaped like real models
(inputs with units, chains of formulas that mix them, a few checks)."""
from __future__ import annotations

from pathlib import Path


def chain_sheet(n_cells: int) -> str:
    """About n_cells cells: a tenth inputs, the rest formulas over earlier cells."""
    lines = ["title: Generated benchmark sheet", "cells:"]
    n_inputs = max(4, n_cells // 10)
    units = ["GB", "ms", "GB/s", "token"]
    for i in range(n_inputs):
        lines.append(f"  in{i}: {i + 1}.5 {units[i % 4]}")
    count = n_inputs
    i = 0
    while count < n_cells:
        k = i % 4
        a, b = f"in{k}", f"in{(k + 4) % n_inputs if (k + 4) % n_inputs % 4 == k else k}"
        prev = f"f{i - 1}" if i > 0 and (i - 1) % 4 == k else a
        if k == 0:
            formula = f"= {prev} + {a} * 2 -> GB"
        elif k == 1:
            formula = f"= max({prev}, {a}) + 1 ms"
        elif k == 2:
            formula = f"= {prev} / 2 + {a}"
        else:
            formula = f"= ceil({prev} / {a}) * {a}"
        lines.append(f"  f{i}: {formula}")
        count += 1
        i += 1
    lines.append("checks:")
    lines.append("  fits: f0 <= 1000 GB")
    return "\n".join(lines) + "\n"


def write_chain_sheet(folder: Path, n_cells: int) -> Path:
    path = folder / f"generated-{n_cells}.yaml"
    path.write_text(chain_sheet(n_cells), encoding="utf-8")
    return path
