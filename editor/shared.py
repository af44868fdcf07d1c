"""Edits of a shared instance's cell: the imported file itself, edited in the session.

The same file imported without `set:` anywhere in the sheet's graph is one instance
(format 10.3): `lat` of the TP16 sheet and `tp8.lat` of its TP8 comparator are the
same cells. An edit of such a cell cannot be a `use: … set:` in the open sheet (that
would give `lat` an instance of its own, which the comparator would not follow); it is
an edit of the imported file, held here as that file's unsaved text. The open sheet is
built with these texts in place of the files (every importer of the instance reads the
new value at once, as `--set` does), and saving writes the file only when the user says
so, never a file of an installed library. Undo and redo restore the texts kept in the
step (history.FileEdit). Pure Python: no UI imports.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Protocol

from supersheet.engine.base.project import shown_path
from supersheet.engine.base.sheetroot import root_for
from supersheet.engine.load.model import Cell, Model

if TYPE_CHECKING:
    from supersheet.editor.history import FileEdit
    from supersheet.editor.results import EditResult
    from supersheet.editor.roundtrip import SheetText
    from supersheet.editor.safesave import Written
    from supersheet.engine.workbook import Workbook


class EditedFile(Protocol):
    """What this module asks of the editor `Document` of an imported file (never imported
    here: the document imports this module)."""

    source: SheetText
    workbook: Workbook

    def text(self) -> str: ...
    def raw_text(self, key: str) -> str: ...
    def apply(self, key: str, text: str) -> EditResult: ...
    def rebuild(self, key: str, text: str, new_text: str, check_new: bool = False) -> EditResult: ...
    def save(self, force: bool = False) -> Written | None: ...


@dataclass(frozen=True)
class Importer:
    """One alias that reaches a shared instance, and the sheet whose `use:` writes it."""

    alias: str
    sheet: Path


def instance_file(cell: Cell) -> Path | None:
    """The file whose instance holds `cell` (the imported file, not a base it extends)."""
    return _resolved(cell.scope.path) if cell.scope.path is not None else None


@lru_cache(maxsize=1024)
def _resolved(path: Path) -> Path:   # asked for each imported row the grid draws: one stat walk per file
    return path.resolve()


def sharing_importers(model: Model, alias: str) -> list[Importer]:
    """Every alias of the instance keyed under `alias` (itself first), with the sheet that imports it."""
    found = []
    for name in [alias, *model.sharers(alias)]:
        if "." not in name and model.root is not None:   # the open sheet's, or its base's (`extends`)
            found.append(Importer(name, model.root.use_file(name).path))
            continue
        scope = model.scope
        for part in name.split(".")[:-1]:
            scope = scope.aliases[part]
        found.append(Importer(name, scope.path or model.path))
    return found


def library_refusal(sheet: Path, file: Path) -> str | None:
    """Why the imported `file` may not be edited from `sheet`: it is a file of a library
    (the bundled `supersheet:` one, or one supersheet.toml names) outside the sheet's
    project, which every project that names the library reads. None for a project file."""
    project = root_for(sheet).project
    real = file.resolve()
    if real.is_relative_to(project.root.resolve()):
        return None      # the project's own file (a checkout of the library, as its developers edit it)
    for name, folder in project.libraries.items():
        if real.is_relative_to(folder.resolve()):
            return (f"{shown_path(real)} is a file of the library {name}:, shared by every sheet that imports it: "
                    f"change it for this session with --set or a sweep, or copy it into your project")
    return None


class SharedEdits:
    """The imported files edited in this session (each an editor `Document` of its own,
    which checks an edit as that file) and what saving them would write."""

    def __init__(self, opener: Callable[[Path], EditedFile]) -> None:
        self._open = opener
        self.files: dict[Path, EditedFile] = {}
        self._saved: dict[Path, dict[str, str]] = {}    # each file's cells as written on disk

    def _remember_saved(self, path: Path) -> None:
        doc = self.files[path]
        self._saved[path] = {key: doc.raw_text(key) for key in doc.workbook.model.cells}

    def document(self, path: Path) -> EditedFile:
        path = path.resolve()
        if path not in self.files:
            self.files[path] = self._open(path)
            self._remember_saved(path)
        return self.files[path]

    def texts(self) -> dict[Path, str]:
        """The text to read for each edited file instead of its contents on disk."""
        return {path: doc.text() for path, doc in self.files.items()}

    def pending(self) -> list[Path]:
        """The files whose text in the session is not what was read or saved."""
        return [path for path, doc in self.files.items() if doc.text() != doc.source.original]

    def unsaved(self, cell: Cell) -> Path | None:
        """The file when `cell` is a cell of an edited file whose text here is not the saved one."""
        path = instance_file(cell)
        doc = self.files.get(path) if path is not None else None
        if path is None or doc is None or doc.text() == doc.source.original \
                or cell.name not in doc.workbook.model.cells:
            return None
        return path if self._saved[path].get(cell.name) != doc.raw_text(cell.name) else None

    def changed_cells(self, path: Path) -> list[tuple[str, str, str]]:
        """The cells of an edited file whose text differs from the saved file: (name, saved, now)."""
        doc, saved = self.files[path], self._saved[path]
        return [(name, saved.get(name, ""), doc.raw_text(name)) for name in doc.workbook.model.cells
                if saved.get(name) != doc.raw_text(name)]

    def describe(self, model: Model) -> str:
        """What saving the pending files would write, for the question asked before it:
        each file, its cells changed, and the sheets of the open one's graph that import it."""
        lines = []
        for path in self.pending():
            cells = "; ".join(f"{name}: {old} -> {new}" for name, old, new in self.changed_cells(path))
            seen = [f"{_shown(i.sheet)} as {i.alias}" for i in _importers_of_file(model, path)]
            lines.append(f"{_shown(path)} ({cells}), imported by {', '.join(seen) or 'this sheet'}")
        return "\n".join(lines)

    def restore(self, edit: FileEdit, backwards: bool) -> None:
        """Put a file's text back as it was before (`backwards`) or after an undone step."""
        doc = self.document(edit.path)
        text = edit.before if backwards else edit.after
        doc.source.restore(text)
        doc.rebuild("", "", text)

    def save(self, force: bool = False) -> list[tuple[Path, Written | None]]:
        """Write every pending file (safesave's checks: refused when it changed on disk since
        it was read, unless `force`); what each write did."""
        written = []
        for path in self.pending():
            written.append((path, self.files[path].save(force)))
            self._remember_saved(path)
        return written

    def clear(self) -> None:
        self.files.clear()
        self._saved.clear()


def _shown(path: Path) -> str:
    """A file as a question names it: a library's by its name, one under the current folder relative to it."""
    shown = shown_path(path)
    if Path(shown).is_absolute() and Path(shown).is_relative_to(Path.cwd()):
        return str(Path(shown).relative_to(Path.cwd()))
    return shown


def _importers_of_file(model: Model, path: Path) -> list[Importer]:
    """Every alias of the open sheet's graph whose instance is the file at `path`."""
    aliases = {cell.scope.prefix[:-1] for cell in model.cells.values()
               if cell.scope.prefix and instance_file(cell) == path}
    found: dict[str, Importer] = {}
    for alias in sorted(aliases):
        for importer in sharing_importers(model, alias):
            found.setdefault(importer.alias, importer)
    return list(found.values())
