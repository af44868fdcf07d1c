"""Changing what a sheet imports, from the editor: swap the sheet an import
names for another (`model: ../models/qwen3-235b-a22b.yaml` -> `qwen3-32b.yaml`).

The sheets offered are those that define every cell this sheet uses through
the import (its formulas' `model.x`, the import's `set:` keys), then the sheets
beside the present one (the other models) that miss some, each with the names
it misses, so that nothing is swapped blind.
The swap rewrites only the path's characters on its line: comments, quoting and
layout stay (one changed line), and it is one undo step (structure.py's
`restructure`). Pure Python: no UI imports.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from supersheet.editor.cells import StructureError
from supersheet.editor.library import library_dir
from supersheet.engine.base.project import BUNDLED, library_name
from supersheet.engine.load.resolve import build_model
from supersheet.engine.load.sheetfile import ImportSpec
from supersheet.engine.workbook import Workbook


@dataclass(frozen=True)
class Candidate:
    """A sheet an import could name instead: how the import would write it, its title,
    and the names this sheet uses through the import that it does not define."""
    written: str
    path: Path
    title: str
    missing: tuple[str, ...]


def root_import(workbook: Workbook, alias: str) -> ImportSpec:
    """The import `alias` of the open sheet itself (not one of an imported sheet's)."""
    root = workbook.model.root
    spec = root.use.get(alias) if root is not None else None
    if spec is None or spec.target is None:
        raise StructureError(f"{alias} is not an import of this sheet written as a path")
    return spec


def used_names(workbook: Workbook, alias: str) -> list[str]:
    """The names this sheet reads through `alias`: `model.x` in its own cells' formulas
    (x, or `gpu.hbm` through the import's own import), and the keys of its `set:`."""
    prefix = alias + "."
    names: set[str] = set(root_import(workbook, alias).sets)
    for key, checked in workbook.checked.cells.items():
        cell = workbook.model.cells.get(key)
        if cell is None or cell.scope.prefix:
            continue
        names.update(dep[len(prefix):] for dep in checked.deps if dep.startswith(prefix))
    return sorted(names)


def candidates(workbook: Workbook, sheet: Path, alias: str) -> list[Candidate]:
    """The sheets `alias` could import instead, those defining every used name first.
    Looked for beside the sheet it imports now and, for a sheet of the bundled library
    (or named `supersheet:`), in the whole library; each is written as the import
    writes its present sheet (a library name, or a path relative to this sheet)."""
    spec = root_import(workbook, alias)
    current = _resolved(sheet, spec.target)
    library = library_dir()
    named = library_name(spec.target) is not None
    in_library = named or current.is_relative_to(library)
    folders = [library] if in_library else [current.parent]
    found: list[Candidate] = []
    used = used_names(workbook, alias)
    seen = {current, sheet.resolve()}
    for folder in folders:
        for path in sorted(folder.rglob("*.yaml")):
            real = path.resolve()
            if real in seen:
                continue
            seen.add(real)
            model = build_model(path)
            if model.root is None:
                continue
            missing = tuple(n for n in used if n not in model.cells)
            if missing and (real.parent != current.parent or len(missing) == len(used)):
                continue          # a sheet of another kind (not beside the present one, or defines none)
            written = (f"{BUNDLED}:{real.relative_to(library).as_posix()}" if named and real.is_relative_to(library)
                       else Path(os.path.relpath(real, sheet.resolve().parent)).as_posix())
            found.append(Candidate(written, path, model.title, missing))
    return sorted(found, key=lambda c: (len(c.missing), c.written))


def swapped(text: str, spec: ImportSpec, written: str) -> str:
    """`text` with the import's path replaced by `written`, on its own line (the line of
    `alias: path`, or of `sheet: path` under it); quoting as it was."""
    lines = text.splitlines(keepends=True)
    old = re.escape(spec.target)
    pattern = re.compile(rf"(?<![\w./-])(['\"]?){old}\1(?![\w./-])")
    for index in range(spec.span.line - 1, min(spec.span.line + 8, len(lines))):
        line = lines[index]
        match = pattern.search(line)
        if match is not None:
            quote = match.group(1)
            lines[index] = line[:match.start()] + quote + written + quote + line[match.end():]
            return "".join(lines)
    raise StructureError(f"cannot find where {spec.name}'s path {spec.target} is written")


def _resolved(sheet: Path, target: str) -> Path:
    named = library_name(target)
    if named is not None and named[0] == BUNDLED:
        return (library_dir() / named[1]).resolve()
    return (sheet.parent / target).resolve()
