"""Behaviour of the `supersheet` command: exit codes, messages, output files.

Exit codes (cli/main.py): 0 fine; 1 a finding (an error value, a failed
expectation, no feasible row, no root); 2 an invalid sheet or bad usage. No
input ever produces a traceback.
"""
from __future__ import annotations

import io
import json
import math
import time
from pathlib import Path
from textwrap import dedent

import polars as pl
import pytest

TP_STEP = """
    title: TP step time (as conformance valid/sweeps.yaml)
    cells:
      tp: 1
      local: 29.35 ms
      alpha: 0.822 us
      message: 10 KiB
      link: 450 GB/s
      rounds: = 2 * (tp - 1)
      allreduce: = rounds * alpha + rounds * message / (tp * link) -> us
      step: = local / tp + 128 * allreduce -> ms
    checks:
      fast: step < 10 ms
    sweeps:
      tp_scaling:
        vary: {tp: [1, 2, 4, 8]}
        show: [allreduce, step]
    solve:
      half:
        vary: tp
        goal: step == 14.89 ms
        between: [1, 8]
    choose:
      cheapest_fast:
        vary: {tp: [1, 2, 4, 8]}
        require: [fast]
        minimize: tp
      impossible:
        vary: {tp: [1, 2, 4, 8]}
        require: [step < 1 ms]
        minimize: step
    expect:
      step: 29.35 ms
"""

RING_TREE = """
    cells:
      n: 8
      alpha: 0.822 us
      link: 450 GB/s
      message: 10 KiB
      ring: = 2 * (n - 1) * alpha + 2 * (n - 1) * message / (n * link) -> us
      tree: = 2 * log2(n) * (alpha + message / link) -> us
    solve:
      never:
        vary: message
        goal: ring == -1 us
        between: [1 KiB, 1 GiB]
"""


def step_ms(tp: float) -> float:
    """The sheet's step time in ms, computed here from SI magnitudes."""
    rounds = 2 * (tp - 1)
    allreduce = rounds * 0.822e-6 + rounds * 10 * 1024 / (tp * 450e9)
    return (29.35e-3 / tp + 128 * allreduce) * 1e3


@pytest.fixture
def tp_sheet(write_sheet, tmp_path, monkeypatch) -> str:
    write_sheet(TP_STEP, "tp.yaml")
    monkeypatch.chdir(tmp_path)
    return "tp.yaml"


def read_csv(text: str) -> pl.DataFrame:
    return pl.read_csv(io.StringIO(text))


