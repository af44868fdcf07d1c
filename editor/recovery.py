"""Recovery files: the editor's unsaved text, kept on disk a few seconds after
the last edit, so that a killed terminal, a dropped ssh session or a crash
loses at most those seconds (as vim's swap files and Emacs's auto-save do).

One file per sheet, in the user's state folder —
`$XDG_STATE_HOME/supersheet/recover/` (`~/.local/state/supersheet/recover/`
when it is not set), private to the user (0700, files 0600) — named by a hash
of the sheet's real path: never beside the sheet, so never in its folder's
`git status` or a sheet's diff. It holds the sheet's path, the unsaved text,
the text it was edited from (so recovering onto a file that changed since
merges), the same two texts of each imported file edited through a shared
instance's cell and not yet written (editor/shared.py), when and by which
process it was written. Written atomically
(temporary file, rename); removed when the sheet is saved, when the edits are
discarded or undone, and when the user discards it on the next open. Pure
Python: no UI imports.
"""
from __future__ import annotations

import hashlib
import json
import os
import socket
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from supersheet.editor.safesave import atomic_write
from supersheet.units._trust import private_folder

MAX_BYTES = 16_000_000     # a sheet is at most --max-file-size (1 MB by default); its JSON, text and base: far less
VERSION = 1


@dataclass(frozen=True)
class Edited:
    """A file's unsaved `text`, edited from `base` (what the file said when it was read)."""

    text: str
    base: str


@dataclass(frozen=True)
class Recovery:
    """A recovery file as read: the unsaved text of `sheet`, edited from `base`, and the
    unsaved texts of the imported files edited through a shared instance's cell."""

    sheet: Path
    text: str
    base: str
    written: float       # seconds since the epoch
    pid: int
    host: str
    file: Path
    imported: dict[Path, Edited] = field(default_factory=dict)

    def writer_running(self) -> bool:
        """Whether the editor that wrote it still runs (on this machine; not this process)."""
        if self.host != socket.gethostname() or self.pid == os.getpid():
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True


def folder() -> Path:
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(state) / "supersheet" / "recover"


def sheet_key(sheet: Path) -> str:
    return os.path.realpath(sheet)


def file_for(sheet: Path) -> Path:
    return folder() / (hashlib.sha256(sheet_key(sheet).encode("utf-8", "surrogateescape")).hexdigest()[:32] + ".json")


def write(sheet: Path, text: str, base: str, imported: dict[Path, Edited] | None = None) -> Path:
    """Keep `text`, the unsaved edits of `sheet` made on `base`, and those of the
    `imported` files. Raises OSError when there is no private place for it."""
    where = folder()
    where.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not private_folder(where):
        raise PermissionError(f"{where} is not a folder private to you: no recovery file")
    target = file_for(sheet)
    record = {"version": VERSION, "sheet": sheet_key(sheet), "text": text, "base": base,
              "written": time.time(), "pid": os.getpid(), "host": socket.gethostname(),
              "imported": [{"path": str(path), "text": edited.text, "base": edited.base}
                           for path, edited in (imported or {}).items()]}
    atomic_write(target, json.dumps(record).encode("ascii"), mode=0o600)
    return target


def find(sheet: Path) -> Recovery | None:
    """The recovery file of `sheet`, when there is one that is ours and whole."""
    path = file_for(sheet)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_size > MAX_BYTES:
            return None
        with os.fdopen(os.dup(fd), "r", encoding="utf-8", errors="surrogateescape") as handle:
            record = json.loads(handle.read(MAX_BYTES))
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    try:
        if record.get("version") != VERSION or record["sheet"] != sheet_key(sheet):
            return None
        imported = {Path(str(entry["path"])): Edited(str(entry["text"]), str(entry["base"]))
                    for entry in record.get("imported", [])}     # absent in files written before it was kept
        return Recovery(Path(record["sheet"]), str(record["text"]), str(record["base"]), float(record["written"]),
                        int(record["pid"]), str(record["host"]), path, imported)
    except (AttributeError, KeyError, TypeError, ValueError):
        return None


def remove(sheet: Path) -> bool:
    """Remove the recovery file of `sheet`; whether there was one."""
    try:
        os.unlink(file_for(sheet))
        return True
    except FileNotFoundError:
        return False
