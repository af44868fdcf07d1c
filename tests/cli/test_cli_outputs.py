"""Data outputs a pipeline can rely on, and the batch commands' options:
error columns by one rule everywhere, numbers as floats everywhere, display
units that do not depend on the sheet's own scenario, --set under the varied
axes, and choices that show every failed requirement."""
from __future__ import annotations

import io
import json

import polars as pl
import pytest

ERRORS = """
    cells:
      n: 1
      z: 0
      r: = 1 / (n - z)
      half: = n / 2
"""


def _csv(text: str) -> pl.DataFrame:
    return pl.read_csv(io.StringIO(text))


@pytest.mark.parametrize("chunk_rows", ["1000000", "1"])
@pytest.mark.parametrize("values, error_column", [("1,2", False), ("0,1,2", True)])
def test_error_columns_follow_one_rule_in_every_output(values, error_column, chunk_rows, run_cli, write_sheet,
                                                       tmp_path):
    """An error column for a cell that can hold an error under these axes (0 in n's range), decided
    before any row is computed: stdout, -o CSV, -o Parquet and JSON agree, in one chunk or several."""
    path = write_sheet(ERRORS)
    stdout = run_cli("sweep", str(path), "--vary", f"n={values}", "--format", "csv")
    assert stdout.code == 0
    columns = {"stdout": _csv(stdout.out).columns}
    for suffix in ("csv", "parquet", "json"):
        target = tmp_path / f"out.{suffix}"
        assert run_cli("sweep", str(path), "--vary", f"n={values}", "--chunk-rows", chunk_rows,
                       "-o", str(target)).code == 0
        if suffix == "csv":
            columns[suffix] = pl.read_csv(target).columns
        elif suffix == "parquet":
            columns[suffix] = pl.read_parquet(target).columns
        else:
            columns[suffix] = json.loads(target.read_text(encoding="utf-8"))["columns"]
    expected = ["n", "z", "r", "r [error]", "half"] if error_column else ["n", "z", "r", "half"]
    assert all(c == expected for c in columns.values()), columns


def test_numbers_are_floats_in_every_data_output(run_cli, write_sheet, tmp_path):
    """A number column is Float64 whatever its values (`4.0`, not `4`): a reader's type for it
    does not change from one run to the next (tests/cli/test_output_schemas.py)."""
    path = write_sheet(ERRORS)
    out = run_cli("sweep", str(path), "--vary", "n=1,2,4", "--format", "csv").out.splitlines()
    assert out[0] == "n,z,r,half" and out[1] == "1.0,0.0,1.0,0.5" and out[3] == "4.0,0.0,0.25,2.0"
    target = tmp_path / "out.csv"
    run_cli("sweep", str(path), "--vary", "n=2,4", "-o", str(target))
    assert target.read_text(encoding="utf-8").splitlines()[1:] == ["2.0,0.0,0.5,1.0", "4.0,0.0,0.25,2.0"]
    rows = json.loads(run_cli("sweep", str(path), "--vary", "n=2,4", "--format", "json").out)["rows"]
    assert rows[0][0]["value"] == 2 and isinstance(rows[0][0]["value"], float)
    text = run_cli("sweep", str(path), "--vary", "n=2,4").out
    assert text.splitlines()[2].split() == ["2", "0", "0.5", "1"]   # a table for people shows 2, not 2.0

def test_parquet_keeps_the_units_in_its_metadata(run_cli, write_sheet, tmp_path):
    path = write_sheet("cells:\n  n: 1\n  total: 280 GB\n  each: = total / n\n")
    target = tmp_path / "out.parquet"
    assert run_cli("sweep", str(path), "--vary", "n=1,2", "-o", str(target)).code == 0
    units = json.loads(pl.read_parquet_metadata(target)["supersheet.units"])
    assert units == {"total [GB]": "GB", "each [GB]": "GB"}


@pytest.mark.parametrize("vary", ["n=1,2", "n=0,1"])
def test_parquet_units_are_in_the_arrow_schema_and_each_field(vary, run_cli, write_sheet, tmp_path):
    """Arrow readers (pyarrow's read_table, its schema) see the units, not only Parquet's
    key-value metadata; also after the pass that drops an error column (n=1,2) and with
    an error column kept (n=0,1: `each` is #DIV/0 at n=0)."""
    pq = pytest.importorskip("pyarrow.parquet")
    path = write_sheet("cells:\n  n: 1\n  total: 280 GB\n  each: = total / n\n")
    target = tmp_path / "out.parquet"
    assert run_cli("sweep", str(path), "--vary", vary, "-o", str(target)).code == 0
    schema = pq.read_table(target).schema
    assert json.loads(schema.metadata[b"supersheet.units"]) == {"total [GB]": "GB", "each [GB]": "GB"}
    assert schema.field("each [GB]").metadata == {b"unit": b"GB"}
    assert schema.field("total [GB]").metadata == {b"unit": b"GB"} and schema.field("n").metadata is None
    assert ("each [error]" in schema.names) == (vary == "n=0,1")
    assert pl.read_parquet(target)["each [GB]"].to_list() == ([280, 140] if vary == "n=1,2" else [None, 280])


