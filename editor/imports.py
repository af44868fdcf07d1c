"""Changing what a sheet imports, from the editor: swap the sheet an import
names for another (`model: ../models/qwen3-235b-a22b.yaml` -> `qwen3-32b.yaml`),
add an import (a sheet of the project or of the library, under a free alias),
remove one.

The sheets offered are those that define every cell this sheet uses through
the import (its formulas' `model.x`, the import's `set:` keys), then the sheets
beside the present one (the other models) that miss some, each with the names
it misses, so that nothing is swapped blind.
The swap rewrites only the path's characters on its line: comments, quoting and
layout stay (one changed line); adding writes one line into `use:` (and the
`use:` line itself when the sheet had none), removing takes the entry's lines
out (and `use:` when it was the last). Each is one undo step (structure.py's
`restructure`). They work on lines, not on the round-trip document, for the
reason cells.py gives: ruamel keeps a comment that opens the next block on the
last entry before it. Pure Python: no UI imports.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from supersheet.editor.cells import NAME, StructureError, cell_block, entry_lines, indent_of, is_filler
from supersheet.editor.importers import sheets_under
from supersheet.editor.library import library_dir
from supersheet.engine.base.vocabulary import TOP_LEVEL_KEYS
from supersheet.engine.base.project import BUNDLED, library_name
from supersheet.engine.base.sheetroot import root_for
from supersheet.engine.load.sheet import load_sheet
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


def _target(spec: ImportSpec) -> str:
    """The path an import is written with (`root_import` returns only imports that have one)."""
    if spec.target is None:
        raise StructureError(f"{spec.name} is not an import of this sheet written as a path")
    return spec.target


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
    target = _target(root_import(workbook, alias))
    current = _resolved(sheet, target)
    library = library_dir()
    named = library_name(target) is not None
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
    old = re.escape(_target(spec))
    pattern = re.compile(rf"(?<![\w./-])(['\"]?){old}\1(?![\w./-])")
    for index in range(spec.span.line - 1, min(spec.span.line + 8, len(lines))):
        line = lines[index]
        match = pattern.search(line)
        if match is not None:
            quote = match.group(1)
            lines[index] = line[:match.start()] + quote + written + quote + line[match.end():]
            return "".join(lines)
    raise StructureError(f"cannot find where {spec.name}'s path {spec.target} is written")


def addable(sheet: Path) -> list[Candidate]:
    """The sheets this sheet could import, each with its title: those of its project
    and the folders allowed besides (written relative to it, the nearest folders first), then the library's (written
    by their name, `supersheet:models/qwen3-32b.yaml`, the same from anywhere). Not
    the sheet itself; a file that is not a sheet is left out."""
    here = sheet.resolve()
    library = library_dir().resolve()
    found: list[Candidate] = []
    seen = {here}
    root = root_for(here)
    folders = [f for f in root.folders if f not in root.project.libraries.values()]   # the project's, the allowed
    project = [p for f in folders for p in sheets_under(f) if not p.is_relative_to(library)]
    project.sort(key=lambda p: (len(Path(os.path.relpath(p.parent, here.parent)).parts), str(p)))
    for path in project + list(sheets_under(library)):
        if path in seen:
            continue
        seen.add(path)
        read = load_sheet(path)
        if any(d.code == "E-IMPORT" or not d.quote for d in read.diagnostics):
            continue                       # not a sheet (unreadable, not a mapping of sheet keys)
        written = (f"{BUNDLED}:{path.relative_to(library).as_posix()}" if path.is_relative_to(library)
                   else Path(os.path.relpath(path, here.parent)).as_posix())
        found.append(Candidate(written, path, read.title, ()))
    return found


def check_alias(workbook: Workbook, alias: str) -> None:
    """StructureError unless `alias` is a free name for a new import of this sheet:
    a name (letters, digits, _), neither an import's alias nor one of its cells."""
    if not NAME.match(alias):
        raise StructureError(f"{alias!r} is not a name: letters, digits and _, not starting with a digit")
    root = workbook.model.root
    if root is not None and alias in root.use:
        raise StructureError(f"this sheet already imports {root.use[alias].target or 'a sheet'} as {alias}")
    if alias in workbook.model.cells:
        raise StructureError(f"this sheet has a cell {alias!r}: an alias must be another name")


