"""Imports stay inside the sheet root and read only regular sheet files;
a file that is not a sheet is named, never quoted (issue 13)."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from supersheet.engine.workbook import open_workbook
from repo_paths import REPO

SECRET = "supersheet-test-secret-7f3a9c"


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
def test_secrets_devices_and_fifos_are_refused_fast_and_never_shown(tmp_path):
    os.mkfifo(tmp_path / "pipe.yaml")
    sheet = _write(tmp_path / "hostile.yaml", "use:\n  env: /proc/self/environ\n  pw: /etc/passwd\n"
                                             "  pipe: pipe.yaml\n  zero: /dev/zero\n  up: ../../../etc/hostname\n"
                                             "cells:\n  a: 1\n")
    env = {**os.environ, "SUPERSHEET_SECRET": SECRET}
    for command in ("check", "run", "test"):
        started = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", "supersheet.cli.main", command, str(sheet)], cwd=REPO, env=env,
                                capture_output=True, text=True, timeout=30)
        output = result.stdout + result.stderr
        assert result.returncode == 2, output
        assert time.perf_counter() - started < 10       # the interpreter's start; the refusal itself is timed below
        assert SECRET not in output
        for line in Path("/etc/passwd").read_text().splitlines()[:3]:
            assert line not in output
        assert output.count("outside the sheet root") == 4, output     # environ, passwd, zero, ../../../
        assert "pipe.yaml is a FIFO (named pipe): only regular files are read as sheets" in output
        assert "--allow-path" in output and "Traceback" not in output
    started = time.perf_counter()
    workbook = open_workbook(sheet)
    assert time.perf_counter() - started < 1.0
    assert {d.code for d in workbook.diagnostics} == {"E-IMPORT"}


def test_a_fifo_even_when_allowed_or_named_does_not_block(tmp_path, run_cli):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    started = time.perf_counter()
    result = run_cli("check", str(fifo))
    assert result.code == 2 and "is a FIFO (named pipe)" in result.err
    result = run_cli("check", "/dev/zero")
    assert result.code == 2 and "/dev/zero is a device" in result.err
    for command in ("textconv", "run"):
        result = run_cli(command, str(fifo))
        assert result.code == 2 and "FIFO" in result.err, (command, result.output)
    assert run_cli("edit", str(fifo)).code == 2
    assert time.perf_counter() - started < 2.0


def test_a_symbolic_link_cannot_lead_out_of_the_root(tmp_path, run_cli):
    outside = _write(tmp_path / "outside" / "secret.yaml", "cells:\n  token: 42\n")
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "link.yaml").symlink_to(outside)
    sheet = _write(tmp_path / "repo" / "sheet.yaml", "use:\n  s: link.yaml\ncells:\n  a: = s.token\n")
    result = run_cli("run", str(sheet))
    assert result.code == 2 and "link.yaml is outside the sheet root" in result.err
    allowed = run_cli("run", str(sheet), "--allow-path", str(tmp_path / "outside"))
    assert allowed.code == 0 and "42" in allowed.out, allowed.output


def test_the_root_is_the_git_work_tree_of_the_named_sheet(tmp_path, run_cli):
    """Inside a repository, sheets import across its folders; without one, only
    the sheet's own folder (and the library) is the root."""
    _write(tmp_path / "hardware" / "gpu.yaml", "cells:\n  hbm: 80 GB\n")
    sheet = _write(tmp_path / "models" / "m.yaml", "use:\n  gpu: ../hardware/gpu.yaml\ncells:\n  twice: = 2 * gpu.hbm\n")
    refused = run_cli("run", str(sheet))
    assert refused.code == 2 and "../hardware/gpu.yaml is outside the sheet root" in refused.err
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    accepted = run_cli("run", str(sheet))
    assert accepted.code == 0 and "160 GB" in accepted.out, accepted.output


def test_the_bundled_library_is_always_in_the_root(tmp_path, run_cli):
    sheet = _write(tmp_path / "mine.yaml", f"use:\n  gpu: {REPO / 'sheets' / 'hardware' / 'h100-sxm.yaml'}\n"
                                          "cells:\n  hbm: = gpu.hbm_capacity\n")
    result = run_cli("run", str(sheet))
    assert result.code == 0, result.output


