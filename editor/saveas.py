"""Save As: the open sheet, with its unsaved edits, written to a new file that
the editor then edits. Never over an existing file: the new file is created
atomically (written to a temporary file in its folder, fsynced, then linked to
its name, which fails if the name exists), so a crash leaves either no file
or the whole sheet. The file it was opened from stays as it is on disk.

A sheet reads its imports relative to its own folder: in another folder its
relative imports (`../models/x.yaml`) would name other files, so saving there
is refused with the imports named (a library name, `supersheet:…`, is the same
file from anywhere). Pure Python: no UI imports.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from supersheet.editor.cells import StructureError
from supersheet.engine.base.project import library_name
from supersheet.engine.workbook import Workbook


def relative_imports(workbook: Workbook) -> list[str]:
    """The sheet's own imports and base written as relative paths."""
    root = workbook.model.root
    if root is None:
        return []
    own = root.file          # the sheet as written: its `use:` and `extends`, not its base's
    specs = list(own.use.values()) + ([own.extends] if own.extends is not None else [])
    return [s.target for s in specs if s.target and library_name(s.target) is None and not os.path.isabs(s.target)]


def save_as(workbook: Workbook, sheet: Path, text: str, target: Path) -> Path:
    """Write `text` (the sheet at `sheet`, as edited) to the new file `target`;
    StructureError (nothing written) when it exists, its folder does not, or the
    sheet's relative imports would name other files from there."""
    target = target if target.is_absolute() else sheet.parent / target
    if target.suffix not in (".yaml", ".yml"):
        raise StructureError(f"{target.name}: a sheet's file name ends in .yaml")
    if os.path.lexists(target):
        raise StructureError(f"{target} exists: Save As never writes over a file; choose another name")
    if not target.parent.is_dir():
        raise StructureError(f"{target.parent} is not a folder")
    moved = os.path.realpath(target.parent) != os.path.realpath(sheet.parent)
    relative = relative_imports(workbook)
    if moved and relative:
        raise StructureError(f"this sheet imports {', '.join(relative)} relative to its folder: from "
                             f"{target.parent} they would name other files; save it beside {sheet.name}")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.link(tmp, target)           # fails, writing nothing, if the name was taken meanwhile
    except FileExistsError:
        raise StructureError(f"{target} exists: Save As never writes over a file; choose another name") from None
    finally:
        os.unlink(tmp)
    directory = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
    return target
