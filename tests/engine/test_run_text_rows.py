"""`run`'s text table reads a scenario without samples or `--set` straight from its cells
(report._plain_rows), not from each cell's record of the shared schema: both ways give the
same lines, on every sheet of the library and of the conformance cases that evaluates, and on
generated sheets (error values, arrays, checks that hold and fail, imported cells among them)."""
from __future__ import annotations

import sys

import pytest

from repo_paths import BENCH, CONFORMANCE, SHEETS
from supersheet.engine.compile.evaluate import ErrorValue
from supersheet.engine.present import report
from supersheet.engine.workbook import open_workbook

sys.path.insert(0, str(BENCH))
from generate import chain_sheet, fanin_sheet, random_dag_sheet  # noqa: E402


def _both_ways(path) -> tuple[list, list] | None:
    workbook = open_workbook(path)
    if not workbook.ok:
        return None
    scenario = workbook.evaluate()
    plain = report._plain_rows(workbook, scenario)
    recorded = [report._record_row(report.cell_record(workbook, scenario, cell))
                for cell in report.ordered_cells(workbook)]
    return plain, recorded


def test_the_rows_are_the_records_rows_on_every_sheet() -> None:
    compared, kinds, errors, arrays, wide, marks = 0, set(), 0, 0, 0, set()
    for path in sorted([*SHEETS.rglob("*.yaml"), *CONFORMANCE.rglob("*.yaml")]):
        rows = _both_ways(path)
        if rows is None:
            continue
        plain, recorded = rows
        assert plain == recorded, path
        workbook = open_workbook(path)
        scenario = workbook.evaluate()
        for cell in workbook.model.cells.values():
            value = scenario.values.get(cell.key)
            kinds.add(cell.kind)
            errors += isinstance(value, ErrorValue)
            arrays += isinstance(value, list)
        wide += sum(row[5] for row in plain)
        marks.update(row[1] for row in plain)
        compared += len(plain)
    # what the comparison covered: every kind of cell, error values, arrays (long ones too), both marks
    assert compared > 3000 and kinds == {"input", "formula", "check", "assume"}
    assert errors and arrays and wide and {"✓ ", "✗ ", "  "} <= marks


@pytest.mark.parametrize("text", [chain_sheet(300), fanin_sheet(300), random_dag_sheet(300)],
                         ids=["chain", "fan-in", "dag"])
def test_the_rows_are_the_records_rows_on_generated_sheets(tmp_path, text: str) -> None:
    path = tmp_path / "generated.yaml"
    path.write_text(text, encoding="utf-8")
    rows = _both_ways(path)
    assert rows is not None
    plain, recorded = rows
    assert plain == recorded and len(plain) == 301   # 300 cells and a check