def test_only_sheet_files_are_imported(tmp_path, run_cli):
    _write(tmp_path / "notes.txt", "cells:\n  a: 1\n")
    sheet = _write(tmp_path / "s.yaml", "use:\n  n: notes.txt\ncells:\n  b: 2\n")
    result = run_cli("check", str(sheet))
    assert result.code == 2 and "notes.txt is not a sheet: sheet files end in .yaml or .yml" in result.err


@pytest.mark.parametrize("content, problem", [
    ("root:x:0:0:root:/root:/bin/bash\nsecret-line-two\n", "is not a sheet: a text, not a mapping"),
    ("- secret-item\n- two\n", "is not a sheet: a list, not a mapping"),
    ("password: secret-value\ntoken: other-secret\n", "is not a sheet: a mapping with none of the keys"),
    ("api_key=secret\x00\x01\n", "is not a sheet: not valid YAML"),
    ("\xff\xfesecret", "is not a sheet: not UTF-8 text"),
])
def test_a_file_that_is_not_a_sheet_is_named_not_quoted(content, problem, tmp_path, run_cli):
    bad = tmp_path / "creds.yaml"
    bad.write_bytes(content.encode("latin-1") if "\xff" in content else content.encode("utf-8"))
    sheet = _write(tmp_path / "s.yaml", "use:\n  c: creds.yaml\ncells:\n  a: 1\n")
    for target in (sheet, bad):
        result = run_cli("check", str(target))
        assert result.code == 2 and problem in result.err, result.err
        assert "secret" not in result.output and "root:x" not in result.output


def test_a_long_or_unprintable_line_is_shown_as_a_short_escaped_excerpt(tmp_path, run_cli):
    # U+202E (right-to-left override) is valid YAML but would reorder the terminal's text
    sheet = _write(tmp_path / "s.yaml", "cells:\n  a: 1\n  b: = a + " + "x" * 3000 + " + \u202ered\n")
    result = run_cli("check", str(sheet))
    assert result.code == 2 and "E-PARSE: unexpected character '\\u202e'" in result.err
    assert "\u202e" not in result.output
    shown = [line for line in result.err.splitlines() if line.lstrip().startswith(("3 |", "|"))]
    assert shown and all(len(line) < 200 for line in shown), result.err


def test_an_import_path_longer_than_the_os_allows_is_a_diagnostic(tmp_path, run_cli):
    sheet = _write(tmp_path / "s.yaml", "use:\n  x: " + "d/" * 3000 + "x.yaml\ncells:\n  a: 1\n")
    result = run_cli("check", str(sheet))
    assert result.code == 2 and "E-IMPORT" in result.err and "internal error" not in result.output, result.output


def test_a_folder_s_link_that_leads_out_of_its_root_is_not_checked(tmp_path, run_cli):
    outside = _write(tmp_path / "elsewhere" / "private.yaml", "title: private-title\ncells:\n  a: = b\n")
    repo = tmp_path / "repo"
    _write(repo / "good.yaml", "cells:\n  a: 1\n")
    (repo / "leak.yaml").symlink_to(outside)
    result = run_cli("check", str(repo))
    assert result.code == 0 and result.out.strip().endswith("1 sheet checked, 0 invalid"), result.output
    assert "private" not in result.output


def test_an_import_axis_stays_inside_the_root(tmp_path, run_cli):
    """A sweep that varies an import (in the sheet's `sweeps:` or with `--vary`) is
    confined like `use:`: a sheet outside the root is never read, its values never shown."""
    _write(tmp_path / "outside" / "secret.yaml", f"title: {SECRET}\ncells:\n  hbm: 81 GB\n")
    project = tmp_path / "project"
    _write(project / "gpu.yaml", "cells:\n  hbm: 80 GB\n")
    sheet = _write(project / "s.yaml", "use:\n  gpu: gpu.yaml\ncells:\n  twice: = 2 * gpu.hbm\n"
                                       "sweeps:\n  leak:\n    vary: {gpu: [gpu.yaml, ../outside/secret.yaml]}\n"
                                       "    show: [twice]\n    expect: {twice: [160 GB, 162 GB]}\n")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    for argv in (("sweep", str(sheet), "leak"), ("sweep", str(sheet), "--vary", "gpu=../outside/secret.yaml"),
                 ("test", str(sheet))):
        result = run_cli(*argv)
        assert result.code == 2 and "outside the sheet root" in result.output, (argv, result.output)
        assert SECRET not in result.output and "162" not in result.output, argv
