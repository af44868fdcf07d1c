"""Format 9.3 wherever a unit is read: a cell value, a formula, `unit:`, `->`,
`expect`, `--set`, `--vary` and `calc` all refuse `128K` with the same hint."""
from __future__ import annotations

import pytest

HINT = "131072 token"
BASE = "title: t\ncells:\n  context: 131072 token\n  kv: = context * 320 KiB/token\n"


@pytest.mark.parametrize(("sheet", "where"), [
    ("title: t\ncells:\n  context: 128K\n", ":3:15:"),
    ("title: t\ncells:\n  kv: = 128K * 2\n", ":3:12:"),
    ("title: t\ncells:\n  kv: = 2 * 1 s -> K\n", ":3:20:"),
    ("title: t\ncells:\n  temp:\n    value: 300\n    unit: K\n", ":5:"),
])
def test_sheet_text_refuses_the_trap(run_cli, write_sheet, sheet, where):
    result = run_cli("check", str(write_sheet(sheet)))
    assert result.code == 2
    assert "E-UNIT" in result.err and "kelvin" in result.err and where in result.err


def test_expect_refuses_the_trap(run_cli, write_sheet):
    result = run_cli("test", str(write_sheet(BASE + "expect:\n  context: 128K\n")))
    assert result.code == 2
    assert "E-UNIT" in result.err and HINT in result.err


@pytest.mark.parametrize("argv", [
    ("run", "--set", "context=128K"),
    ("sweep", "--vary", "context=128K,64K"),
])
def test_command_line_values_refuse_the_trap(run_cli, write_sheet, argv):
    command, *rest = argv
    result = run_cli(command, str(write_sheet(BASE)), *rest)
    assert result.code == 2
    assert "E-UNIT" in result.err and HINT in result.err
    assert "internal error" not in result.err


def test_calc_refuses_the_trap(run_cli):
    result = run_cli("calc", "128K")
    assert result.code == 2 and HINT in result.err


def test_the_long_name_stays_available(run_cli):
    assert run_cli("calc", "300 kelvin + 5 delta_degC").out.strip() == "305 kelvin"
