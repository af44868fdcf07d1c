"""The hostile corpus of issue 13: each case a sheet that once ran for
minutes, took gigabytes or crashed, now refused (or handled) quickly with a
diagnostic naming the limit and its flag.

Each case runs `supersheet check` in a subprocess under `resource` limits —
address space and CPU seconds, so a regression is killed instead of hanging
the suite — and asserts its CPU time and peak memory stayed within budget.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Callable

import pytest
from repo_paths import REPO

CPU_BUDGET = 4.0                 # seconds of CPU for the whole process (the interpreter's start included)
MEMORY_BUDGET = 400 * 2**20      # peak resident memory, bytes
HARD_CPU, HARD_MEMORY = 30, 2 * 2**30


# A child forked from the test process starts with that process's resident memory as its
# peak (ru_maxrss survives the exec): once the suite's process passed 400 MB, every command
# measured here read over budget. So a small launcher, itself started from the test process,
# forks the command under the hard limits and reports that grandchild's own usage (os.wait4).
LAUNCHER = """
import json, os, resource, sys
report, cpu, memory, argv = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
pid = os.fork()
if pid == 0:
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    os.execv(argv[0], argv)
_, status, usage = os.wait4(pid, 0)
with open(report, "w") as out:
    json.dump([status, usage.ru_utime, usage.ru_stime, usage.ru_maxrss], out)
