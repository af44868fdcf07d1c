"""The structural edits of a document: add a cell after another (in its
group), duplicate, rename, delete one of the sheet's own cells, set its unit,
digits, doc and source. Each is a new
text of the sheet (cells.py, rename.py, properties.py write it line by line, so comments and
layout stay), checked like any edit and recorded as one undo step. A mixin of
`Document` (document.py). Pure Python: no UI imports.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from supersheet.editor import cells as editcells, expectations, importers, rename as editrename, saveas as editsaveas
from supersheet.editor.properties import PROPERTIES, set_property
from supersheet.editor.baselines import workbook_from_text
from supersheet.editor.cells import StructureError
from supersheet.editor.history import FileEdit, Step
from supersheet.editor.results import EditResult
from supersheet.editor.roundtrip import detect_indent
from supersheet.engine.load.model import CONDITIONS

if TYPE_CHECKING:
    from supersheet.editor.history import History
    from supersheet.editor.roundtrip import SheetText
    from supersheet.engine.base.span import Span
    from supersheet.engine.load.sheetfile import CellSpec
    from supersheet.engine.workbook import Workbook


class StructureEdits:
    """Mixed into Document: needs its workbook, source, history, path, file, text(),
    rebuild(), and what SheetView reads of the sheet (has_cell(), dependents())."""

    workbook: Workbook
    source: SheetText
    history: History
    path: Path
    shared_instance: Callable[[str], list[str]]

    if TYPE_CHECKING:       # Document's (and its other mixins'), which these edits use
        @property
        def file(self) -> str: ...
        def text(self) -> str: ...
        def rebuild(self, key: str, text: str, new_text: str, check_new: bool = False) -> EditResult: ...
        def has_cell(self, key: str) -> bool: ...
        def dependents(self, key: str) -> list[str]: ...

    def own_line(self, key: str) -> int:
        """The line of a cell written in this sheet's `cells:`; StructureError for any other."""
        cell = self.workbook.model.cells.get(key)
        if cell is None:
            raise StructureError(f"no cell {key!r}")
        if cell.scope.prefix or cell.kind in CONDITIONS or cell.spec.span.file != self.file:
            what = ("an imported sheet's cell" if cell.scope.prefix else "a check" if cell.kind == "check"
                    else "an assumption" if cell.kind == "assume" else "the base sheet's cell")
            raise StructureError(f"{key} is {what}; select one of this sheet's own cells")
        return cell.spec.span.line

    def home_of(self, key: str) -> tuple[Path, str] | None:
        """Where a cell of another sheet is written — an imported cell, or one this
        sheet inherits with `extends` — as that sheet's path and the cell's name
        there (its unit, digits, doc and source live there, not here); None for
        this sheet's own cells and for checks and assumptions."""
        cell = self.workbook.model.cells.get(key)
        if cell is None or cell.kind in CONDITIONS:
            return None
        if not cell.scope.prefix and cell.spec.span.file == self.file:
            return None
        return Path(cell.spec.span.file), cell.name

    def add_cell(self, after: str, name: str, text: str) -> EditResult:
        """A new cell (a value or `= formula`) right after `after`, in its group."""
        editcells.check_name(name, self.workbook.model.cells)
        if not text.strip():
            raise StructureError("a cell needs a value or a formula")
        new = editcells.add_after(self.text(), self.own_line(after), name, text)
        return self.restructure(name, f"added {name}", new)

    def duplicate_cell(self, key: str, name: str) -> EditResult:
        editcells.check_name(name, self.workbook.model.cells)
        new = editcells.duplicate(self.text(), self.own_line(key), key, name)
        return self.restructure(name, f"duplicated {key} as {name}", new)

    def rename_cell(self, key: str, name: str) -> EditResult:
        """Rename one of this sheet's cells and every reference to it in this sheet (one undo step)."""
        self.own_line(key)
        editcells.check_name(name, self.workbook.model.cells)
        new = editrename.rename(self.text(), key, name)
        if key in workbook_from_text(self.path, new).model.cells:
            raise StructureError(f"{key} overrides the base sheet's {key}: renamed, the base's value "
                                 "would come back; rename it in the base sheet")
        return self.restructure(name, f"renamed {key} to {name}", new)

    def importers_of(self, old: str, new: str) -> list[importers.Update]:
        """The other sheets that name this sheet's `old` (importing or extending it), each
        as it would read with `old` renamed `new`; nothing is written (importers.py)."""
        return importers.plan(self.path, old, new)

    @property
    def last_step(self) -> Step | None:
        """The step of the last edit (what Ctrl+Z would undo)."""
        return self.history.undo_stack[-1] if self.history.undo_stack else None

    def update_importers(self, updates: list[importers.Update], step: Step | None = None
                         ) -> tuple[list[Path], list[str]]:
        """Write the renamed importing sheets (separate files, saved now); the paths
        written and why the others were not. They become part of the rename's undo
        `step` (the last one when not given; while it can still be undone): Ctrl+Z
        writes them back as they were, Ctrl+Y renamed again (importers.rewrite)."""
        step = step if step is not None else self.last_step
        written, skipped = importers.apply(updates)
        if step is not None and any(step is s for s in self.history.undo_stack):
            step.files += tuple(FileEdit(u.path, u.before, u.after) for u in updates
                                if u.path in written and u.after is not None)
        elif written:
            skipped.append("the rename can no longer be undone here (the file was reloaded): "
                           "the updated sheets stay as they are")
        return written, skipped

    def users(self, key: str) -> list[str]:
        """What names one of this sheet's cells: the cells computed from it, then each
        other place that names it (`expect (line 103)`, `sweeps (line 40)`); deleting the
        cell leaves each of them a diagnostic."""
        self.own_line(key)
        named = editrename.references(self.text(), key)
        named += [(e.path[0], e.line) for e in self.expectations_of(key) if (e.path[0], e.line) not in named]
        return self.dependents(key) + [f"{section} (line {line})" for section, line in sorted(named, key=lambda n: n[1])]

    def delete_cell(self, key: str, force: bool = False, expectations_too: bool = False) -> EditResult:
        """Delete a cell; refused (with what names it) unless `force`, which
        leaves those as diagnostics. `expectations_too`: the entries of `expect`
        (the sheet's, its sweeps' and choices') about the cell go with it, in the
        same undo step (`expectations_of` lists them)."""
        line = self.own_line(key)
        users = self.users(key)
        if users and not force:
            return EditResult(False, key, "", message=f"{key} is used by {', '.join(users)}")
        text = editcells.delete(self.text(), line)
        label = f"deleted {key}"
        if expectations_too:
            gone = expectations.naming(text, key)
            text = expectations.remove(text, gone)
            if gone:
                label += f" and {_entries(len(gone))} about it"
        return self.restructure(key, label, text, check=not force)

    def expectations_of(self, key: str) -> list[expectations.ExpectEntry]:
        """The entries of `expect` (the sheet's, its sweeps' and choices') about a cell."""
        return expectations.naming(self.text(), key)

    def expectation_at(self, span: Span | None) -> expectations.ExpectEntry | None:
        """The `expect` entry a diagnostic points into (in this sheet), if any."""
        if span is None or span.file != self.file:
            return None
        return expectations.entry_at(self.text(), span.line, span.col)

    def remove_expectations(self, removed: list[expectations.ExpectEntry]) -> EditResult:
        """Remove entries of `expect` as one undo step; a mapping left empty goes with its key."""
        text = expectations.remove(self.text(), removed)
        cells = {e.cell for e in removed}
        key = next(iter(cells)) if len(cells) == 1 and self.has_cell(next(iter(cells))) else ""
        label = (f"removed {removed[0].label}" if len(removed) == 1
                 else f"removed {_entries(len(removed))}")
        return self.restructure(key, label, text)

    def properties(self, key: str) -> dict[str, str]:
        """The unit (a formula's `-> unit` or `unit:`), digits, doc and source of one of
        this sheet's own cells, as text ("" for none)."""
        self.own_line(key)
        return written_properties(self.workbook.model.cells[key].spec)

    def home_properties(self, key: str) -> dict[str, str]:
        """The same of a cell of another sheet (`home_of`), as written there: read-only
        here, since an importing sheet can override a cell's value, not these."""
        return written_properties(self.workbook.model.cells[key].spec)

    def override_how(self, key: str) -> str:
        """Where this sheet writes a value it gives a cell of another sheet: a `set:` of
        its import, or (inherited with `extends`) a cell of its own of the same name."""
        cell = self.workbook.model.cells[key]
        shared = self.shared_instance(key)
        if shared and cell.scope.path is not None:     # format 10.3: never a `set:` that splits the instance
            return (f"an edit of {cell.scope.path.name} itself, which {', '.join(shared)} share "
                    "(Ctrl+S asks before writing it)")
        if cell.scope.prefix:
            return f"`use: {cell.scope.prefix[:-1]} … set: {cell.name}`"
        return f"`cells: {cell.name}`, which replaces the base's"

    def set_properties(self, key: str, values: dict[str, str]) -> EditResult:
        """Set some of a cell's unit, digits, doc and source ("" removes one) as one
        undo step; only the lines that hold them change (properties.py)."""
        current = self.properties(key)
        changed = [prop for prop, value in values.items() if value.strip() != current.get(prop)]
        if not changed:
            return EditResult(True, key, "", message=f"{key}: nothing changed")
        text, step = self.text(), detect_indent(self.text())[0]
        for prop in changed:
            text = set_property(text, key, prop, values[prop], step)
        label = "; ".join(f"{prop} of {key} {current[prop] or '(none)'} → {values[prop].strip() or '(none)'}"
                          for prop in changed)
        return self.restructure(key, label, text)

    def save_as(self, target: Path) -> Path:
        """The sheet with its edits written to the new file `target` (saveas.py)."""
        return editsaveas.save_as(self.workbook, self.path, self.text(), target)

    def restructure(self, key: str, label: str, new_text: str, check: bool = True) -> EditResult:
        """Take `new_text` as the sheet (one undo step); refused when `check` and it brings a new problem."""
        before = self.text()
        result = self.rebuild(key, label, new_text, check_new=check)
        if result.ok:
            self.source.restore(new_text)
            self.history.push(Step(key, label, label, text_before=before, text_after=new_text, label=label))
        return result


def _entries(count: int) -> str:
    return f"{count} expect entr{'y' if count == 1 else 'ies'}"


def written_properties(spec: CellSpec) -> dict[str, str]:
    """A cell's unit (a formula's `-> unit` or `unit:`), digits, doc and source as written, "" for none."""
    unit = (spec.formula.display_unit if spec.formula is not None else None) or spec.unit
    values = {"unit": unit, "digits": spec.digits, "doc": spec.doc, "source": spec.source}
    return {prop: "" if values[prop] is None else str(values[prop]).strip() for prop in PROPERTIES}
