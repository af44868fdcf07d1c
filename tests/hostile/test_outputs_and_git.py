"""Issue 28, the command line's side: outputs are only ever regular files
(never a device, FIFO, socket or folder, a read-only file only with --force,
a replaced file keeps its mode, owner and extended attributes), temporary
files go on SIGINT/SIGTERM and stale ones of killed runs at the next run,
--allow-path "" is refused, textconv prints only sheets, the git drivers end
options with `--`, `diff --rev` applies the file-size limit before reading a
blob, the remaining internal errors are located errors, a Ray address answers
within --connect-timeout, and messages quote names and values cut to size."""
from __future__ import annotations

import errno
import fcntl
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from supersheet.engine.base import scratch
from supersheet.engine.base.targets import temp_pattern
from repo_paths import REPO

SWEEP = """
    cells:
      a: 1
      b: = a * 2
    sweeps:
      s:
        vary: {a: [1, 2]}
"""
ROOT = os.geteuid() == 0


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


# -- 1. outputs -------------------------------------------------------------------
def _special(kind: str, path: Path) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.close()
    elif kind == "directory":
        path.mkdir()
    elif kind == "device":
        if not ROOT:
            pytest.skip("making a device node needs root")
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))   # what /dev/null is


@pytest.mark.parametrize("kind", ["device", "fifo", "socket", "directory"])
@pytest.mark.parametrize("fmt", ["csv", "parquet", "json"])
def test_an_output_is_never_a_device_fifo_socket_or_folder(kind, fmt, run_cli, write_sheet, tmp_path):
    sheet = write_sheet(SWEEP)
    target = tmp_path / f"out.{fmt}"
    _special(kind, target)
    before = os.lstat(target)
    result = run_cli("sweep", str(sheet), "s", "-o", str(target), "--format", fmt)
    assert result.code == 2
    line = _one_line(result.err)
    assert "supersheet writes only regular files" in line and "it is a" in line
    after = os.lstat(target)     # the very same node, untouched
    assert (after.st_ino, after.st_mode, after.st_rdev) == (before.st_ino, before.st_mode, before.st_rdev)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_dev_null_is_refused_and_stays_a_device(run_cli, write_sheet):
    before = os.stat("/dev/null")
    try:
        result = run_cli("sweep", str(write_sheet(SWEEP)), "s", "--format", "csv", "-o", "/dev/null")
        assert result.code == 2 and "it is a character device" in _one_line(result.err)
        after = os.stat("/dev/null")
        assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino
    finally:     # a regression must not leave the machine (CI's too) without /dev/null
        if ROOT and not stat.S_ISCHR(os.lstat("/dev/null").st_mode):
            os.unlink("/dev/null")
            os.mknod("/dev/null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            os.chmod("/dev/null", 0o666)


def test_a_link_to_a_device_is_refused_and_a_link_to_a_file_writes_the_file(run_cli, write_sheet, tmp_path):
    sheet = write_sheet(SWEEP)
    (tmp_path / "to-null.csv").symlink_to("/dev/null")
    assert run_cli("sweep", str(sheet), "s", "-o", str(tmp_path / "to-null.csv")).code == 2
    real = tmp_path / "real.csv"
    real.write_text("old\n")
    (tmp_path / "link.csv").symlink_to(real)
    assert run_cli("sweep", str(sheet), "s", "-o", str(tmp_path / "link.csv")).code == 0
    assert (tmp_path / "link.csv").is_symlink() and real.read_text().startswith("a,b")


def test_a_read_only_output_is_replaced_only_with_force_and_keeps_its_mode(run_cli, write_sheet, tmp_path):
    sheet = write_sheet(SWEEP)
    target = tmp_path / "out.csv"
    target.write_text("precious\n")
    target.chmod(0o444)
    result = run_cli("sweep", str(sheet), "s", "-o", str(target))
    assert result.code == 2 and "read-only" in _one_line(result.err) and "--force" in result.err
    assert target.read_text() == "precious\n"
    assert run_cli("sweep", str(sheet), "s", "-o", str(target), "--force").code == 0
    assert target.read_text().startswith("a,b") and stat.S_IMODE(target.stat().st_mode) == 0o444


def test_a_replaced_output_keeps_its_mode_owner_and_extended_attributes(run_cli, write_sheet, tmp_path):
    sheet = write_sheet(SWEEP)
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    target.chmod(0o640)
    owner = (os.getuid(), os.getgid())
    if ROOT:
        owner = (1234, 4321)
        os.chown(target, *owner)
    try:
        os.setxattr(target, "user.origin", b"pipeline-7")
        xattrs = True
    except OSError:
        xattrs = False
    assert run_cli("sweep", str(sheet), "s", "-o", str(target)).code == 0
    st = target.stat()
    assert target.read_text().startswith("a,b")
    assert stat.S_IMODE(st.st_mode) == 0o640 and (st.st_uid, st.st_gid) == owner
    if xattrs:
        assert os.getxattr(target, "user.origin") == b"pipeline-7"


def test_a_300_character_file_name_is_a_one_line_error(run_cli, write_sheet, tmp_path):
    result = run_cli("sweep", str(write_sheet(SWEEP)), "s", "-o", str(tmp_path / ("x" * 300 + ".csv")))
    assert result.code == 2
    line = _one_line(result.err)
    assert "over this file system's limit" in line and len(line) < 300


@pytest.mark.parametrize("command", ["run", "check", "sweep"])
def test_a_sheet_name_longer_than_the_system_allows_is_a_one_line_error(command, run_cli, tmp_path):
    for sheet in (str(tmp_path / ("x" * 300 + ".yaml")), "supersheet:hardware/" + "x" * 300 + ".yaml"):
        result = run_cli(command, sheet)
        assert result.code == 2 and "Traceback" not in result.err and len(result.err) < 2_000


def test_a_long_name_that_fits_gets_a_temporary_that_fits(run_cli, write_sheet, tmp_path):
    target = tmp_path / ("y" * 250 + ".csv")
    assert run_cli("sweep", str(write_sheet(SWEEP)), "s", "-o", str(target)).code == 0
    assert target.read_text().startswith("a,b")


@pytest.mark.parametrize("fmt", ["csv", "parquet", "json"])
def test_a_full_disk_is_a_one_line_error_and_leaves_nothing(fmt, run_cli, write_sheet, tmp_path, monkeypatch):
    """ENOSPC as Python raises it (JSON, our CSV handle) and as Arrow reports it (no errno, the
    number in the text)."""
    import polars as pl
    import pyarrow.parquet as pq
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    if fmt == "csv":
        monkeypatch.setattr(pl.DataFrame, "write_csv", lambda *a, **k: (_ for _ in ()).throw(full))
    elif fmt == "parquet":
        def write_table(*args, **kwargs):
            raise OSError("Error writing bytes to file. Detail: [errno 28] No space left on device")
        monkeypatch.setattr(pq.ParquetWriter, "write_table", write_table)
    else:
        import io
        real_write = io.TextIOWrapper.write
        monkeypatch.setattr("supersheet.engine.scenarios.output.open",
                            lambda *a, **k: _Full(real_write, *a, **k), raising=False)
    target = tmp_path / f"out.{fmt}"
    result = run_cli("sweep", str(write_sheet(SWEEP)), "s", "-o", str(target))
    assert result.code == 2, result.err
    assert _one_line(result.err) == f"supersheet: cannot write {target}: No space left on device"
    assert [p.name for p in tmp_path.iterdir()] == ["sheet.yaml"]


class _Full:
    def __init__(self, real_write, *args, **kwargs) -> None:
        self.handle = open(*args, **kwargs)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.handle.close()

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.skipif(not ROOT or not shutil.which("mount"), reason="mounting a small tmpfs needs root")
def test_a_really_full_disk(run_cli, write_sheet, tmp_path):
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        sheet = write_sheet(SWEEP.replace("[1, 2]", "{from: 1, to: 100000, step: 1}"))
        for fmt in ("csv", "parquet"):
            result = run_cli("sweep", str(sheet), "s", "-o", str(disk / f"out.{fmt}"))
            assert result.code == 2 and "No space left on device" in _one_line(result.err)
        assert list(disk.iterdir()) == []
    finally:
        subprocess.run(["umount", str(disk)], check=False)


GRID = """
    cells:
      a: 1
      c: 1
      b: = a * c * 2
    sweeps:
      s:
        vary: {a: {from: 1, to: 10000, step: 1}, c: {from: 1, to: 1000, step: 1}}
"""


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_removes_the_temporary_file(number, write_sheet, tmp_path):
    sheet = write_sheet(GRID)
    target = tmp_path / "out.csv"
    # the signal's default action in the child, whatever the suite inherited: under `nohup` SIGHUP is
    # ignored, and the command rightly leaves an ignored signal ignored (stopping.py)
    process = subprocess.Popen([sys.executable, "-m", "supersheet", "sweep", str(sheet), "s", "-o", str(target),
                                "--chunk-rows", "20000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               cwd=tmp_path, preexec_fn=lambda: signal.signal(number, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 60
        while not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]:
            assert process.poll() is None and time.monotonic() < deadline, process.stderr.read()
            time.sleep(0.02)
        time.sleep(0.2)
        process.send_signal(number)
        code = process.wait(timeout=60)
    finally:
        process.kill()
        process.wait()
        process.stdout.close()
        process.stderr.close()
    assert code in (-number, 128 + number, 130)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sheet.yaml"]


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _aged(path: Path, seconds: float = scratch.STALE_AFTER + 5) -> Path:
    old = time.time() - seconds
    os.utime(path, (old, old))
    return path


def test_stale_temporaries_go_at_the_next_run_but_never_a_live_one(run_cli, write_sheet, tmp_path):
    sheet = write_sheet(SWEEP)
    target = tmp_path / "out.csv"
    assert temp_pattern(target).fullmatch(f".out.csv.{scratch.HOST}-123.abcdefgh.tmp")
    dead = _dead_pid()
    sleeper = subprocess.Popen([sys.executable, "-c", "import sys, time; sys.stdin.read()"], stdin=subprocess.PIPE)
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, sys; f = open(sys.argv[1]); "
                               "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()",
                               str(tmp_path / f".out.csv.{scratch.HOST}-{dead}.locked00.tmp")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        stale = _aged(_touch(tmp_path / f".out.csv.{scratch.HOST}-{dead}.stale000.tmp"))
        young = _touch(tmp_path / f".out.csv.{scratch.HOST}-{dead}.young000.tmp")
        live = _aged(_touch(tmp_path / f".out.csv.{scratch.HOST}-{sleeper.pid}.live0000.tmp"))
        other_host = _aged(_touch(tmp_path / f".out.csv.00000000-{dead}.remote00.tmp"))
        locked = tmp_path / f".out.csv.{scratch.HOST}-{dead}.locked00.tmp"
        _touch(locked)
        assert holder.stdout.readline().strip() == "held"
        _aged(locked)
        other_output = _aged(_touch(tmp_path / f".other.csv.{scratch.HOST}-{dead}.stale000.tmp"))
        assert run_cli("sweep", str(sheet), "s", "-o", str(target)).code == 0
        assert not stale.exists()
        assert young.exists() and live.exists() and other_host.exists() and locked.exists() and other_output.exists()
    finally:
        for child in (sleeper, holder):
            child.kill()
            child.wait()
        holder.stdout.close()
        sleeper.stdin.close()
        holder.stdin.close()


def _touch(path: Path) -> Path:
    path.write_text("partial\n")
    return path


def test_a_staging_folder_of_a_killed_dataset_goes_at_the_next_run(tmp_path):
    from supersheet.engine.scenarios.sweep_parts import prepare
    target = tmp_path / "out"
    dead = _dead_pid()
    stale = tmp_path / f".out.{scratch.HOST}-{dead}.abcdefgh.partial"
    stale.mkdir()
    (stale / "part-0.parquet").write_bytes(b"x")
    _aged(stale)
    live = tmp_path / f".out.{scratch.HOST}-{os.getppid()}.abcdefgh.partial"
    live.mkdir()
    _aged(live)
    staging = prepare(str(target), scratch.owner_tag())
    try:
        assert not stale.exists() and live.exists()
        assert Path(staging).name.startswith(f".out.{scratch.owner_tag()}.")
    finally:
        shutil.rmtree(staging)


def test_a_dataset_target_that_is_a_fifo_is_refused(tmp_path):
    from supersheet.engine.scenarios.sweep_parts import PartError, check_target
    os.mkfifo(tmp_path / "out")
    with pytest.raises(PartError, match="it is a FIFO"):
        check_target(str(tmp_path / "out"))


# -- 2. --allow-path "" ---------------------------------------------------------------
@pytest.mark.parametrize("command", ["check", "run", "test", "sweep"])
def test_an_empty_allow_path_is_refused(command, run_cli, write_sheet, tmp_path, monkeypatch):
    secret = tmp_path / "elsewhere" / "secret.yaml"
    secret.parent.mkdir()
    secret.write_text("cells:\n  key: 42\n")
    sheet = write_sheet(f"use:\n  s: {secret}\ncells:\n  a: = s.key\n", "sub/sheet.yaml")
    monkeypatch.chdir(tmp_path)
    argv = [command, str(sheet), *(["s"] if command == "sweep" else []), "--allow-path", ""]
    result = run_cli(*argv)
    assert result.code == 2 and "--allow-path needs a folder" in _one_line(result.err)
    assert "42" not in result.out


# -- 3. textconv and the git drivers ---------------------------------------------------
def test_textconv_of_a_file_that_is_not_a_sheet_prints_one_line_and_never_its_content(run_cli, tmp_path):
    creds = tmp_path / "creds.yaml"
    creds.write_text("password: hunter2-secret\ntoken: abc\n")
    broken = tmp_path / "broken.yaml"
    broken.write_text("token: [hunter2-secret\n")
    for path in (creds, broken, Path("/proc/self/environ")):
        result = run_cli("textconv", str(path))
        assert result.code == 0
        assert _one_line(result.out).startswith(f"# supersheet: {path} is not a sheet")
        assert "hunter2" not in result.output and "PATH=" not in result.output


def test_textconv_still_prints_a_sheet_that_does_not_check(run_cli, write_sheet):
    result = run_cli("textconv", str(write_sheet("cells:\n  a: = nosuch * 2\n")))
    assert result.code == 0 and "a: = nosuch * 2" in result.out and "does not check" in result.out


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)


@pytest.fixture
def repo(tmp_path) -> Path:
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    folder = tmp_path / "repo"
    folder.mkdir()
    for args in (["init", "-q"], ["config", "user.email", "t@example.com"], ["config", "user.name", "t"]):
        _git(folder, *args)
    return folder


def test_the_documented_drivers_end_options_and_a_sheet_named_like_an_option_diffs(repo, tmp_path):
    from supersheet.compare import GIT_DIFFTOOL, GIT_TEXTCONV, git_drivers
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"git config diff.supersheet.textconv '{GIT_TEXTCONV}'" in readme
    assert f"-x '{GIT_DIFFTOOL}'" in readme
    assert GIT_TEXTCONV.endswith(" --") and GIT_DIFFTOOL.endswith(" --")
    bin_dir = tmp_path / "bin"           # `supersheet` on PATH, as an installed command would be
    bin_dir.mkdir()
    (bin_dir / "supersheet").write_text(f"#!/bin/sh\nexec {sys.executable} -m supersheet \"$@\"\n")
    (bin_dir / "supersheet").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    (repo / ".gitattributes").write_text("*.yaml diff=supersheet\n")
    sheet = repo / "--help.yaml"
    sheet.write_text("cells:\n  a: 1\n  b: = a * 2\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "one")
    sheet.write_text("cells:\n  a: 5\n  b: = a * 2\n")
    _git(repo, "config", "diff.supersheet.textconv", GIT_TEXTCONV)
    diff = subprocess.run(["git", "diff"], cwd=repo, capture_output=True, text=True, env=env)
    assert diff.returncode == 0, diff.stderr
    assert re.search(r"^-#\s+b\s+2\s", diff.stdout, re.M) and re.search(r"^\+#\s+b\s+10\s", diff.stdout, re.M)
    tool = subprocess.run(["git", "difftool", "-y", "-x", GIT_DIFFTOOL, "HEAD", "--", "./--help.yaml"], cwd=repo,
                          capture_output=True, text=True, env=env)
    assert tool.returncode == 0 and "b: 2 → 10" in tool.stdout, tool.stderr
    for key, value in git_drivers(str(bin_dir / "supersheet")).items():   # what `supersheet init` configures
        _git(repo, "config", key, value)
    tool = subprocess.run(["git", "difftool", "-y", "--tool=supersheet", "HEAD", "--", "./--help.yaml"], cwd=repo,
                          capture_output=True, text=True)
    assert tool.returncode == 0 and "b: 2 → 10" in tool.stdout, tool.stderr
    _git(repo, "config", "diff.supersheet.textconv", "supersheet textconv")   # the old driver: git gives up
    old = subprocess.run(["git", "diff"], cwd=repo, capture_output=True, text=True, env=env)
    assert old.returncode != 0


# -- 4. diff --rev and its limits --------------------------------------------------------
def test_diff_rev_does_not_read_a_blob_over_the_file_size_limit(repo, run_cli, monkeypatch):
    from supersheet.engine.diff import gitrev
    (repo / "a.yaml").write_text("cells:\n  a: 1\n")
    (repo / "big.yaml").write_text("cells:\n  a: 1\n" + "# padding\n" * 30_000)    # 300 kB
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "one")
    (repo / "a.yaml").write_text("cells:\n  a: 2\n")
    read: list[list[str]] = []
    real = gitrev._git
    monkeypatch.setattr(gitrev, "_git", lambda args, cwd: read.append(args) or real(args, cwd))
    monkeypatch.chdir(repo)
    result = run_cli("diff", "--rev", "--max-file-size", "100000")
    assert result.code == 1 and "a: 1 → 2" in result.out
    blobs = [args[-1] for args in read if args[:2] == ["cat-file", "blob"]]
    assert blobs and not any(b.endswith(":big.yaml") for b in blobs)
    (repo / "big.yaml").write_text("cells:\n  a: 2\n" + "# padding\n" * 30_000)
    result = run_cli("diff", "--rev", "--max-file-size", "100000")
    assert result.code == 2 and "larger than the file-size limit" in result.out
    assert not any(args[-1].endswith(":big.yaml") for args in read if args[:2] == ["cat-file", "blob"])
    assert not list(Path(tempfile.gettempdir()).glob(f"supersheet-rev-{scratch.owner_tag()}.*"))


def test_a_stale_revision_folder_goes_and_a_live_one_stays(repo, run_cli, monkeypatch):
    (repo / "a.yaml").write_text("cells:\n  a: 1\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "one")
    temp = Path(tempfile.gettempdir())
    stale = temp / f"supersheet-rev-{scratch.HOST}-{_dead_pid()}.zzstale0"
    live = temp / f"supersheet-rev-{scratch.HOST}-{os.getppid()}.zzlive00"
    for folder in (stale, live):
        (folder / "x").mkdir(parents=True)
        _aged(folder)
    try:
        monkeypatch.chdir(repo)
        assert run_cli("diff", "--rev").code == 0
        assert not stale.exists() and live.exists()
    finally:
        shutil.rmtree(stale, ignore_errors=True)
        shutil.rmtree(live, ignore_errors=True)


# -- 5. what were internal errors ---------------------------------------------------------
HUGE = "9" * 320


@pytest.mark.parametrize("argv, text, where", [
    (["sweep", "{sheet}", "s"], f"cells:\n  a: 1\n  b: = a * 2\nsweeps:\n  s:\n    vary: {{a: [1, {HUGE}]}}\n", ":6:"),
    (["solve", "{sheet}", "g"], f"cells:\n  a: 1\n  b: = a * 2\nsolve:\n  g:\n    vary: a\n    goal: b == 4\n"
                                f"    between: [1, {HUGE}]\n", ":8:"),
    (["choose", "{sheet}", "c"], f"cells:\n  a: 1\n  b: = a * 2\nchoose:\n  c:\n    vary: {{a: [1, {HUGE}]}}\n"
                                 "    minimize: b\n", ":6:"),
    (["test", "{sheet}"], f"cells:\n  a: 1\n  b: = a * 2\nsweeps:\n  s:\n    vary: {{a: [1, 2]}}\n    expect:\n"
                          f"      b: [2, {HUGE}]\n", ":8:"),
])
def test_a_310_digit_integer_is_a_located_error(argv, text, where, run_cli, write_sheet):
    sheet = write_sheet(text)
    result = run_cli(*[a.format(sheet=sheet) for a in argv])
    assert result.code == 2 and "internal error" not in result.err
    assert f"{sheet}{where}" in result.err and "1.8e308" in result.err
    assert len(result.err) < 2000


def test_a_huge_table_is_refused_before_any_row_is_computed(run_cli, write_sheet):
    sheet = write_sheet(GRID)
    for fmt in ("text", "json", "markdown"):
        started = time.perf_counter()
        result = run_cli("sweep", str(sheet), "s", "--format", fmt)
        assert time.perf_counter() - started < 10
        assert result.code == 2 and "--max-table-rows" in result.err and "CSV" in result.err
    small = run_cli("sweep", str(sheet), "s", "--format", "json", "--vary", "a=1,2", "--vary", "c=1")
    assert small.code == 0


@pytest.mark.parametrize("address, message", [
    ("", "--address is empty"),
    ("127.0.0.1:1", "cannot reach the Ray cluster at '127.0.0.1:1'"),
    ("ray://127.0.0.1:1", "cannot reach the Ray cluster at 'ray://127.0.0.1:1'"),
    ("nonsense", "is not a Ray address"),
])
def test_a_ray_address_is_checked_promptly(address, message, run_cli, write_sheet, tmp_path):
    sheet = write_sheet(SWEEP)
    for argv in (["sweep", str(sheet), "s", "-o", f"{tmp_path}/out/"], ["choose", str(sheet), "c"],
                 ["run", str(sheet)]):
        started = time.perf_counter()
        result = run_cli(*argv, "--on", "ray", "--address", address)
        assert time.perf_counter() - started < 10
        assert result.code == 2 and message in _one_line(result.err)


def test_auto_without_a_cluster_and_the_connect_timeout(run_cli, write_sheet, monkeypatch):
    from supersheet.engine.scenarios import on_ray
    sheet = write_sheet(SWEEP)
    monkeypatch.setattr(on_ray, "_local_cluster", lambda: None)
    result = run_cli("run", str(sheet), "--on", "ray", "--address", "auto")
    assert result.code == 2 and "no Ray cluster runs on this machine" in result.err
    waited = []

    def silent(address, timeout):
        waited.append(timeout)
        raise socket.timeout

    monkeypatch.setattr(socket, "create_connection", silent)
    result = run_cli("run", str(sheet), "--on", "ray", "--address", "10.0.0.1:6379", "--connect-timeout", "0.5")
    assert result.code == 2 and "no answer within 0.5 s" in result.err and waited == [0.5]
    run_cli("run", str(sheet), "--on", "ray", "--address", "10.0.0.2:6379")
    assert waited[-1] == 10.0


# -- 6. messages are bounded ---------------------------------------------------------------
def test_a_20000_character_name_gives_a_short_message(run_cli, write_sheet, tmp_path):
    sheet = write_sheet(SWEEP)
    name = "n" * 20_000
    runs = [["run", str(sheet), "--set", f"{name}=1"], ["run", str(sheet), "--set", f"a={name}"],
            ["sweep", str(sheet), "--vary", f"{name}=1,2"], ["sweep", str(sheet), name],
            ["sweep", str(sheet), "s", "--show", name], ["explain", str(sheet), name], ["choose", str(sheet), name],
            ["solve", str(sheet), name], ["calc", name], ["run", str(tmp_path / f"{name[:200]}.yaml")],
            ["diff", "--rev", name], [name], ["run", str(sheet), "--format", name],
            ["solve", str(sheet), "--vary", "a", "--goal", f"{name} == 1", "--between", "1,2"]]
    for argv in runs:
        result = run_cli(*argv)
        assert result.code == 2 and len(result.output) < 2_500, (argv[:2], len(result.output))
    long_cell = write_sheet(f"cells:\n  a: 1\n  b: = {name} * 2\n", "long.yaml")
    result = run_cli("check", str(long_cell), "--max-line-length", "100000")
    assert result.code == 2 and len(result.output) < 2_500


def test_bounded_cuts_quoted_values_and_long_words_and_keeps_short_messages():
    from supersheet.errors import bounded
    assert bounded("unknown cell 'gpu.hbm' (did you mean 'gpu.hbm_bw'?)") == \
        "unknown cell 'gpu.hbm' (did you mean 'gpu.hbm_bw'?)"
    cut = bounded(f"unknown cell '{'x' * 500}'")
    assert cut == f"unknown cell '{'x' * 40}…' (500 characters)"
    assert len(bounded("y" * 10_000)) < 260
    assert len(bounded("word " * 2_000)) < 2_100
