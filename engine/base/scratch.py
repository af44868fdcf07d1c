"""Temporary files and folders of this process (an output's `.NAME.….tmp`, a
dataset's `.partial` staging folder, a revision's `supersheet-rev-…` copy):
named so that a later run can tell whose they are, removed when the process
is stopped by SIGINT, SIGTERM or SIGHUP, and removed by a later run once
stale - never while another live process writes them.

A name carries `HOST-PID` (HOST a short hash of this machine's name) and the
process keeps an advisory lock (flock) on every one of its temporaries until
it renames or removes it. A later run removes a temporary only when it is
ours to judge (this machine, owned by this user), its process is gone
(`os.kill(pid, 0)`), it is older than STALE_AFTER, and its lock is free.
"""
from __future__ import annotations

import atexit
import fcntl
import hashlib
import os
import re
import shutil
import socket
import stat
import tempfile
import threading
import time
from pathlib import Path

from supersheet.engine.base.stopping import on_stop

STALE_AFTER = 60.0      # seconds without a change: a live writer touches its file far more often
HOST = hashlib.sha256(socket.gethostname().encode("utf-8", "surrogateescape")).hexdigest()[:8]
TAG = r"(?P<host>[0-9a-f]{8})-(?P<pid>[0-9]+)"    # what a pattern of `remove_stale` must capture

_lock = threading.Lock()
_live: dict[str, int | None] = {}   # path -> descriptor holding its lock (None: made by another process)


def owner_tag() -> str:
    return f"{HOST}-{os.getpid()}"


def temp_file(directory: str | Path, prefix: str, suffix: str = ".tmp") -> str:
    """A new empty file `PREFIX HOST-PID.XXXXXXXX SUFFIX` in `directory`, locked and tracked."""
    fd, name = tempfile.mkstemp(prefix=f"{prefix}{owner_tag()}.", suffix=suffix, dir=directory)
    _track(name, fd)
    return name


def temp_dir(directory: str | Path | None, prefix: str, suffix: str = "", owner: str | None = None) -> str:
    """A new folder `PREFIX HOST-PID.XXXXXXXX SUFFIX` in `directory` (None: the system's
    temporary folder), locked and tracked. `owner`: the HOST-PID of the process it is made
    for (a Ray task makes a driver's staging folder): named after it, neither locked nor
    tracked here (the owner `adopt`s it)."""
    name = tempfile.mkdtemp(prefix=f"{prefix}{owner or owner_tag()}.", suffix=suffix, dir=directory)
    if owner is not None:
        return name
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        shutil.rmtree(name, ignore_errors=True)
        raise
    _track(name, fd)
    return name


def adopt(name: str) -> None:
    """Track `name`, made for this process by another one: removed on a signal like our own."""
    with _lock:
        _live.setdefault(name, None)


def _track(name: str, fd: int) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        pass       # a file system without locks: the pid in the name still tells a later run
    with _lock:
        _live[name] = fd


def release(name: str) -> None:
    """`name` is no longer a temporary of ours (renamed into place, or removed)."""
    with _lock:
        fd = _live.pop(name, None)
    if fd is not None:
        try:
            os.close(fd)
        except OSError:
            pass


def discard(name: str) -> None:
    """Remove the temporary `name` (a file or a folder), if it is still there."""
    try:
        _remove(name)
    finally:
        release(name)


def _remove(name: str) -> None:
    try:
        st = os.lstat(name)
    except OSError:
        return
    if stat.S_ISDIR(st.st_mode):
        for _ in range(5):     # a task still finishing may write into it while it goes: try again, briefly
            shutil.rmtree(name, ignore_errors=True)
            if not os.path.lexists(name):
                break
            time.sleep(0.05)
    else:
        try:
            os.unlink(name)
        except OSError:
            pass


@atexit.register
def remove_all() -> None:
    """Remove every temporary this process holds (a signal stops it; and at exit, what a
    cleanup missed: a second Ctrl+C can land inside the `finally` that removes one)."""
    with _lock:
        names = list(_live)
    for name in names:
        discard(name)


def remove_stale(directory: str | Path, pattern: re.Pattern[str]) -> list[str]:
    """Remove the temporaries in `directory` whose names match `pattern` (which captures
    TAG) and that are stale: this machine's, this user's, their process gone, untouched
    for STALE_AFTER, their lock free. The names removed."""
    removed: list[str] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        match = pattern.fullmatch(entry.name)
        if match is None or match.group("host") != HOST:   # another machine's (a shared folder): not ours to judge
            continue
        pid = int(match.group("pid"))
        if pid == os.getpid() or _alive(pid):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if st.st_uid != os.getuid() or not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)) \
                or now - st.st_mtime < STALE_AFTER or _locked(entry.path):
            continue
        _remove(entry.path)
        removed.append(entry.path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return pid > 0
    return True


def _locked(path: str) -> bool:
    """Whether another process holds the lock of `path` (never blocks: FIFOs and devices are not opened)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False


on_stop(remove_all)   # when a signal stops the process (stopping.clean_up_on_signals)
