"""Where sheets may be read from, how large they may be, and opening one for a command.

`configure` sets, for the whole process, what the command's `--allow-path` and
`--max-*` flags set: the folders outside a sheet's root that imports may read
(docs/security.md) and the load `Limits`. `find_sheets` expands the paths a
command is given (directories searched for `*.yaml`), and `checked_workbook` loads
and checks one sheet without evaluating it (`supersheet.sheet.open_checked` wraps
it in the `Sheet` the sweep, solve and choice entry points take). This module loads neither Polars nor NumPy,
and the checker and compiler only when a sheet is opened (the command's
`--help` reads `Limits`).
"""
from __future__ import annotations

import os

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from supersheet.engine.base.limits import MAX_ROWS, MAX_TABLE_ROWS, Limits, set_limits
from supersheet.engine.base.project import UnknownLibrary, library_name, project_for, shown_path
from supersheet.engine.base.sheetroot import UnreadableSheet, allow_paths, read_sheet_text, root_for

from .errors import RequestError, SheetError, bounded
from supersheet.engine.base.gcpause import freeze_after_pauses, without_cycle_collection
from supersheet.engine.base.diagnostics import did_you_mean

if TYPE_CHECKING:
    from supersheet.engine.workbook import Workbook

__all__ = ["MAX_ROWS", "MAX_TABLE_ROWS", "Limits", "check_readable", "configure", "find_sheets", "for_one_command", "library_path", "checked_workbook",
           "shown_path", "without_cycle_collection"]


def configure(allow: Sequence[str | Path] = (), **limits: int | None) -> Limits:
    """Let imports also read sheets under the folders `allow`, and set the load limits
    (`max_file_size=`, `max_cells=`, ... the fields of `Limits`; None keeps a default).
    Returns the limits now in force; a later call replaces both."""
    for folder in allow:
        if not str(folder).strip():   # Path("") is the current directory: from `/`, the whole machine
            raise RequestError("--allow-path needs a folder: an empty one would allow the current directory "
                               "(write --allow-path . if you mean it)")
    allow_paths([str(folder) for folder in allow])
    return set_limits(**limits)


def for_one_command() -> None:
    """For a process that exits when its one command returns (the program `supersheet`):
    what loading, checking and evaluating allocate stays until the exit, so each of those
    phases ends by freezing the heap (`gc.freeze`) instead of leaving it to the cycle
    collector to walk again (engine/base/gcpause.py; ~20 % of `run` of a 20,000-cell
    sheet). Not for a notebook or a server: their sheets come and go."""
    freeze_after_pauses(True)


def library_path(text: str | Path, cwd: Path | None = None) -> str:
    """A path as a command line or a notebook gives it: `name:PATH` (a library name, format
    10.1: `supersheet:hardware/h100-sxm.yaml`, or one of the supersheet.toml of the project
    of the current folder) is that file of the library; anything else is returned as it is.
    RequestError for a name no library has."""
    text = str(text)
    if library_name(text) is None or os.path.exists(text):     # False, not OSError, for a name too long
        return text
    here = Path(cwd or Path.cwd())
    try:
        located = project_for(here / "_", here).locate(text, here)
    except UnknownLibrary as e:
        raise RequestError(f"{text}: {e} ({e.hint})") from None
    if not os.path.exists(located):       # said as written, not by where the library is installed
        near = did_you_mean(located.name, [p.name for p in located.parent.glob("*.y*ml")]) \
            if os.path.isdir(located.parent) else None
        raise RequestError(f"no such file in the library: {text}" + (f" ({near})" if near else ""))
    return str(located)


def find_sheets(paths: Sequence[str | Path]) -> list[Path]:
    """The sheets named: files as given, directories searched for *.yaml (not hidden ones,
    and not links that lead out of the folder's sheet root). RequestError for a path that
    does not exist or a directory without sheets."""
    found: list[Path] = []
    for text in paths:
        path = Path(text)
        _stat(path, "file or directory")
        if path.is_dir():
            root = root_for(path / "_")
            inside = sorted(p for p in path.rglob("*.yaml")
                            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts)
                            and root.allows(p))
            if not inside:
                what = "a directory, not a sheet" if path.suffix in (".yaml", ".yml") else "a directory with no *.yaml sheets"
                raise RequestError(f"{text} is {what}")
            found.extend(inside)
        elif path.exists():
            found.append(path)
        else:
            raise RequestError(f"no such file or directory: {text}")
    return found


def checked_workbook(path: str | Path) -> Workbook:
    """A sheet loaded and checked, as the engine's workbook: what `supersheet.sheet.open_checked`
    wraps in a Sheet, and what the reports of this package evaluate themselves. SheetError with
    every diagnostic when it does not check; RequestError when `path` is no file."""
    from supersheet.engine.workbook import open_workbook   # deferred: ruamel
    path = library_path(path)
    _stat(Path(path), "sheet")
    if Path(path).is_dir():
        raise RequestError(f"{path} is a directory, not a sheet")
    workbook = open_workbook(path)
    if not workbook.ok:
        raise SheetError(workbook.diagnostics)
    return workbook


def _stat(path: Path, what: str) -> None:
    """RequestError for a path that names nothing: missing, or a name the system refuses
    (longer than it allows, a loop of links), said in one line that does not echo it whole."""
    try:
        os.stat(path)
    except FileNotFoundError:
        raise RequestError(f"no such {what}: {bounded(str(path))}") from None
    except (OSError, ValueError) as e:
        raise RequestError(f"cannot read {bounded(str(path))}: {getattr(e, 'strerror', None) or e}") from None


def check_readable(path: str | Path) -> None:
    """RequestError unless `path` is a regular file of text within the size limit (what the
    editor can open; a FIFO would block it)."""
    try:
        read_sheet_text(Path(path))
    except (OSError, UnreadableSheet) as e:
        raise RequestError(f"cannot read {path}: {e}") from None
