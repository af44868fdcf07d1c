"""The exit codes README.md documents, one test each (issue 29, item 8): 0 done, 1 a finding
(an error value, a failed expectation or assumption, no root, nothing feasible), 2 an invalid
sheet or usage, 70 an internal error, 130 interrupted; a reader that closes the pipe early
does not change the code."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SUPERSHEET = shutil.which("supersheet", path=str(Path(sys.executable).parent)) or "supersheet"

CLEAN = """
    cells:
      a: 2 GB
      b: = a * 2
"""
FINDING = """
    cells:
      a: 0
      b: = 1 / a
"""


def test_0_when_the_command_did_what_it_was_asked(run_cli, write_sheet):
    assert run_cli("run", str(write_sheet(CLEAN))).code == 0


def test_1_for_a_finding(run_cli, write_sheet):
    result = run_cli("run", str(write_sheet(FINDING)))
    assert result.code == 1 and "#DIV/0" in result.out


def test_2_for_an_invalid_sheet_or_usage(run_cli, write_sheet):
    assert run_cli("run", str(write_sheet("cells:\n  a: = nope +\n"))).code == 2
    assert run_cli("run").code == 2   # usage: the sheet is missing


def test_70_for_an_internal_error(run_cli, write_sheet, monkeypatch):
    from supersheet import reports

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(reports, "run", broken)
    result = run_cli("run", str(write_sheet(CLEAN)))
    assert result.code == 70
    assert result.err.startswith("supersheet: internal error: RuntimeError: a bug") and "Traceback" not in result.err


def test_130_when_interrupted(write_sheet, tmp_path):
    path = write_sheet("cells:\n  x: 1\n  w: 1\n  y: = x * w\n")
    out = tmp_path / "out.csv"
    process = subprocess.Popen([SUPERSHEET, "sweep", str(path), "--vary", "x=1..5000+1", "--vary", "w=1..5000+1",
                                "--max-rows", "25000000",
                                "-o", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "COLUMNS": "80"})
    deadline = time.monotonic() + 120
    while not [p for p in tmp_path.iterdir() if p.name.startswith(".out.csv")]:   # writing rows by now
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.05)
    time.sleep(0.5)
    assert process.poll() is None, process.communicate()   # still sweeping
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130 and "supersheet: interrupted" in err
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".out.csv")]


@pytest.mark.parametrize("command, code", [(["run", "--format", "json"], 1), (["run", "--format", "csv"], 1)])
def test_a_closed_pipe_keeps_the_code(write_sheet, command, code):
    cells = "\n".join(f"  c{i}: = a * {i}" for i in range(3000))
    path = write_sheet(f"cells:\n  a: 1 GB\n  z: 0\n  bad: = 1 / z\n{cells}\n")   # an error value: exit 1
    result = subprocess.run(["bash", "-c", f'"{SUPERSHEET}" {command[0]} "{path}" {" ".join(command[1:])} '
                             '| head -c 100 > /dev/null; echo "${PIPESTATUS[0]}"'],
                            capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == str(code), result.stderr
    assert "Traceback" not in result.stderr and "Broken pipe" not in result.stderr
