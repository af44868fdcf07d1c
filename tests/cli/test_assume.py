"""Format 9.2: `assume:` names the conditions under which a sheet is a valid
model; wherever one is false the result says it is outside the model."""
from __future__ import annotations

import json
import re

STEP = """
    cells:
      tp: 4
      cards: 8
      step: = 10 ms / tp
    assume:
      within_server: tp <= cards      # the model has no cross-server term
      positive: step > 0 ms
    solve:
      fast:
        vary: tp
        goal: step == 0.5 ms
        between: [1, 64]
    choose:
      fastest:
        vary: {tp: [4, 8, 16]}
        minimize: step
    expect:
      step: 2.5 ms
"""


def test_run_passes_inside_and_fails_outside_with_the_values(run_cli, write_sheet):
    sheet = write_sheet(STEP)
    inside = run_cli("run", str(sheet))
    assert inside.code == 0, inside.output
    assert "✓ within_server" in inside.out and "assumptions:" in inside.out
    outside = run_cli("run", str(sheet), "--set", "tp=16")
    assert outside.code == 1
    assert "✗ within_server" in outside.out
    assert (f"{sheet}:6:3: E-ASSUME: assumption within_server does not hold: tp <= cards with tp = 16, cards = 8"
            in outside.err)
    assert "positive" not in outside.err   # only the violated ones


def test_test_fails_on_a_violated_assumption_even_when_expectations_hold(run_cli, write_sheet):
    sheet = write_sheet("""
        cells:
          tp: 16
          cards: 8
          step: = 10 ms / tp
        assume:
          within_server: tp <= cards
        expect:
          step: 0.625 ms
    """)
    result = run_cli("test", str(sheet))
    assert result.code == 1, result.output
    assert "pass  " in result.out and "step = 0.625 ms" in result.out
    assert f"FAIL  {sheet}:6  assumption within_server does not hold" in result.out
    assert f"{sheet}:6:3: E-ASSUME" in result.out
    assert result.out.splitlines()[-1] == "1 passed, 1 failed"
    check = run_cli("check", str(sheet))
    assert check.code == 0 and check.err == "", check.output   # a boundary of the model, not an invalid sheet


def test_sweep_names_the_violated_assumptions_per_row(run_cli, write_sheet):
    sheet = write_sheet(STEP)
    result = run_cli("sweep", str(sheet), "--vary", "tp=8,16", "--format", "csv")
    assert result.code == 0, result.output
    lines = result.out.splitlines()
    assert lines[0].split(",")[-1] == "outside [assumptions]"
    assert lines[1].endswith(",") and lines[2].endswith(",within_server")
    cells = json.loads(run_cli("sweep", str(sheet), "--vary", "tp=8,16", "--format", "json").out)["rows"]
    assert [row[-1]["value"] for row in cells] == [None, "within_server"]
    plain = write_sheet("cells:\n  tp: 4\n  step: = 10 ms / tp\n", "plain.yaml")
    assert "outside" not in run_cli("sweep", str(plain), "--vary", "tp=8,16").out


def test_choose_excludes_rows_outside_with_the_reason(run_cli, write_sheet):
    sheet = write_sheet(STEP)
    result = run_cli("choose", str(sheet), "fastest", "--format", "json")
    assert result.code == 0, result.output
    choice = json.loads(result.out)
    assert choice["answer"]["tp"] == 8
    assert choice["excluded"] == [{"tp": 16.0, "step [ms]": 0.625,
                                   "excluded because": "outside the model: within_server"}]


def test_solve_refuses_an_answer_outside_the_model(run_cli, write_sheet):
    sheet = write_sheet(STEP)
    result = run_cli("solve", str(sheet), "fast")
    assert result.code == 1
    assert "E-SOLVE: the answer tp = 20 is outside the model: within_server: tp <= cards" in result.err
    inside = run_cli("solve", str(sheet), "--vary", "tp", "--goal", "step == 2 ms", "--between", "1,8")
    assert inside.code == 0, inside.output


def test_an_imported_sheets_assumptions_apply_under_the_alias(run_cli, write_sheet):
    write_sheet(STEP, "step.yaml")
    sheet = write_sheet("""
        use:
          big: {sheet: step.yaml, set: {tp: = tp}}
        cells:
          tp: 32
          step: = big.step
    """)
    result = run_cli("run", str(sheet))
    assert result.code == 1
    assert ("step.yaml:6:3: E-ASSUME: assumption big.within_server does not hold: tp <= cards "
            "with big.tp = 32, big.cards = 8") in result.err


def test_an_assumption_must_be_a_condition_with_its_own_name(run_cli, write_sheet):
    sheet = write_sheet("""
        cells:
          tp: 4
        assume:
          tp: tp > 0
          count: tp * 2
    """)
    result = run_cli("check", str(sheet))
    assert result.code == 2
    assert f"{sheet}:4:3: E-SHEET: assumption 'tp' has the name of a cell" in result.err
    assert f"{sheet}:5:10: E-TYPE: assumption 'count' must be a condition (a boolean), not dimensionless" in result.err


def test_the_editor_marks_a_violated_assumption(write_sheet):
    from supersheet.editor.document import Document
    from supersheet.tui.widgets.render import value_text
    sheet = write_sheet(STEP.replace("tp: 4", "tp: 16", 1))
    document = Document(sheet)
    assert [d.code for d in document.diagnostics] == ["E-ASSUME", "E-EXPECT"]   # step: 2.5 ms fails at tp 16
    assert document.cell_at(document.diagnostics[0].span) == "within_server"
    assert document.diagnostic_cell(document.diagnostics[1]) == "step"
    assert value_text(document, "within_server").plain == "✗ OUTSIDE"
    assert value_text(document, "positive").plain == "✓ holds"
    assert any(s.title == "assumptions" for s in document.sections())


def test_an_edit_in_the_editor_moves_the_sheet_outside_and_an_assumption_is_written_back(write_sheet):
    from supersheet.editor.document import Document
    sheet = write_sheet("cells:\n  tp: 4\n  cards: 8\nassume:\n  within: tp <= cards   # no cross-server term\n")
    document = Document(sheet)
    assert document.diagnostics == []
    assert document.apply("tp", "16").ok
    assert [d.code for d in document.diagnostics] == ["E-ASSUME"]
    assert document.apply("within", "= tp <= 2 * cards").ok
    assert document.diagnostics == []
    assert "assume:\n  within: tp <= 2 * cards" in document.text()
    assert "# no cross-server term" in document.text()


def test_with_random_draws_an_assumption_must_hold_in_every_sample(run_cli, write_sheet):
    sheet = write_sheet("""
        samples: {count: 4000, seed: 1}
        cells:
          message: = normal(100 KiB, 20 KiB)
          fixed: 4
        assume:
          ring_regime: message >= 64 KiB
          small: fixed < 10
    """)
    result = run_cli("run", str(sheet))
    assert result.code == 1
    assert re.search(r"E-ASSUME: assumption ring_regime holds in only 9\d\.\d% of samples: message >= 64 KiB",
                     result.err), result.err
    assert "small" not in result.err
    sweep = run_cli("sweep", str(sheet), "--vary", "fixed=4,12", "--show", "fixed", "--format", "csv")
    assert sweep.code == 0, sweep.output
    assert [line.split(",", 1)[1] for line in sweep.out.splitlines()[1:]] == ["ring_regime", '"ring_regime, small"']
