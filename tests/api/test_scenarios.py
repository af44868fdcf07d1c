"""Sweeps, solves, choices and diffs from Python give what the CLI gives (issue 17, item 2)."""
from __future__ import annotations

import io
import json

import polars as pl
import pytest

import supersheet as ss
from repo_paths import REPO, RUNNING

RING = REPO / "sheets/supernodes/6.4.2-ring-vs-tree.yaml"
PARTITION = REPO / "sheets/supernodes/6.7.3-choosing-a-partitioning.yaml"


def test_sweep_has_the_cli_rows_columns_and_units(run_cli):
    sheet = ss.load(RUNNING)
    result = sheet.sweep(cards=[1, 8], context=ss.range("4096 token", "131072 token", times=2))
    out = run_cli("sweep", str(RUNNING), "--vary", "cards=1,8", "--vary", "context=4096token..131072token*2",
                  "--format", "csv")
    assert out.code == 0, out.err
    cli = pl.read_csv(io.StringIO(out.out))
    df = result.frame
    assert df.height == len(result) == 2 * 6 and result.headed().columns == cli.columns
    assert list(result.headers.values()) == cli.columns and list(result.headers) == df.columns
    assert df["context"].to_list() == [4096.0, 8192.0, 16384.0, 32768.0, 65536.0, 131072.0] * 2
    assert df["cards"].to_list() == [1.0] * 6 + [8.0] * 6
    headed = result.headed()
    for column in headed.columns:
        if headed[column].dtype == pl.Float64:
            assert headed[column].to_list() == pytest.approx(cli[column].cast(pl.Float64).to_list(), rel=1e-12), column
    assert result.units["context"] == "token" and result.units["kv_per_card"] == "GB"
    assert "cards" not in result.units   # a plain number has no unit
    assert all(" [" not in name for name in df.columns if name != "outside [assumptions]")


def test_named_sweep_with_show_and_where():
    sheet = ss.load(RUNNING)
    table = sheet.sweep("per_card_table")
    assert table.columns == ["cards", "weights_per_card", "kv_per_card", "workspace", "total_per_card",
                             "outside [assumptions]"]
    assert table.frame["outside [assumptions]"].to_list() == [None, None]   # 1 and 8 cards: whole heads
    assert table.units == {"weights_per_card": "GB", "kv_per_card": "GB", "workspace": "GiB", "total_per_card": "GB"}
    assert table.frame["weights_per_card"].round(2).to_list() == [470.19, 58.96]
    fits = sheet.sweep(cards=[1, 2, 4, 8], show=["max_sessions"], where="max_sessions > 0").frame
    assert fits["cards"].to_list() == [c for c in [1.0, 2.0, 4.0, 8.0]
                                       if sheet.with_inputs(cards=int(c))["max_sessions"] > 0]


def test_sweep_of_a_sheet_with_inputs_uses_them():
    sheet = ss.load(RUNNING)
    swept = sheet.with_inputs(context="32768 token").sweep(cards=[1, 8], show=["max_sessions"]).frame
    direct = sheet.sweep(cards=[1, 8], context=["32768 token"], show=["max_sessions"]).frame
    assert swept["max_sessions"].to_list() == direct["max_sessions"].to_list()
    assert swept["max_sessions"].to_list() != sheet.sweep(cards=[1, 8], show=["max_sessions"]).frame["max_sessions"].to_list()


def test_solve_gives_the_cli_solution(run_cli):
    solution = ss.load(RING).solve("crossover")
    cli = json.loads(run_cli("solve", str(RING), "crossover", "--format", "json").out)
    assert solution.cell == cli["solution"]["name"] == "message"
    assert cli["solution"]["unit"] == "KiB" and str(solution.value.units) == "kibibyte"
    assert solution.value.magnitude == pytest.approx(cli["solution"]["value"], rel=1e-12)
    assert solution.sheet["ring"].magnitude == pytest.approx(solution.sheet["tree"].magnitude, rel=1e-9)


