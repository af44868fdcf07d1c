"""Where a command writes its output (`sweep -o FILE`, a Parquet dataset folder):
only regular files, never a device, FIFO, socket or folder; a read-only file
only when forced; a replaced file keeps its mode, owner and extended
attributes. Outputs are written to a temporary file beside the target
(scratch.py) and renamed over it, so a failed or stopped run leaves the old
file as it was.

As root, `open("/dev/null", "w")` and a rename over it would replace a device:
the target's type is checked with `lstat` before any work, and again just
before the rename, and nothing opens it for writing.
"""
from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from supersheet.engine.base import scratch
from supersheet.engine.base.diagnostics import escaped


class OutputError(Exception):
    """An output that is not written: what is in the way, in one line."""


def shown(path: str | Path, limit: int = 80) -> str:
    """A path as a message names it: escaped and cut (a 300-character name is not echoed whole)."""
    text = str(path)
    return escaped(text, limit) + (f" ({len(text):,} characters)" if len(text) > limit else "")


@dataclass(frozen=True)
class Target:
    """A checked output path: where it is written (links followed) and what it replaces."""

    path: Path
    real: Path
    previous: os.stat_result | None      # the regular file replaced, or None for a new one


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"))


def kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def check_target(path: str | Path, force: bool = False) -> Target:
    """The output `path` checked before any work: OutputError when it is not a regular file
    (or a new name in an existing, writable folder), or is read-only and not `force`d."""
    path = Path(path)
    if not str(path) or str(path).endswith(("/", os.sep)):
        raise OutputError(f"cannot write {shown(path) or repr('')}: an output is a file name")
    name_max = _name_max(path.parent)
    if len(os.fsencode(path.name)) > name_max:
        raise OutputError(f"cannot write {shown(path)}: the file name is {len(os.fsencode(path.name)):,} bytes "
                          f"long, over this file system's limit of {name_max}")
    try:
        real = Path(os.path.realpath(path))     # a link to a file: the file is written, the link stays
        previous: os.stat_result | None = os.lstat(real)
    except FileNotFoundError:
        previous = None
    except OSError as e:                        # a path too long, a loop of links, no permission
        raise OutputError(f"cannot write {shown(path)}: {e.strerror or e}") from None
    folder = real.parent
    if previous is not None:
        if not stat.S_ISREG(previous.st_mode):
            raise OutputError(f"cannot write {shown(path)}: it is {kind(previous.st_mode)}; "
                              "supersheet writes only regular files")
        if not force and (not previous.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
                          or not os.access(real, os.W_OK)):
            raise OutputError(f"{shown(path)} is read-only: not replaced (pass --force to replace it)")
    if not folder.is_dir():
        raise OutputError(f"cannot write {shown(path)}: the folder {shown(folder)} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write {shown(path)}: the folder {shown(folder)} is not writable")
    return Target(path, real, previous)


def _name_max(folder: Path) -> int:
    try:
        return os.pathconf(folder if str(folder) else ".", "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def _stem(name: str) -> str:
    """The target's name as its temporaries carry it: a long name is shortened (with a hash
    of the whole, so that two long names do not share temporaries) to leave room for the rest."""
    if len(os.fsencode(name)) <= 100:
        return name
    return name[:40] + "~" + hashlib.sha256(os.fsencode(name)).hexdigest()[:12]


def temp_pattern(target: Path) -> re.Pattern[str]:
    """The names of the temporaries `temp_for(target)` makes."""
    return re.compile(re.escape(f".{_stem(target.name)}.") + scratch.TAG + r"\.[A-Za-z0-9_]{8}\.tmp")


def temp_for(target: Target) -> str:
    """A new temporary file beside the target, with the mode a plain open() would give
    (0666 less the umask); stale ones of earlier runs of this target go first."""
    folder = target.real.parent
    scratch.remove_stale(folder, temp_pattern(target.real))
    try:
        name = scratch.temp_file(folder, f".{_stem(target.real.name)}.")
    except OSError as e:
        raise OutputError(f"cannot write {shown(target.path)}: {e.strerror or e}") from None
    os.chmod(name, 0o666 & ~_umask())
    return name


def commit(temp: str, target: Target) -> None:
    """Rename the written temporary over the target, keeping the mode, owner and extended
    attributes of the file it replaces; the target's type is checked again first."""
    try:
        now = os.lstat(target.real)
    except FileNotFoundError:
        now = None
    except OSError as e:
        raise OutputError(f"cannot write {shown(target.path)}: {e.strerror or e}") from None
    if now is not None and not stat.S_ISREG(now.st_mode):
        raise OutputError(f"cannot write {shown(target.path)}: it became {kind(now.st_mode)} while the output "
                          "was written; supersheet writes only regular files")
    if now is not None:
        carry_over(target.real, now, temp)
    os.replace(temp, target.real)
    scratch.release(temp)


def carry_over(source: str | Path, st: os.stat_result, dest: int | str) -> tuple[str, ...]:
    """Give `dest` (a new file: its path or an open descriptor) the owner, mode and extended
    attributes of the file `source` it replaces (`st`: its stat) where this platform and our
    rights allow - root keeps the owner, anyone a group they belong to. What could not be
    kept is returned, by name. The editor's saves use it too (editor/safesave.py)."""
    unkept = []
    if (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
        try:
            os.chown(dest, st.st_uid, st.st_gid)
        except PermissionError:
            try:
                os.chown(dest, -1, st.st_gid)
            except PermissionError:
                unkept.append("group")
            if st.st_uid != os.geteuid():
                unkept.append("owner")
    os.chmod(dest, stat.S_IMODE(st.st_mode))     # after chown, which clears set-id bits
    for name in _xattrs(source):
        try:
            os.setxattr(dest, name, os.getxattr(source, name))
        except OSError:
            unkept.append(f"extended attribute {name}")    # security.* without the right, a file system without them
    return tuple(unkept)


def _xattrs(path: str | Path) -> list[str]:
    try:
        return os.listxattr(path)
    except (OSError, AttributeError):      # not supported by the platform or the file system
        return []


def write_error(path: str | Path, error: BaseException) -> OutputError:
    """An error met while writing (a full disk, a quota, an I/O error, also as Polars reports
    them), as the one-line OutputError that names the output."""
    reason = getattr(error, "strerror", None)
    if not reason:
        text = str(error)
        code = re.search(r"(?:os error|errno) (\d+)", text, re.I)
        reason = os.strerror(int(code.group(1))) if code else escaped(text.strip().splitlines()[-1] if text.strip()
                                                                      else type(error).__name__, 120)
    return OutputError(f"cannot write {shown(path)}: {reason}")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
