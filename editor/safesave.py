"""Saving a sheet without losing anyone's work: what the file on disk was
when read (to see any change before saving, even a same-size rewrite with its
modification time restored), refusals for read-only and hard-linked files,
an atomic write that keeps the file's mode (also when it was deleted), and
the removal of temporary files a killed save left behind."""
from __future__ import annotations

import ctypes
import errno
import fcntl
import hashlib
import os
import re
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from supersheet.engine.base.project import in_installed_library, shown_path
from supersheet.engine.base.sheetroot import UnreadableSheet, read_sheet_bytes
from supersheet.engine.base.targets import carry_over


class ExternalChange(Exception):
    """The file changed on disk since it was read; saving would clobber it."""


class FileDeleted(ExternalChange):
    """The file was deleted since it was read; saving (forced) recreates it with its old mode."""


class Unreadable(OSError):
    """The sheet is not a regular file of at most the size limit (a FIFO, a
    device such as /dev/zero behind a link, a directory, a huge file)."""


class SaveRefused(Exception):
    """Saving would do something an editor must not do silently (the message says what)."""


LOCK_WAIT = 10.0       # seconds another editor's save may hold the folder's lock
STALE_AFTER = 60.0     # seconds: a save takes milliseconds, so an older temporary file of ours is left over


@dataclass(frozen=True)
class Disk:
    """What the file on disk was when read or last saved."""

    stat_key: tuple[int, ...]       # device, inode, size, modification and change time
    digest: str
    mode: int


def stat_key(st: os.stat_result) -> tuple[int, ...]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def fingerprint(path: Path, data: bytes, st: os.stat_result | None = None) -> Disk:
    st = st or path.stat()
    return Disk(stat_key(st), hashlib.sha256(data).hexdigest(), stat.S_IMODE(st.st_mode))


def read_regular(path: Path) -> tuple[bytes, os.stat_result]:
    """The file's bytes and its status as they were read: only a regular file
    (never blocks on a FIFO, never reads /dev/zero without end), at most the
    size limit; read again while another program is writing it (its status
    moved during the read), so the status always belongs to the bytes.
    Raises FileNotFoundError, or `Unreadable` saying why."""
    for _ in range(5):
        try:
            before = path.stat()
            data = read_sheet_bytes(path)
            after = path.stat()
        except UnreadableSheet as e:
            raise Unreadable(str(e)) from None
        if stat_key(before) == stat_key(after):
            break
    return data, after


