"""interp, log_interp, their _extrapolate forms and lookup (issue 35): the one-row path and
a sweep's Polars plan agree on every row, with points known before evaluation (numpy over
the column) and with points that vary by row (a chain over the segments); units checked."""
from __future__ import annotations

import json
import math

import pytest

from supersheet.engine.compile.interpolate import interpolate
from supersheet.engine.workbook import open_workbook

KINDS = ("interp", "log_interp", "interp_extrapolate", "log_interp_extrapolate", "lookup")


def test_the_definitions():
    xs, ys = [1.0, 2.0, 4.0], [10.0, 12.0, 20.0]
    assert interpolate("interp", 3.0, xs, ys) == 16.0
    assert interpolate("interp", 1.0, xs, ys) == 10.0 and interpolate("interp", 4.0, xs, ys) == 20.0
    assert interpolate("interp", 5.0, xs, ys) is None and interpolate("interp", 0.5, xs, ys) is None
    assert interpolate("interp_extrapolate", 5.0, xs, ys) == 24.0
    assert interpolate("interp_extrapolate", 0.0, xs, ys) == 8.0
    assert interpolate("log_interp", 2 ** 0.5, [1.0, 2.0], [1.0, 4.0]) == pytest.approx(2.0)   # y = x^2
    assert interpolate("log_interp_extrapolate", 4.0, [1.0, 2.0], [1.0, 4.0]) == pytest.approx(16.0)
    assert interpolate("log_interp", 0.0, xs, ys) is None
    assert interpolate("lookup", 2.0, xs, ys) == 12.0 and interpolate("lookup", 3.0, xs, ys) is None
    assert interpolate("interp", 1.5, [1.0, 1.0, 2.0], ys) is None          # not strictly increasing


SHEET = """
tables:
  t: t.csv
cells:
  k: 1
  size: 2 KiB
  xs: = t.size * k
{cells}
sweeps:
  s:
    vary: {{size: [512 B, 1 KiB, 1.5 KiB, 2 KiB, 3 KiB, 4 KiB, 5 KiB, 64 KiB], k: [1, 2]}}
    show: [{names}]
"""


def test_one_row_and_sweep_agree_on_every_row(tmp_path, write_sheet, run_cli):
    (tmp_path / "t.csv").write_text("size [KiB],time [us]\n1,10\n2,12\n4,20\n")
    cells, names = [], []
    for kind in KINDS:
        for points in ("t.size", "xs"):      # known before evaluation / varying with k
            name = f"{kind}_{'fixed' if points == 't.size' else 'moving'}"
            cells.append(f"  {name}: = {kind}(size, {points}, t.time) -> us")
            names.append(name)
    sheet = write_sheet(SHEET.format(cells="\n".join(cells), names=", ".join(names)))
    result = run_cli("sweep", str(sheet), "s", "--format", "json")
    assert result.code == 0, result.output
    table = json.loads(result.out)
    compared = 0
    for row in table["rows"]:
        values = {cell["name"]: cell for cell in row}
        size = f"{values['size']['value']}{values['size']['unit']}"
        one = run_cli("run", str(sheet), "--set", f"size={size}", "--set", f"k={values['k']['value']}",
                      "--format", "json")
        cells_one = {c["name"]: c for c in json.loads(one.out)["cells"]}
        for name in names:
            swept, single = values[name], cells_one[name]
            assert swept.get("error") == single.get("error"), (name, size, swept, single)
            if single.get("error") is None:
                assert math.isclose(swept["value"], single["value"], rel_tol=1e-12), (name, size, swept, single)
            compared += 1
    assert compared == 16 * len(names)


def test_what_a_sweep_row_holds(tmp_path, write_sheet, run_cli):
    (tmp_path / "t.csv").write_text("size [KiB],time [us]\n1,10\n2,12\n4,20\n")
    sheet = write_sheet(SHEET.format(cells="  y: = interp(size, t.size, t.time) -> us\n"
                                           "  e: = interp_extrapolate(size, t.size, t.time) -> us", names="y, e"))
    table = json.loads(run_cli("sweep", str(sheet), "s", "--format", "json").out)
    rows = {(r[0]["value"], r[1]["value"]): {cell["name"]: cell for cell in r} for r in table["rows"]}
    assert rows[(3.0, 1.0)]["y"]["value"] == pytest.approx(16.0)      # 3 KiB: halfway from 12 to 20 us
    assert rows[(5.0, 1.0)]["y"]["error"] == "#NUM" and rows[(5.0, 1.0)]["e"]["value"] == pytest.approx(24.0)


@pytest.mark.parametrize("formula, code, at, words", [
    ("interp(3 s, t.size, t.time)", "E-UNIT", "3 s", "looks up s (time) among xs of KiB (information)"),
    ("interp(3 B, t.size, 5 us)", "E-TYPE", "5 us", "needs an array as ys"),
    ("interp(3 B, [3, 2, 4] B, t.time)", "E-TYPE", "[3, 2", "xs strictly increasing"),
    ("lookup(3 B, [3, 4, 5] B, [1, 2] s)", "E-TYPE", "[1, 2] s", "xs and ys of one length"),
])
def test_unit_and_shape_errors_are_located(tmp_path, write_sheet, formula, code, at, words):
    (tmp_path / "t.csv").write_text("size [KiB],time [us]\n1,10\n2,12\n4,20\n")
    sheet = write_sheet(f"tables:\n  t: t.csv\ncells:\n  a: = {formula}\n")
    problems = open_workbook(sheet).diagnostics
    assert [d.code for d in problems] == [code]
    d = problems[0]
    assert (d.span.line, d.span.col) == (4, len("  a: = ") + 1 + formula.index(at)) and words in d.message, d
    assert d.hint


def test_a_table_column_not_increasing_is_refused_at_check(tmp_path, write_sheet):
    (tmp_path / "t.csv").write_text("size [KiB],time [us]\n1,10\n4,12\n2,20\n")
    sheet = write_sheet("tables:\n  t: t.csv\ncells:\n  a: = interp(3 KiB, t.size, t.time)\n"
                        "  b: = interp(3 KiB, t.time / 1 us * 1 KiB, t.size)\n")
    problems = open_workbook(sheet).diagnostics
    assert [d.code for d in problems] == ["E-TYPE"] and problems[0].span.line == 4
    assert "element 3 is not above element 2" in problems[0].message
