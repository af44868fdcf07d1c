"""Where sheets may be read from, and how a sheet file is read.

Sheets travel (pull requests checked in CI, shared folders), so what a sheet
names is not trusted: `use:`, `extends:` and import axes resolve only inside
the *sheet root* — the project root of the sheet named on the command line
(project.py: the folder of its supersheet.toml, else its git work tree, else
the current folder if the sheet is in it, else the sheet's folder), the
libraries it may name (the bundled one and its supersheet.toml's), and folders
allowed by the supersheet.toml's `allow` or `--allow-path DIR`.
Symbolic links are followed before the check, so a link cannot lead out.

Only regular files are read (a FIFO would block, a device never ends), opened
without blocking and re-checked on the open descriptor, and never more than
the file-size limit.
"""
from __future__ import annotations

import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

from supersheet.engine.base.limits import current_limits
from supersheet.engine.base.project import Project, project_for, register_tree, unregister_tree

__all__ = ["SheetRoot", "UnreadableSheet", "allow_paths", "import_problem", "read_sheet_bytes", "read_sheet_text",
           "register_tree", "root_for", "table_problem", "unregister_tree"]
SHEET_SUFFIXES = (".yaml", ".yml")
TABLE_SUFFIXES = (".csv", ".parquet")
ALLOW_HINT = "pass --allow-path DIR to permit (or list DIR in `allow` of the project's supersheet.toml)"

_lock = threading.Lock()
_allowed: list[Path] = []        # --allow-path folders, for the whole process


class UnreadableSheet(ValueError):
    """A file that is not read: not a regular file, too large, or not text."""


@dataclass(frozen=True)
class SheetRoot:
    """The folders a sheet and its imports may be read from."""

    folders: tuple[Path, ...]
    project: Project

    def allows(self, path: Path) -> bool:
        resolved = _resolve(path)
        return any(resolved.is_relative_to(folder) for folder in self.folders)

    def describe(self) -> str:
        """The root as a message says it: libraries by name, never by where they are installed."""
        libraries = set(self.project.libraries.values())
        folders = [str(f) for f in self.folders if f not in libraries]
        return ", ".join(folders + [f"the libraries {', '.join(n + ':' for n in self.project.libraries)}"])


def allow_paths(folders: list[str]) -> None:
    """Folders outside the sheet root that imports may read (--allow-path)."""
    with _lock:
        _allowed[:] = [_resolve(Path(f)) for f in folders]


def root_for(sheet: Path) -> SheetRoot:
    """The sheet root of the sheet named on the command line (or opened in the editor)."""
    project = project_for(sheet)
    with _lock:
        allowed = list(_allowed)
    folders = [project.root, *project.libraries.values(), *project.allow, *allowed]   # each resolved already
    return SheetRoot(tuple(dict.fromkeys(folders)), project)


def import_problem(path: Path, root: SheetRoot, shown: str) -> str | None:
    """Why an imported sheet `path` (written `shown` in the sheet) may not be
    read, or None (also when it does not exist: the caller reports that, with
    a did-you-mean). Checked before anything opens the file."""
    if not root.allows(path):
        return f"{shown} is outside the sheet root ({root.describe()}); {ALLOW_HINT}"
    if not path.name.endswith(SHEET_SUFFIXES):
        return f"{shown} is not a sheet: sheet files end in .yaml or .yml"
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as e:        # a name too long for the OS, a loop of links, no permission
        return f"cannot read {shown}: {e.strerror or e}"
    try:
        _check_kind(Path(shown), st)
    except UnreadableSheet as e:
        return str(e)
    return None


def table_problem(path: Path, root: SheetRoot, shown: str) -> str | None:
    """Why a table file `path` (written `shown`) may not be read, or None: the same
    confinement as an import (format 10), for a CSV or Parquet file."""
    if not root.allows(path):
        return f"{shown} is outside the sheet root ({root.describe()}); {ALLOW_HINT}"
    if not path.name.lower().endswith(TABLE_SUFFIXES):
        return f"{shown} is not a table: table files end in .csv or .parquet"
    return None


def read_sheet_text(path: Path) -> str:
    """The text of a sheet file: a regular file of at most the size limit, UTF-8.

    Raises FileNotFoundError, or UnreadableSheet with a message that names the
    file and never quotes its contents."""
    data = read_sheet_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise UnreadableSheet(f"{path} is not a sheet: not UTF-8 text (byte 0x{data[e.start]:02x} on line {line})") \
            from None


def read_sheet_bytes(path: Path, limit: int | None = None) -> bytes:
    """The bytes of a sheet file: a regular file (opened without blocking, so a
    FIFO cannot hang, and checked again on the open descriptor) of at most the
    size limit (never read further, so /dev/zero behind a link cannot fill
    the memory). Raises FileNotFoundError or UnreadableSheet. `limit` is another
    size limit (a table's)."""
    limit = current_limits().max_file_size if limit is None else limit
    try:
        before = os.stat(path)
    except FileNotFoundError:
        raise
    except OSError as e:
        raise UnreadableSheet(f"cannot read {path}: {e.strerror or e}") from None
    _check_kind(path, before)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise UnreadableSheet(f"cannot read {path}: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        _check_kind(path, st)          # the file may have been swapped since the stat
        if st.st_size > limit:
            raise UnreadableSheet(_too_large(path, st.st_size, limit))
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as e:
        raise UnreadableSheet(f"cannot read {path}: {e.strerror or e}") from None
    finally:
        os.close(fd)
    if total > limit:
        raise UnreadableSheet(_too_large(path, total, limit))
    return b"".join(chunks)


def _check_kind(path: Path, st: os.stat_result) -> None:
    if stat.S_ISREG(st.st_mode):
        return
    kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(st.st_mode)
            else "a socket" if stat.S_ISSOCK(st.st_mode) else "a device" if stat.S_ISCHR(st.st_mode)
            or stat.S_ISBLK(st.st_mode) else "not a regular file")
    raise UnreadableSheet(f"{path} is {kind}: only regular files are read as sheets")


def _too_large(path: Path, size: int, limit: int) -> str:
    flag = "--max-file-size" if limit == current_limits().max_file_size else "--max-data-size"
    return (f"{path} is larger than the file-size limit ({_megabytes(size)} > {_megabytes(limit)}); "
            f"raise it with {flag} BYTES")


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB" if size >= 100_000 else f"{size:,} bytes"


def _resolve(path: Path) -> Path:
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):
        return Path(os.path.abspath(path))
