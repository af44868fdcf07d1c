"""The editing model behind `supersheet edit`: one open sheet as a document.

The UI drives a `Document`: it applies the raw text of one cell ("80 GB",
"= weights / cards -> GB"), re-checks and re-evaluates only what depends on the
cell, keeps the last good values when an edit does not check, records edits of
imported cells as `use: … set:` overrides in this sheet, undoes and redoes, and
saves back through ruamel round-trip so that an unchanged sheet is
byte-identical and changing one value changes one line.

Two ways an edit is applied:

* a literal of the same type on an input (the common case): the YAML scalar is
  replaced in place and `evaluate.reevaluate` recomputes the dependents — no
  reparsing, no re-checking;
* anything else (a formula, a new unit, a new override): the document is dumped,
  reloaded from that text, checked, and the dependents of the cell re-evaluated.
  If the edit brings a new problem, the document is restored and the problems
  are returned with their CLI rendering (the span marked in the unsaved text).

Saving writes the dumped document merged into the text as it was read (a
three-way line merge), so lines ruamel would format differently are kept
exactly as written. Writes are atomic (temporary file in the same directory,
fsync, rename) and refuse to clobber a file that changed on disk since it was
read (`ExternalChange`). Pure Python: no UI imports.
"""
from __future__ import annotations

import hashlib
import io
import itertools
import math
import os
import re
import stat
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, SingleQuotedScalarString

from .check import check_model
from .diagnostics import Diagnostic, SourceCache, render
from .evaluate import ErrorValue, Scenario, Value, evaluate, reevaluate
from .model import Cell, build_model
from .parser import ParseError, parse_formula
from .span import Span
from .workbook import OverrideError, Workbook, parse_literal_for

BOM = "\ufeff"


class ExternalChange(Exception):
    """The file changed on disk since it was read; saving would clobber it."""


# -- results --------------------------------------------------------------------
@dataclass(frozen=True)
class Change:
    """A value that an edit changed (base-unit magnitudes, as in `Scenario`)."""

    key: str
    old: Value
    new: Value

    @property
    def ratio(self) -> float | None:
        """(new - old) / |old| for numbers; None when there is no such ratio."""
        old, new = self.old, self.new
        if _is_number(old) and _is_number(new) and old != 0 and math.isfinite(old) and math.isfinite(new):
            return (new - old) / abs(old)
        return None

    @property
    def direction(self) -> int:
        """+1 up, -1 down, 0 for a change that is not a number."""
        if _is_number(self.old) and _is_number(self.new):
            return (self.new > self.old) - (self.new < self.old)
        return 0


@dataclass
class EditResult:
    ok: bool
    key: str
    text: str
    changes: dict[str, Change] = field(default_factory=dict)
    recomputed: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    rendered: str = ""            # the diagnostics as the CLI prints them
    message: str = ""             # a one-line reason when the edit is refused outright


@dataclass
class Section:
    """A group of rows in the grid: a titled run of cells, the checks, or an import."""

    id: str
    title: str
    keys: list[str]
    kind: str                     # "cells" | "checks" | "import"
    alias: str = ""


@dataclass
class _Step:
    key: str
    before: str                   # the cell's raw text before and after
    after: str
    path: tuple | None = None     # a scalar replaced in place ...
    old_node: Any = None
    new_node: Any = None
    text_before: str | None = None  # ... or the whole document before and after
    text_after: str | None = None
    id: int = field(default_factory=itertools.count().__next__)


# -- the document ---------------------------------------------------------------
class Document:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.undo_stack: list[_Step] = []
        self.redo_stack: list[_Step] = []
        self._read()

    # loading ------------------------------------------------------------------
    def _read(self) -> None:
        data = self.path.read_bytes()
        self._disk = _fingerprint(self.path, data)
        text = data.decode("utf-8")
        self._bom = text.startswith(BOM)
        text = text.removeprefix(BOM)
        self._crlf = "\r\n" in text
        text = text.replace("\r\n", "\n")
        self._original = text
        self._rt: tuple[YAML, Any, str] | None = None   # the round-trip document, loaded when first needed
        self._text: str | None = text
        self.undo_stack.clear()
        self.redo_stack.clear()
        self._saved_id: int | None = None
        self.workbook = self._build(text)
        self.scenario = self.workbook.evaluate()

    # the round-trip YAML document: loaded on the first edit or save, not to slow opening
    def _round_trip(self) -> tuple[YAML, Any, str]:
        if self._rt is None:
            self._rt = _yaml_for(self._original)
        return self._rt

    @property
    def _yaml(self) -> YAML:
        return self._round_trip()[0]

    @property
    def _doc(self) -> Any:
        return self._round_trip()[1]

    @_doc.setter
    def _doc(self, doc: Any) -> None:
        yaml, _, base = self._round_trip()
        self._rt = (yaml, doc, base)

    @property
    def _base(self) -> str:
        return self._round_trip()[2]

    @_base.setter
    def _base(self, base: str) -> None:
        yaml, doc, _ = self._round_trip()
        self._rt = (yaml, doc, base)

    def _build(self, text: str) -> Workbook:
        model = build_model(self.path, texts={self.path: text})
        return Workbook(model, check_model(model))

    def reload(self) -> None:
        """Read the file again, dropping unsaved edits and the undo history."""
        self._read()

    @property
    def file(self) -> str:
        root = self.workbook.model.root
        return root.file.file if root is not None else str(self.path)

    # state --------------------------------------------------------------------
    @property
    def dirty(self) -> bool:
        top = self.undo_stack[-1].id if self.undo_stack else None
        return top != self._saved_id

    @property
    def can_undo(self) -> bool:
        return bool(self.undo_stack)

    @property
    def can_redo(self) -> bool:
        return bool(self.redo_stack)

    @property
    def title(self) -> str:
        return self.workbook.model.title

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [d for d in self.workbook.diagnostics if d.code != "E-EXPECT"]

    def text(self) -> str:
        """The sheet as it would be saved (newlines normalised to \\n)."""
        if self._text is None:
            self._text = _merge(self._original, self._base, self._dump())
        return self._text

    def sources(self, text: str | None = None) -> SourceCache:
        """Source lines for rendering diagnostics against the unsaved text."""
        return SourceCache({self.file: (text if text is not None else self.text()).splitlines()})

    def render(self, diagnostic: Diagnostic) -> str:
        return render(diagnostic, self.sources())

    def _dump(self) -> str:
        out = io.StringIO()
        self._yaml.dump(self._doc, out)
        return out.getvalue()

    # cells ----------------------------------------------------------------------
    def cell(self, key: str) -> Cell:
        return self.workbook.model.cells[key]

    def raw_text(self, key: str) -> str:
        """What the editor shows: the value or formula as written."""
        cell = self.cell(key)
        return (cell.set_by or cell.spec).text.strip()

    def value(self, key: str) -> Value:
        return self.scenario.values.get(key)

    def precedents(self, key: str) -> list[str]:
        checked = self.workbook.checked.cells.get(key)
        return list(checked.deps) if checked else []

    def dependents(self, key: str) -> list[str]:
        return [k for k, c in self.workbook.checked.cells.items() if key in c.deps]

    def editable(self, key: str) -> str | None:
        """None when the cell can be edited here, else why not."""
        cell = self.workbook.model.cells.get(key)
        if cell is None:
            return f"no cell {key!r}"
        if self._doc is None or not isinstance(self._doc, CommentedMap):
            return "the file is not a sheet that can be edited (see the diagnostics)"
        if cell.scope.prefix.count(".") > 1:
            outer = cell.scope.prefix.split(".")[0]
            return (f"{key} is imported by {outer}'s own import: `set:` can override only the cells of "
                    f"{outer}; edit the cell of {outer} that uses it, or open {cell.spec.span.file}")
        if cell.scope.prefix and cell.kind == "check":
            return f"{key} is a check of an imported sheet; `set:` overrides cells only"
        return None

    def sections(self) -> list[Section]:
        """The grid's groups: own cells split where the file has a blank line or
        comment between them (the comment is the title), the checks, then each
        import under its alias."""
        model = self.workbook.model
        sections: list[Section] = []
        current: Section | None = None
        lines_of: dict[str, list[str]] = {}
        last_file = None
        for cell in model.cells.values():
            if cell.scope.prefix or cell.kind == "check":
                continue
            span = cell.spec.span
            lines = lines_of.get(span.file)
            if lines is None:
                lines = lines_of[span.file] = self._lines_of(span.file)
            brk, title = _group_break(lines, span.line)
            if current is None or brk or span.file != last_file:
                current = Section(f"cells-{len(sections)}", title or ("" if sections else "cells"), [], "cells")
                if span.file != str(self.file) and not title:
                    current.title = f"from {Path(span.file).name}"
                sections.append(current)
            current.keys.append(cell.key)
            last_file = span.file
        for section in sections:
            section.title = section.title or "cells"
        checks = [c.key for c in model.cells.values() if not c.scope.prefix and c.kind == "check"]
        if checks:
            sections.append(Section("checks", "checks", checks, "checks"))
        imports: dict[str, Section] = {}
        for cell in model.cells.values():
            if not cell.scope.prefix:
                continue
            alias = cell.scope.prefix[:-1]
            section = imports.get(alias)
            if section is None:
                path = cell.scope.path
                sheet = model.files.get(path.resolve()) if path else None
                title = f"{alias} · {sheet.title}" if sheet is not None and sheet.title else alias
                section = imports[alias] = Section(f"import-{alias}", title, [], "import", alias)
                sections.append(section)
            section.keys.append(cell.key)
        return sections

    def _lines_of(self, file: str) -> list[str]:
        if file == self.file:
            return (self._text if self._text is not None else self._original).splitlines()
        for path, sheet in self.workbook.model.files.items():
            if sheet.file == file:
                return sheet.text.splitlines()
        return []

    def cell_at(self, span: Span | None) -> str | None:
        """The cell a diagnostic points into (the nearest cell defined above it)."""
        if span is None:
            return None
        best: tuple[int, int, str] | None = None
        for cell in self.workbook.model.cells.values():
            for spec in (cell.set_by, cell.spec):
                if spec is None or spec.span.file != span.file or spec.span.line > span.line:
                    continue
                rank = (spec.span.line, -cell.key.count("."), cell.key)
                if best is None or rank[:2] > best[:2]:
                    best = rank
        if best is None:
            return None
        # not past the end of the cell's block (a problem in `sweeps:` is no cell's)
        lines = self._lines_of(span.file)
        for line in lines[best[0]:span.line - 1]:
            if line[:1] not in ("", " ", "\t", "#", "-"):
                return None
        return best[2]

    # editing ------------------------------------------------------------------
    def apply(self, key: str, text: str) -> EditResult:
        """Set a cell's raw text. Refused (nothing changes) when it brings a new problem."""
        text = text.strip()
        reason = self.editable(key)
        if reason:
            return EditResult(False, key, text, message=reason)
        if not text:
            return EditResult(False, key, text, message="a cell needs a value or a formula")
        before = self.raw_text(key)
        if text == before:
            return EditResult(True, key, text)
        fast = self._fast_node(key, text)
        if fast is not None:
            path, node = fast
            step = _Step(key, before, text, path, self._at(path), _scalar_for(text, self._at(path), self._yaml))
            result = self._apply_scalar(step, step.new_node, text, node)
        else:
            result, step = self._apply_structure(key, before, text)
        if result.ok and step is not None:
            self.undo_stack.append(step)
            self.redo_stack.clear()
        return result

    def undo(self) -> EditResult | None:
        if not self.undo_stack:
            return None
        step = self.undo_stack.pop()
        result = self._replay(step, backwards=True)
        self.redo_stack.append(step)
        return result

    def redo(self) -> EditResult | None:
        if not self.redo_stack:
            return None
        step = self.redo_stack.pop()
        result = self._replay(step, backwards=False)
        self.undo_stack.append(step)
        return result

    def _replay(self, step: _Step, backwards: bool) -> EditResult:
        text = step.before if backwards else step.after
        if step.path is not None:
            node = parse_literal_for(self.workbook, step.key, text)
            return self._apply_scalar(step, step.old_node if backwards else step.new_node, text, node)
        target = step.text_before if backwards else step.text_after
        assert target is not None
        self._doc = _load(self._yaml, target)
        return self._rebuild(step.key, text, target)

    def _fast_node(self, key: str, text: str) -> tuple[tuple, Any] | None:
        """The in-place path and literal node when `text` is a same-typed literal on an input."""
        cell = self.cell(key)
        if cell.kind != "input" or text.startswith("="):
            return None
        path = self._scalar_path(cell)
        if path is None or path[-1] == "formula":
            return None
        try:
            node = parse_literal_for(self.workbook, key, text)
        except OverrideError:
            return None
        current = self._at(path)
        if isinstance(current, CommentedMap) or (isinstance(current, CommentedSeq) and not text.startswith("[")):
            return None
        return path, node

    def _scalar_path(self, cell: Cell) -> tuple | None:
        """Where this cell's value is written in this file, if it is."""
        root = self.workbook.model.root
        doc = self._doc
        if root is None or not isinstance(doc, CommentedMap):
            return None
        if not cell.scope.prefix:
            block = "checks" if cell.kind == "check" else "cells"
            own = root.file.checks if cell.kind == "check" else root.file.cells
            if own.get(cell.name) is not cell.spec or not isinstance(doc.get(block), CommentedMap):
                return None
            node = doc[block].get(cell.name)
            if isinstance(node, CommentedMap):
                return (block, cell.name, "value" if "value" in node else "formula")
            return (block, cell.name)
        alias = cell.scope.prefix[:-1]
        if cell.set_by is None or alias not in root.file.use:
            return None
        entry = doc.get("use", {}).get(alias) if isinstance(doc.get("use"), CommentedMap) else None
        if isinstance(entry, CommentedMap) and isinstance(entry.get("set"), CommentedMap) and cell.name in entry["set"]:
            return ("use", alias, "set", cell.name)
        return None

    def _at(self, path: tuple) -> Any:
        node = self._doc
        for part in path:
            node = node[part]
        return node

    def _set(self, path: tuple, value: Any) -> None:
        self._at(path[:-1])[path[-1]] = value

    def _apply_scalar(self, step: _Step, yaml_node: Any, text: str, literal: Any) -> EditResult:
        assert step.path is not None
        self._set(step.path, yaml_node)
        self._text = None
        cell = self.cell(step.key)
        spec = cell.set_by or cell.spec
        formula = parse_formula(text)
        spec.text, spec.formula = text, formula
        cell.formula = formula
        old = self.scenario
        self.scenario, recomputed = reevaluate(old, {step.key: literal})
        self.workbook = Workbook(self.workbook.model, self.workbook.checked)
        return EditResult(True, step.key, text, _changes(old.values, self.scenario.values), recomputed)

    def _apply_structure(self, key: str, before: str, text: str) -> tuple[EditResult, _Step | None]:
        text_before = self.text()
        try:
            self._write(self.cell(key), text)
        except _Refused as e:
            self._doc = _load(self._yaml, text_before)
            return EditResult(False, key, text, message=str(e)), None
        text_after = _merge(self._original, self._base, self._dump())
        result = self._rebuild(key, text, text_after, check_new=True)
        if not result.ok:
            self._doc = _load(self._yaml, text_before)
            return result, None
        return result, _Step(key, before, text, text_before=text_before, text_after=text_after)

    def _rebuild(self, key: str, text: str, new_text: str, check_new: bool = False) -> EditResult:
        old_wb, old = self.workbook, self.scenario
        wb = self._build(new_text)
        if check_new:
            problems = _new_problems(old_wb.diagnostics, wb.diagnostics)
            if problems:
                note = _type_note(old_wb, wb, key)
                sources = self.sources(new_text)
                rendered = "\n\n".join(render(d, sources) for d in problems)
                return EditResult(False, key, text, diagnostics=problems, rendered=rendered, message=note)
        self.workbook, self._text = wb, new_text
        self.scenario, recomputed = _evaluate_dependents(old_wb, old, wb, key)
        return EditResult(True, key, text, _changes(old.values, self.scenario.values), recomputed)

    def _write(self, cell: Cell, text: str) -> None:
        """Write `text` for `cell` into the YAML document (structural edits)."""
        doc = self._doc
        root = self.workbook.model.root
        assert isinstance(doc, CommentedMap) and root is not None
        is_formula = text.startswith("=")
        body = text[1:].strip() if is_formula else text
        if not cell.scope.prefix:
            if cell.kind == "check":
                checks = _block(doc, "checks")
                checks[cell.name] = _string_like(body, checks.get(cell.name))
                return
            cells = _block(doc, "cells")
            node = cells.get(cell.name) if root.file.cells.get(cell.name) is cell.spec else None
            if isinstance(node, CommentedMap):
                old_key = "value" if "value" in node else "formula"
                new_key = "formula" if is_formula else "value"
                value = (_string_like(body, node[old_key]) if is_formula
                         else _scalar_for(text, node[old_key], self._yaml))
                if old_key == new_key:
                    node[new_key] = value
                else:
                    _rename(node, old_key, new_key, value)
                return
            if node is None and (cell.spec.unit or cell.spec.digits):
                long = CommentedMap()   # an override of an inherited cell keeps its display unit
                long["formula" if is_formula else "value"] = body if is_formula else _scalar_for(text, None, self._yaml)
                for extra in ("unit", "digits"):
                    if getattr(cell.spec, extra):
                        long[extra] = getattr(cell.spec, extra)
                cells[cell.name] = long
                return
            cells[cell.name] = _scalar_for(text, node, self._yaml)
            return
        alias = cell.scope.prefix[:-1]
        uses = _block(doc, "use")
        entry = uses.get(alias) if alias in root.file.use else None
        if entry is None:
            entry = self._inherited_use(alias)
        if isinstance(entry, str):
            entry = _flow({"sheet": entry})
        if not isinstance(entry, CommentedMap) or not isinstance(entry.get("sheet"), str):
            raise _Refused(f"the import {alias!r} is not written as a path or {{sheet: path}}")
        sets = entry.get("set")
        if sets is None:
            entry["set"] = sets = _flow({})
        if not isinstance(sets, CommentedMap):
            raise _Refused(f"'set' of import {alias!r} is not a mapping")
        sets[cell.name] = _scalar_for(text, sets.get(cell.name), self._yaml)
        uses[alias] = entry

    def _inherited_use(self, alias: str) -> CommentedMap | None:
        """A copy, for this sheet, of an import entry it inherits through `extends`."""
        root = self.workbook.model.root
        assert root is not None
        inherited = root.use.get(alias)
        if inherited is None:
            return None
        base_file = Path(inherited.span.file)
        value = inherited.value
        target = value if isinstance(value, str) else value.get("sheet") if isinstance(value, CommentedMap) else None
        if not isinstance(target, str):
            return None
        rel = os.path.relpath(os.path.normpath(base_file.parent / target), self.path.parent)
        entry = _flow({"sheet": Path(rel).as_posix()})
        if isinstance(value, CommentedMap) and isinstance(value.get("set"), CommentedMap):
            entry["set"] = _flow(dict(value["set"]))
        return entry

    # saving ---------------------------------------------------------------------
    def disk_changed(self) -> bool:
        """Whether the file on disk differs from what was read or last saved."""
        try:
            st = self.path.stat()
        except OSError:
            return True
        mtime, size, digest = self._disk
        if (st.st_mtime_ns, st.st_size) == (mtime, size):
            return False
        try:
            data = self.path.read_bytes()
        except OSError:
            return True
        if hashlib.sha256(data).hexdigest() == digest:
            self._disk = _fingerprint(self.path, data)
            return False
        return True

    def save(self, force: bool = False) -> bool:
        """Write the sheet back; False when nothing needed writing.

        Raises `ExternalChange` when the file changed on disk since it was read,
        unless `force` (the user chose to overwrite)."""
        if not force and self.disk_changed():
            raise ExternalChange(f"{self.path} changed on disk since it was opened")
        text = self.text()
        out = text.replace("\n", "\r\n") if self._crlf else text
        data = ((BOM if self._bom else "") + out).encode("utf-8")
        wrote = True
        try:
            same = self.path.read_bytes() == data
        except OSError:
            same = False
        if same:
            wrote = False
        else:
            atomic_write(self.path, data)
        self._disk = _fingerprint(self.path, data)
        self._original, self._base, self._text = text, self._dump(), text
        self._saved_id = self.undo_stack[-1].id if self.undo_stack else None
        return wrote

    # sweeps -----------------------------------------------------------------------
    def sweep_names(self) -> list[str]:
        root = self.workbook.model.root
        return list(root.sweeps) if root is not None else []

    def suggest_axis(self, key: str) -> str:
        """An ad hoc axis around a cell's current value, in the `--vary` syntax:
        from an eighth to eight times the value, doubling."""
        from .present import show
        value = self.value(key)
        if isinstance(value, bool):
            return f"{key}=false,true"
        shown = show(self.workbook.checked, key, value)
        number = shown.value
        suffix = f" {shown.unit}" if shown.unit else ""
        if not isinstance(number, float) or isinstance(number, bool) or not math.isfinite(number) or number <= 0:
            return f"{key}=" + (f"{_plain_number(number)}{suffix}" if isinstance(number, float) else "1")
        return f"{key}={_plain_number(number / 8)}{suffix}..{_plain_number(number * 8)}{suffix}*2"


    def run_sweep(self, name: str | None = None, axis: str | None = None, max_rows: int = 100_000) -> "SweepRun":
        """One of the sheet's sweeps, or an ad hoc one over `axis` (`--vary` syntax),
        on the current (unsaved) values. Problems come back as `SweepRun.error`."""
        from .axes import AxisError, cli_axis
        from .sweep import Grid, SweepSpec, load_sweep, run_in_memory
        title = f"sweep {name}" if name else f"ad hoc {axis or ''}".strip()
        if not self.workbook.ok:
            return SweepRun(title, None, [], [], "the sheet has problems; fix them first (see the diagnostics)")
        try:
            if name:
                spec = load_sweep(self.workbook, name)
            else:
                parsed = cli_axis(self.workbook, axis or "")
                spec = SweepSpec("ad hoc", Grid([parsed]), self._downstream(parsed.key) if parsed.key else None)
            size = spec.grid.size()
            if size > max_rows:
                return SweepRun(title, None, [], [], f"{size:,} rows is more than the {max_rows:,} shown here; "
                                                     "use `supersheet sweep` for large grids")
            frame = run_in_memory(self.workbook, spec)
        except AxisError as e:
            return SweepRun(title, None, [], [], f"{e.code}: {e.message}" + (f" (hint: {e.hint})" if e.hint else ""))
        except Exception as e:  # noqa: BLE001 - a sweep that cannot run is reported, never fatal to the editor
            return SweepRun(title, None, [], [], f"cannot run {title}: {type(e).__name__}: {e}")
        n_axes = len(spec.grid.import_axes) + len(spec.grid.value_axes)
        return SweepRun(title, frame, frame.columns[:n_axes], frame.columns[n_axes:])

    def _downstream(self, key: str) -> list[str] | None:
        """This sheet's own cells computed from `key`, in sheet order (None: none are)."""
        from .graph import dependents
        checked = self.workbook.checked
        below = set(dependents({key}, {k: c.deps for k, c in checked.cells.items()}, checked.order))
        keys = [k for k, c in self.workbook.model.cells.items() if k in below and not c.scope.prefix]
        return keys or None


@dataclass
class SweepRun:
    title: str
    frame: Any                    # a polars DataFrame in display units, None when the sweep failed
    axes: list[str]               # the axis columns ("context [token]")
    cells: list[str]              # the shown cells' columns
    error: str = ""


class _Refused(Exception):
    pass


# -- evaluation helpers -------------------------------------------------------------
def _evaluate_dependents(old_wb: Workbook, old: Scenario, wb: Workbook, key: str) -> tuple[Scenario, list[str]]:
    """Re-evaluate `key` and its dependents under a re-checked sheet, feeding the
    other cells their previous values; a full evaluation when the sheet's
    validity changed elsewhere (a fixed problem can revive unrelated cells)."""
    same_keys = list(old_wb.model.cells) == list(wb.model.cells)
    clean = not [d for d in old_wb.diagnostics if d.code != "E-EXPECT"]
    if same_keys and clean and key in wb.model.cells:
        try:
            partial = Scenario(wb.checked, dict(old.values), old.program)
            return reevaluate(partial, {key: None})  # type: ignore[dict-item]  # None: compile its formula
        except Exception:  # noqa: BLE001 - fall back to the plain, always-correct path
            pass
    scenario = evaluate(wb.checked)
    return scenario, [k for k in wb.checked.order if not _same(old.values.get(k), scenario.values.get(k))]


def _changes(old: dict[str, Value], new: dict[str, Value]) -> dict[str, Change]:
    return {k: Change(k, old.get(k), v) for k, v in new.items() if not _same(old.get(k), v)}


def _same(a: Value, b: Value) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _is_number(value: Any) -> bool:
    return isinstance(value, float) and not isinstance(value, bool)


def _new_problems(before: list[Diagnostic], after: list[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics of `after` that `before` did not have (spans may have moved)."""
    seen = Counter((d.code, d.message) for d in before if d.code != "E-EXPECT")
    new = []
    for d in after:
        if d.code == "E-EXPECT":
            continue
        if seen[(d.code, d.message)] > 0:
            seen[(d.code, d.message)] -= 1
        else:
            new.append(d)
    return new


def _type_note(old_wb: Workbook, wb: Workbook, key: str) -> str:
    old = old_wb.checked.cells.get(key)
    new = wb.checked.cells.get(key)
    if old is None or new is None or old.type is None or new.type is None or old.type == new.type:
        return ""
    return f"{key} was {old.type.describe()} and would become {new.type.describe()}"


def _plain_number(x: float) -> str:
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.6g}"


# -- YAML ----------------------------------------------------------------------------
def _yaml_for(text: str) -> tuple[YAML, Any, str]:
    """A round-trip YAML set up with the file's own indentation, the loaded
    document, and how that YAML writes it back. The detected indentation is
    tried first; the first setting that reproduces the file exactly wins."""
    detected = detect_indent(text)
    candidates = [detected] + [c for c in ((2, 0), (2, 2), (4, 0), (4, 2), (4, 4), (3, 0)) if c != detected]
    first: tuple[YAML, Any, str] | None = None
    for mapping, offset in candidates:
        yaml = _make_yaml(mapping, offset)
        doc = _load(yaml, text)
        if doc is None:
            return yaml, None, text
        out = io.StringIO()
        try:
            yaml.dump(doc, out)
        except Exception:  # noqa: BLE001 - a document ruamel cannot write back: edits are refused
            return yaml, None, text
        if out.getvalue() == text:
            return yaml, doc, text
        first = first or (yaml, doc, out.getvalue())
    assert first is not None
    return first


def _make_yaml(mapping: int, offset: int) -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=mapping, sequence=offset + 2, offset=offset)
    return yaml


def _load(yaml: YAML, text: str) -> Any:
    try:
        return yaml.load(text)
    except Exception:  # noqa: BLE001 - the sheet's diagnostics already say what is wrong
        return None


_BLOCK_SCALAR = re.compile(r"^(?:- )?[^#]*:\s+[|>][-+0-9]*\s*(?:#.*)?$")
_NESTED_KEY = re.compile(r"^[^\s#\-\[{][^#]*:\s*(?:#.*)?$")


def detect_indent(text: str) -> tuple[int, int]:
    """(mapping indent, block-sequence dash offset) as the file writes them."""
    lines = text.splitlines()
    maps: Counter[int] = Counter()
    offsets: Counter[int] = Counter()
    skip_deeper_than: int | None = None
    for i, line in enumerate(lines):
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        if skip_deeper_than is not None:
            if indent > skip_deeper_than:
                continue
            skip_deeper_than = None
        if _BLOCK_SCALAR.match(stripped):
            skip_deeper_than = indent
            continue
        if not _NESTED_KEY.match(stripped):
            continue
        following = next((l for l in lines[i + 1:] if l.strip() and not l.lstrip().startswith("#")), None)
        if following is None:
            continue
        deeper = len(following) - len(following.lstrip(" "))
        if following.lstrip(" ").startswith("- ") or following.strip() == "-":
            offsets[deeper - indent] += 1
        elif deeper > indent:
            maps[deeper - indent] += 1
    mapping = maps.most_common(1)[0][0] if maps else 2
    offset = offsets.most_common(1)[0][0] if offsets else 0
    return mapping, max(offset, 0)


def _scalar_for(text: str, old: Any, yaml: YAML) -> Any:
    """The YAML value for a cell's new raw text, written as the user typed it:
    numbers and booleans as YAML numbers, lists as flow sequences, the rest as
    strings (quoted the way the old value was, when it was quoted)."""
    if not text.startswith("="):
        value = _yaml_value(text)
        if value is not None:
            return value
    return _string_like(text, old)


def _yaml_value(text: str) -> Any:
    yaml = _make_yaml(2, 0)
    try:
        value = yaml.load(text)
    except Exception:  # noqa: BLE001 - not YAML on its own: a string
        return None
    if isinstance(value, CommentedSeq):
        if not all(isinstance(v, (int, float, str)) for v in value):
            return None
        value.fa.set_flow_style()
    elif not isinstance(value, (int, float, bool)):
        return None
    out = io.StringIO()
    yaml.dump({"a": value}, out)
    return value if out.getvalue() == f"a: {text}\n" else None


def _string_like(text: str, old: Any) -> Any:
    if isinstance(old, SingleQuotedScalarString) and "\n" not in text:
        return SingleQuotedScalarString(text)
    if isinstance(old, DoubleQuotedScalarString):
        return DoubleQuotedScalarString(text)
    return text


def _flow(items: dict) -> CommentedMap:
    node = CommentedMap(items)
    node.fa.set_flow_style()
    return node


TOP_LEVEL_ORDER = ("title", "doc", "extends", "use", "cells", "checks", "sweeps", "solve", "choose", "expect")


def _block(doc: CommentedMap, name: str) -> CommentedMap:
    """The top-level mapping `name`, created where the format lists it if missing."""
    node = doc.get(name)
    if node is None:
        node = CommentedMap()
        earlier = TOP_LEVEL_ORDER[:TOP_LEVEL_ORDER.index(name)]
        keys = list(doc)
        position = max((i + 1 for i, k in enumerate(keys) if k in earlier), default=0)
        doc.insert(position, name, node)
    if not isinstance(node, CommentedMap):
        raise _Refused(f"{name!r} is not a mapping")
    return node


def _rename(node: CommentedMap, old: str, new: str, value: Any) -> None:
    """Replace key `old` by `new` at the same position, keeping its comment."""
    position = list(node).index(old)
    comment = node.ca.items.pop(old, None)
    del node[old]
    node.insert(position, new, value)
    if comment is not None:
        node.ca.items[new] = comment


def _group_break(lines: list[str], line: int) -> tuple[bool, str]:
    """Whether a blank line or comment precedes the cell on 1-based `line`, and
    the comment's text (a section title) if there is one."""
    i = line - 2
    comments: list[str] = []
    blank = False
    while i >= 0:
        stripped = lines[i].strip()
        if stripped.startswith("#"):
            comments.append(stripped.lstrip("#").strip())
        elif not stripped:
            blank = True
            if comments:
                break
        else:
            break
        i -= 1
    title = comments[-1] if comments else ""
    return bool(comments) or blank, title


def _merge(original: str, base: str, edited: str) -> str:
    """Apply the line changes base -> edited to original (base is how ruamel
    writes original): lines ruamel would reformat stay as the file has them."""
    if original == base or base == edited:
        return edited if original == base else original
    a = original.splitlines(keepends=True)
    b = base.splitlines(keepends=True)
    c = edited.splitlines(keepends=True)
    where: dict[int, int] = {}
    for a0, b0, n in SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        for k in range(n):
            where[b0 + k] = a0 + k
    pieces: list[tuple[int, int, list[str]]] = []
    for tag, b1, b2, c1, c2 in SequenceMatcher(None, b, c, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if b1 < b2:
            if any(k not in where for k in range(b1, b2)) or where[b2 - 1] - where[b1] != b2 - 1 - b1:
                return edited
            a1, a2 = where[b1], where[b2 - 1] + 1
        elif b1 in where:
            a1 = a2 = where[b1]
        elif b1 - 1 in where:
            a1 = a2 = where[b1 - 1] + 1
        elif b1 == 0:
            a1 = a2 = 0
        else:
            return edited
        pieces.append((a1, a2, c[c1:c2]))
    for a1, a2, new in reversed(pieces):
        a[a1:a2] = new
    return "".join(a)


# -- files -----------------------------------------------------------------------------
def _fingerprint(path: Path, data: bytes) -> tuple[int, int, str]:
    st = path.stat()
    return st.st_mtime_ns, st.st_size, hashlib.sha256(data).hexdigest()


def atomic_write(path: Path, data: bytes) -> None:
    """Write through a temporary file in the same directory, fsync, rename."""
    target = path.resolve()
    directory = target.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))
        except FileNotFoundError:
            pass
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass


def library_dir() -> Path:
    """The bundled library of sheets: `sheets/` next to the `engine` package."""
    return Path(__file__).resolve().parent.parent / "sheets"


RUNNING_EXAMPLE = Path("supernodes") / "6.1.2-running-example.yaml"


def running_example() -> Path:
    """The sheet `supersheet edit` opens without an argument."""
    path = library_dir() / RUNNING_EXAMPLE
    if not path.is_file():
        raise FileNotFoundError(f"the bundled running example is not installed (looked for {path}); "
                                "give a sheet: supersheet edit SHEET")
    return path


def error_code(value: Value) -> str | None:
    if isinstance(value, ErrorValue):
        return value.code
    if isinstance(value, list):
        return next((v.code for v in value if isinstance(v, ErrorValue)), None)
    return None
