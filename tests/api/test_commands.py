"""The command-level entry points of the Python API (issue 17: the CLI and the TUI are
clients of the API): reports as values, sweeps streamed to a file with a progress
callback, goal seeks and choices on an opened sheet, diffs of files, git revisions and
variants, textconv, calc, loading limits and the exceptions they raise."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import polars as pl
import pyarrow.parquet as pq
import pytest

import supersheet as ss
from supersheet import calc, compare, errors, goals, loading, reports
from supersheet.errors import OverrideError, RequestError, SheetError, render_diagnostic
from supersheet.inputs import Sampling, fixed_inputs
from supersheet.sheet import open_checked
from supersheet.sweeps import AxisError, SweepSetup
from repo_paths import REPO, RUNNING

IN_FLIGHT = REPO / "sheets/supernodes/6.6.2-in-flight-bandwidth.yaml"
GRID = REPO / "sheets/supernodes/6.2.2-2d-grid.yaml"

SHEET = "cells:\n  a: 2 GB\n  bw: 100 GB/s\n  t: = a / bw -> ms\n"


def test_calc_evaluates_one_formula_and_reports_its_problems():
    assert calc.calc("1 GiB -> MiB").text == "1024 MiB"
    assert calc.calc("1 / 0").has_errors
    bad = calc.calc("1 GB + 1 s")
    assert bad.text is None and [d.code for d in bad.diagnostics] == ["E-UNIT"]
    rendered = render_diagnostic(bad.diagnostics[0], bad.sources)
    assert rendered.startswith("<calc>:1:") and "1 GB + 1 s" in rendered   # the formula's line, as the CLI shows it


def test_check_lists_the_problems_of_a_sheet(tmp_path):
    assert reports.check(RUNNING) == []
    broken = tmp_path / "broken.yaml"
    broken.write_text("cells:\n  a: 2 GB\n  b: = a + 1 s\n", encoding="utf-8")
    (problem,) = reports.check(broken)
    assert problem.code == "E-UNIT" and problem.span.line == 3


def test_run_report_with_inputs_set(tmp_path):
    sheet = tmp_path / "s.yaml"
    sheet.write_text(SHEET, encoding="utf-8")
    report = reports.run(sheet, ["a=4 GB"], "json")
    cells = {c["name"]: c for c in json.loads(report.text)["cells"]}
    assert cells["t"]["display"] == "40 ms"          # 4 GB / (100 GB/s), computed with the input set
    assert not report.has_findings and not report.random_draws
    with pytest.raises(OverrideError) as caught:
        reports.run(sheet, ["a=4 s"])
    assert caught.value.assignment == "a=4 s" and caught.value.code == "E-UNIT"
    assert isinstance(caught.value, SheetError) and type(caught.value) is OverrideError   # the engine's, re-exported
    with pytest.raises(OverrideError) as caught:   # a notebook's input raises the same type
        ss.load(sheet).with_inputs(a="4 s")
    assert caught.value.assignment == "a=4 s" and caught.value.message.startswith("a=4 s: ")


def test_explain_and_the_problems_of_a_request(tmp_path):
    sheet = tmp_path / "s.yaml"
    sheet.write_text(SHEET, encoding="utf-8")
    text = reports.explain(sheet, "t")
    assert text.splitlines()[0].startswith("t = 20 ms")
    with pytest.raises(RequestError, match="unknown cell 'tt'"):
        reports.explain(sheet, "tt")
    with pytest.raises(RequestError, match="no such sheet"):
        reports.run(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("cells:\n  a: = nope\n", encoding="utf-8")
    with pytest.raises(SheetError) as caught:
        reports.run(bad)
    assert caught.value.code == "E-NAME"


def test_sensitivity_needs_random_draws(tmp_path):
    sheet = tmp_path / "s.yaml"
    sheet.write_text("cells:\n  a: = normal(2 GB, 0.2 GB)\n  b: 1 GB\n  c: = a + b\n", encoding="utf-8")
    report = reports.sensitivity(sheet, "c", sampling=Sampling(samples=2000, seed=1))
    assert [i.draw for i in report.influences] == ["a"] and report.influences[0].rank_correlation > 0.99
    (influence,) = report.influences
    assert type(influence) is reports.Influence and influence.share == influence.rank_correlation ** 2
    assert report.samples == 2000 and report.seed == 1
    with pytest.raises(RequestError, match="depends on no random draw"):
        reports.sensitivity(sheet, "b")


def test_test_report_counts_expectations(tmp_path):
    report = reports.test(RUNNING)
    assert report.verdicts and report.passed == len(report.verdicts) and report.failed == 0 and not report.problems
    sheet = tmp_path / "s.yaml"
    sheet.write_text(SHEET + "expect:\n  t: 30 ms\n  a: 2 GB ± 1%\n", encoding="utf-8")
    failing, passing = sorted(reports.test(sheet).verdicts, key=lambda v: v.passed)
    assert (failing.target, failing.actual, failing.line, failing.passed) == ("t", "20 ms", 6, False)
    assert failing.expected.startswith("30 ms, ") and failing.diagnostic.code == "E-EXPECT"
    assert (passing.target, passing.expected, passing.passed) == ("a", "2 GB ± 1%", True)   # its tolerance written
    broken = tmp_path / "broken.yaml"
    broken.write_text("cells:\n  a: = nope\n", encoding="utf-8")
    invalid = reports.test(broken)
    assert [d.code for d in invalid.problems] == ["E-NAME"] and invalid.verdicts == []


def test_a_sweep_streams_to_parquet_with_progress_and_units(tmp_path):
    setup = SweepSetup(open_checked(RUNNING))
    setup.vary(setup.parse_axis("context=4096token..131072token*2"))
    setup.vary(setup.parse_axis("cards=1,2,4,8"))
    setup.show(["kv_per_card"])
    plan = setup.plan()
    heard: list[tuple[int, int]] = []
    target = tmp_path / "out.parquet"
    rows = plan.write(target, chunk_rows=5, progress=lambda done, total: heard.append((done, total)))
    assert rows == plan.rows == 24
    assert heard[-1] == (24, 24) and len(heard) == 5 and [d for d, _ in heard] == sorted(d for d, _ in heard)
    written = pl.read_parquet(target)
    expected = ss.load(RUNNING).sweep(context=ss.range("4096 token", "131072 token", times=2), cards=[1, 2, 4, 8],
                                      show=["kv_per_card"]).headed()
    assert written.columns == expected.columns and written["kv_per_card [GB]"].to_list() == \
        expected["kv_per_card [GB]"].to_list()
    units = json.loads(pq.read_schema(target).metadata[b"supersheet.units"])
    assert units == plan.column_units() and units["kv_per_card [GB]"] == "GB"


def test_a_sweep_refuses_what_does_not_fit(tmp_path):
    setup = SweepSetup(open_checked(RUNNING))
    with pytest.raises(AxisError) as caught:
        setup.parse_axis("context=1 s,2 s")
    assert caught.value.code == "E-UNIT" and type(caught.value) is errors.AxisError
    assert isinstance(caught.value, SheetError) and caught.value.span is None   # `--vary` text has no file
    setup.vary(setup.parse_axis("cards=1,2"))
    with pytest.raises(RequestError, match="cannot tell the format"):
        setup.plan().write(tmp_path / "out.xlsx")
    with pytest.raises(RequestError, match="does not exist"):
        setup.plan().write(tmp_path / "no" / "out.csv")


def test_solve_and_choose_on_an_opened_sheet():
    solved = goals.solve_named(open_checked(IN_FLIGHT), "fill_the_path")
    assert solved.cell == "in_flight" and solved.goal == "window_bandwidth == path_bandwidth"
    document = json.loads(solved.render("json"))
    assert document["solution"]["display"] == solved.display and document["vary"] == "in_flight"
    ranking = goals.rank_choice(open_checked(GRID), "best_grid")
    assert ranking.answer is ranking.ranked[0] and ranking.answer["rows"] == 4   # what its `expect` says
    assert len(ranking.ranked) + len(ranking.excluded) == 3


def test_a_goal_with_no_answer_is_a_solve_error(tmp_path):
    sheet = tmp_path / "s.yaml"
    sheet.write_text("cells:\n  x: 1\n  y: = x * 2\n", encoding="utf-8")
    with pytest.raises(goals.SolveError) as caught:
        goals.solve_goal(open_checked(sheet), "x", "y == -5", ("1", "10"))
    assert caught.value.code == "E-SOLVE"
    assert type(caught.value) is goals.SolveError is errors.SolveError
    sheet.write_text("cells:\n  x: 1\n  y: = x * 2\nsolve:\n  never:\n    vary: x\n    goal: y == -5\n"
                     "    between: [1, 10]\n", encoding="utf-8")
    with pytest.raises(goals.SolveError) as caught:   # a named solve: at the solve's name, as `check` says
        goals.solve_named(open_checked(sheet), "never")
    assert caught.value.span is not None and caught.value.span.line == 5


def test_fixed_inputs_make_a_variant(tmp_path):
    sheet = tmp_path / "s.yaml"
    sheet.write_text(SHEET, encoding="utf-8")
    opened = open_checked(sheet)
    assert isinstance(opened, ss.Sheet)   # one handle: the notebook's Sheet, evaluated when read
    assert fixed_inputs(opened, []) is opened
    variant = fixed_inputs(opened, ["a=8 GB"])
    assert variant is not opened and "a" in variant
    assert variant.display("t") == "80 ms"   # 8 GB / (100 GB/s)
    assert opened.display("t") == "20 ms"


def test_entry_points_take_a_sheet_with_inputs_set():
    """A notebook's Sheet with inputs set is swept as written with them: 8x the context, 8x the KV."""
    sheet = ss.load(RUNNING)

    def kv_total(of: ss.Sheet) -> list[float]:
        setup = SweepSetup(of)
        setup.vary(setup.parse_axis("cards=1,2"))
        setup.show(["kv_total"])
        return setup.plan().frame()["kv_total [GB]"].to_list()

    wider, base = kv_total(sheet.with_inputs(context="65536 token")), kv_total(sheet)
    assert wider == pytest.approx([8 * kv for kv in base]) and base[0] > 0


