"""Answers that are answers (issue 11, part 5): a goal seek whose goal does not
depend on the varied cell, `check` reporting what `test` would, an empty sheet,
and long flat formulas."""
from __future__ import annotations

import json
import re

import pytest

LOCATED = re.compile(r"^(?P<file>\S[^\n]*?):(?P<line>\d+):(?P<col>\d+): (?P<code>E-[A-Z]+): ", re.M)


def test_solve_whose_goal_does_not_depend_on_the_varied_cell_is_e_solve(run_cli, write_sheet):
    sheet = write_sheet("""
        cells:
          ranks: 8
          message: 10 KiB
          time: = message / (50 GB/s) -> us
        solve:
          nothing:
            vary: message
            goal: ranks == 8
            between: [1 KiB, 1 GiB]
    """)
    adhoc = run_cli("solve", str(sheet), "--vary", "message", "--goal", "ranks == 8", "--between", "1KiB,1GiB")
    assert adhoc.code == 1
    assert "E-SOLVE: the goal does not depend on message" in adhoc.err
    check = run_cli("check", str(sheet))
    assert check.code == 2 and f"{sheet}:6:3: E-SOLVE: the goal does not depend on message" in check.err
    works = run_cli("solve", str(sheet), "--vary", "message", "--goal", "time == 1 us", "--between", "1KiB,1GiB",
                    "--format", "json")
    assert works.code == 0, works.output
    assert json.loads(works.out)["solution"]["value"] == pytest.approx(50 / 1.024, rel=1e-9)


PROBLEMS = """
    cells:
      tp: 1
      t: = 5 ms / tp
      pair: [1 ms, 2 ms]
    sweeps:
      s:
        vary: {tp: [1, 2]}
        expect:
          t: [5 GB, 2.5 ms]
    solve:
      g:
        vary: tp
        goal: t == 2.5 ms
        between: [1, 8]
        expect: 2 GB
    choose:
      c:
        vary: {tp: [1, 2]}
        minimize: t
        expect: {tp: 2 GB}
      d:
        vary: {tp: [1, 2]}
        minimize: t
        expect: {nope: 1}
    expect:
      p95(t): 1 ms
      pair: 1 ms
      t: 5 GB
"""


def _located(output: str) -> set[tuple[str, int, int]]:
    return {(m["code"], int(m["line"]), int(m["col"])) for m in LOCATED.finditer(output)}


def test_check_reports_every_diagnostic_that_test_would(run_cli, write_sheet):
    sheet = write_sheet(PROBLEMS)
    check, test = run_cli("check", str(sheet)), run_cli("test", str(sheet))
    assert check.code == 2 and test.code == 2
    from_test = {d for d in _located(test.output) if d[0] not in ("E-EXPECT", "E-ASSUME")}
    assert _located(check.output) == from_test
    assert {code for code, _, _ in from_test} == {"E-UNIT", "E-TYPE", "E-NAME"}
    assert len(from_test) == 7, test.output   # sweep, solve, two choices, three top-level expectations


def test_check_reports_an_expectation_of_the_wrong_dimension(run_cli, write_sheet):
    # at the expectation's value, where its unit is written (not at the cell's name before it)
    sheet = write_sheet("cells:\n  t: 5 ms\nexpect:\n  t: 5 GB\n")
    result = run_cli("check", str(sheet))
    assert result.code == 2
    assert f"{sheet}:4:6: E-UNIT: t is time, the expectation '5 GB' is information" in result.err


@pytest.mark.parametrize("text", ["", "# only a comment\n", "\n\n", "title: nothing here\n"])
def test_an_empty_or_comment_only_sheet_has_no_cells(run_cli, write_sheet, text):
    sheet = write_sheet("placeholder")
    sheet.write_text(text, encoding="utf-8")
    for command in ("check", "test", "run"):
        result = run_cli(command, str(sheet))
        assert result.code == 2, (command, result.output)
        assert f"{sheet}:1:1: E-SHEET: no cells" in result.err


def test_a_flat_sum_of_301_terms_is_not_too_deep(run_cli, write_sheet):
    terms = 301
    sheet = write_sheet(f"""
        cells:
          x: 2 ms
          total: = {' + '.join(['x'] * terms)}
          net: = {' - '.join(['x'] * terms)}
          growth: = {' * '.join(['1.001'] * terms)}
          all: = {' and '.join(['x > 0 ms'] * terms)}
    """)
    result = run_cli("run", str(sheet), "--format", "json")
    assert result.code == 0, result.output
    cells = {c["name"]: c for c in json.loads(result.out)["cells"]}
    assert cells["total"]["value"] == pytest.approx(602) and cells["total"]["unit"] == "ms"
    assert cells["net"]["value"] == pytest.approx(-598)
    assert cells["growth"]["value"] == pytest.approx(1.001 ** terms)
    assert cells["all"]["value"] is True
    sweep = run_cli("sweep", str(sheet), "--vary", "x=1ms,3ms", "--show", "total", "--format", "csv")
    assert sweep.code == 0, sweep.output
    assert [float(line.split(",")[1]) for line in sweep.out.splitlines()[1:]] == pytest.approx([301, 903])


def test_a_formula_over_the_operator_limit_is_a_parse_error(run_cli, write_sheet):
    sheet = write_sheet(f"cells:\n  x: 1\n  total: = {' + '.join(['x'] * 1002)}\n")
    result = run_cli("check", str(sheet))
    assert result.code == 2
    assert f"{sheet}:3:12: E-PARSE: formula has more than 1000 operators" in result.err
