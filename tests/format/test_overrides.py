"""--set on a formula cell is shown as an override everywhere (issue 11 §4):
the run/explain/JSON/CSV/Markdown goldens are in tests/golden; here the
sweep's Parquet metadata and the explain tree's cut at the set cell."""
from __future__ import annotations

import json

import polars as pl

SHEET = """
title: overrides
cells:
  ranks: 8
  steps: = 2 * (ranks - 1)
  per_step: 2 ms
  total: = steps * per_step
"""


def test_sweep_over_a_formula_cell_records_the_formula_it_overrides(run_cli, write_sheet, tmp_path):
    path = write_sheet(SHEET)
    out = tmp_path / "out.parquet"
    assert run_cli("sweep", str(path), "--vary", "steps=1,2", "-o", str(out)).code == 0
    metadata = pl.read_parquet_metadata(out)
    assert json.loads(metadata["supersheet.overrides"]) == {"steps": "2 * (ranks - 1)"}


def test_sweep_over_an_input_records_no_override(run_cli, write_sheet, tmp_path):
    path = write_sheet(SHEET)
    out = tmp_path / "out.parquet"
    assert run_cli("sweep", str(path), "--vary", "ranks=2,4", "-o", str(out)).code == 0
    assert "supersheet.overrides" not in pl.read_parquet_metadata(out)


def test_explain_does_not_descend_into_a_set_cell(run_cli, write_sheet):
    path = write_sheet(SHEET)
    result = run_cli("explain", str(path), "total", "--set", "steps=3")
    assert result.code == 0, result.output
    assert "steps = 3   (set by --set, replacing = 2 * (ranks - 1))" in result.out
    assert "ranks" not in result.out.replace("(ranks - 1)", "")   # its precedents are not its explanation


def test_json_kind_of_an_overridden_formula(run_cli, write_sheet):
    path = write_sheet(SHEET)
    cells = {c["name"]: c for c in json.loads(run_cli("run", str(path), "--set", "steps=3", "--format", "json").out)["cells"]}
    assert cells["steps"]["kind"] == "override"
    assert cells["steps"]["replaced_formula"] == "2 * (ranks - 1)"
    assert "formula" not in cells["steps"]
    assert cells["total"]["kind"] == "formula"


def test_a_set_that_reshapes_the_sheet_is_still_shown_as_an_override(run_cli, write_sheet):
    # n sets an array's length: --set re-reads the sheet with n as an input, which must not hide the formula
    path = write_sheet("title: r\ncells:\n  base: 2\n  n: = base + 2\n  xs: = range(n)\n  total: = sum(xs)\n")
    cells = {c["name"]: c for c in json.loads(run_cli("run", str(path), "--set", "n=3", "--format", "json").out)["cells"]}
    assert cells["n"]["kind"] == "override" and cells["n"]["replaced_formula"] == "base + 2"
    assert cells["total"]["value"] == 3.0
    assert "n = 3   (set by --set, replacing = base + 2)" in run_cli("explain", str(path), "total", "--set", "n=3").out