def test_diff_of_files_and_textconv(tmp_path):
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(SHEET, encoding="utf-8")
    new.write_text(SHEET.replace("2 GB", "3 GB"), encoding="utf-8")
    (diff,) = compare.diff_files(str(old), str(new))
    assert diff.differs and not diff.invalid
    assert [c.name for c in diff.sections["results"]] == ["t"] and diff.sections["results"][0].new == "30 ms"
    assert json.loads(compare.render_diffs([diff], "json"))
    assert compare.render_diffs([diff]) == str(diff)
    assert compare.textconv(new).startswith(SHEET.replace("2 GB", "3 GB"))
    with pytest.raises(RequestError, match="no such sheet"):
        compare.diff_files(str(old), str(tmp_path / "missing.yaml"))


def test_diff_against_a_git_revision(tmp_path):
    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, check=True,
                       capture_output=True)
    git("init", "-q")
    sheet = tmp_path / "s.yaml"
    sheet.write_text(SHEET, encoding="utf-8")
    git("add", "s.yaml")
    git("commit", "-qm", "first")
    assert [d.differs for d in compare.diff_revision("HEAD", cwd=tmp_path)] == []
    sheet.write_text(SHEET.replace("100 GB/s", "50 GB/s"), encoding="utf-8")
    (diff,) = compare.diff_revision("HEAD", cwd=tmp_path)
    assert diff.differs and diff.sections["results"][0].new == "40 ms"
    with pytest.raises(RequestError, match="^git: "):
        compare.diff_revision("no-such-revision", cwd=tmp_path)


