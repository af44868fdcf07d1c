"""The sheets a rename reaches beyond the open one: every sheet of its sheet
root (the git work tree, an allowed folder, or at least its own folder) that
imports it with `use:` or extends it, and how each reads with the renamed
cell's references renamed (rename.py: `lib.alpha` in formulas and keys,
`alpha` among the import's `set:`, bare `alpha` in a sheet that extends it).

Each is a separate file, updated only when the user says so, through the
round-trip writer (`SheetText`: its BOM, line ends, mode kept; only the lines
that name the cell change; refused when it changed on disk since it was read).
The search is bounded (MAX_SHEETS files, hidden and virtualenv folders
skipped) and cheap: a file is parsed only when it names the sheet's file name.
Pure Python: no UI imports.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from ruamel.yaml.comments import CommentedMap

from supersheet.editor.cells import StructureError
from supersheet.editor.history import FileEdit
from supersheet.editor.rename import Target, rename_references
from supersheet.editor.roundtrip import BOM, SheetText, make_yaml
from supersheet.engine.base.sheetroot import SHEET_SUFFIXES, read_sheet_text, root_for
from supersheet.engine.load.fastyaml import load_fast

MAX_SHEETS = 2000       # files looked at, at most: a rename must not stall on a huge tree
SKIPPED = {"node_modules", "__pycache__", "venv", "site-packages"}
MAX_DEPTH = 3           # imports of imports followed (`c.b.lib.alpha`); also ends a loop of imports


@dataclass(frozen=True)
class Update:
    """One sheet that names the renamed cell: its text now and renamed (`after`
    is None when a reference cannot be placed exactly: `problem` says where)."""

    path: Path
    how: str                 # "imports it as hgx", "extends it", "extends b.yaml, which imports it as hgx"
    before: str
    after: str | None
    problem: str = ""


@dataclass(frozen=True)
class Naming:
    """Another sheet that names a cell of the sheet: its text, its document, and
    each way it names the cell (`Target`) with why (`imports it as hgx`)."""

    path: Path
    text: str
    document: Any
    targets: dict[Target, str]


def namings(path: Path, old: str) -> list[Naming]:
    """Every other sheet of the sheet root that names `old` of the sheet at `path`:
    importing it, extending it, or extending a sheet that does (imports are inherited)."""
    target = path.resolve()
    texts = _texts(_search_root(target), target)
    documents: dict[Path, Any] = {}
    bare = {target}                              # sheets in which the cell is named `old`
    found: dict[Path, dict[Target, str]] = {}    # sheet -> how it names the cell, and why
    grew = True
    while grew:                                  # extends chains: until nothing new is found
        grew = False
        names = {p.name for p in bare | set(found)}
        for sheet, text in texts.items():
            if not any(name in text for name in names):
                continue        # an import or `extends` names the file
            if sheet not in documents:
                documents[sheet] = _load(text)
            for how, reference in _references(sheet, documents[sheet], old, target, bare, found):
                if reference not in found.setdefault(sheet, {}):
                    found[sheet][reference] = how
                    grew = True
                    if reference.alias is None:
                        bare.add(sheet)
    return sorted((Naming(sheet, texts[sheet], documents[sheet], references)
                   for sheet, references in found.items() if references), key=lambda n: n.path)


def plan(path: Path, old: str, new: str) -> list[Update]:
    """How every other sheet that names `old` of the sheet at `path` reads with it renamed `new`."""
    updates = []
    for naming in namings(path, old):
        text = after = naming.text
        how = "; ".join(naming.targets.values())
        try:
            for reference in naming.targets:
                after = rename_references(after, reference, new, document=naming.document if after == text else None)
        except StructureError as e:
            updates.append(Update(naming.path, how, text, None, str(e)))
            continue
        if after != text:
            updates.append(Update(naming.path, how, text, after))
    return updates


def apply(updates: list[Update]) -> tuple[list[Path], list[str]]:
    """Write each update whose file still holds the text it was planned on:
    the paths written, and why the others were not."""
    written, skipped = [], []
    for update in updates:
        problem = update.problem if update.after is None else \
            _write(update.path, update.before, update.after, "changed on disk since the rename; not updated")
        if problem:
            skipped.append(f"{update.path}: {problem}")
        else:
            written.append(update.path)
    return written, skipped


def rewrite(files: tuple[FileEdit, ...], backwards: bool) -> tuple[list[Path], list[str]]:
    """Undo (`backwards`) or redo the updates of a rename in the other sheets, through
    the round-trip writer: each file is written back only when it still holds what
    the update left in it (or, to redo, what it held before); the paths written,
    and why the others were not (a file changed on disk since is never overwritten)."""
    written, skipped = [], []
    for edit in files:
        expected, target = (edit.after, edit.before) if backwards else (edit.before, edit.after)
        problem = _write(edit.path, expected, target, "changed on disk since; left as it is")
        if problem:
            skipped.append(f"{edit.path.name}: {problem}")
        else:
            written.append(edit.path)
    return written, skipped


def _write(path: Path, expected: str, target: str, changed: str) -> str | None:
    """Write `target` to the sheet at `path` through the round-trip writer if it
    still holds `expected`; None when written, else why not (`changed` when it
    changed on disk)."""
    try:
        sheet = SheetText(path)
        if sheet.original != expected:
            return changed
        sheet.restore(target)
        sheet.save()
    except Exception as e:  # noqa: BLE001 - one unwritable file must not stop the others; each is reported
        return str(e)
    return None


def _references(path: Path, document: Any, old: str, target: Path, bare: set[Path],
                found: dict[Path, dict[Target, str]]) -> Iterator[tuple[str, Target]]:
    """How the sheet at `path` names `old` of `target`: bare when it extends a sheet
    that names it bare, under each alias it imports such a sheet as, and as the
    sheet it extends does (imports are inherited)."""
    if not isinstance(document, CommentedMap):
        return
    base = _resolved(path, document.get("extends"))
    if base in bare:
        yield ("extends it" if base == target else f"extends {base.name}"), Target(old)
    if base is not None:
        for reference, how in list(found.get(base, {}).items()):
            if reference.alias is not None:
                yield f"extends {base.name}, which {how}", reference
    uses = document.get("use")
    if isinstance(uses, CommentedMap):
        for alias, entry in uses.items():
            sheet = _resolved(path, entry.get("sheet") if isinstance(entry, CommentedMap) else entry)
            if sheet is None:
                continue            # not written as a sheet's path
            if sheet in bare:
                yield f"imports {'it' if sheet == target else sheet.name} as {alias}", Target(old, str(alias))
            for reference, how in list(found.get(sheet, {}).items()):
                if reference.alias is not None and reference.alias.count(".") < MAX_DEPTH - 1:
                    yield f"imports {sheet.name} as {alias}, which {how}", Target(old, f"{alias}.{reference.alias}")


def _resolved(path: Path, written: Any) -> Path | None:
    """The sheet an `extends:` or import entry of the sheet at `path` names."""
    if not isinstance(written, str) or not written.endswith(SHEET_SUFFIXES):
        return None
    try:
        return (path.parent / written).resolve()
    except OSError:
        return None


def _load(text: str) -> Any:
    """The sheet's document with positions (libyaml when it can; no comments needed here)."""
    yaml = make_yaml(2, 0)
    try:
        return load_fast(text, yaml) or yaml.load(text)
    except Exception:  # noqa: BLE001 - not a sheet we can read: nothing to update
        return None


def _texts(root: Path, target: Path) -> dict[Path, str]:
    """The text of every other sheet under `root`, as the round-trip writer reads it
    (BOM dropped, newlines \\n): unreadable, too large or non-UTF-8 files are left out."""
    texts = {}
    for sheet in sheets_under(root):
        if sheet == target:
            continue
        try:
            texts[sheet] = read_sheet_text(sheet).removeprefix(BOM).replace("\r\n", "\n")
        except (OSError, ValueError):
            continue
    return texts


def _search_root(sheet: Path) -> Path:
    """The outermost folder of the sheet's root that holds it (its own folder at least)."""
    holding = [folder for folder in root_for(sheet).folders if sheet.is_relative_to(folder)]
    return min(holding, key=lambda folder: len(folder.parts)) if holding else sheet.parent


def sheets_under(root: Path) -> Iterator[Path]:
    """The sheet files under `root` (resolved), in a stable order: hidden and virtualenv
    folders skipped, MAX_SHEETS files at the most (a search must not stall on a huge tree)."""
    seen = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED)
        for name in sorted(files):
            if not name.endswith(SHEET_SUFFIXES):
                continue
            seen += 1
            if seen > MAX_SHEETS:
                return
            yield Path(folder, name).resolve()
