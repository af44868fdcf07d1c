"""`calc`, and `check`, `run` and `test` of a sheet without sweeps or random
draws (whose samples are many rows), never import Polars (issue 14: cold
start); checked in fresh interpreters."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from repo_paths import REPO


PROBE = """
import contextlib, io, json, sys
from supersheet.cli.main import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main({argv!r})
print(json.dumps([code, "polars" in sys.modules]))
"""

SHEET = """\
cells:
  a: 2 GB
  bw: 100 GB/s
  t: = a / bw -> ms
  r: = [a, a * 2] / bw
  ok: = t < 1 s
checks:
  fast: t < 1 s
expect:
  t: 20 ms
"""


@pytest.mark.parametrize("command", [["calc", "1 GB -> GiB"], ["check", "{sheet}"], ["run", "{sheet}"],
                                     ["test", "{sheet}"]])
def test_without_polars(command, tmp_path):
    sheet = tmp_path / "s.yaml"
    sheet.write_text(SHEET, encoding="utf-8")
    argv = [part.format(sheet=sheet) for part in command]
    result = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv)], cwd=REPO, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    code, imported = json.loads(result.stdout.strip().splitlines()[-1])
    assert code == 0
    assert imported is False


def test_the_command_does_not_import_the_python_api():
    """`supersheet` is also the command's package: importing the command loads neither the Python
    API (supersheet/__init__.py imports it on first use) nor NumPy; the API still works as before."""
    probe = ("import sys, supersheet.cli.main\n"
             "print(sorted(m for m in ('supersheet.sheet', 'supersheet.scenarios', 'numpy') if m in sys.modules))\n"
             "import supersheet as ss\n"
             "from supersheet import Range\n"
             "print(ss.load.__module__, Range.__module__, 'load' in dir(ss))\n")
    result = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["[]", "supersheet.sheet supersheet.scenarios True"]


def test_help_loads_no_checker_compiler_or_workbook():
    """`supersheet --help` (and building the parser every command starts with) reads the load
    limits and nothing of the pipeline: the API modules the command imports at start
    (supersheet.errors, supersheet.loading) import the checker and compiler only when used."""
    probe = ("import contextlib, io, json, sys\n"
             "from supersheet.cli.main import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    try:\n        main(['--help'])\n    except SystemExit:\n        pass\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('supersheet.engine.check', "
             "'supersheet.engine.compile', 'supersheet.engine.workbook', 'polars', 'numpy', 'pint')))))\n")
    result = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []


def test_a_batch_command_loads_its_sheet_with_the_heap_frozen(run_cli, monkeypatch):
    """The objects a batch command imported live until it ends: the sheet is loaded with them
    frozen (out of the cycle collector's full walks), and the heap is given back when the command
    returns, so a caller running the command in process (these tests) is left as it was."""
    import gc

    import supersheet.sheet

    frozen_while_loading = []
    real = supersheet.sheet.open_checked

    def watched(path):
        frozen_while_loading.append(gc.get_freeze_count())
        return real(path)

    monkeypatch.setattr(supersheet.sheet, "open_checked", watched)
    sheet = REPO / "bench" / "tp-step.yaml"
    assert gc.get_freeze_count() == 0
    result = run_cli("sweep", str(sheet), "--vary", "tp=1,2", "--format", "csv")
    assert result.code == 0, result.err
    assert len(frozen_while_loading) == 1 and frozen_while_loading[0] > 10_000   # Polars and the engine among them
    assert gc.get_freeze_count() == 0


def test_a_sweep_starts_with_the_collector_paused_and_computes_its_rows_with_it_on(run_cli, monkeypatch):
    """`sweep`'s start (its imports, the sheet's load and check, the plan) allocates and frees
    almost nothing: it runs with the cycle collector paused; the rows are computed with it on,
    and the caller gets it back on."""
    import gc

    import supersheet.sheet
    import supersheet.sweeps

    enabled = {}
    real_open, real_chunks = supersheet.sheet.open_checked, supersheet.sweeps.iterate_chunks

    def opened(path):
        enabled["loading"] = gc.isenabled()
        return real_open(path)

    def chunks(*args, **kwargs):
        enabled["rows"] = gc.isenabled()
        yield from real_chunks(*args, **kwargs)

    monkeypatch.setattr(supersheet.sheet, "open_checked", opened)
    monkeypatch.setattr(supersheet.sweeps, "iterate_chunks", chunks)
    result = run_cli("sweep", str(REPO / "bench" / "tp-step.yaml"), "--vary", "tp=1,2", "--format", "csv")
    assert result.code == 0, result.err
    assert enabled == {"loading": False, "rows": True}
    assert gc.isenabled()
    broken = run_cli("sweep", str(REPO / "bench" / "tp-step.yaml"), "--vary", "tp=1,x")   # a start that fails
    assert broken.code == 2 and gc.isenabled()


def test_a_batch_command_leaves_a_callers_frozen_heap_frozen(run_cli):
    """A caller that froze its own heap (the editor's QuietHeap) keeps it frozen: the command
    gives back only what it froze itself."""
    import gc

    gc.freeze()
    try:
        before = gc.get_freeze_count()
        result = run_cli("sweep", str(REPO / "bench" / "tp-step.yaml"), "--vary", "tp=1,2", "--format", "csv")
        assert result.code == 0, result.err
        assert gc.get_freeze_count() >= before
    finally:
        gc.unfreeze()


def _parsed(parser, argv):
    import contextlib
    import io
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            parser.parse_args(argv)
            code = None
        except SystemExit as e:
            code = e.code
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("command", ["run", "check", "test", "explain", "sweep", "solve", "fit", "choose", "diff",
                                     "textconv", "calc", "plot", "report", "edit", "init", "lsp"])
def test_a_command_line_builds_only_its_command_with_the_same_help_and_errors(command, monkeypatch):
    """argparse spends ~0.5 ms on each subcommand it builds: a command line builds only its own,
    and what it prints for --help or a bad option is what the parser of every command prints."""
    from supersheet.cli.main import COMMANDS
    from supersheet.cli.parser import build_parser

    monkeypatch.setenv("COLUMNS", "100")
    assert list(COMMANDS) == ["run", "check", "test", "explain", "sweep", "solve", "fit", "choose", "diff",
                              "textconv", "calc", "plot", "report", "edit", "init", "lsp"]   # the order --help lists them
    alone, every = build_parser(COMMANDS, command), build_parser(COMMANDS)
    for argv in ([command, "--help"], [command, "--no-such-option"]):
        assert _parsed(alone, argv) == _parsed(every, argv)
    other = "calc" if command != "calc" else "run"
    assert _parsed(alone, [other, "--help"])[0] == 2      # not built: an invalid choice here
    assert _parsed(every, [other, "--help"])[0] == 0
    assert _parsed(build_parser(COMMANDS, "--help"), ["--help"]) == _parsed(every, ["--help"])


def test_the_program_leaves_its_heap_frozen_for_the_exit(tmp_path):
    """`supersheet` (main() on the process's own command line) returns with the heap frozen: the
    process exits next, and the exit's full collection would walk all of it (~50 ms of CPU after a
    sweep) to free memory the exit returns anyway. The sweep's file is complete."""
    out = tmp_path / "out.csv"
    probe = ("import gc, sys\n"
             "from supersheet.cli.main import main\n"
             f"sys.argv = ['supersheet', 'sweep', {str(REPO / 'bench' / 'tp-step.yaml')!r}, '--vary', 'tp=1,2', "
             f"'-o', {str(out)!r}]\n"
             "code = main()\n"
             "print(code, gc.get_freeze_count())\n")
    result = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    code, frozen = map(int, result.stdout.split())
    assert code == 0 and frozen > 10_000
    assert len(out.read_text(encoding="utf-8").splitlines()) == 3   # the header and two rows


BLAS_PROBE = """
import contextlib, io, os, sys
from supersheet.cli.main import main
if sys.argv[1] == "program":
    sys.argv = ["supersheet", "calc", "1 GB -> GiB"]
with contextlib.redirect_stdout(io.StringIO()):
    assert (main() if sys.argv[0] == "supersheet" else main(["calc", "1 GB -> GiB"])) == 0
import numpy
threads = len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else None
print(os.environ.get("OPENBLAS_NUM_THREADS"), threads)
"""


@pytest.mark.parametrize("how, given, expected", [("program", None, "1"), ("program", "3", "3"), ("library", None, "None")])
def test_the_program_starts_no_blas_threads_unless_told(how, given, expected):
    """The `supersheet` process asks OpenBLAS for no threads beside its own before NumPy loads
    (each would spin for a while as it starts: CPU for matrix products no command computes) and
    keeps a number the environment gives; main() called by a program (argv given) leaves that
    program's environment alone."""
    import os
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given:
        env["OPENBLAS_NUM_THREADS"] = given
    result = subprocess.run([sys.executable, "-c", BLAS_PROBE, how], cwd=REPO, capture_output=True, text=True,
                            timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    variable, threads = result.stdout.split()
    assert variable == expected
    if how == "program" and given is None and threads != "None":
        assert threads == "1"     # NumPy loaded, and no thread beside the main one (Linux tells)