def alias_for(written: str, workbook: Workbook) -> str:
    """A free alias proposed for a new import of `written`: its file's name as a name
    (`h100-sxm.yaml` -> `h100_sxm`), numbered when taken."""
    stem = re.sub(r"\W+", "_", Path(written.split(":")[-1]).stem).strip("_") or "imported"
    stem = stem if not stem[0].isdigit() else f"s{stem}"
    for n in range(1, 1000):
        alias = stem if n == 1 else f"{stem}_{n}"
        try:
            check_alias(workbook, alias)
            return alias
        except StructureError:
            continue
    return stem


TOP_LEVEL_BEFORE_USE = TOP_LEVEL_KEYS[:TOP_LEVEL_KEYS.index("use") + 1]   # the format's order (vocabulary.py)


def with_import(text: str, alias: str, written: str) -> str:
    """`text` with `alias: written` as the last entry of its `use:` block; the block
    is made, after `title`/`doc`/`extends` (as the format lists the keys), when the
    sheet has none."""
    lines = text.split("\n")
    use = _top_level_line(lines, "use")
    if use is not None:
        value = lines[use].split(":", 1)[1].split("#", 1)[0].strip()
        if value:
            raise StructureError("`use:` is written on one line (a flow mapping): add the import there in a "
                                 "text editor")
        entries = [i for i in range(use + 1, cell_block(lines, use + 1)[1]) if not is_filler(lines[i])]
        if entries:
            indent = indent_of(lines[entries[0]])
            end = cell_block(lines, entries[-1] + 1)[1]
        else:
            indent, end = 2, use + 1
        return "\n".join(lines[:end] + entry_lines(alias, written, indent) + lines[end:])
    keys = [(i, _key(line)) for i, line in enumerate(lines) if _key(line)]
    after = [i for i, key in keys if key not in TOP_LEVEL_BEFORE_USE]
    at = after[0] if after else len(lines)
    while at > 0 and lines[at - 1].lstrip().startswith("#") and not indent_of(lines[at - 1]):
        at -= 1                             # a comment right over the next key belongs to it
    if at == len(lines) and lines and lines[-1] == "":
        at -= 1                             # before the final newline
    return "\n".join(lines[:at] + ["use:"] + entry_lines(alias, written, 2) + lines[at:])


def without_import(text: str, spec: ImportSpec) -> str:
    """`text` without the import `spec` (its key's line and the lines under it; the
    comments and blank lines after it belong to what follows), and without `use:`
    when it was the last."""
    lines = text.split("\n")
    start = spec.span.line - 1
    if not (0 <= start < len(lines)) or not lines[start].lstrip().startswith(f"{spec.name}:") \
            or indent_of(lines[start]) == 0:
        raise StructureError(f"{spec.name} is not written on a line of its own under `use:` (a flow mapping?): "
                             "remove it in a text editor")
    start, end = cell_block(lines, spec.span.line)
    lines = lines[:start] + lines[end:]
    use = _top_level_line(lines, "use")
    if use is not None and not any(not is_filler(lines[i]) for i in range(use + 1, cell_block(lines, use + 1)[1])) \
            and "#" not in lines[use]:
        del lines[use]
    return "\n".join(lines)


def _top_level_line(lines: list[str], key: str) -> int | None:
    return next((i for i, line in enumerate(lines) if _key(line) == key), None)


def _key(line: str) -> str | None:
    """The top-level key a line starts, if it does."""
    match = re.match(r"([A-Za-z_][\w-]*)\s*:", line)
    return match.group(1) if match else None


def _resolved(sheet: Path, target: str) -> Path:
    named = library_name(target)
    if named is not None and named[0] == BUNDLED:
        return (library_dir() / named[1]).resolve()
    return (sheet.parent / target).resolve()