# -- run ------------------------------------------------------------------------
def test_run_exit_codes(run_cli, write_sheet, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_sheet("cells:\n  a: 1\n  b: = a * 2\n", "ok.yaml")
    write_sheet("cells:\n  zero: 0\n  inverse: = 1 / zero\n  fine: = 2\n", "error-value.yaml")
    write_sheet("cells:\n  a: = nope + 1\n", "invalid.yaml")
    assert run_cli("run", "ok.yaml").code == 0
    result = run_cli("run", "error-value.yaml")
    assert result.code == 1 and "#DIV/0" in result.out and "fine" in result.out
    result = run_cli("run", "invalid.yaml")
    assert result.code == 2 and "invalid.yaml:2:8: E-NAME: unknown cell 'nope'" in result.err
    assert run_cli("run").code == 2                                  # usage: SHEET is required
    assert run_cli("run", "ok.yaml", "--format", "xml").code == 2
    assert run_cli().code == 2                                       # no command: help, exit 2


@pytest.mark.parametrize("fmt", ["text", "json", "csv", "markdown"])
def test_run_formats_show_every_cell(fmt, run_cli, tp_sheet):
    result = run_cli("run", tp_sheet, "--format", fmt)
    assert result.code == 0, result.output
    for name in ("tp", "local", "alpha", "message", "link", "rounds", "allreduce", "step", "fast"):
        assert name in result.out
    if fmt == "json":
        cells = json.loads(result.out)["cells"]
        assert all({"name", "value", "unit", "display"} <= set(c) for c in cells)
        step = next(c for c in cells if c["name"] == "step")
        assert step["unit"] == "ms" and step["value"] == pytest.approx(29.35, rel=1e-12)
    if fmt == "csv":
        frame = read_csv(result.out)
        assert frame.columns[:4] == ["name", "value", "unit", "display"]


def test_set_overrides_and_wrong_unit(run_cli, tp_sheet):
    result = run_cli("run", tp_sheet, "--set", "tp=4", "--format", "json")
    assert result.code == 0
    step = next(c for c in json.loads(result.out)["cells"] if c["name"] == "step")
    assert step["value"] == pytest.approx(step_ms(4), rel=1e-12)
    result = run_cli("run", tp_sheet, "--set", "local=2 GB")
    assert result.code == 2
    assert "--set local=2 GB: E-UNIT: local is time, but '2 GB' is information" in result.err
    assert "Traceback" not in result.output
    result = run_cli("run", tp_sheet, "--set", "locl=2 ms")
    assert result.code == 2 and "unknown cell 'locl'" in result.err and "did you mean local?" in result.err
    result = run_cli("run", tp_sheet, "--set", "local")
    assert result.code == 2 and "NAME=VALUE" in result.err
    result = run_cli("run", tp_sheet, "--set", "local=(1 ms")
    assert result.code == 2 and "E-PARSE" in result.err


# -- check and test ---------------------------------------------------------------
def test_check_and_test_exit_codes(run_cli, write_sheet, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_sheet("cells:\n  a: = 2 + 2\nexpect:\n  a: 4\n", "lib/good.yaml")
    write_sheet("cells:\n  a: = 2 + 2\nexpect:\n  a: 5\n", "lib/wrong.yaml")
    write_sheet("cells:\n  a: = 2 GB + 1 s\n", "bad/invalid.yaml")
    write_sheet("cells:\n  a: 1\n", ".hidden/ignored.yaml")
    assert run_cli("check", "lib").code == 0
    result = run_cli("check", ".")
    assert result.code == 2 and result.out.strip().endswith("3 sheets checked, 1 invalid")
    assert run_cli("check", "nowhere.yaml").code == 2
    result = run_cli("test", "lib/good.yaml")
    assert result.code == 0 and result.out.strip().endswith("1 passed, 0 failed")
    result = run_cli("test", "lib")
    assert result.code == 1 and result.out.strip().endswith("1 passed, 1 failed")
    assert "lib/wrong.yaml:4:6: E-EXPECT" in result.out
    assert run_cli("test", "bad/invalid.yaml").code == 2


def test_explain(run_cli, tp_sheet):
    result = run_cli("explain", tp_sheet, "step")
    assert result.code == 0
    assert result.out.splitlines()[0].startswith("step = 29.35 ms")
    assert "└─ allreduce" in result.out and "defined at tp.yaml:" in result.out
    result = run_cli("explain", tp_sheet, "stpe")
    assert result.code == 2 and "did you mean step?" in result.err


@pytest.mark.parametrize("expression, code, output", [
    ("470.2 GB -> GiB", 0, "437.9 GiB"),
    ("1 / 0", 1, "#DIV/0"),
    ("(1 +", 2, "E-PARSE"),
    ("2 GB + 1 s", 2, "E-UNIT"),
    ("nope * 2", 2, "E-NAME"),
])
def test_calc(expression, code, output, run_cli):
    result = run_cli("calc", expression)
    assert result.code == code
    assert output in result.output


# -- sweep ------------------------------------------------------------------------
def test_sweep_max_rows_refusal(run_cli, tp_sheet):
    result = run_cli("sweep", tp_sheet, "--vary", "tp=1..1000", "--vary", "local=1ms..100ms+1ms", "--max-rows", "10")
    assert result.code == 2
    assert "100,000 rows" in result.err and "--max-rows 10" in result.err and "--max-rows 100000" in result.err


def test_sweep_over_the_default_limit_is_refused_up_front(run_cli, tp_sheet):
    started = time.monotonic()
    result = run_cli("sweep", tp_sheet, "--vary", "tp=1..10000", "--vary", "local=1ms..1001ms+1ms", "-o", "big.csv")
    assert result.code == 2
    assert "10,010,000 rows" in result.err and "--max-rows" in result.err
    assert not Path("big.csv").exists()
    assert time.monotonic() - started < 10


def test_sweep_csv_has_full_precision(run_cli, tp_sheet):
    result = run_cli("sweep", tp_sheet, "tp_scaling", "-o", "out.csv")
    assert result.code == 0 and "4 rows written to out.csv" in result.err
    text = Path("out.csv").read_text(encoding="utf-8")
    frame = read_csv(text)
    # streamed files keep an error column for every cell that could hold an error value
    # (`-> us` may be shown as us or μs: the spelling is the units package's choice)
    assert [c.replace("μs", "us") for c in frame.columns if not c.endswith(" [error]")] == [
        "tp", "allreduce [us]", "step [ms]"]
    assert all(frame[c].null_count() == frame.height for c in frame.columns if c.endswith(" [error]"))
    for tp, step in zip(frame["tp"], frame["step [ms]"]):
        assert step == pytest.approx(step_ms(tp), rel=1e-14)
    column = text.splitlines()[0].split(",").index("step [ms]")
    written = text.splitlines()[2].split(",")[column]     # the step of tp = 2, as written
    assert len(written.replace(".", "").lstrip("0")) >= 15, written


def test_sweep_parquet_keeps_units_in_metadata(run_cli, tp_sheet):
    result = run_cli("sweep", tp_sheet, "tp_scaling", "-o", "out.parquet")
    assert result.code == 0, result.output
    metadata = pl.read_parquet_metadata("out.parquet")
    units = json.loads(metadata["supersheet.units"])
    units = {k.replace("μs", "us"): v.replace("μs", "us") for k, v in units.items()}
    assert units["step [ms]"] == "ms" and units["allreduce [us]"] == "us"
    frame = pl.read_parquet("out.parquet")
    assert frame["step [ms]"].to_list() == pytest.approx([step_ms(t) for t in (1, 2, 4, 8)], rel=1e-14)
    assert run_cli("sweep", tp_sheet, "tp_scaling", "--format", "parquet").code == 2   # needs -o


@pytest.mark.parametrize("vary, column, values", [
    ("tp=1,2,4,8", "tp", [1, 2, 4, 8]),
    ("tp=1..8*2", "tp", [1, 2, 4, 8]),
    ("tp=1..4", "tp", [1, 2, 3, 4]),
    ("message=10KiB..30KiB+10KiB", "message [KiB]", [10, 20, 30]),
    ("message=10 KiB..30 KiB+10 KiB", "message [KiB]", [10, 20, 30]),
    ("message=1KiB..1MiB:3log", "message [KiB]", [1, 32, 1024]),
    ("message=0KiB..10KiB:3lin", "message [KiB]", [0, 5, 10]),
    ("message=0KiB..10KiB:3", "message [KiB]", [0, 5, 10]),
    ("local=29.35ms,14.675ms", "local [ms]", [29.35, 14.675]),
], ids=["list", "geometric", "unit-step", "linear", "linear-spaced", "log-count", "lin-count", "count", "quantities"])
def test_sweep_ad_hoc_axis_spellings(vary, column, values, run_cli, tp_sheet):
    result = run_cli("sweep", tp_sheet, "--vary", vary, "--show", "step", "--format", "csv")
    assert result.code == 0, result.output
    frame = read_csv(result.out)
    assert frame[column].to_list() == pytest.approx(values, rel=1e-12)
    assert frame.columns[-1] == "step [ms]"


def test_sweep_product_order_and_where(run_cli, tp_sheet):
    result = run_cli("sweep", tp_sheet, "--vary", "tp=2,8", "--vary", "local=29.35ms,14.675ms", "--show", "step",
                     "--where", "step < 10 ms", "--format", "csv")
    assert result.code == 0, result.output
    frame = read_csv(result.out)
    # the first axis varies slowest; `where` keeps rows in order
    assert frame["tp"].to_list() == [2, 8, 8] and frame["local [ms]"].to_list() == [14.675, 29.35, 14.675]


def test_sweep_usage_errors(run_cli, tp_sheet):
    for args, message in [
        ((), "give a sweep NAME or at least one --vary"),
        (("nope",), "no sweep named 'nope'"),
        (("--vary", "pt=1,2"), "unknown cell 'pt'"),
        (("--vary", "tp=1 GB"), "tp is dimensionless, but '1 GB' is information"),
        (("--vary", "tp"), "--vary needs NAME=VALUES"),
        (("--vary", "tp=1,2", "-o", "out.xlsx"), "cannot tell the format"),
        (("--vary", "tp=1,2", "--where", "step"), "'where' must be a condition"),
    ]:
        result = run_cli("sweep", tp_sheet, *args)
        assert result.code == 2, (args, result.output)
        assert message in result.err, (args, result.err)
        assert "Traceback" not in result.output


def test_sweep_rows_with_error_values_keep_them_visible(run_cli, write_sheet, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_sheet("cells:\n  d: 1\n  inverse: = 1 / d\n", "inv.yaml")
    result = run_cli("sweep", "inv.yaml", "--vary", "d=0,2", "--format", "csv")
    assert result.code == 0, result.output
    frame = read_csv(result.out)
    assert frame["inverse"].to_list() == [None, 0.5]
    assert frame["inverse [error]"].to_list() == ["#DIV/0", None]


CARD_A = "cells:\n  hbm_capacity: 80 GB\n  hbm_bandwidth: 3350 GB/s\n"
CARD_B = "cells:\n  hbm_capacity: 141 GB\n  hbm_bandwidth: 4800 GB/s\n"
SCENARIO = """
    use:
      gpu: cards/a.yaml
    cells:
      bytes: 5.79 GB
      read_time: = bytes / gpu.hbm_bandwidth -> ms
    checks:
      fits: bytes <= gpu.hbm_capacity
    sweeps:
      by_card:
        vary:
          gpu: [cards/a.yaml, cards/b.yaml]
          bytes: [5.79 GB, 100 GB]
        show: [read_time, fits]
        expect:
          read_time: [1.728 ms, 29.85 ms, 1.206 ms, 20.83 ms]
          fits: [true, false, true, true]
"""


@pytest.fixture
def import_sheets(write_sheet, tmp_path, monkeypatch) -> Path:
    write_sheet(CARD_A, "cards/a.yaml")
    write_sheet(CARD_B, "cards/b.yaml")
    write_sheet(SCENARIO, "scenario.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_sweep_import_axis_ad_hoc(run_cli, import_sheets):
    result = run_cli("sweep", "scenario.yaml", "--vary", "gpu=cards/a.yaml,cards/b.yaml", "--vary",
                     "bytes=5.79GB,100GB", "--format", "csv")
    assert result.code == 0, result.output
    frame = read_csv(result.out)
    assert frame["gpu"].to_list() == ["cards/a.yaml", "cards/a.yaml", "cards/b.yaml", "cards/b.yaml"]
    assert frame["bytes [GB]"].to_list() == [5.79, 100.0, 5.79, 100.0]
    expected = [5.79 / 3350 * 1e3, 100 / 3350 * 1e3, 5.79 / 4800 * 1e3, 100 / 4800 * 1e3]
    assert frame["read_time [ms]"].to_list() == pytest.approx(expected, rel=1e-12)
    assert frame["fits"].to_list() == [True, False, True, True]


def test_sweep_import_axis_in_the_sheet(run_cli, import_sheets, monkeypatch):
    monkeypatch.chdir(import_sheets.parent)           # paths in the sheet are relative to the sheet
    path = f"{import_sheets.name}/scenario.yaml"
    result = run_cli("sweep", path, "by_card", "--format", "csv")
    assert result.code == 0, result.output
    assert read_csv(result.out)["read_time [ms]"].to_list() == pytest.approx(
        [5.79 / 3350 * 1e3, 100 / 3350 * 1e3, 5.79 / 4800 * 1e3, 100 / 4800 * 1e3], rel=1e-12)
    result = run_cli("test", path)
    assert result.code == 0 and result.out.strip().endswith("8 passed, 0 failed"), result.out


def test_sweep_import_axis_missing_file(run_cli, import_sheets):
    result = run_cli("sweep", "scenario.yaml", "--vary", "gpu=cards/nope.yaml")
    assert result.code == 2 and "E-IMPORT" in result.err and "cards/nope.yaml" in result.err


# -- solve and choose ---------------------------------------------------------------
def test_solve_named_and_ad_hoc(run_cli, write_sheet, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_sheet(RING_TREE, "ring.yaml")
    result = run_cli("solve", "ring.yaml", "--vary", "message", "--goal", "ring == tree", "--between", "1KiB,1GiB",
                     "--format", "json")
    assert result.code == 0, result.output
    solution = json.loads(result.out)["solution"]
    assert solution["unit"] == "KiB" and solution["value"] == pytest.approx(680, rel=0.005)
    text = run_cli("solve", "ring.yaml", "--vary", "message", "--goal", "ring == 20 us", "--between", "1KiB,1GiB")
    assert text.code == 0 and text.out.startswith("ring == 20 us  when  message = 2132 KiB")


def test_solve_without_a_root_is_e_solve(run_cli, write_sheet, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_sheet(RING_TREE, "ring.yaml")
    result = run_cli("solve", "ring.yaml", "never")
    assert result.code == 1
    assert result.err.startswith("ring.yaml:9:3: E-SOLVE: ")       # at the solve's name, like `check`
    assert "no sign change" in result.err and "1 KiB" in result.err
    result = run_cli("solve", "ring.yaml", "--vary", "message", "--goal", "ring == 1 s", "--between", "1KiB,2KiB")
    assert result.code == 1 and "E-SOLVE" in result.err
    assert run_cli("check", "ring.yaml").code == 2      # check reports E-SOLVE too


def test_solve_usage_errors(run_cli, tp_sheet):
    for args, message in [
        ((), "give a solve NAME"),
        (("--vary", "tp", "--goal", "step == 1 ms", "--between", "1"), "--between takes LO,HI"),
        (("--vary", "tp", "--goal", "step < 1 ms", "--between", "1,8"), "a goal is written 'A == B'"),
        (("--vary", "tpp", "--goal", "step == 1 ms", "--between", "1,8"), "unknown cell 'tpp'"),
        (("--vary", "tp", "--goal", "step == 1 GB", "--between", "1,8"), "E-UNIT"),
        (("nope",), "no solve named 'nope'"),
    ]:
        result = run_cli("solve", tp_sheet, *args)
        assert result.code == 2, (args, result.output)
        assert message in result.err, (args, result.err)


def test_choose_exit_codes(run_cli, tp_sheet):
    result = run_cli("choose", tp_sheet, "cheapest_fast")
    assert result.code == 0 and result.out.startswith("answer (lowest tp): tp = 4")
    assert "fails fast" in result.out
    result = run_cli("choose", tp_sheet, "impossible")
    assert result.code == 1 and "no row is feasible for 'impossible'" in result.out
    result = run_cli("choose", tp_sheet, "impossible", "--format", "json")
    assert result.code == 1 and json.loads(result.out)["answer"] is None
    assert run_cli("choose", tp_sheet, "nope").code == 2


# -- no tracebacks, ever --------------------------------------------------------------
BAD_INPUTS = {
    "missing": None,
    "directory": "DIR",
    "binary": bytes(range(256)) * 4,
    "empty": b"",
    "top-level-list": b"- a\n- b\n",
    "top-level-scalar": b"just text\n",
    "not-utf8": "cells:\n  a: 1 \u00b5s\n".encode("latin-1"),
    "bom": "\ufeffcells:\n  a: 1\n".encode("utf-8"),
    "tabs": b"cells:\n\ta: 1\n",
}

COMMANDS = [("run",), ("check",), ("test",), ("explain", "a"), ("sweep", "s", "--vary", "a=1,2"), ("solve", "s"),
            ("choose", "s")]


@pytest.mark.parametrize("kind", list(BAD_INPUTS))
@pytest.mark.parametrize("command", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_no_traceback_for_bad_input(command, kind, run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    content = BAD_INPUTS[kind]
    target = "input.yaml"
    if content == "DIR":
        Path(target).mkdir()
    elif content is not None:
        Path(target).write_bytes(content)
    if command[0] in ("run", "check", "test"):
        args = [command[0], target]
    else:
        args = [command[0], target, *command[1:]]
    result = run_cli(*args)
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    assert result.code in (0, 1, 2), result.output
    if kind in ("missing", "binary", "top-level-list", "top-level-scalar", "not-utf8"):
        assert result.code == 2, result.output


def test_deeply_nested_yaml_is_e_yaml(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("deep.yaml").write_text("cells:\n  a: " + "[" * 400 + "1" + "]" * 400 + "\n", encoding="utf-8")
    result = run_cli("check", "deep.yaml")
    # at the 65th '[' (line 2, column 6 + 64): the depth limit, with its flag
    assert result.code == 2 and "deep.yaml:2:70: E-YAML: YAML nested deeper than the limit of 64" in result.err
    assert "--max-depth" in result.err and "Traceback" not in result.output


@pytest.mark.parametrize("command", ["run", "check", "test", "explain", "sweep", "solve", "choose", "calc"])
def test_every_command_has_help(command, run_cli):
    result = run_cli(command, "--help")
    assert result.code == 0 and result.out.startswith("usage: supersheet " + command)


def test_choose_over_an_import_axis_shows_paths_from_the_working_directory(run_cli, import_sheets, monkeypatch):
    """The axis is written relative to the sheet (cards/a.yaml); run from the sheet's parent folder,
    `choose` names each import as the user would type it there: <folder>/cards/a.yaml."""
    (import_sheets / "scenario.yaml").write_text(dedent(SCENARIO) + dedent("""
        choose:
          fastest_card:
            vary: {gpu: [cards/a.yaml, cards/b.yaml]}
            require: [fits]
            minimize: read_time
    """), encoding="utf-8")
    monkeypatch.chdir(import_sheets.parent)
    folder = import_sheets.name
    result = run_cli("choose", f"{folder}/scenario.yaml", "fastest_card")
    assert result.code == 0, result.output
    assert f"{folder}/cards/b.yaml" in result.out and f"{folder}/cards/a.yaml" in result.out
    assert str(import_sheets) not in result.out   # not absolute
    answer = json.loads(run_cli("choose", f"{folder}/scenario.yaml", "fastest_card", "--format", "json").out)
    assert [row["gpu"] for row in answer["ranked"]] == [f"{folder}/cards/b.yaml", f"{folder}/cards/a.yaml"]
