"""Hints that lead somewhere (issue 12): a unit in the wrong case is named in the
right case (not a near spelling of another unit), a number before an unknown
word is the number written, a bad `set:` value is reported at the `set:` of the
importing sheet, and no message shows a Python dict."""
from __future__ import annotations


import pytest
from repo_paths import REPO


@pytest.mark.parametrize("expression, hint", [
    ("3 Gigabytes", 'units are case-sensitive: did you mean "gigabytes"?'),
    ("3 GigaBytes/s", 'units are case-sensitive: did you mean "gigabytes/s"?'),
    ("3 Megabits", 'units are case-sensitive: did you mean "megabits"?'),
    ("2 Bytes", 'units are case-sensitive: did you mean "bytes"?'),
    ("3 gb", 'did you mean "GB"?'),
])
def test_unit_in_the_wrong_case(expression, hint, run_cli):
    result = run_cli("calc", expression)
    assert result.code == 2 and f"hint: {hint}" in result.err, result.err
    assert '"byte"' not in result.err


def test_a_word_after_a_number_is_multiplied_with_the_number_written(run_cli):
    result = run_cli("calc", "2.5e3 Sekunden")
    assert result.code == 2 and result.out == "", result.output
    assert result.err.rstrip("\n").splitlines() == [
        '<calc>:1:7: E-UNIT: unknown unit "Sekunden"',
        "    1 | 2.5e3 Sekunden",
        "      |       ^^^^^^^^",        # the whole word, where it starts
        "hint: multiplication is written with '*': 2.5e3 * Sekunden"], result.err


def test_a_bad_set_value_is_reported_at_the_importing_set(run_cli, write_sheet):
    write_sheet("cells:\n  x: 1 GB\n  z: = x + 1 GB\n  w: = 1 / (x - 1 GB)\n", name="part.yaml")
    path = write_sheet("use:\n  m:\n    sheet: part.yaml\n    set:\n      x: 3 s\ncells:\n  y: = m.z * 2\n")
    result = run_cli("check", str(path))
    assert result.code == 2
    assert "sheet.yaml:5:10: E-UNIT: set: x is time (3 s), but the input it replaces is information" in result.err
    assert "part.yaml:" not in result.err.replace("in part.yaml)", "")   # nothing reported in the imported file
    assert run_cli("check", str(write_sheet("use:\n  m: {sheet: part.yaml, set: {x: 3 GiB}}\n"
                                            "cells:\n  y: = m.z\n", name="fine.yaml"))).code == 0


def test_a_set_replacing_a_formula_with_another_kind_is_reported_at_the_importing_set(run_cli, write_sheet):
    """The replaced formula's own type (information, from `= x * 2`) is what the set must keep:
    a time there broke `z` inside the imported file, which the user did not edit."""
    write_sheet("cells:\n  x: 1 GB\n  a: = x * 2\n  z: = a + 1 GB\n  ok: = a > 1 GB\n", name="part.yaml")
    path = write_sheet("use:\n  m:\n    sheet: part.yaml\n    set:\n      a: = 3 s * 2\ncells:\n  y: = m.z * 2\n")
    result = run_cli("check", str(path))
    assert result.code == 2
    assert ("sheet.yaml:5:12: E-UNIT: set: a is time (= 3 s * 2), but the formula it replaces is information "
            "(= x * 2 in ") in result.err, result.err
    assert "hint: give a a value in information, as the imported sheet does" in result.err
    assert "part.yaml:" not in result.err.replace("in part.yaml)", "")   # nothing reported in the imported file
    boolean = write_sheet("use:\n  m: {sheet: part.yaml, set: {ok: 3 GB}}\n", name="flag.yaml")
    result = run_cli("check", str(boolean))
    assert "flag.yaml:2:35: E-TYPE: set: ok is information (3 GB), but the formula it replaces is " in result.err
    assert "hint: give ok a condition (true, false or a comparison), as the imported sheet does" in result.err
    assert run_cli("check", str(write_sheet("use:\n  m: {sheet: part.yaml, set: {a: = 3 GiB * 2}}\n"
                                            "cells:\n  y: = m.z\n", name="fine.yaml"))).code == 0


def test_an_import_axis_that_changes_a_columns_unit_is_refused_without_a_dict(run_cli, write_sheet, monkeypatch,
                                                                              tmp_path):
    """`y` is GB with one import and s with the other: one column cannot hold both
    (it showed 0.000000002 GB for 2 s); the message names the pick as name=value."""
    write_sheet("cells:\n  x: 1 GB\n", name="good.yaml")
    write_sheet("cells:\n  x: 1 s\n", name="other.yaml")
    path = write_sheet("use:\n  m: good.yaml\ncells:\n  y: = m.x * 2\n")
    monkeypatch.chdir(tmp_path)   # import-axis values are paths from the working directory
    result = run_cli("sweep", str(path), "--vary", "m=good.yaml,other.yaml")
    assert result.code == 2
    assert "E-UNIT: with m=other.yaml: y is time here but GB in the rows before" in result.err
    assert "{" not in result.err
    broken = write_sheet("cells:\n  x: = nosuch\n", name="broken.yaml")
    result = run_cli("sweep", str(path), "--vary", f"m=good.yaml,{broken.name}")
    assert result.code == 2 and "with m=broken.yaml:" in result.err and "{" not in result.err, result.err


def test_choose_shows_no_error_column_where_no_row_holds_an_error(run_cli):
    """Every number cell can be #NUM, so each has an error column in the plan; like a sweep,
    `choose --show` keeps one only where some row holds an error."""
    sheet = REPO / "sheets" / "questions" / "q10-tp-allreduce-rule-of-thumb.yaml"
    result = run_cli("choose", str(sheet), "fastest_efficient_layout",
                     "--show", "efficiency")
    assert result.code == 0, result.output
    assert "[error]" not in result.out and "= None" not in result.out
    assert "efficiency [%]" in result.out