def test_choose_gives_the_cli_ranking(run_cli):
    choice = ss.load(PARTITION).choose("four_sessions_128k_130ms", show=["all_done"])
    cli = json.loads(run_cli("choose", str(PARTITION), "four_sessions_128k_130ms", "--show", "all_done",
                             "--format", "json").out)
    assert choice.ranked.headed().to_dicts() == cli["ranked"]
    assert choice.excluded.headed().to_dicts() == cli["excluded"]
    assert choice.minimize and choice.objective == cli["objective"]
    # the frames are a sweep's shape: plain names, the units beside them, headers only in files
    assert choice.ranked.frame.columns == ["tp", "all_done", "cost_per_on_time"]
    assert choice.excluded.frame.columns == ["tp", "all_done", "cost_per_on_time", "excluded because"]
    assert choice.units == {"all_done": "ms", "cost_per_on_time": "GPU*s/session"}
    assert choice.answer == {"tp": 2.0, "all_done": cli["answer"]["all_done [ms]"],
                             "cost_per_on_time": cli["answer"]["cost_per_on_time [GPU*s/session]"]}
    assert choice.ranked.to_arrow().schema.field("all_done").metadata == {b"unit": b"ms"}
    assert choice.excluded.to_pandas(pint=False).attrs["units"]["cost_per_on_time"] == "GPU*s/session"


def test_a_choice_with_no_feasible_row_keeps_its_columns(write_sheet):
    path = write_sheet("""
        cells:
          n: 1
          t: = n * 2 s
          ok: = n > 5
        choose:
          best:
            vary: {n: [1, 2]}
            require: [ok]
            minimize: t
    """)
    choice = ss.load(path).choose("best")
    assert choice.answer is None and choice.ranked.height == 0 and choice.excluded.height == 2
    assert choice.ranked.frame.columns == ["n", "t"] and choice.units == {"t": "s"}


def test_diff_reports_the_input_and_the_results_that_changed(run_cli):
    sheet = ss.load(RUNNING)
    changed = ss.diff(sheet, sheet.with_inputs(context="32768 token"))
    assert changed.differs
    names = {c.name: c for c in changed.sections["results"]}
    assert names["max_sessions"].old == "47" and names["max_sessions"].new == "11"
    assert [c.name for c in changed.sections["inputs"]] == ["context"]
    assert "max_sessions: 47 → 11" in str(changed)
    assert not ss.diff(sheet, sheet).differs


def test_diff_of_two_files_is_the_cli_diff(run_cli, write_sheet):
    """`ss.diff("a.yaml", "b.yaml")`, as a user first tries it (it raised AttributeError: a path
    has no `.path`): files and library names are loaded as `ss.load` loads them, compared as
    `supersheet diff` compares them; a side that does not check raises SheetError."""
    variant = REPO / "sheets/supernodes/6.1.2-running-example-32k.yaml"
    from_files = ss.diff(str(RUNNING), variant)
    cli = run_cli("diff", str(RUNNING), str(variant), "--format", "json")
    (expected,) = json.loads(cli.out)["sheets"]
    results = {c.name: (c.old, c.new) for c in from_files.sections["results"]}
    assert results == {c["name"]: (c["old"], c["new"]) for c in expected["results"]}
    assert results["max_sessions"] == ("47", "11")
    library = ss.diff("supersheet:hardware/h100-sxm.yaml", "supersheet:hardware/h200.yaml")
    inputs = {c.name: (c.old, c.new) for c in library.sections["inputs"]}
    assert inputs["hbm_capacity"] == ("80 GB", "141 GB")
    assert str(library).startswith("== supersheet:hardware/h200.yaml  (supersheet:hardware/h100-sxm.yaml → ")
    assert not ss.diff(ss.load(RUNNING), RUNNING).differs          # a Sheet and a path mix
    broken = write_sheet("cells:\n  a: = b + 1\n")
    with pytest.raises(ss.SheetError) as raised:
        ss.diff(RUNNING, broken)
    assert raised.value.code == "E-NAME"


def test_a_solved_sheet_holds_the_root_the_solver_found(write_sheet):
    """The answer is not written as text in its display unit and parsed back: 962.201125180818 ms
    read back is 0.9622011251808181 s, one ulp off the root, where the goal no longer holds."""
    path = write_sheet("""
        cells:
          x: 1 ms
          y: = x * 1
        checks:
          on_goal: y == 0.962201125180818 s
        solve:
          hit:
            vary: x
            goal: y == 0.962201125180818 s
            between: [0 ms, 1000 ms]
        """)
    solution = ss.load(path).solve("hit")
    assert solution.sheet["on_goal"] is True
    assert solution.sheet.display("x") == solution.sheet.with_inputs().display("x")
    assert solution.sheet.inputs == {"x": repr(solution.value.magnitude) + " ms"}