"""


def _alias_bomb(folder: Path) -> Path:
    text, previous = "a: &a [x, x, x, x, x, x, x, x, x]\n", "a"
    for name in "bcdefghi":
        text += f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]\n"
        previous = name
    return _write(folder / "bomb.yaml", text + "cells:\n  z: *i\n")


def _twin_fan_out(folder: Path) -> Path:
    """Each of 20 files imports the next twice: 2**19 copies of the last, were twins copied."""
    for i in range(20):
        body = f"use:\n  a: f{i + 1}.yaml\n  b: f{i + 1}.yaml\ncells:\n  v: = a.v + b.v\n" if i < 19 else "cells:\n  v: 1\n"
        _write(folder / f"f{i}.yaml", body)
    return folder / "f0.yaml"


def _fan_out(folder: Path, sets: bool = True) -> Path:
    """Two different files per level, each importing both of the next level. With `set:` each
    import is an instance of its own (2**20 copies, no twins to share); without, each file is
    one instance (format 10.3): 40 cells."""
    a, b = ("{{sheet: x{0}.yaml, set: {{v: 2}}}}", "{{sheet: y{0}.yaml, set: {{v: 3}}}}") if sets else ("x{0}.yaml", "y{0}.yaml")
    for i in range(20):
        for name in "xy":
            body = f"use:\n  a: {a.format(i + 1)}\n  b: {b.format(i + 1)}\n" if i < 19 else ""
            total = "  total: = v + a.total + b.total\n" if i < 19 else "  total: = v\n"
            _write(folder / f"{name}{i}.yaml", body + "cells:\n  v: 1\n" + total)
    return folder / "x0.yaml"


def _chain(folder: Path) -> Path:
    for i in range(1000):
        body = f"use:\n  n: s{i + 1}.yaml\n" if i < 999 else ""
        _write(folder / f"s{i}.yaml", body + f"cells:\n  v: {i}\n")
    return folder / "s0.yaml"


def _huge_file(folder: Path) -> Path:
    path = _write(folder / "huge.yaml", "cells:\n  a: 1\n")
    with open(path, "r+b") as handle:          # 100 MB, sparse: nothing to write
        handle.truncate(100_000_000)
    return path


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


CASES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "alias-bomb": (_alias_bomb, "--max-yaml-nodes"),
    "deep-flow-one-line": (lambda d: _write(d / "deep.yaml", "cells:\n  a: " + "[" * 1000 + "]" * 1000 + "\n"),
                           "--max-depth"),
    "deep-flow-many-lines": (lambda d: _write(d / "deep.yaml", "cells:\n  a: " + "[\n" * 10_000 + "]\n" * 10_000),
                             "--max-depth"),
    "deep-block": (lambda d: _write(d / "deep.yaml", "cells:\n" + "".join(
        " " * (2 + i) + f"k{i}:\n" for i in range(300)) + " " * 302 + "v: 1\n"), "--max-depth"),
    "megabyte-comment": (lambda d: _write(d / "comment.yaml", "cells:\n  a: 1 # " + "x" * 1_000_000 + "\n"),
                         "--max-file-size"),
    "long-comment": (lambda d: _write(d / "comment.yaml", "cells:\n  a: 1 # " + "x" * 400_000 + "\n"),
                     "--max-line-length"),
    "100-MB-file": (_huge_file, "--max-file-size"),
    "range-100000": (lambda d: _write(d / "r.yaml", "cells:\n  a: = range(100000)\n  s: = sum(a)\n"),
                     "--max-array-length"),
    "200-ranges": (lambda d: _write(d / "r.yaml", "cells:\n" + "".join(
        f"  a{i}: = range(10000)\n  s{i}: = sum(a{i})\n" for i in range(200))), "--max-array-elements"),
    "literal-array-50000": (lambda d: _write(d / "r.yaml", "cells:\n  a:\n" + "    - 7\n" * 50_000
                                              + "  s: = sum(a)\n"), "--max-array-length"),
    "import-fan-out": (_fan_out, "--max-cells"),
    "60000-cells": (lambda d: _write(d / "c.yaml", "cells:\n" + "".join(f"  a{i}: {i}\n" for i in range(60_000))),
                    "--max-cells"),
    "import-chain-1000": (_chain, "--max-import-depth"),
    "import-path-too-long": (lambda d: _write(d / "long.yaml", "use:\n  x: " + "d/" * 3000 + "x.yaml\n"
                                                               "cells:\n  a: 1\n"), "E-IMPORT: cannot read"),
}


def _check_within_limits(sheet: Path, folder: Path, command: str = "check",
                         *extra: str) -> tuple[int, str, SimpleNamespace]:
    """`supersheet check SHEET` (or another command) in a subprocess under the hard limits, with that one
    child's own resource usage (os.wait4): RUSAGE_CHILDREN would also count every
    earlier child of the test process (the suite's other subprocesses, Ray's workers)."""
    out_path, err_path, report = folder / "stdout.txt", folder / "stderr.txt", folder / "usage.json"
    with open(out_path, "w") as out, open(err_path, "w") as err:
        process = subprocess.Popen([sys.executable, "-c", LAUNCHER, str(report), str(HARD_CPU), str(HARD_MEMORY),
                                    sys.executable, "-m", "supersheet.cli.main", command, str(sheet), *extra], cwd=REPO,
                                   stdout=out, stderr=err, stdin=subprocess.DEVNULL, start_new_session=True,
                                   env={**os.environ, "SUPERSHEET_CACHE_DIR": ""})
        # a blocked read uses no CPU, so the CPU limit cannot end it: the launcher and its command go
        watchdog = threading.Timer(120, lambda: os.killpg(process.pid, signal.SIGKILL))
        watchdog.start()
        try:
            process.wait()
        finally:
            watchdog.cancel()
    status, utime, stime, maxrss = json.loads(report.read_text())
    usage = SimpleNamespace(ru_utime=utime, ru_stime=stime, ru_maxrss=maxrss)
    process.returncode = os.waitstatus_to_exitcode(status)
    output = out_path.read_text(encoding="utf-8", errors="replace") + err_path.read_text(encoding="utf-8",
                                                                                        errors="replace")
    return process.returncode, output, usage


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_sheet_is_refused_within_budget(name: str, tmp_path: Path) -> None:
    make, expected = CASES[name]
    sheet = make(tmp_path)
    code, output, usage = _check_within_limits(sheet, tmp_path)
    cpu = usage.ru_utime + usage.ru_stime
    assert code == 2, output[-2000:]
    assert expected in output, output[-2000:]
    assert "internal error" not in output and "Traceback" not in output
    assert cpu < CPU_BUDGET, f"{cpu:.2f} s of CPU"
    assert usage.ru_maxrss * 1024 < MEMORY_BUDGET, f"{usage.ru_maxrss / 1024:.0f} MB peak"
    assert len(output) < 20_000          # a diagnostic, not a dump


def test_a_fan_out_of_twin_imports_is_computed_within_budget(tmp_path: Path) -> None:
    # the case: 20 files > 60 s when every import was a copy; twins share one copy
    code, output, usage = _check_within_limits(_twin_fan_out(tmp_path), tmp_path, "run")
    assert code == 0, output[-2000:]
    assert output.splitlines()[2].split()[:2] == ["v", f"{2 ** 19}"]    # every path counted once
    assert usage.ru_utime + usage.ru_stime < CPU_BUDGET
    assert usage.ru_maxrss * 1024 < MEMORY_BUDGET


def test_a_fan_out_of_shared_imports_is_one_instance_per_file(tmp_path: Path) -> None:
    # format 10.3: x1 and y1 both import x2 and y2 without set:, so each file is computed once
    code, output, usage = _check_within_limits(_fan_out(tmp_path, sets=False), tmp_path, "run")
    assert code == 0, output[-2000:]
    total = next(line.split() for line in output.splitlines() if line.split()[:1] == ["total"])
    assert total[1] == f"{2 ** 20 - 1}", total     # every path through the graph counted
    assert usage.ru_utime + usage.ru_stime < CPU_BUDGET
    assert usage.ru_maxrss * 1024 < MEMORY_BUDGET


def test_a_monte_carlo_run_is_refused_by_its_memory_estimate_within_budget(tmp_path: Path) -> None:
    # 10,000,000 samples x 302 columns x 8 bytes = 24 GB, estimated before any draw
    cells = "".join(f"  c{i}: = a * {i}\n" for i in range(300))
    sheet = _write(tmp_path / "mc.yaml", f"samples: 10000000\ncells:\n  a: = uniform(1, 2)\n{cells}")
    code, output, usage = _check_within_limits(sheet, tmp_path, "run", "--max-memory", "1GB")
    assert code == 2 and "--max-memory" in output and "Traceback" not in output, output[-2000:]
    assert usage.ru_utime + usage.ru_stime < CPU_BUDGET
    assert usage.ru_maxrss * 1024 < MEMORY_BUDGET


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
def test_imports_of_secrets_and_devices_are_refused_within_budget(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")
    sheet = _write(tmp_path / "leak.yaml", "use:\n  env: /proc/self/environ\n  pw: /etc/passwd\n"
                                           "  pipe: pipe.yaml\n  zero: /dev/zero\ncells:\n  a: 1\n")
    code, output, usage = _check_within_limits(sheet, tmp_path)
    assert code == 2 and output.count("outside the sheet root") == 3 and "FIFO" in output, output[-2000:]
    assert usage.ru_utime + usage.ru_stime < CPU_BUDGET
    assert usage.ru_maxrss * 1024 < MEMORY_BUDGET


def _at_the_array_maxima(folder: Path) -> Path:
    """One range and one literal array of --max-array-length elements, and ranges up to
    --max-array-elements in all."""
    return _write(folder / "arrays.yaml", "cells:\n  a: = range(10000)\n  s: = sum(a)\n  lit:\n" + "    - 7\n" * 10_000
                  + "  t: = sum(lit)\n" + "".join(f"  r{i}: = range(10000)\n  q{i}: = sum(r{i})\n" for i in range(8)))


def _at_the_cell_maximum(folder: Path) -> Path:
    return _write(folder / "cells.yaml", "cells:\n  a0: 1\n" + "".join(f"  a{i}: = a{i - 1} + 1\n" for i in range(1, 10_000)))


@pytest.mark.parametrize("make, expected", [(_at_the_array_maxima, ["s", "49995000"]),
                                            (_at_the_cell_maximum, ["a9999", "10000"])])
def test_the_documented_maxima_are_computed_within_budget(make, expected, tmp_path: Path) -> None:
    # "keep the documented maximum fast, or lower it"
    code, output, usage = _check_within_limits(make(tmp_path), tmp_path, "run")
    assert code == 0, output[-2000:]
    assert any(line.split()[:2] == expected for line in output.splitlines())
    assert usage.ru_utime + usage.ru_stime < CPU_BUDGET, f"{usage.ru_utime + usage.ru_stime:.2f} s of CPU"
    assert usage.ru_maxrss * 1024 < MEMORY_BUDGET


def test_the_budget_measures_the_command_not_the_test_process(tmp_path: Path) -> None:
    """The test process itself over the memory budget (as the whole suite's grows): a command
    that needs a few MB is still measured at a few MB, not at the size of the process it was
    started from (a plain fork carries that into ru_maxrss)."""
    ballast = bytearray(MEMORY_BUDGET + 50 * 2**20)
    ballast[::4096] = b"\1" * len(ballast[::4096])          # resident, not only reserved
    sheet = _write(tmp_path / "small.yaml", "cells:\n  a: 1 GB\n  b: = a * 2\n")
    code, output, usage = _check_within_limits(sheet, tmp_path)
    del ballast
    assert code == 0, output
    assert usage.ru_maxrss * 1024 < MEMORY_BUDGET / 2, f"{usage.ru_maxrss / 1024:.0f} MB peak"