def test_configure_sets_the_load_limits(tmp_path):
    sheet = tmp_path / "s.yaml"
    sheet.write_text(SHEET, encoding="utf-8")
    try:
        assert loading.configure(max_cells=2).max_cells == 2
        with pytest.raises(SheetError) as caught:
            open_checked(sheet)
        assert "--max-cells" in str(caught.value)
    finally:
        loading.configure()
    assert "a" in open_checked(sheet)


def test_find_sheets_searches_folders(tmp_path):
    (tmp_path / "a.yaml").write_text(SHEET, encoding="utf-8")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "b.yaml").write_text(SHEET, encoding="utf-8")
    assert loading.find_sheets([tmp_path]) == [tmp_path / "a.yaml"]
    with pytest.raises(RequestError, match="no such file or directory"):
        loading.find_sheets([tmp_path / "nope"])


def test_the_tools_example_of_the_python_doc_streams_a_sweep(tmp_path):
    doc = (REPO / "docs" / "python.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", doc, re.S) if "SweepSetup" in b)
    target = tmp_path / "kv.parquet"
    probe = block.replace('"kv.parquet"', repr(str(target))) + "print(rows)\n"
    result = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["6/6", "6"]                 # six contexts: 4096 .. 131072 token, doubling
    assert pl.read_parquet(target)["context [token]"].to_list() == [4096.0 * 2 ** i for i in range(6)]
