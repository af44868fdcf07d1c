"""Format 9.5: round(x, step), `->` with a numeric factor, and ‰ -- end to end
through `check`/`run`/`test` (the values themselves are covered by the
differential test in tests/engine/test_differential.py)."""
from __future__ import annotations


def test_round_to_a_step_keeps_the_unit(run_cli, write_sheet):
    path = write_sheet("""
        title: t
        cells:
          kv: 6.71 GB
          carried: = round(kv, 0.1 GB)
          half: = round(-2.5 GB, 1 GB)
          whole: = round(2.5)
        """)
    result = run_cli("run", str(path))
    assert result.code == 0, result.output
    lines = {line.split()[0]: line for line in result.out.splitlines() if line.strip()}
    assert "6.7 GB" in lines["carried"]
    assert "-3 GB" in lines["half"]
    assert " 3 " in lines["whole"] + " "


def test_round_to_a_step_of_another_dimension_is_refused(run_cli, write_sheet):
    path = write_sheet("""
        title: t
        cells:
          kv: 6.71 GB
          carried: = round(kv, 1 s)
        """)
    result = run_cli("check", str(path))
    assert result.code == 2
    assert "E-UNIT" in result.output and "round()" in result.output


def test_round_without_step_still_needs_a_plain_number(run_cli, write_sheet):
    path = write_sheet("""
        title: t
        cells:
          kv: = round(6.71 GB)
        """)
    result = run_cli("check", str(path))
    assert result.code == 2
    assert "round(x, 8 GB)" in result.output   # the hint names the step form


def test_arrow_accepts_a_numeric_factor(run_cli):
    assert run_cli("calc", "90 s -> 1.5*min").out.strip() == "1 1.5*min"
    assert run_cli("calc", "2 / 1 s -> 0.5/s").out.strip() == "4 0.5/s"
    assert run_cli("calc", "1 s -> 1e3*ms").out.strip() == "1 1e3*ms"


def test_arrow_with_a_spaced_factor_says_how_to_join_it(run_cli):
    result = run_cli("calc", "1 h -> 2 min")
    assert result.code == 2
    assert "E-PARSE" in result.output and "-> 45*min" in result.output


def test_permille(run_cli):
    assert run_cli("calc", "2 ‰ * 1000").out.strip() == "2"
    assert run_cli("calc", "5 % -> ‰").out.strip() == "50 ‰"