def test_sweep_units_do_not_depend_on_an_error_in_the_sheets_own_scenario(run_cli, write_sheet):
    path = write_sheet("cells:\n  n: 0\n  total: 280 GB\n  after: = total / n\n")
    frame = _csv(run_cli("sweep", str(path), "--vary", "n=1,2", "--format", "csv").out)
    assert frame.columns == ["n", "total [GB]", "after [GB]"]
    assert frame["after [GB]"].to_list() == [280, 140]


SHEET = """
    cells:
      tp: 1
      message: 10 KiB
      link: 4.5 GB/s
      step: = message / (tp * link) + 1 us -> us
    checks:
      fast: step < 20 us
    choose:
      best:
        vary: {tp: [1, 2, 4]}
        require: [fast, step < 2.5 us, tp < 4]
        minimize: step
"""


def test_set_is_fixed_under_a_sweeps_axes(run_cli, write_sheet):
    path = write_sheet(SHEET)
    plain = _csv(run_cli("sweep", str(path), "--vary", "tp=1,2", "--show", "step", "--format", "csv").out)
    slow = run_cli("sweep", str(path), "--vary", "tp=1,2", "--show", "step", "--format", "csv", "--set", "link=0.45GB/s")
    assert slow.code == 0, slow.output
    slow_frame = _csv(slow.out)
    # a tenth of the bandwidth: ten times the transfer time
    assert slow_frame["step [μs]"][0] - 1 == pytest.approx(10 * (plain["step [μs]"][0] - 1), rel=1e-9)
    both = run_cli("sweep", str(path), "--vary", "tp=1,2", "--set", "tp=3")
    assert both.code == 2 and "both --set and --vary" in both.err
    bad = run_cli("sweep", str(path), "--vary", "tp=1,2", "--set", "link=3")
    assert bad.code == 2 and "E-UNIT" in bad.err


def test_set_on_solve_and_choose(run_cli, write_sheet):
    path = write_sheet(SHEET)
    solved = run_cli("solve", str(path), "--vary", "tp", "--goal", "step == 2 us", "--between", "1,100",
                     "--set", "message=20KiB")
    assert solved.code == 0, solved.output
    # 20 KiB / (tp * 4.5 GB/s) = 1 us  =>  tp = 20480 B / 4500 B = 4.551
    assert "tp = 4.551" in solved.out
    assert json.loads(run_cli("choose", str(path), "best", "--format", "json").out)["answer"]["tp"] == 2
    chosen = run_cli("choose", str(path), "best", "--set", "link=0.45GB/s", "--format", "json")
    assert chosen.code == 1 and json.loads(chosen.out)["answer"] is None   # nothing is fast enough now


def test_choose_lists_every_failed_requirement_and_shows_cells(run_cli, write_sheet):
    path = write_sheet(SHEET)
    result = run_cli("choose", str(path), "best", "--show", "step", "--format", "json")
    data = json.loads(result.out)
    excluded = {row["tp"]: row["excluded because"] for row in data["excluded"]}
    assert excluded[1] == "fails step < 2.5 us"
    assert excluded[4] == "fails tp < 4"
    assert all("step [μs]" in row for row in data["ranked"] + data["excluded"])
    assert data["answer"]["tp"] == 2 and data["answer"]["step [μs]"] == pytest.approx(1 + 10240 / 9e9 * 1e6)
    slow = json.loads(run_cli("choose", str(path), "best", "--set", "link=0.45GB/s", "--format", "json").out)
    reasons = {row["tp"]: row["excluded because"] for row in slow["excluded"]}
    assert reasons[1] == "fails fast; fails step < 2.5 us"        # 23.8 us: every requirement it fails
    assert reasons[4] == "fails step < 2.5 us; fails tp < 4"


def test_solve_without_a_name_lists_the_sheets_solves(run_cli, write_sheet):
    path = write_sheet(SHEET + """
    solve:
      two_us:
        vary: tp
        goal: step == 2 us
        between: [1, 100]
      three_us:
        vary: tp
        goal: step == 3 us
        between: [1, 100]
    """)
    result = run_cli("solve", str(path))
    assert result.code == 2 and "solves in this sheet: two_us, three_us" in result.err
    bare = run_cli("solve", str(write_sheet(SHEET, "bare.yaml")))
    assert bare.code == 2 and "this sheet defines no solve" in bare.err
