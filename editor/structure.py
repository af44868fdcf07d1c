"""The structural edits of a document: add a cell after another (in its
group), duplicate, rename, delete one of the sheet's own cells. Each is a new
text of the sheet (cells.py, rename.py write it line by line, so comments and
layout stay), checked like any edit and recorded as one undo step. A mixin of
`Document` (document.py). Pure Python: no UI imports.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from supersheet.editor import cells as editcells, rename as editrename
from supersheet.editor.baselines import workbook_from_text
from supersheet.editor.cells import StructureError
from supersheet.editor.history import Step
from supersheet.editor.results import EditResult

if TYPE_CHECKING:
    from supersheet.editor.history import History
    from supersheet.editor.roundtrip import SheetText
    from supersheet.engine.workbook import Workbook


class StructureEdits:
    """Mixed into Document: needs its workbook, source, history, text() and rebuild()."""

    workbook: Workbook
    source: SheetText
    history: History

    def own_line(self, key: str) -> int:
        """The line of a cell written in this sheet's `cells:`; StructureError for any other."""
        cell = self.workbook.model.cells.get(key)
        if cell is None:
            raise StructureError(f"no cell {key!r}")
        if cell.scope.prefix or cell.kind == "check" or cell.spec.span.file != self.file:
            where = "an imported sheet's" if cell.scope.prefix else ("a check" if cell.kind == "check"
                                                                   else "the base sheet's")
            raise StructureError(f"{key} is {where} cell; select one of this sheet's own cells")
        return cell.spec.span.line

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

    def delete_cell(self, key: str, force: bool = False) -> EditResult:
        """Delete a cell; refused (with its dependents) unless `force`, which
        leaves them as diagnostics."""
        line = self.own_line(key)
        users = self.dependents(key)
        if users and not force:
            return EditResult(False, key, "", message=f"{key} is used by {', '.join(users)}")
        return self.restructure(key, f"deleted {key}", editcells.delete(self.text(), line), check=not force)

    def restructure(self, key: str, label: str, new_text: str, check: bool = True) -> EditResult:
        """Take `new_text` as the sheet (one undo step); refused when `check` and it brings a new problem."""
        before = self.text()
        result = self.rebuild(key, label, new_text, check_new=check)
        if result.ok:
            self.source.restore(new_text)
            self.history.push(Step(key, label, label, text_before=before, text_after=new_text))
        return result
