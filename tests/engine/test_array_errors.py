"""Each element of an array cell keeps its own error code on the Polars path, as on
the scalar (Python) path (issue 12): `[2.5 / 0, c / 0]` with `c` an error reads
#DIV/0 and c's code, not one code for the whole array. Errors reach an element
from its own operations, from the same element of an array precedent, and from
any scalar it is combined with (a sum over errors is the first one's)."""
from __future__ import annotations

import pytest

from supersheet.engine.compile.evaluate import ErrorValue, error_code, evaluate, evaluate_with_polars
from supersheet.engine.workbook import open_workbook

SHEET = """
    cells:
      a: 2.5
      zero: 0
      c: = sqrt(-1)
      v: = [a, c] / zero
      w: = v * 2
      flipped: = [c, a] / [1, zero]
      stepped: = ceil([a, c], zero)
      total: = sum(v)
      mixed: = [a, 1 / zero] + sum([c, 1])
      logs: = ln([a, -a, 0]) * [1, 1, 1 / zero]
      fine: = [a, a / 2]
      big: = 1e308 * 10
      overflowing: = [big, a / zero] * 2
      compared: = [big, a] > 1
      flags: = [a > 1, a < 0]
"""

CODES = {
    "v": ["#DIV/0", "#NUM"],
    "w": ["#DIV/0", "#NUM"],
    "flipped": ["#NUM", "#DIV/0"],
    "stepped": ["#DIV/0", "#NUM"],
    "total": "#DIV/0",
    "mixed": ["#NUM", "#DIV/0"],
    "logs": [0.9162907318741551, "#NUM", "#NUM"],
    "fine": [2.5, 1.25],
    "overflowing": ["#NUM", "#DIV/0"],   # a #NUM cell's column holds its inf (values.py): still its element's
    "compared": ["#NUM", True],
}


def _shown(value):
    if isinstance(value, list):
        return [_shown(v) for v in value]
    return error_code(value) if isinstance(value, ErrorValue) else value


@pytest.fixture(scope="module")
def workbook(tmp_path_factory):
    path = tmp_path_factory.mktemp("arrays") / "sheet.yaml"
    from textwrap import dedent
    path.write_text(dedent(SHEET).lstrip(), encoding="utf-8")
    workbook = open_workbook(path)
    assert workbook.ok, workbook.diagnostics
    return workbook


@pytest.mark.parametrize("key", list(CODES))
def test_each_element_keeps_its_own_error_code_on_both_paths(workbook, key):
    scalar = _shown(evaluate(workbook.checked).values[key])
    polars = _shown(evaluate_with_polars(workbook.checked)[key])
    assert scalar == CODES[key]
    assert polars == scalar


def test_an_array_cell_has_one_error_column_per_element_and_the_cell_column_reads_the_first(workbook):
    """The cell's own error column (a sweep's `v [error]`) is the first failing element's code."""
    from supersheet.engine.compile.evaluate import compile_program
    program = compile_program(workbook.checked)
    row = program.apply(program.frame({}, 1)).collect().row(0, named=True)
    assert (row["v[0]#error"], row["v[1]#error"], row["v#error"]) == ("#DIV/0", "#NUM", "#DIV/0")
    assert (row["flipped[0]#error"], row["flipped[1]#error"], row["flipped#error"]) == ("#NUM", "#DIV/0", "#NUM")
    assert program.sources["flags"].element_errors is None   # no error column where no element can fail
