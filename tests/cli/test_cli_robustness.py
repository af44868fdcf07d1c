"""Inputs that once ended in `internal error … this is a bug` (exit 70): each is now
a diagnostic with a position where it has one, and one of the exit codes 0/1/2."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from repo_paths import REPO

SHEET = """
    cells:
      n: 4
      m: = n * 2
      bw: 10 GB/s
      t: = 1 GB / bw
"""


def no_internal_error(result) -> None:
    assert result.code in (0, 1, 2), result.output
    assert "internal error" not in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("show", ["n,m", "m,m", "m,n,m"])
def test_sweep_show_names_an_axis_or_a_cell_twice(show, run_cli, write_sheet):
    path = write_sheet(SHEET)
    result = run_cli("sweep", str(path), "--vary", "n=1,2", "--show", show, "--format", "csv")
    no_internal_error(result)
    assert result.code == 0
    assert result.out.splitlines()[0] == "n,m"
    assert result.out.splitlines()[1:] == ["1,2", "2,4"] or result.out.splitlines()[1:] == ["1.0,2.0", "2.0,4.0"]


def test_a_sheets_own_sweep_showing_its_axis(run_cli, write_sheet):
    path = write_sheet(SHEET + """
    sweeps:
      s:
        vary: {n: [1, 2]}
        show: [n, m]
    """)
    assert run_cli("check", str(path)).code == 0
    result = run_cli("sweep", str(path), "s", "--format", "csv")
    no_internal_error(result)
    assert result.out.splitlines()[0] == "n,m"


def test_solve_between_without_the_cells_unit_is_e_unit(run_cli, write_sheet):
    path = write_sheet(SHEET)
    result = run_cli("solve", str(path), "--vary", "bw", "--goal", "t == 1 s", "--between", "1,2")
    no_internal_error(result)
    assert result.code == 2 and "E-UNIT" in result.err and "information/time" in result.err
    unknown = run_cli("solve", str(path), "--vary", "bw", "--goal", "t == 1 s", "--between", "1 foo,2 foo")
    no_internal_error(unknown)
    assert unknown.code == 2 and 'unknown unit "foo"' in unknown.err
    good = run_cli("solve", str(path), "--vary", "bw", "--goal", "t == 1 s", "--between", "0.1 GB/s,2 GB/s")
    assert good.code == 0 and "bw = 1 GB/s" in good.out


def test_solve_entry_between_without_unit_is_reported_by_check(run_cli, write_sheet):
    path = write_sheet(SHEET + """
    solve:
      fit:
        vary: bw
        goal: t == 1 s
        between: [1, 2]
    """)
    result = run_cli("check", str(path))
    no_internal_error(result)
    # at the end itself (line 11, column 15), not at the solve's name
    assert result.code == 2 and ":11:15: E-UNIT: solve 'fit': between: 1: bw is information/time" in result.err


def test_output_into_a_missing_folder(run_cli, write_sheet, tmp_path):
    path = write_sheet(SHEET)
    result = run_cli("sweep", str(path), "--vary", "n=1,2", "-o", str(tmp_path / "no" / "out.csv"))
    no_internal_error(result)
    assert result.code == 2 and "the folder" in result.err and "does not exist" in result.err
    into_dir = run_cli("sweep", str(path), "--vary", "n=1,2", "--format", "csv", "-o", str(tmp_path))
    assert into_dir.code == 2 and "is a directory" in into_dir.err


@pytest.mark.parametrize("command", ["textconv", "run", "check", "test", "edit"])
def test_a_directory_where_a_sheet_is_expected(command, run_cli, tmp_path):
    folder = tmp_path / "looks-like.yaml"
    folder.mkdir()
    result = run_cli(command, str(folder))
    no_internal_error(result)
    assert result.code == 2 and "is a directory" in result.err


@pytest.mark.parametrize("command", ["textconv", "run", "check", "test", "edit"])
def test_a_device_or_a_fifo_where_a_sheet_is_expected(command, run_cli, tmp_path):
    """Named for what it is, not "no such sheet" (`edit /dev/null` said so of a file that exists)."""
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    for path, what in (("/dev/null", "is a device"), (str(fifo), "is a FIFO")):
        result = run_cli(command, path)
        no_internal_error(result)
        assert result.code == 2 and what in result.err and "no such sheet" not in result.err, (path, result.err)


@pytest.mark.parametrize("cell, message", [
    ("{value: 1 GB, unit: s}", "cannot show information in s"),
    ("{value: 1 GB, unit: foo}", 'unknown unit "foo"'),
    ("{value: true, unit: s}", "a condition has no unit"),
])
def test_long_form_unit_that_does_not_fit(cell, message, run_cli, write_sheet):
    path = write_sheet(f"cells:\n  a: {cell}\n")
    for command in ("check", "run", "test"):
        result = run_cli(command, str(path))
        no_internal_error(result)
        assert result.code == 2 and message in result.err and ":2:26:" in result.err


@pytest.mark.parametrize("expression, message", [
    ("1 GB^1000", "out of range"),
    ("1 GB^-1000", "out of range"),
    ("1 GB^1e400", "the power is too large"),
    ("1e400", "out of range"),
    ("1e", "has no digits"),
    ("2.5E+", "has no digits"),
])
def test_calc_refuses_numbers_no_float_holds(expression, message, run_cli):
    result = run_cli("calc", expression)
    no_internal_error(result)
    assert result.code == 2 and message in result.err and "nan" not in result.out


def test_calc_exponents_still_read(run_cli):
    assert run_cli("calc", "1e3").out.strip() == "1000"
    charge = run_cli("calc", "1 e")   # the elementary charge: a slip in this domain (format 9.3), not a crash
    assert charge.code == 2 and "E-UNIT" in charge.err and "elementary charge" in charge.err
    assert run_cli("calc", "2.5E-3").out.strip() == "0.0025"
    assert run_cli("calc", "1 m^100").code == 0


def test_unit_overflow_in_a_cell_is_positioned(run_cli, write_sheet):
    path = write_sheet("cells:\n  a: 1 GB^1000\n")
    result = run_cli("check", str(path))
    no_internal_error(result)
    assert result.code == 2 and ":2:8:" in result.err


@pytest.mark.parametrize("expect, message", [
    ("1e400", "out of the range of a 64-bit float"),
    ("abc", "expected a value like"),
    ("1 s", "a is information, the expectation '1 s' is time"),
])
def test_expectations_check_and_test_agree(expect, message, run_cli, write_sheet):
    path = write_sheet(f"cells:\n  a: 1 GB\nexpect:\n  a: {expect}\n")
    for command in ("check", "test"):
        result = run_cli(command, str(path))
        no_internal_error(result)
        assert result.code == 2 and message in result.err and ":4:" in result.err, (command, result.output)


def test_yaml_merge_keys_are_refused_at_their_position(run_cli, write_sheet):
    path = write_sheet("""
        cells:
          base: &x {value: 1 GB}
          b:
            <<: *x
    """)
    for command in ("check", "run"):
        result = run_cli(command, str(path))
        no_internal_error(result)
        assert result.code == 2 and ":4:5: E-SHEET: YAML merge keys" in result.err


@pytest.mark.parametrize("keys", ["1: 2\n  true: 3", "true: 1\n  1: 2"])
def test_keys_yaml_reads_as_one_are_not_called_duplicates_of_true(keys, run_cli, write_sheet):
    path = write_sheet(f"cells:\n  {keys}\n")
    result = run_cli("check", str(path))
    no_internal_error(result)
    assert result.code == 2 and "is not a name" in result.err and ":3:3:" in result.err
    assert "duplicate key 'True'" not in result.err


@pytest.mark.parametrize("formula, position, message", [
    ("poisson(1e30)", "2:16", "poisson() needs a mean from 0"),
    ("poisson(-1)", "2:16", "poisson() needs a mean from 0"),
    ("binomial(1e30, 0.5)", "2:17", "binomial() needs a whole number of trials"),
    ("binomial(10, 2)", "2:21", "binomial() needs a probability"),
    ("routing_loads(1e300, 1, 1, 1)", "2:22", "routing_loads() needs a whole number of tokens"),
    ("routing_loads(10, 1, 3, 2)", "2:29", "routing_loads() needs experts (3) divisible by ranks (2)"),
])
def test_draw_parameters_are_checked_with_positions(formula, position, message, run_cli, write_sheet):
    path = write_sheet(f"cells:\n  a: = {formula}\n")
    for command in ("check", "run", "test"):
        result = run_cli(command, str(path))
        no_internal_error(result)
        assert result.code == 2 and f":{position}: E-TYPE: {message}" in result.err, (command, result.err)


def test_draw_parameter_from_a_cell_is_checked_at_the_draw(run_cli, write_sheet):
    path = write_sheet("cells:\n  n: 1e30\n  a: = poisson(n)\n")
    result = run_cli("check", str(path))
    assert result.code == 2 and ":3:16: E-TYPE: poisson()" in result.err


@pytest.mark.parametrize("samples, position, message", [
    ("{count: abc}", "3:18", "the number of samples must be a whole number"),
    ("{count: .inf}", "3:18", "the number of samples must be a whole number"),
    ("{count: 0}", "3:18", "the number of samples must be a whole number"),
    ("{seed: -1}", "3:17", "the seed must be a whole number"),
    ("{seed: 1.5}", "3:17", "the seed must be a whole number"),
    ("{cuont: 5}", "3:11", "unknown key 'cuont'"),
    ("abc", "3:10", "the number of samples must be a whole number"),
])
def test_samples_block_is_checked_with_positions(samples, position, message, run_cli, write_sheet):
    path = write_sheet(f"cells:\n  a: = uniform(1, 2)\nsamples: {samples}\n")
    for command in ("check", "run"):
        result = run_cli(command, str(path))
        no_internal_error(result)
        assert result.code == 2 and f":{position}: E-SHEET: {message}" in result.err, (command, result.err)


def test_negative_seed_on_the_command_line(run_cli, write_sheet):
    path = write_sheet("cells:\n  a: = uniform(1, 2)\n")
    result = run_cli("run", str(path), "--seed", "-1")
    no_internal_error(result)
    assert result.code == 2 and "the seed must be a whole number" in result.err


def test_monte_carlo_memory_is_estimated_before_allocating(run_cli, write_sheet):
    path = write_sheet("cells:\n  a: = uniform(1, 2)\n  b: = a * 2\n")
    # 2 cells + 2 x 1 draw = 4 columns: 1,000,000 x 4 x 8 bytes = 32 MB
    result = run_cli("run", str(path), "--samples", "1000000", "--max-memory", "10MB")
    no_internal_error(result)
    assert result.code == 2 and "need about 32 MB of memory" in result.err and "--max-memory" in result.err
    assert run_cli("run", str(path), "--samples", "1000", "--max-memory", "10MB").code == 0
    test = run_cli("test", str(path), "--samples", "1000000", "--max-memory", "10MB")
    assert test.code == 2 and "need about 32 MB" in test.output
    bad = run_cli("run", str(path), "--max-memory", "4 XB")
    assert bad.code == 2 and "expected a size like 4GB" in bad.err


def test_default_memory_limit_refuses_what_no_machine_holds(run_cli, write_sheet):
    from supersheet.engine.scenarios.uncertainty import default_memory_limit
    limit = default_memory_limit()
    if limit is None or limit > 10_000_000 * 8 * 5000:
        pytest.skip("a machine this large holds the run")
    cells = "\n".join(f"  c{i}: = a * {i}" for i in range(5000))
    path = write_sheet(f"cells:\n  a: = uniform(1, 2)\n{cells}\n")
    result = run_cli("run", str(path), "--samples", "10000000")
    no_internal_error(result)
    assert result.code == 2 and "half of this machine's RAM" in result.err


def test_a_full_disk_on_stdout_is_a_diagnostic(write_sheet):
    path = write_sheet(SHEET)
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "supersheet.cli.main", "run", str(path)], stdout=full,
                              stderr=subprocess.PIPE, text=True, cwd=REPO)
    assert done.returncode == 2, done.stderr
    assert "cannot write the output: No space left on device" in done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("cell, message", [
    ("1" + "0" * 400, "out of range"),
    ("= 1e400 * 2", "the number 1e400 is out of range"),
])
def test_numbers_beyond_a_float_are_refused(cell, message, run_cli, write_sheet):
    path = write_sheet(f"cells:\n  a: {cell}\n")
    result = run_cli("check", str(path))
    assert result.code == 2 and message in result.err and ":2:" in result.err


def test_a_5000_digit_integer_is_located(run_cli, write_sheet):
    path = write_sheet("cells:\n  b: 1\n  a: " + "9" * 5000 + "\n")
    result = run_cli("check", str(path))
    no_internal_error(result)
    assert result.code == 2 and ":3:6: E-SHEET: a number of 5000 digits is out of range" in result.err


@pytest.mark.parametrize("ending", ["\r", "\n", "\r\n"])
def test_end_of_stream_errors_point_into_the_file(ending, run_cli, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_bytes(f"cells:{ending}  a: [1, 2{ending}".encode())
    result = run_cli("check", str(path))
    assert result.code == 2 and ":2:11: E-YAML" in result.err and "  a: [1, 2" in result.err


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".json"])
def test_output_files_get_the_umask_mode(suffix, run_cli, write_sheet, tmp_path):
    path = write_sheet(SHEET)
    old = os.umask(0o022)
    try:
        target = tmp_path / f"out{suffix}"
        assert run_cli("sweep", str(path), "--vary", "n=1,2", "-o", str(target)).code == 0
        assert stat.S_IMODE(target.stat().st_mode) == 0o644
        os.umask(0o077)
        assert run_cli("sweep", str(path), "--vary", "n=1,2", "-o", str(target)).code == 0
        assert stat.S_IMODE(target.stat().st_mode) == 0o644      # a replaced file keeps its mode (issue 28)
        fresh = tmp_path / f"new{suffix}"
        assert run_cli("sweep", str(path), "--vary", "n=1,2", "-o", str(fresh)).code == 0
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o600
    finally:
        os.umask(old)


def test_an_unexpected_os_error_is_one_line_not_a_traceback(monkeypatch, run_cli, write_sheet):
    """Errors that are not about writing the output still end as one line (exit 70), never escape main()."""
    def refuse(*args, **kwargs):
        raise OSError(36, "File name too long")

    monkeypatch.setattr("supersheet.reports.checked_workbook", refuse)   # what `run` opens the sheet with
    result = run_cli("run", str(write_sheet(SHEET)))
    assert result.code == 70 and "internal error: OSError" in result.err


@pytest.mark.parametrize("value, hint", [
    ("3350 GB / s", "write the unit without spaces: bw: 3350 GB/s"),
    ("yes", "a condition's value is true or false (YAML 1.2 reads yes as text): bw: true"),
    ("off", "a condition's value is true or false (YAML 1.2 reads off as text): bw: false"),
    ("fast", "a value is a number, a quantity (80 GB) or true/false"),
    ("1 + 2", "formulas start with '=': bw: = 1 + 2"),
])
def test_hints_for_inputs_that_are_not_values_lead_somewhere(value, hint, run_cli, write_sheet):
    result = run_cli("check", str(write_sheet(f"cells:\n  bw: {value}\n")))
    assert result.code == 2 and f"hint: {hint}" in result.err
