"""Saving a sheet without losing anyone's work: what the file on disk was
when read (to see any change before saving, even a same-size rewrite with its
modification time restored), refusals for read-only and hard-linked files,
an atomic write that keeps the file's mode (also when it was deleted), and
the removal of temporary files a killed save left behind."""
from __future__ import annotations

import hashlib
import os
import re
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from supersheet.engine.base.sheetroot import UnreadableSheet, read_sheet_bytes


class ExternalChange(Exception):
    """The file changed on disk since it was read; saving would clobber it."""


class FileDeleted(ExternalChange):
    """The file was deleted since it was read; saving (forced) recreates it with its old mode."""


class Unreadable(OSError):
    """The sheet is not a regular file of at most the size limit (a FIFO, a
    device such as /dev/zero behind a link, a directory, a huge file)."""


class SaveRefused(Exception):
    """Saving would do something an editor must not do silently (the message says what)."""


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
    root); a file with several hard links is not replaced (the rename would
    leave the other names on the old content)."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return
    if not stat.S_ISREG(st.st_mode):
        raise SaveRefused(f"{path} is not a regular file any more (a FIFO, a device or a directory): not saved "
                          "(a save would replace it)")
    if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(path, os.W_OK):
        raise SaveRefused(f"{path} is read-only: not saved (make it writable, e.g. chmod u+w, then save again)")
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
    removed = []
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


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write through a temporary file in the same directory, fsync, rename.
    The file keeps its mode; a file that no longer exists gets `mode` (the one
    it had when read) rather than the temporary file's 0600."""
    target = path.resolve()
    directory = target.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))
        except FileNotFoundError:
            if mode is not None:
                os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass
