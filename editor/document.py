"""The editing model behind `supersheet edit`: one open sheet as a document.

The UI drives a `Document`: it applies the raw text of one cell ("80 GB",
"= weights / cards -> GB"), re-checks and re-evaluates only what depends on the
cell, keeps the last good values when an edit does not check, records edits of
imported cells as `use: … set:` overrides in this sheet, undoes and redoes, and
saves back so that an unchanged sheet is byte-identical and changing one value
changes one line.

Two ways an edit is applied:

* a literal of the same type on an input (the common case): the YAML scalar is
  replaced in place and `evaluate.reevaluate` recomputes the dependents — no
  reparsing, no re-checking;
* anything else (a formula, a new unit, a new override): the cell is written
  into the YAML document (cellwrite.py), the document's text reloaded,
  checked, and the dependents of the cell re-evaluated. If the edit brings a
  new problem, the document is restored and the problems are returned with
  their CLI rendering (the span marked in the unsaved text).

Around it: roundtrip.py keeps the file's text and writes it back (three-way
merge, atomic write, external changes), history.py the undo and redo steps,
structure.py the structural edits (add, duplicate, rename, delete a cell),
importedits.py those of `use:` (swap, add, remove an import, its `set:` entries),
view.py what the UI reads of the sheet (cells, values, problems, groups,
sweeps), results.py what an edit reports, recheck.py the values and problems after the
text changed, sections.py the grid's groups, sweep.py the sweeps on unsaved
values.
Pure Python: no UI imports.
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from supersheet.editor import importers
from supersheet.editor.baselines import workbook_from_text
from supersheet.editor.cells import StructureError
from supersheet.editor.cellwrite import Refused, node_at, scalar_path, set_at, write_cell
from supersheet.editor.history import FileEdit, History, Step
from supersheet.editor.importedits import ImportEdits
from supersheet.editor.library import library_dir, running_example
from supersheet.editor.merge import three_way
from supersheet.editor.places import Place
from supersheet.editor.properties import PROPERTIES, set_property
from supersheet.editor.recheck import evaluate_dependents, new_problems, type_note
from supersheet.editor.recovery import Edited
from supersheet.editor.results import Change, EditResult, changes
from supersheet.editor.roundtrip import SheetText, Unmergeable, detect_indent, scalar_for
from supersheet.editor.safesave import ExternalChange, FileDeleted, SaveRefused, Unreadable, Written
from supersheet.editor.sections import Section
from supersheet.editor.shared import SharedEdits, instance_file, library_refusal, sharing_importers
from supersheet.editor.structure import StructureEdits
from supersheet.editor.sweep import SweepRun
from supersheet.editor.view import SheetView
from supersheet.engine.base.diagnostics import render
from supersheet.engine.base.vocabulary import is_formula
from supersheet.engine.check.check import with_literal
from supersheet.engine.compile.evaluate import Scenario, affected_cells, error_code, reevaluate
from supersheet.engine.expect.expect import Outcome
from supersheet.engine.formula import ast as A
from supersheet.engine.formula.parser import ParseError, parse_formula
from supersheet.engine.load.model import CONDITIONS
from supersheet.engine.workbook import OverrideError, Workbook, parse_literal_for

__all__ = ["FILE", "Change", "Document", "EditResult", "ExternalChange", "FileDeleted", "MergeConflict", "Place",
           "SaveRefused",
           "Section", "Unreadable", "Written", "StructureError", "SweepRun", "detect_indent",
           "error_code", "library_dir", "running_example"]


FILE = ""     # the key of a step that changed the whole file (a reload), not one cell


@functools.lru_cache(maxsize=32)
def _parsed(text: str) -> A.Formula:
    """A typed text's formula: an edit reads it twice (`_keep_unit`, then the model's new
    text), and the tree is immutable. A ParseError is raised again each time (not kept)."""
    return parse_formula(text)


class MergeConflict(Exception):
    """Unsaved edits and changes on disk touch the same lines."""


# -- the document ---------------------------------------------------------------
class Document(StructureEdits, ImportEdits, SheetView):
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.history = History()
        self._failing: tuple[Workbook, Scenario, dict[str, list[Outcome]]] | None = None
        self._unchecked = None      # the expectations that cannot be checked, per layout (view.py)
        self._diagnostics = None    # all of them, per workbook and values (view.py)
        # what the grid's rows are drawn from besides the values — the cells, their
        # groups, formulas, units and digits, the problems checking found: a new
        # object whenever the text is checked again. An in-place edit of an input's
        # value (_apply_scalar) keeps it, so the UI redraws only the rows whose texts
        # changed instead of every row (tui/app.py's after_edit)
        self.layout: object = object()
        self.shared = SharedEdits(type(self))   # imported files edited through a shared instance's cell
        self._read()

    # loading ------------------------------------------------------------------
    def _read(self) -> None:
        self.source = SheetText(self.path)
        self.history.clear()
        self.shared.clear()
        self.workbook = workbook_from_text(self.path, self.source.original)
        self.scenario = self.workbook.evaluate()
        self.layout = object()

    def reload(self) -> None:
        """Read the file again, dropping unsaved edits and the undo history."""
        self._read()

    def take_disk(self, keep_mine: bool = False) -> EditResult:
        """Take the file as it now is on disk — with the unsaved edits merged on
        top when `keep_mine`. Raises `MergeConflict` when keeping them and they
        and the file's changes touch the same lines.

        Undo never reverts what changed on disk: the history starts again here
        (earlier steps were made on another text), and its one step is the
        unsaved edits merged on top of the file on disk — Ctrl+Z after a reload
        puts them back there, Ctrl+Z after keeping them takes them off. When
        they cannot be merged there is no step: a reload drops them."""
        base, ours = self.source.original, self.text()
        fresh = SheetText(self.path)
        disk = fresh.original
        merged = three_way(base, ours, disk) if ours != base else disk
        if keep_mine and merged is None:
            raise MergeConflict(f"{self.path}: your edits and the changes on disk touch the same lines")
        target = merged if keep_mine else disk
        assert target is not None
        self.source = fresh
        if target != disk:
            fresh.restore(target)
        label = "your edits on the file on disk" if keep_mine else "the file on disk"
        result = self.rebuild(FILE, label, target)
        self.history.clear()
        if merged is not None and merged != disk:
            if keep_mine:
                self.history.push(Step(FILE, "the file on disk", label, text_before=disk, text_after=merged))
            else:
                self.history.push(Step(FILE, "your unsaved edits on the file on disk", label,
                                       text_before=merged, text_after=disk))
                self.history.mark_saved()
        return result

    def recover(self, text: str, base: str, imported: dict[Path, Edited] | None = None) -> EditResult:
        """Put a recovery file's unsaved `text`, edited from `base`, in the
        editor as one step Ctrl+Z takes back (saving writes it). When the file
        changed on disk since `base`, the edits are merged on top of it, so
        recovering never reverts those changes; when they touch the same
        lines, the recovered text is taken whole (the offer's diff shows it).
        The unsaved edits of `imported` files (a shared instance's cells,
        shared.py) come back into the session the same way, in the same step;
        a file this sheet no longer shares, or may not edit, is left out and named."""
        before = self.text()
        self.source.restore(_merged(base, text, before))
        self.rebuild(FILE, "the recovered edits", self.text())
        edits, left_out = [], []
        for path, edited in (imported or {}).items():
            if not self._shares_file(path):
                left_out.append(path.name)
                continue
            current = self.shared.document(path).text()
            edits.append(FileEdit(path, current, _merged(edited.base, edited.text, current)))
            self.shared.restore(edits[-1], backwards=False)
        result = self.rebuild(FILE, "the recovered edits", self.text())
        if self.text() != before or edits:      # else nothing came back: no step to undo
            self.history.push(Step(FILE, "the file on disk", "the recovered edits", text_before=before,
                                   text_after=self.text(), imported=tuple(edits)))
        result.note = "; ".join(
            ([f"unsaved edits of {', '.join(e.path.name for e in edits)} too (Ctrl+S asks before writing them)"]
             if edits else [])
            + ([f"left out the edits of {', '.join(left_out)}: this sheet does not share it any more, "
                "or may not edit it"] if left_out else []))
        return result

    def _shares_file(self, path: Path) -> bool:
        """Whether `path` holds a shared instance of this sheet's graph that may be edited here."""
        return any(instance_file(cell) == path and self.shared_instance(key)
                   and library_refusal(self.path, path) is None
                   for key, cell in self.workbook.model.cells.items())

    def unsaved_imports(self) -> dict[Path, Edited]:
        """The imported files edited here and not written, with the text each was read as
        (what a recovery file keeps beside this sheet's text)."""
        return {path: Edited(self.shared.files[path].text(), self.shared.files[path].source.original)
                for path in self.shared.pending()}

    # state --------------------------------------------------------------------
    @property
    def dirty(self) -> bool:
        return self.history.dirty or bool(self.shared.pending())

    @property
    def can_undo(self) -> bool:
        return bool(self.history.undo_stack)

    @property
    def can_redo(self) -> bool:
        return bool(self.history.redo_stack)

    def editable(self, key: str) -> str | None:
        """None when the cell can be edited here, else why not."""
        cell = self.workbook.model.cells.get(key)
        if cell is None:
            return f"no cell {key!r}"
        if not isinstance(self.source.doc, CommentedMap):
            return "the file is not a sheet that can be edited (see the diagnostics)"
        alias = cell.scope.prefix[:-1]
        table = self.workbook.model.tables.get(alias)
        if table is not None:
            return f"{key} is a column of table {alias}: edit {table.path} (the sheet reads it when it loads)"
        if self.shared_instance(key):
            if cell.kind in ("check", "assume"):
                return f"{key} is {'a check' if cell.kind == 'check' else 'an assumption'} of an imported sheet"
            file = instance_file(cell)
            return library_refusal(self.path, file) if file is not None else f"{key} has no file of its own"
        if cell.scope.prefix.count(".") > 1:
            outer = cell.scope.prefix.split(".")[0]
            return (f"{key} is imported by {outer}'s own import: `set:` can override only the cells of "
                    f"{outer}; edit the cell of {outer} that uses it, or open {cell.spec.span.file}")
        if cell.scope.prefix and cell.kind in ("check", "assume"):
            what = "a check" if cell.kind == "check" else "an assumption"
            return f"{key} is {what} of an imported sheet; `set:` overrides cells only"
        return None

    def shared_instance(self, key: str) -> list[str]:
        """The aliases that reach the instance holding `key`, when more than one does (format
        10.3: the file is imported without `set:` more than once): an edit of the cell is an
        edit of that file, which all of them read. [] for any other cell."""
        alias = self.cell(key).scope.prefix[:-1]
        model = self.workbook.model
        return [alias, *model.sharers(alias)] if alias and model.sharers(alias) else []

    def instance_importers(self, key: str) -> list[tuple[str, Path]]:
        """Each alias of `key`'s shared instance with the sheet whose `use:` writes it."""
        alias = self.cell(key).scope.prefix[:-1]
        return [(i.alias, i.sheet) for i in sharing_importers(self.workbook.model, alias)] if alias else []

    def imported_edit(self, key: str) -> Path | None:
        """The imported file when `key`'s value here is an unsaved edit of it (not what the file says)."""
        return self.shared.unsaved(self.cell(key)) if self.shared.files else None

    # editing ------------------------------------------------------------------
    def apply(self, key: str, text: str) -> EditResult:
        """Set a cell's raw text. Refused (nothing changes) when it brings a new problem."""
        text = text.strip()
        reason = self.editable(key)
        if reason:
            return EditResult(False, key, text, message=reason)
        if not text:
            return EditResult(False, key, text, message="a cell needs a value or a formula")
        text, note = self._keep_unit(key, text)
        result = self._apply_shared(key, text) if self.shared_instance(key) else self._apply(key, text)
        result.note = "; ".join(n for n in (note, result.note) if n) if result.ok else ""
        return result

    def _keep_unit(self, key: str, text: str) -> tuple[str, str]:
        """A bare number typed into a cell that holds a quantity means that
        quantity in the cell's unit (`16384` into `context` is `16384 token`),
        not a number of another dimension; the note says so."""
        checked = self.workbook.checked.cells.get(key)
        kind = checked.type if checked is not None else None
        if checked is None or kind is None or kind.kind != "number" or not kind.dims or kind.is_array \
                or not checked.display_unit:
            return text, ""
        try:
            expr = _parsed(text).expr
        except ParseError:
            return text, ""
        if not isinstance(expr, A.Number) or expr.unit is not None:
            return text, ""
        unit = checked.display_unit
        return f"{text} {unit}", f"{text} has no unit: kept {key}'s unit, {text} {unit}"

    def _apply(self, key: str, text: str) -> EditResult:
        before = self.raw_text(key)
        if text == before:
            return EditResult(True, key, text)
        fast = self._fast_node(key, text)
        step: Step | None
        if fast is not None:
            path, node = fast
            current = node_at(self.source.doc, path)
            step = Step(key, before, text, path, current, scalar_for(text, current, self.source.yaml))
            result = self._apply_scalar(step, step.new_node, text, node)
        else:
            result, step = self._apply_structure(key, before, text)
        if result.ok and step is not None:
            self.history.push(step)
        return result

    def _apply_shared(self, key: str, text: str) -> EditResult:
        """An edit of a shared instance's cell: written into the imported file (checked as that
        file by a document of its own), then this sheet built again with that text, so that
        every importer of the instance follows. The file is written only on save."""
        cell = self.cell(key)
        before = self.raw_text(key)
        if text == before:
            return EditResult(True, key, text)
        path = instance_file(cell)
        assert path is not None
        imported = self.shared.document(path)
        text_before = imported.text()
        done = imported.apply(cell.name, text)
        if not done.ok:
            return EditResult(False, key, text, diagnostics=done.diagnostics, rendered=done.rendered,
                              message=f"{path.name}: {done.message}" if done.message else "")
        edit = FileEdit(path, text_before, imported.text())
        result = self.rebuild(key, text, self.text(), check_new=True)
        if not result.ok:
            self.shared.restore(edit, backwards=True)
            return result
        self.history.push(Step(key, before, text, text_before=self.text(), text_after=self.text(), imported=(edit,)))
        result.note = self.shared_note(key)
        return result

    def shared_note(self, key: str) -> str:
        """What the status line says of a shared instance's cell edited here."""
        file = self.imported_edit(key)
        if file is None:
            return ""
        return (f"an unsaved edit of {file.name}, which {', '.join(self.shared_instance(key))} share "
                "(every importer follows; Ctrl+S asks before writing it)")

    def undo(self) -> EditResult | None:
        step = self.history.back()
        return self._replay(step, backwards=True) if step is not None else None

    def redo(self) -> EditResult | None:
        step = self.history.forward()
        return self._replay(step, backwards=False) if step is not None else None

    def _replay(self, step: Step, backwards: bool) -> EditResult:
        text = step.before if backwards else step.after
        if step.path is not None:
            node = parse_literal_for(self.workbook, step.key, text)
            return self._apply_scalar(step, step.old_node if backwards else step.new_node, text, node)
        target = step.text_before if backwards else step.text_after
        assert target is not None
        for edit in reversed(step.imported) if backwards else step.imported:
            self.shared.restore(edit, backwards)
        self.source.restore(target)
        result = self.rebuild(step.key, text, target)
        result.label = step.label
        if step.imported and step.key == FILE:     # a recovery's step
            names = ", ".join(edit.path.name for edit in step.imported)
            result.note = f"the unsaved edits of {names} {'taken back' if backwards else 'put back'}"
        elif step.imported:
            result.note = self.shared_note(step.key) or f"{step.key} is as {step.imported[0].path.name} says again"
        if step.files:      # the other sheets the step wrote (a rename's importers): on disk, at once
            written, skipped = importers.rewrite(step.files, backwards)
            result.note = "; ".join(([f"wrote {', '.join(p.name for p in written)} back"] if written else [])
                                    + [f"not written: {s}" for s in skipped])
        return result

    def _fast_node(self, key: str, text: str) -> tuple[tuple, Any] | None:
        """The in-place path and literal node when `text` is a same-typed literal on an input."""
        cell = self.cell(key)
        if cell.kind != "input" or is_formula(text):
            return None
        path = scalar_path(self.source.doc, self.workbook.model.root, cell)
        if path is None or path[-1] == "formula":
            return None
        try:
            node = parse_literal_for(self.workbook, key, text)
        except OverrideError:
            return None
        current = node_at(self.source.doc, path)
        if isinstance(current, CommentedMap) or (isinstance(current, CommentedSeq) and not text.startswith("[")):
            return None
        return path, node

    def _apply_scalar(self, step: Step, yaml_node: Any, text: str, literal: Any) -> EditResult:
        assert step.path is not None
        before = node_at(self.source.doc, step.path)
        set_at(self.source.doc, step.path, yaml_node)
        line, nested = self._line_of(step)
        if not self.source.replace_scalar(line, step.path[-1], before, yaml_node, nested):
            self.source.changed()
            try:
                self.source.text()       # the line it writes: refused when other lines would be reformatted
            except Unmergeable as e:
                set_at(self.source.doc, step.path, before)
                self.source.changed()
                return EditResult(False, step.key, text, message=str(e))
        model = self.workbook.model.with_text(step.key, text, _parsed(text))
        self.workbook = Workbook(model, with_literal(self.workbook.checked, model, step.key))
        old = self.scenario
        self.scenario, recomputed = reevaluate(Scenario(self.workbook.checked, old.values, old.fixed),
                                               {step.key: literal})
        among = affected_cells(self.workbook.checked, [step.key])   # no other value can have changed
        return EditResult(True, step.key, text, changes(old.values, self.scenario.values, among), recomputed)

    def _line_of(self, step: Step) -> tuple[int, bool]:
        """The line of the cell whose scalar `step` changes (0: not known), and whether
        the scalar is under it (`value:` of the long form) rather than on it."""
        cell = self.cell(step.key)
        spec = cell.set_by or cell.spec
        if spec.span.file != self.file or not step.path or cell.name not in step.path[-2:]:
            return 0, False
        return spec.span.line, step.path[-1] != cell.name

    def _apply_structure(self, key: str, before: str, text: str) -> tuple[EditResult, Step | None]:
        text_before = self.text()
        source = self.source
        try:
            write_cell(source.doc, self.workbook.model.root, self.cell(key), text, source.yaml, self.path)
        except Refused as e:
            source.restore(text_before)
            return EditResult(False, key, text, message=str(e)), None
        try:
            text_after = source.merged()
        except Unmergeable as e:
            source.restore(text_before)
            return EditResult(False, key, text, message=str(e)), None
        result = self.rebuild(key, text, text_after, check_new=True)
        if not result.ok:
            source.restore(text_before)
            return result, None
        return result, Step(key, before, text, text_before=text_before, text_after=text_after)

    def override_inherited(self, key: str, value: str, properties: dict[str, str]) -> EditResult:
        """A cell this sheet inherits with `extends`, written into its own `cells:` with
        `value` and these unit, digits, doc and source ("" for none): a variant's cell
        replaces its base's by name, all of it. One undo step; the base file is not
        written. Nothing is written when neither differs from what the base has."""
        cell = self.cell(key)
        if cell.scope.prefix or cell.kind in CONDITIONS or cell.spec.span.file == self.file:
            raise StructureError(f"{key} is not a cell this sheet inherits with extends")
        value, before = value.strip(), self.raw_text(key)
        wanted = {prop: properties.get(prop, "").strip() for prop in PROPERTIES}
        if value == before and wanted == self.home_properties(key):
            return EditResult(True, key, "", message=f"{key}: nothing changed; nothing written")
        text_before = self.text()
        result, _ = self._apply_structure(key, before, value)     # its own cell now, the base's unit and digits kept
        if not result.ok:
            return result
        try:
            text = self.text()
            current = self.properties(key)
            for prop in (p for p in PROPERTIES if wanted[p] != current[p]):
                text = set_property(text, key, prop, wanted[prop], detect_indent(text)[0])
            final = self.rebuild(key, value, text, check_new=True) if text != self.text() else result
        except StructureError:
            self.source.restore(text_before)
            self.rebuild(key, before, text_before)
            raise
        if not final.ok:
            self.source.restore(text_before)
            self.rebuild(key, before, text_before)
            return final
        self.source.restore(text)
        label = f"{key} written in this sheet (over the base's)"
        self.history.push(Step(key, label, label, text_before=text_before, text_after=text, label=label))
        result.text = label
        return result

    def rebuild(self, key: str, text: str, new_text: str, check_new: bool = False) -> EditResult:
        old_wb, old = self.workbook, self.scenario
        wb = workbook_from_text(self.path, new_text, self.shared.texts())
        if check_new:
            problems = new_problems(old_wb.diagnostics, wb.diagnostics)
            if problems:
                note = type_note(old_wb, wb, key)
                sources = self.sources(new_text)
                rendered = "\n\n".join(render(d, sources) for d in problems)
                return EditResult(False, key, text, diagnostics=problems, rendered=rendered, message=note)
        self.workbook = wb
        self.layout = object()
        self.source.changed(new_text)
        self.scenario, recomputed = evaluate_dependents(old_wb, old, wb, key)
        return EditResult(True, key, text, changes(old.values, self.scenario.values), recomputed)

    # saving ---------------------------------------------------------------------
    def disk_changed(self) -> bool:
        """Whether the file on disk differs from what was read or last saved."""
        return self.source.disk_changed()

    def save(self, force: bool = False) -> Written | None:
        """Write the sheet back; None when nothing needed writing, else what
        else the write did (`Written.kept`: another program wrote the file
        during the save, and its version was kept there).

        Raises `FileDeleted` / `ExternalChange` when the file was deleted or
        changed on disk since it was read, unless `force` (the user chose to
        recreate or overwrite it), and `SaveRefused` for a read-only or
        hard-linked file."""
        written = self.source.save(force)
        self.history.mark_saved()
        return written

    def imported_edits(self) -> str:
        """The imported files a save would also write: each with its cells old -> new and the
        sheets of this graph that import it (what the question before writing them says)."""
        return self.shared.describe(self.workbook.model)

    def save_imported(self, force: bool = False) -> list[tuple[Path, Written | None]]:
        """Write the imported files edited through a shared instance's cell (`shared.pending()`):
        raises as `save` does, for the first that cannot be written (those before it are written)."""
        return self.shared.save(force)


def _merged(base: str, text: str, now: str) -> str:
    """`text` (edited from `base`) on top of `now`: merged when `now` moved on from `base`,
    taken whole when both touch the same lines."""
    if base == now:
        return text
    merged = three_way(base, text, now)
    return merged if merged is not None else text
