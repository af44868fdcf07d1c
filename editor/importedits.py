"""What the editor changes in a sheet's `use:`: swap the sheet an import names,
add an import, remove one, and write or remove the `set:` entries of one. Each
is a new text of the sheet checked like any edit and recorded as one undo step;
imports.py finds the sheets and writes the lines, cellwrite.py the `set:`
entries (one changed line in a one-line entry). A mixin of `Document`
(document.py). Pure Python: no UI imports.

Format 10.3: an import without `set:` is the one instance of its file that every
other import of it without `set:` shares; with `set:` it is an instance of its
own. So the first entry written into a shared import splits it from the others
(`shares` says which, for the question to name them), and removing its last
entry makes it shared again.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from supersheet.editor import imports as editimports
from supersheet.editor.baselines import workbook_from_text
from supersheet.editor.cells import StructureError
from supersheet.editor.cellwrite import Refused, remove_set, write_set
from supersheet.editor.history import Step
from supersheet.editor.recheck import new_problems
from supersheet.editor.results import EditResult, assignment
from supersheet.editor.roundtrip import Unmergeable
from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.load.model import CONDITIONS

if TYPE_CHECKING:
    from pathlib import Path

    from supersheet.editor.history import History
    from supersheet.editor.roundtrip import SheetText
    from supersheet.engine.load.sheetfile import ImportSpec
    from supersheet.engine.workbook import Workbook


class ImportEdits:
    """Mixed into Document: needs its workbook, source, history, path, file, text(),
    rebuild(), restructure() and _keep_unit()."""

    workbook: Workbook
    source: SheetText
    history: History
    path: Path

    if TYPE_CHECKING:       # Document's (and its other mixins'), which these edits use
        @property
        def file(self) -> str: ...
        def text(self) -> str: ...
        def rebuild(self, key: str, text: str, new_text: str, check_new: bool = False) -> EditResult: ...
        def restructure(self, key: str, label: str, new_text: str, check: bool = True) -> EditResult: ...
        def _keep_unit(self, key: str, text: str) -> tuple[str, str]: ...

    # what the sheet imports -------------------------------------------------------
    def own_import(self, alias: str) -> ImportSpec:
        """The import `alias` as this sheet writes it; StructureError for one of the base
        sheet's (`extends`), which is changed there."""
        spec = editimports.root_import(self.workbook, alias)
        if spec.span.file != self.file:
            raise StructureError(f"{alias} is imported by the base sheet ({spec.span.file}): change it there")
        return spec

    def own_imports(self) -> list[tuple[str, str, int, list[str]]]:
        """This sheet's imports (its own, and its base sheet's through `extends`): (alias, the
        sheet as written, how many set: entries, the imports it shares one instance with)."""
        root = self.workbook.model.root
        if root is None:
            return []
        return [(alias, spec.target or "", len(spec.sets), self.shares(alias)) for alias, spec in root.use.items()
                if spec.target is not None]

    def import_target(self, alias: str) -> str:
        """How this sheet's import `alias` names its sheet (StructureError: not an import written as a path)."""
        return editimports.root_import(self.workbook, alias).target or ""

    def import_uses(self, alias: str) -> list[str]:
        """The names this sheet reads through its import `alias` (imports.py)."""
        return editimports.used_names(self.workbook, alias)

    def import_candidates(self, alias: str) -> Callable[[], list[editimports.Candidate]]:
        """The sheets `alias` could import instead (imports.py), to look for off the UI
        thread: on this state of the sheet, which no edit changes (an edit makes a new one)."""
        workbook, path = self.workbook, self.path
        return lambda: editimports.candidates(workbook, path, alias)

    def addable_imports(self) -> Callable[[], list[editimports.Candidate]]:
        """The sheets this sheet could import (the project's, the library's), to list off the UI thread."""
        path = self.path
        return lambda: editimports.addable(path)

    def free_alias(self, written: str) -> str:
        """An alias to propose for a new import of `written` (its file's name, if free)."""
        return editimports.alias_for(written, self.workbook)

    # swap, add, remove ------------------------------------------------------------
    def swap_import(self, alias: str, written: str) -> EditResult:
        """Import another sheet as `alias` (`written` as the `use:` entry will say it):
        one changed line, one undo step. Names the new sheet lacks become diagnostics
        (the picker listed them before)."""
        spec = self.own_import(alias)
        new = editimports.swapped(self.text(), spec, written)
        return self.restructure("", f"{alias} now imports {written}", new, check=False)

    def add_import(self, alias: str, written: str) -> EditResult:
        """Import the sheet `written` (a path relative to this sheet, or a library name)
        as `alias`: one new line in `use:`, one undo step. Refused (StructureError) for
        an alias that is not a free name; refused with the diagnostic when the import
        brings a problem (a loop of imports, a file that is not a sheet)."""
        alias = alias.strip()
        editimports.check_alias(self.workbook, alias)
        new = editimports.with_import(self.text(), alias, written.strip())
        return self.restructure("", f"imported {written.strip()} as {alias}", new)

    def import_users(self, alias: str) -> list[str]:
        """What in this sheet reads through the import `alias` (the cells whose formulas
        name `alias.…`, and each other place: `expect (line 40)`), found as the problems
        the sheet would have without it: removing it leaves each of them a diagnostic."""
        spec = self.own_import(alias)
        without = editimports.without_import(self.text(), spec)
        prefix = alias + "."
        model = self.workbook.model
        cells = [key for key, checked in self.workbook.checked.cells.items()
                 if key in model.cells and not model.cells[key].scope.prefix
                 and any(dep.startswith(prefix) for dep in checked.deps)]
        others: list[str] = []
        for problem in self._problems_of(without):
            span = problem.span
            section = _section_of(without, span.line) if span is not None and span.file == self.file else ""
            place = f"{section} (line {span.line})" if span is not None else ""
            if section and section not in ("cells", "checks", "assume") and place not in others:
                others.append(place)      # the cells (checks, assumptions) are those found above
        return cells + others

    def _problems_of(self, text: str) -> list[Diagnostic]:
        """The problems `text` would have that the sheet has not."""
        return new_problems(self.workbook.diagnostics, workbook_from_text(self.path, text).diagnostics)

    def remove_import(self, alias: str, force: bool = False) -> EditResult:
        """Remove the import `alias` (its lines in `use:`; `use:` with its last one) as one
        undo step. Refused, naming them, while something reads through it, unless
        `force`, which leaves those as diagnostics (F4, F8)."""
        spec = self.own_import(alias)
        users = self.import_users(alias)
        if users and not force:
            return EditResult(False, "", "", message=f"{alias} is used by {', '.join(users)}")
        new = editimports.without_import(self.text(), spec)
        return self.restructure("", f"removed the import {alias} ({spec.target})", new, check=False)

    # set: entries -----------------------------------------------------------------
    def import_key(self, alias: str, name: str) -> str:
        """The key of the cell `name` of the import `alias` as the sheet holds it (an import
        sharing another's instance has its cells under that one's alias: format 10.3)."""
        model = self.workbook.model
        return f"{model.shared.get(alias) or model.twins.get(alias) or alias}.{name}"

    def set_entries(self, alias: str) -> list[tuple[str, str]]:
        """The `set:` entries of the import `alias` (this sheet's, or inherited with `extends`):
        (name, text as written)."""
        return [(name, spec.text) for name, spec in editimports.root_import(self.workbook, alias).sets.items()]

    def settable(self, alias: str) -> list[tuple[str, str]]:
        """The cells a `set:` entry of `alias` can give a value: the imported sheet's own cells
        (not its checks, nor its imports' cells), as (name, their text as written there)."""
        editimports.root_import(self.workbook, alias)
        prefix = self.import_key(alias, "")
        return [(cell.name, cell.spec.text) for key, cell in self.workbook.model.cells.items()
                if cell.scope.prefix == prefix and cell.kind not in CONDITIONS]

    def shares(self, alias: str) -> list[str]:
        """The other imports that share the one instance `alias` is (format 10.3): those a
        first `set:` entry would split it from. Empty for an import with `set:`."""
        model = self.workbook.model
        if editimports.root_import(self.workbook, alias).sets:
            return []
        first = model.shared.get(alias, alias)
        return [a for a in [first, *model.sharers(first)] if a != alias]

    def set_import_value(self, alias: str, name: str, text: str) -> EditResult:
        """Write `text` (a value, or `= formula`) as the `set:` entry `name` of the import
        `alias`, checked like a cell's edit (refused, nothing changed, when it brings a
        problem; a bare number keeps the cell's unit). One undo step; in a one-line
        entry one changed line. The first entry of a shared import splits it (`shares`).
        An import of the base sheet (`extends`) is copied into this sheet's `use:` with it
        (the base is not written), as an edit of one of its cells is."""
        text = text.strip()
        if not text:
            return self.remove_set_entry(alias, name)
        if name not in dict(self.settable(alias)):
            raise StructureError(f"{name!r} is not a cell of {alias}'s sheet that set: can give a value "
                                 "(its own cells, not its checks nor its imports' cells)")
        key = self.import_key(alias, name)
        text, note = self._keep_unit(key, text)
        before = dict(self.set_entries(alias)).get(name, "")
        label = f"{alias}: set {assignment(name, text)}"
        root = self.workbook.model.root
        assert root is not None     # settable() above found the import in it
        result = self._write_sets(key, label, lambda doc: write_set(doc, root, alias, name, text,
                                                                    self.source.yaml, self.path), before, check=True)
        result.note = note if result.ok else ""
        return result

    def remove_set_entry(self, alias: str, name: str) -> EditResult:
        """Take the `set:` entry `name` out of the import `alias` (the cell has the imported
        sheet's value again); one undo step. Its last entry gone, `set:` goes too and the
        import is shared again with the other imports of its file without `set:`. An entry
        of the base sheet's import is removed there."""
        self.own_import(alias)
        before = dict(self.set_entries(alias)).get(name)
        if before is None:
            raise StructureError(f"{alias} has no set: entry {name!r}")
        return self._write_sets(self.import_key(alias, name), f"{alias}: removed set {name} (was {before})",
                                lambda doc: remove_set(doc, alias, name), before, check=False)

    def _write_sets(self, key: str, label: str, write: Callable, before: str, check: bool) -> EditResult:
        text_before = self.text()
        source = self.source
        try:
            write(source.doc)
            text_after = source.merged()
        except (Refused, Unmergeable) as e:
            source.restore(text_before)
            return EditResult(False, key, "", message=str(e))
        result = self.rebuild(key, label, text_after, check_new=check)
        if not result.ok:
            source.restore(text_before)
            return result
        source.restore(text_after)
        self.history.push(Step(key, before, label, text_before=text_before, text_after=text_after, label=label))
        result.text = label
        return result


def _section_of(text: str, line: int) -> str:
    """The top-level key a 1-based line of the sheet lies under (`expect`, `sweeps`)."""
    for written in reversed(text.split("\n")[:line]):
        if written and not written[0].isspace() and not written.startswith("#") and ":" in written:
            return written.split(":", 1)[0]
    return "line"
