"""Every problem raises `SheetError` with the diagnostics the CLI prints (issue 17, item 2)."""
from __future__ import annotations

import pytest

import supersheet as ss
from repo_paths import REPO, RUNNING



def test_a_sheet_that_does_not_check_raises_the_cli_diagnostics(run_cli, write_sheet):
    path = write_sheet("""
        cells:
          a: 2 GB
          b: = a / bandwidht
          c: = a + 3 s
    """)
    with pytest.raises(ss.SheetError) as caught:
        ss.load(path)
    error = caught.value
    assert [d.code for d in error.diagnostics] == ["E-NAME", "E-UNIT"]
    first = error.diagnostics[0]
    assert (first.span.file, first.span.line) == (str(path), 3) and first.span.col > 1
    cli = run_cli("check", str(path))
    assert cli.code == 2
    assert str(error) + "\n\n" in cli.err              # rendered exactly as `supersheet check` prints them
    assert f"{path}:3:" in str(error) and "^" in str(error)


def test_an_error_value_raises_at_the_cell_and_error_gives_its_code(write_sheet):
    path = write_sheet("""
        cells:
          n: 0
          share: = 1 / n
          fine: = n + 1
    """)
    sheet = ss.load(path)
    assert sheet.error("share") == "#DIV/0" and sheet.error("fine") is None
    assert sheet["fine"] == 1.0
    with pytest.raises(ss.SheetError) as caught:
        sheet["share"]
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == "E-VALUE" and "#DIV/0" in diagnostic.message
    assert (diagnostic.span.line, diagnostic.span.col) == (3, 3)
    assert str(caught.value).startswith(f"{path}:3:3: E-VALUE: share is #DIV/0")


@pytest.mark.parametrize(("inputs", "code", "text"), [
    ({"context": "3 GB"}, "E-UNIT", "context is token, but '3 GB' is information"),
    ({"contxt": "1 token"}, "E-NAME", "did you mean context?"),
    ({"context": "3 +"}, "E-PARSE", "context=3 +"),
    ({"context": object()}, "E-TYPE", "cannot use a object"),
])
def test_bad_inputs_raise_one_exception_type(inputs, code, text):
    sheet = ss.load(RUNNING)
    with pytest.raises(ss.SheetError) as caught:
        sheet.with_inputs(**inputs)
    assert caught.value.code == code and text in str(caught.value)


def test_a_quantity_of_the_wrong_dimension_is_refused():
    from supersheet.units import registry
    with pytest.raises(ss.SheetError) as caught:
        ss.load(RUNNING).with_inputs(context=registry().Quantity(3, "GB"))
    assert caught.value.code == "E-UNIT"


def test_scenario_errors_are_sheet_errors(write_sheet):
    sheet = ss.load(RUNNING)
    with pytest.raises(ss.SheetError, match="E-UNIT: context is token, but '1 GB' is information"):
        sheet.sweep(context=["1 GB"])
    with pytest.raises(ss.SheetError, match="no sweep named 'per_card'"):
        sheet.sweep("per_card")
    with pytest.raises(ss.SheetError, match="give a sweep name or at least one axis"):
        sheet.sweep()
    path = write_sheet("""
        cells:
          x: 1 s
          y: = x * 2
        solve:
          never:
            vary: x
            goal: y == -1 s
            between: [1 s, 10 s]
    """)
    with pytest.raises(ss.SheetError) as caught:
        ss.load(path).solve("never")
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == "E-SOLVE" and diagnostic.span.line == 5


def test_unknown_cells_and_missing_files():
    sheet = ss.load(RUNNING)
    with pytest.raises(ss.SheetError, match="did you mean max_sessions"):
        sheet["max_session"]
    assert "max_sessions" in sheet and "max_session" not in sheet
    with pytest.raises(ss.SheetError, match="E-IMPORT: no such sheet"):
        ss.load(REPO / "sheets/nope.yaml")
