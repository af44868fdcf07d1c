"""A sweep divides by a cell that is an `if` (or `clamp`) of constants exactly, as
Python does, in every row: where every row of a block takes the same constant branch,
Polars would hold that cell as one value and divide by its reciprocal (up to 1 ulp off,
`floor` then off by one), so a constant branch is a column of the frame."""
from __future__ import annotations

import numpy as np

from supersheet.engine.scenarios.axes import cli_axis
from supersheet.engine.scenarios.sweep import Grid, SweepSpec, run_in_memory
from supersheet.engine.workbook import open_workbook

SHEET = """\
title: exact division by a branch
cells:
  fast: true
  n: 1
  rate: = if(fast, 3, 7)
  bounded: = clamp(n, 10, 49)
  share: = n / rate
  parts: = floor(n / rate)
  per: = n / bounded
"""


def test_division_by_an_if_of_constants_is_exact_in_every_row(tmp_path):
    path = tmp_path / "branch.yaml"
    path.write_text(SHEET)
    workbook = open_workbook(path)
    assert workbook.ok, workbook.diagnostics
    grid = Grid([cli_axis(workbook, "fast=true,false"), cli_axis(workbook, "n=1..200000")])
    frame = run_in_memory(workbook, SweepSpec("s", grid, ["share", "parts", "per"]))
    n = np.arange(1.0, 200001.0)
    compared = 0
    for fast, rate in ((True, 3.0), (False, 7.0)):
        rows = frame.filter(frame["fast"] == fast)
        assert np.array_equal(rows["n"].to_numpy(), n)
        assert np.array_equal(rows["share"].to_numpy(), n / rate)   # bit for bit, as Python divides
        assert np.array_equal(rows["parts"].to_numpy(), np.floor(n / rate))
        assert np.array_equal(rows["per"].to_numpy(), n / np.clip(n, 10.0, 49.0))
        compared += 3 * len(n)
    assert compared == 1_200_000
