"""`tables:` (issue 35): a CSV with `column [unit]` headers or a Parquet file with
supersheet's units, each column an array cell `name.column` in its unit; bad
headers and values located in the table file; paths confined like imports."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from supersheet.engine.workbook import open_workbook


def _problems(path: Path) -> list:
    return open_workbook(path).diagnostics


def test_csv_columns_are_array_cells_in_their_units(tmp_path, write_sheet, run_cli):
    (tmp_path / "ar.csv").write_text("size [B],time [us]\n1024,30.5\n1048576,40\n\n1073741824,3000\n")
    sheet = write_sheet("""
        tables:
          nccl: ar.csv
        cells:
          total: = sum(nccl.time) -> ms
          big: = max(nccl.size) -> GiB
          rows: = count(nccl.size)
    """)
    result = run_cli("run", str(sheet), "--format", "json")
    assert result.code == 0, result.output
    cells = {c["name"]: c for c in json.loads(result.out)["cells"]}
    assert cells["total"]["value"] == pytest.approx(3.0705)
    assert cells["big"]["value"] == 1.0 and cells["rows"]["value"] == 3.0   # the blank line is no row
    assert cells["nccl.time"]["unit"] == "μs" and cells["nccl.time"]["value"] == [30.5, 40.0, 3000.0]
    text = run_cli("run", str(sheet)).out
    assert "nccl (table ar.csv):" in text


@pytest.mark.parametrize("csv, code, where, words", [
    ("size [B],time\n1,2\n", "E-UNIT", (1, 10), "column 'time' has no unit"),
    ("size [B],time [uss]\n1,2\n", "E-UNIT", (1, 16), 'unknown unit "uss"'),
    ("size [B],time [us]\n1,2\n3,x\n", "E-PARSE", (3, 3), "x in column 'time' is not a finite number"),
    ("size [B],time [us]\n1,2\n3,inf\n", "E-PARSE", (3, 3), "inf in column 'time'"),
    ("size [B],time [us]\n1,2,3\n", "E-SHEET", (2, 1), "line 2 has 3 values"),
    ("size [B],2x [us]\n1,2\n", "E-SHEET", (1, 10), "is not a name and a unit"),
    ("size [B],size [us]\n1,2\n", "E-SHEET", (1, 10), "two columns named 'size'"),
])
def test_table_problems_are_located_in_the_file(tmp_path, write_sheet, csv, code, where, words):
    (tmp_path / "t.csv").write_text(csv)
    sheet = write_sheet("tables:\n  t: t.csv\ncells:\n  x: = sum(t.size)\n")
    problems = _problems(sheet)
    assert [d.code for d in problems] == [code], problems    # and no E-NAME at t.size beside it
    d = problems[0]
    assert d.span.file.endswith("t.csv") and (d.span.line, d.span.col) == where and words in d.message
    if code == "E-UNIT":
        assert d.hint


def test_table_paths_are_confined_like_imports(tmp_path, write_sheet):
    outside = tmp_path.parent / f"{tmp_path.name}-outside.csv"
    outside.write_text("a [s]\n1\n")
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "supersheet.toml").write_text("")
    sheet = write_sheet(f"""
        tables:
          out: ../../{outside.name}
          gone: nope.csv
          yaml: other.yaml
          lib: nosuch:x.csv
        cells:
          x: = sum(out.a)
    """, name="project/sheet.yaml")
    problems = _problems(sheet)
    messages = [(d.code, d.span.line, d.message) for d in problems]
    assert messages[0][:2] == ("E-IMPORT", 2) and "outside the sheet root" in messages[0][2]
    assert ("E-IMPORT", 3, "table file not found: nope.csv") in messages
    assert any(line == 4 and "table files end in .csv or .parquet" in m for _, line, m in messages)
    assert any(line == 5 and "no library is named 'nosuch'" in m for _, line, m in messages)
    assert all(code == "E-IMPORT" for code, _, _ in messages), messages


def test_parquet_with_supersheet_units(tmp_path, write_sheet, run_cli):
    """A sweep's Parquet output read back as a table: units from its field metadata."""
    sheet = write_sheet("""
        cells:
          size: 1 KiB
          time: = 2 us + size / (100 GB/s) -> us
        sweeps:
          s:
            vary: {size: [1 KiB, 1 MiB, 1 GiB]}
    """)
    out = tmp_path / "s.parquet"
    assert run_cli("sweep", str(sheet), "s", "-o", str(out)).code == 0
    reader = write_sheet("""
        tables:
          s: s.parquet
        cells:
          slowest: = max(s.time) -> ms
          largest: = max(s.size) -> GiB
    """, name="reader.yaml")
    workbook = open_workbook(reader)
    assert not workbook.diagnostics, workbook.diagnostics
    assert workbook.model.tables["s"].columns["time"].unit == "μs"
    result = json.loads(run_cli("run", str(reader), "--format", "json").out)
    cells = {c["name"]: c["value"] for c in result["cells"]}
    assert cells["largest"] == 1.0
    assert cells["slowest"] == pytest.approx((2e-6 + 2**30 / 100e9) * 1e3)


def test_parquet_without_units_is_refused(tmp_path, write_sheet):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq
    pq.write_table(pa.table({"size": [1.0, 2.0]}), tmp_path / "x.parquet")
    sheet = write_sheet("tables:\n  x: x.parquet\ncells:\n  y: = sum(x.size)\n")
    problems = _problems(sheet)
    assert [d.code for d in problems] == ["E-UNIT"] and "has no unit" in problems[0].message
    assert problems[0].span.line == 2 and problems[0].hint


def test_a_table_longer_than_an_array_has_no_cells_and_says_why(tmp_path, write_sheet):
    (tmp_path / "t.csv").write_text("a [s]\n" + "1\n" * 20)
    sheet = write_sheet("tables:\n  t: t.csv\ncells:\n  y: = sum(t.a)\n")
    from supersheet.engine.base.limits import set_limits
    set_limits(max_array_length=10)
    try:
        problems = _problems(sheet)
    finally:
        set_limits()
    assert [d.code for d in problems] == ["E-NAME"] and "20 rows" in problems[0].hint


def test_table_cells_are_not_editable(tmp_path, write_sheet):
    from supersheet.editor.document import Document
    (tmp_path / "t.csv").write_text("a [s]\n1\n2\n")
    sheet = write_sheet("tables:\n  t: t.csv\ncells:\n  y: = sum(t.a)\n")
    document = Document(sheet)
    reason = document.editable("t.a")
    assert reason and "column of table t" in reason
    assert not document.apply("t.a", "[1, 2] s").ok
    assert (tmp_path / "t.csv").read_text() == "a [s]\n1\n2\n"


def test_a_csv_table_travels_with_the_sheet_to_a_worker(tmp_path, write_sheet):
    """Ray workers compile the sheet from a bundle of the files it read: its tables too."""
    from supersheet.engine.scenarios.sheetbundle import Materialized, SheetBundle
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "t.csv").write_text("a [s]\n1\n2\n")
    sheet = write_sheet("tables:\n  t: data/t.csv\ncells:\n  y: = sum(t.a)\n")
    bundle = SheetBundle.of([open_workbook(sheet)])
    with Materialized(bundle) as copy:
        workbook = copy.open()
        assert not workbook.diagnostics and workbook.model.tables["t"].path != tmp_path / "data" / "t.csv"
        assert workbook.evaluate().values["y"] == 3.0
