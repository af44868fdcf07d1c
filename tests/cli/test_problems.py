"""One problem type with spans: a sweep's `where`, a goal or an axis that
cannot be used is raised as a `Problem` carrying a `Diagnostic`, and the CLI
command that runs the block, `check`, the Python API and the editor all report
it at the same file:line:col."""
from __future__ import annotations

import pytest

import supersheet as ss
from supersheet.editor.document import Document
from supersheet.engine.base.problems import Problem
from supersheet.engine.base.span import Span
from supersheet.engine.expect.expect import ExpectationError
from supersheet.engine.scenarios.axes import AxisError
from supersheet.engine.scenarios.solve import SolveError
from supersheet.engine.workbook import OverrideError

SHEET = """
cells:
  bandwidth: 100 GB/s
  size: 10 GB
  time: = size / bandwidth -> s
sweeps:
  wide:
    vary: {bandwidth: [50 GB/s, 100 GB/s]}
    where: tme < 0.15 s
solve:
  fast_enough:
    vary: bandwidth
    goal: time == 0.05 GB
    between: [1 GB/s, 1000 GB/s]
"""


def test_a_where_that_does_not_check_is_reported_at_its_place_everywhere(write_sheet, run_cli):
    path = write_sheet(SHEET)
    where = f"{path}:8:12: E-NAME"
    swept = run_cli("sweep", str(path), "wide")
    assert swept.code == 2
    assert swept.err.startswith(f"{where}: unknown cell 'tme'\n    8 |     where: tme < 0.15 s\n")
    assert "      |            ^^^\nhint: did you mean time?" in swept.err
    checked = run_cli("check", str(path))
    assert f"{where}: sweep 'wide': unknown cell 'tme'" in checked.err
    with pytest.raises(ss.SheetError) as raised:
        ss.load(path).sweep("wide")   # the API's sweep of a named block
    assert raised.value.diagnostics[0].span == Span(str(path), 8, 12, 15)
    run = Document(path).run_sweep("wide")
    assert run.frame is None and run.error.startswith(where)


def test_a_goal_of_the_wrong_unit_keeps_its_labels(write_sheet, run_cli):
    path = write_sheet(SHEET)
    solved = run_cli("solve", str(path), "fast_enough")
    assert solved.code == 2
    assert solved.err.startswith(f"{path}:12:19: E-UNIT: cannot compare s (time) and GB (information)\n")
    assert "      |           ~~~~    ^^^^^^^\n      |           s       GB" in solved.err
    with pytest.raises(ss.SheetError) as raised:
        ss.load(path).solve("fast_enough")
    assert [str(label.span) for label in raised.value.diagnostics[0].labels] == [f"{path}:12:11", f"{path}:12:19"]


def test_an_axis_given_on_the_command_line_has_no_file_and_stays_a_usage_error(write_sheet, run_cli):
    result = run_cli("sweep", str(write_sheet(SHEET)), "--vary", "bandwith=1 GB/s")
    assert result.code == 2
    assert result.err.startswith("supersheet: E-NAME: unknown cell 'bandwith' (hint: did you mean bandwidth?)")


def test_the_four_errors_are_one_problem_type():
    span = Span("sheet.yaml", 3, 5, 9)
    for problem in (AxisError("E-NAME", "m", "h"), OverrideError("E-UNIT", "m", "h"),
                    ExpectationError("E-SHEET", "m", "h"), SolveError("m", "h")):
        assert isinstance(problem, Problem)
        assert problem.at(span).span == span   # no position of its own: the caller's
        assert problem.line().endswith(": m (hint: h)")
    own = AxisError("E-NAME", "unknown cell 'x'", span=Span("sheet.yaml", 7, 12, 13))
    assert own.at(span, "sweep 'w': ").span == own.span   # its own position wins
    assert own.at(span, "sweep 'w': ").message == "sweep 'w': unknown cell 'x'"
    assert SolveError("m").code == "E-SOLVE"


def test_an_expectation_that_cannot_be_compared_is_reported_at_its_value(write_sheet, run_cli):
    path = write_sheet("""
        cells:
          bandwidth: 100 GB/s
          size: 10 GB
          time: = size / bandwidth -> s
        sweeps:
          wide:
            vary: {bandwidth: [50 GB/s, 100 GB/s]}
            expect:
              time: [0.2 s, 0.1 GB]
        expect:
          size: 10 GB ± 1 s
        """)
    for command in ("check", "test"):
        err = run_cli(command, str(path)).err
        assert (f"{path}:9:21: E-UNIT: sweep 'wide': wide.time[1] is time, the expectation '0.1 GB' is information\n"
                "    9 |       time: [0.2 s, 0.1 GB]\n"
                "      |                     ^^^^^^") in err, command
        assert f"{path}:11:9: E-UNIT: tolerance '1 s' is time, the value is information" in err, command
