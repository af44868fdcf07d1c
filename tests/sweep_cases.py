"""Sweeps that the tests of a sweep's evaluation (factored columns, tiles) run two ways
and compare bit for bit: a written sheet that holds error values, #NUM, conditions and
a varying `outside` column, and every sweep of the library with two axes or more."""
from __future__ import annotations

from typing import Iterator

from repo_paths import SHEETS

from supersheet.engine.scenarios.sweep import Plan, SweepSpec, load_sweep, plans_for, sweep_specs
from supersheet.engine.workbook import Workbook, open_workbook

WRITTEN_SHEET = """\
title: a sweep of errors, #NUM and assumptions
cells:
  a: 1
  b: 2 GB
  c: 3
  inv: = 1 / (a - 2)
  big: = exp(a * 400)
  scaled: = b * a * 2 -> GiB
  ratio: = scaled / (c * 1 GB)
  third: = ratio / 3              # a constant divisor: a column of tiles
  flag: = a > 1.5
  half: = a / 3 + 0.25
  steps: = floor(b / 0.3 GB) * c
assume:
  small_a: a < 3
  few: b <= 1 GB
checks:
  ok: ratio < 10
"""
WRITTEN_VARY = ["a=1,2,3,4,5", "b=1GB,2GB,0.5GB", "c=1..7"]


def library_sweeps() -> Iterator[tuple[str, Workbook, SweepSpec, list[Plan]]]:
    """Each sweep of the library over two axes or more (no explicit rows, no random draws,
    4 to 200,000 rows): where it is, its sheet, the sweep and its plans."""
    for path in sorted(SHEETS.rglob("*.yaml")):
        if "sweeps:" not in path.read_text():
            continue
        workbook = open_workbook(path)
        if not workbook.ok:
            continue
        for name in sweep_specs(workbook):
            spec = load_sweep(workbook, name)
            grid = spec.grid
            if grid.rows is not None or len(grid.value_axes) < 2 or not 4 <= grid.size() <= 200_000:
                continue
            plans = plans_for(workbook, grid, spec.show, spec.where, spec.where_origin)
            if not any(p.draws for p in plans):
                yield f"{path.name} {name}", workbook, spec, plans