def refuse_unsafe(path: Path) -> None:
    """A read-only file is not overwritten (the rename would do it, even for
    root); nor a file of the library installed with the package (every project
    reads it; the editor opens the running example there, and a project whose
    virtual environment is inside it counts the library as its own files); a file
    with several hard links is not replaced (the rename would leave the other
    names on the old content)."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return
    if not stat.S_ISREG(st.st_mode):
        raise SaveRefused(f"{path} is not a regular file any more (a FIFO, a device or a directory): not saved "
                          "(a save would replace it)")
    if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(path, os.W_OK):
        raise SaveRefused(f"{path} is read-only: not saved (make it writable, e.g. chmod u+w, then save again)")
    if in_installed_library(path):
        raise SaveRefused(f"{shown_path(path)} is a file of the library bundled with supersheet, installed with it "
                          "and read by every project: not saved (copy it into your project to change it)")
    if st.st_nlink > 1:
        raise SaveRefused(f"{path} has {st.st_nlink} hard links: saving replaces the file, which would leave the "
                          "other links on the old content; not saved (copy the sheet to edit it, or remove the "
                          "other links)")


def _temporary_pattern(target: Path) -> re.Pattern[str]:
    return re.compile(re.escape(f".{target.name}.") + r"[A-Za-z0-9_]{8}" + re.escape(".tmp") + r"\Z")


def remove_stale_temporaries(path: Path) -> list[Path]:
    """Remove temporary files a killed save of this sheet left behind: our own
    pattern (`.NAME.XXXXXXXX.tmp`), regular files owned by us, older than a
    save could take. Returns what was removed."""
    target = Path(os.path.realpath(path))
    pattern = _temporary_pattern(target)
    removed: list[Path] = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return removed
    for entry in entries:
        if not pattern.match(entry.name):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if (stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid()
                    and time.time() - st.st_mtime > STALE_AFTER):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


@contextmanager
def save_lock(path: Path, wait: float | None = None) -> Iterator[int]:
    """Hold the advisory lock of the sheet's folder (`flock` on the folder
    itself, so no lock file appears beside the sheet) while one editor checks
    and saves a sheet there: two supersheet editors never interleave their
    check and rename. Yields the folder's descriptor; raises `SaveRefused`
    when another save holds it longer than `wait` seconds."""
    directory = Path(os.path.realpath(path)).parent
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    wait = LOCK_WAIT if wait is None else wait
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise SaveRefused(f"another program holds the save lock of {directory} (another supersheet "
                                      f"editor saving?) for more than {wait:g} s: not saved; save again") from None
                time.sleep(0.01)
        yield fd
    finally:
        os.close(fd)        # closing the descriptor releases the lock


@dataclass(frozen=True)
class Written:
    """What a save did besides writing the sheet."""

    kept: Path | None = None    # another program's version that slipped in during the save, kept here
    unkept: tuple[str, ...] = ()  # what of the file's owner and attributes could not be carried over
    stat: os.stat_result | None = None  # of the file written, right after it took the sheet's name


def atomic_write(path: Path, data: bytes, mode: int | None = None, expected: Disk | None = None,
                 directory_fd: int | None = None) -> Written:
    """Write through a temporary file in the same folder, fsync, and swap it
    with the sheet in one atomic exchange (`renameat2(RENAME_EXCHANGE)`).

    The new file gets the old one's mode, owner (as root; the group where you
    may) and extended attributes; a file that no longer exists gets `mode`
    (the one it had when read) rather than the temporary file's 0600.

    `expected`: what the caller checked the file to be. Its identity (device,
    inode, size, modification time) is compared again right before the
    exchange (another write since the check: `ExternalChange`, nothing
    written), and what the exchange took out — identity and content — right
    after it: when another program's write slipped in between, it is kept
    beside the sheet (`Written.kept`) instead of being thrown away."""
    target = path.resolve()
    directory = target.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    written = os.dup(fd)    # its status after the rename: of our file, whoever writes the name next
    swapped = False         # from the exchange on, `tmp` names what the sheet was: never ours to remove
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            unkept = _carry_over(target, handle.fileno(), mode)
            os.fsync(handle.fileno())
        if expected is not None:
            try:
                now = os.stat(target)
            except FileNotFoundError:
                raise FileDeleted(f"{target} was deleted while saving") from None
            if _identity(now) != _identity_of(expected):
                raise ExternalChange(f"{target} changed on disk while saving: not saved")
        if os.path.lexists(target) and _exchange(tmp, target, directory_fd):
            swapped = True
            kept = _keep_if_other(Path(tmp), target, expected)
        else:
            os.replace(tmp, target)
            swapped, kept = True, None
        st = os.fstat(written)
    except BaseException:
        if not swapped:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        raise
    finally:
        os.close(written)
    _fsync_directory(directory, directory_fd)
    return Written(kept, unkept, st)


def _identity(st: os.stat_result) -> tuple[int, ...]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _identity_of(disk: Disk) -> tuple[int, ...]:
    return disk.stat_key[:4]


def _carry_over(target: Path, fd: int, mode: int | None) -> tuple[str, ...]:
    """Give the new file (open as `fd`) the target's owner, mode and extended
    attributes (as `sweep -o` does: targets.carry_over); what could not be
    carried over is returned, by name."""
    try:
        st = os.stat(target)
    except FileNotFoundError:
        if mode is not None:
            os.fchmod(fd, mode)
        return ()
    return carry_over(target, st, fd)


RENAME_EXCHANGE = 2
_libc = None


def _exchange(tmp: str, target: Path, directory_fd: int | None) -> bool:
    """Swap the two names in one step (Linux's renameat2): afterwards `tmp`
    names what the sheet's name held at that instant. False where the
    platform or file system cannot (the caller then renames)."""
    global _libc
    if not sys.platform.startswith("linux"):
        return False
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(_libc, "renameat2", None)
    if renameat2 is None:
        return False
    at = directory_fd if directory_fd is not None else AT_FDCWD
    names = (os.fsencode(tmp if directory_fd is None else os.path.basename(tmp)),
             os.fsencode(str(target) if directory_fd is None else target.name))
    if renameat2(at, names[0], at, names[1], RENAME_EXCHANGE) == 0:
        return True
    error = ctypes.get_errno()
    if error in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(error, os.strerror(error), str(target))


AT_FDCWD = -100


def _keep_if_other(taken: Path, target: Path, expected: Disk | None) -> Path | None:
    """`taken` is what the exchange took out of the sheet's name. When it is
    the file the save expected, remove it; when another program wrote it
    since (or writes it through a descriptor it still holds), keep it beside
    the sheet and return where."""
    try:
        fd = os.open(taken, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:                 # a link, or gone: not ours to judge
        return _keep(taken, target)
    try:
        st = os.fstat(fd)
        if expected is not None and (not stat.S_ISREG(st.st_mode) or _identity(st) != _identity_of(expected)
                                     or _digest(fd) != expected.digest):
            return _keep(taken, target)
        os.unlink(taken)
        if expected is not None and _identity(os.fstat(fd)) != _identity(st):
            # written through a descriptor opened before the save, after our check: copy it out
            return _copy_out(fd, target)
        return None
    finally:
        os.close(fd)


def _digest(fd: int) -> str:
    digest = hashlib.sha256()
    os.lseek(fd, 0, os.SEEK_SET)
    while chunk := os.read(fd, 1 << 20):
        digest.update(chunk)
    return digest.hexdigest()


def concurrent_name(target: Path) -> Path:
    """Where another program's version that a save would have replaced is kept."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    for n in range(1, 1000):
        candidate = target.with_name(f"{target.name}.concurrent-{stamp}" + (f"-{n}" if n > 1 else ""))
        if not os.path.lexists(candidate):
            return candidate
    raise FileExistsError(f"{target}: too many kept versions this second")


def _keep(taken: Path, target: Path) -> Path:
    while True:
        kept = concurrent_name(target)
        try:
            os.link(taken, kept, follow_symlinks=False)     # never over an existing name
        except FileExistsError:
            continue
        os.unlink(taken)
        return kept


def _copy_out(fd: int, target: Path) -> Path:
    while True:
        kept = concurrent_name(target)
        try:
            out = os.open(kept, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
        except FileExistsError:
            continue
        with os.fdopen(out, "wb") as handle:
            os.lseek(fd, 0, os.SEEK_SET)
            while chunk := os.read(fd, 1 << 20):
                handle.write(chunk)
        return kept


def _fsync_directory(directory: Path, directory_fd: int | None) -> None:
    try:
        if directory_fd is not None:
            os.fsync(directory_fd)
            return
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass
