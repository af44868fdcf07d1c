"""The calibration sheets (issue 35): their tables are the published runs they cite, their fits
reproduce the constants they write, and `supersheet test` holds them."""
from __future__ import annotations

import json

import pytest

from supersheet.engine.workbook import open_workbook
from repo_paths import SHEETS

SHEET = SHEETS / "calibration" / "allreduce-16xh100.yaml"


def test_the_table_is_the_published_run():
    table = open_workbook(SHEET).model.tables["nccl"]
    assert table.rows == 31 and list(table.columns) == ["size", "time", "algbw", "busbw", "inplace_time",
                                                        "inplace_busbw"]
    size, time, busbw = (table.columns[c].values for c in ("size", "time", "busbw"))
    assert size[0] == 8 and size[-1] == 8 * 2 ** 30 and all(b == 2 * a for a, b in zip(size, size[1:]))
    # printed rows, spot-checked against the source (first, protocol switch, last)
    assert (time[0], time[21], time[-1]) == (135.8, 977.6, 47535.0) and busbw[-1] == 338.82
    # nccl-tests' own busbw: algbw * 2(n-1)/n, algbw = size / time (to its printed digits)
    algbw = size / (time * 1e-6) / 1e9
    assert all(abs(b - a * 1.875) <= 0.01 + 0.002 * b for a, b in zip(algbw, busbw) if b > 1)


def test_supersheet_test_holds_the_calibration(run_cli):
    result = run_cli("test", str(SHEET))
    assert result.code == 0 and "0 failed" in result.out, result.output
    assert "latency.alpha = 4.372" in result.out and "bandwidth.busbw = 316.4" in result.out


@pytest.mark.parametrize("fit, cell, written", [("latency", "alpha", 4.372), ("bandwidth", "busbw", 316.5)])
def test_each_fit_gives_the_constant_the_sheet_writes(run_cli, fit, cell, written):
    result = json.loads(run_cli("fit", str(SHEET), fit, "--format", "json").out)
    value = next(v for v in result["values"] if v["name"] == cell)
    assert value["value"] == pytest.approx(written, rel=2e-4) and not value["on_bound"]
    assert result["table_rows"] == {"latency": 14, "bandwidth": 5}[fit]


def test_by_library_name_from_anywhere(tmp_path, write_sheet, run_cli):
    sheet = write_sheet("""
        tables:
          nccl: supersheet:data/nccl-allreduce-16xh100-gcp-a3mega.csv
        cells:
          rows: = count(nccl.size)
    """)
    # the bundled table's rows, counted from the file (a bare "31" is in its sizes too: 131072)
    data_rows = len((SHEETS / "data" / "nccl-allreduce-16xh100-gcp-a3mega.csv").read_text().splitlines()) - 1
    rows = next(line.split() for line in run_cli("run", str(sheet)).out.splitlines() if line.split()[:1] == ["rows"])
    assert rows[:2] == ["rows", str(data_rows)] and data_rows == 31, rows
    result = run_cli("fit", "supersheet:calibration/allreduce-16xh100.yaml", "bandwidth")
    assert result.code == 0 and "fit bandwidth: 1 cell to 5 rows" in result.out, result.output


def test_run_keeps_each_scalar_formula_beside_its_value(run_cli):
    """The table's columns and the arrays computed over them are long: they run past the value
    column on their own lines instead of pushing every other line's formula ~200 columns right."""
    lines = run_cli("run", str(SHEET)).out.splitlines()
    predicted = next(line for line in lines if line.lstrip().startswith("predicted "))
    assert predicted.index("= 2 * (ranks - 1)") < 60, predicted
    assert any(len(line) > 200 for line in lines if line.lstrip().startswith("model_times ")), \
        "the long array should still be shown whole on its own line"
