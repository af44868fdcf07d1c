"""Generated sheets for the benchmarks, shaped like real models (inputs with
units, formulas that mix them, a check).

* `chain_sheet(n)`: a tenth inputs, the rest one chain: every formula reads
  the previous formula and one input, so the dependency depth is ~0.9 n.
* `fanin_sheet(n)`: n - 1 inputs and one cell `max(g0, …, gN)` reading all
  (written as a folded block scalar: no line is long).
* `random_dag_sheet(n)`: a tenth inputs, the rest formulas each reading
  three distinct earlier cells picked at random (inputs or formulas; fixed
  seed), in mixed units of information (GB, GiB, MB, TB in, GB, GiB, MB or
  none out), every value positive and finite: dependency depth ~ log n.
"""
from __future__ import annotations

import random
from pathlib import Path

UNITS = ["GB", "GiB", "MB", "TB"]


def chain_sheet(n_cells: int) -> str:
    lines = ["title: Generated chain", "cells:"]
    n_inputs = max(4, n_cells // 10)
    for i in range(n_inputs):
        lines.append(f"  in{i}: {i % 97 + 1}.5 {UNITS[i % 4]}")
    for i in range(n_cells - n_inputs):
        prev = f"f{i - 1}" if i else "in0"
        a = f"in{i % n_inputs}"
        k = i % 4
        if k == 0:
            formula = f"= {prev} + {a} * 2 -> GB"
        elif k == 1:
            formula = f"= max({prev}, {a}) + 1 MB"
        elif k == 2:
            formula = f"= {prev} / 2 + {a}"
        else:
            formula = f"= ceil({prev} / {a}) * {a}"
        lines.append(f"  f{i}: {formula}")
    lines += ["checks:", "  fits: f0 <= 1000 GB"]
    return "\n".join(lines) + "\n"


def fanin_sheet(n_cells: int) -> str:
    lines = ["title: Generated fan-in", "cells:"]
    n_inputs = max(1, n_cells - 1)
    for i in range(n_inputs):
        lines.append(f"  g{i}: {i % 97 + 1}.5 {UNITS[i % 4]}")
    names = [f"g{i}" for i in range(n_inputs)]
    # a folded block scalar: lines stay short (the YAML line-length limit), the formula is one line
    lines.append("  biggest: >-")
    lines.append("    = max(" + names[0])
    lines += ["    , " + ", ".join(names[i:i + 100]) for i in range(1, n_inputs, 100)]
    lines.append("    )")
    lines += ["checks:", "  fits: biggest <= 1000 TB"]
    return "\n".join(lines) + "\n"


def random_dag_sheet(n_cells: int, refs: int = 3) -> str:
    lines = ["title: Generated random DAG", "cells:"]
    n_inputs = max(refs + 1, n_cells // 10)
    names = [f"in{i}" for i in range(n_inputs)]
    for i, name in enumerate(names):
        lines.append(f"  {name}: {i % 97 + 1}.5 {UNITS[i % 4]}")
    pick = random.Random(n_cells)
    forms = ["= max({0}, {1}) + {2} / 4 -> GB", "= {0} + {1} / 2 + {2} -> GiB",
             "= min({0}, {1}) + {2} -> MB", "= ({0} + {1}) / 2 + {2} / 8"]
    for i in range(n_cells - n_inputs):
        read = pick.sample(names, refs)
        lines.append(f"  f{i}: " + forms[i % len(forms)].format(*read))
        names.append(f"f{i}")
    lines += ["checks:", f"  fits: {names[-1]} <= 1e30 TB"]
    return "\n".join(lines) + "\n"


def write_random_dag_sheet(folder: Path, n_cells: int) -> Path:
    path = folder / f"dag-{n_cells}.yaml"
    path.write_text(random_dag_sheet(n_cells), encoding="utf-8")
    return path


def write_chain_sheet(folder: Path, n_cells: int) -> Path:
    path = folder / f"chain-{n_cells}.yaml"
    path.write_text(chain_sheet(n_cells), encoding="utf-8")
    return path


def write_fanin_sheet(folder: Path, n_cells: int) -> Path:
    path = folder / f"fanin-{n_cells}.yaml"
    path.write_text(fanin_sheet(n_cells), encoding="utf-8")
    return path
