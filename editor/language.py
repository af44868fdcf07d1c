"""A sheet as a language server sees it: one open buffer's text, checked and
evaluated, and what lies at a position of it — for `supersheet lsp`
(lsp/server.py), which only translates these answers into the protocol.

A `Snapshot` is the buffer's sheet at one moment: built from its unsaved text,
with the texts of the other open buffers read instead of their files (an
import being edited next door counts as written). It is read-only; a change of
text makes a new one. Positions here are the engine's: 1-based line, 1-based
character column (the protocol's UTF-16 columns are converted by the server).

Everything reads through the editor's `SheetView` (view.py), the same view the
terminal UI reads: the same diagnostics (E-ASSUME, E-EXPECT included), the
same values as shown. Pure Python: no UI or protocol imports.
"""
from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from supersheet.editor.baselines import workbook_from_text
from supersheet.editor.sample import Samples, has_draws, sample_workbook
from supersheet.editor.view import SheetView
from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.base.project import shown_path
from supersheet.engine.base.span import Span
from supersheet.engine.check.check import with_literal
from supersheet.engine.compile.evaluate import ErrorValue, Scenario, reevaluate
from supersheet.engine.formula import ast as A
from supersheet.engine.load.model import Cell
from supersheet.engine.formula.parser import parse_formula
from supersheet.engine.base.vocabulary import TOP_LEVEL_KEYS, is_formula
from supersheet.engine.workbook import OverrideError, Workbook, parse_literal_for
from supersheet.units import describe, format_number, parse_unit
from supersheet.units.parse import UnitError
from supersheet.engine.formula.functions import FUNCTIONS

__all__ = ["Hint", "Snapshot", "Span", "Spot", "looks_like_sheet", "sample"]

# A value YAML reads as the same plain string it shows: a number, a unit, no quotes,
# comments, flow or block indicators (anything else is read and checked again).
_PLAIN_VALUE = re.compile(r"[0-9][0-9A-Za-zμ%/*^.+_ -]*[0-9A-Za-zμ%]|[0-9]")

_NUMBER = re.compile(r"\s*[0-9][0-9_.]*(?:[eE][+-]?[0-9]+)?\s*")


def _unit_of(value: str) -> str:
    """The unit written after a literal's number (`GiB` of `2 GiB`)."""
    number = _NUMBER.match(value)
    return value[number.end():].strip() if number else value.strip()


# A file is a sheet when its top level is a mapping with one of the format's keys
# at the start of a line (`cells:`, `title:` …): other YAML gets nothing, never an error.
_TOP_KEY = re.compile(r"^(%s)\s*:" % "|".join(TOP_LEVEL_KEYS), re.MULTILINE)


def looks_like_sheet(text: str) -> bool:
    """Whether a YAML buffer is a supersheet sheet (by content, not by name)."""
    return bool(re.search(r"^cells\s*:", text, re.MULTILINE)) or \
        len({m.group(1) for m in _TOP_KEY.finditer(text)}) >= 2


@dataclass(frozen=True)
class Hint:
    """What to show at the end of a cell's line: `17.72 ms`, `✓`, `✗ fails`."""
    line: int             # 1-based
    label: str
    tooltip: str
    key: str
    problem: bool = False   # an error value, a failed check, a violated assumption


@dataclass(frozen=True)
class Spot:
    """What lies at a position: a cell (named, defined or referenced), a unit, an import."""
    kind: str            # "cell" | "unit" | "import" | "function"
    text: str            # the cell's key, the unit as written, the alias, the function's name
    span: Span           # where it is written at that position


class _Text:
    """The one thing `SheetView` reads of a document's source: its text."""

    def __init__(self, text: str) -> None:
        self._text = text

    def text(self) -> str:
        return self._text

    known_text = text


class Snapshot(SheetView):
    """One open sheet, checked and evaluated from its buffer's text."""

    source: _Text

    def __init__(self, path: str | Path, text: str, open_texts: Mapping[Path, str] | None = None) -> None:
        self.path = Path(path)
        self.source = _Text(text.replace("\r\n", "\n"))
        self.others = {Path(p).resolve(): t for p, t in (open_texts or {}).items()
                       if Path(p).resolve() != self.path.resolve()}
        self.workbook = workbook_from_text(self.path, self.source.text(), self.others)
        self.scenario = self.workbook.evaluate()
        self._failing = self._unchecked = self._diagnostics = None
        self.layout = object()

    def after(self, text: str, open_texts: Mapping[Path, str] | None = None) -> Snapshot:
        """This sheet with its buffer now `text`. A new value typed into one input
        (the common keystroke) takes the editor's in-place path: the literal is
        re-typed and only its dependents are evaluated again (engine/check
        with_literal, engine/compile reevaluate), as the terminal editor does;
        anything else is read and checked again from the text."""
        others = {Path(p).resolve(): t for p, t in (open_texts or {}).items()
                  if Path(p).resolve() != self.path.resolve()}
        edit = self._input_edit(text.replace("\r\n", "\n")) if others == self.others and self.workbook.ok else None
        if edit is None:
            return Snapshot(self.path, text, open_texts)
        key, value, literal = edit
        model = self.workbook.model.with_text(key, value, parse_formula(value))
        nxt = object.__new__(Snapshot)
        nxt.path, nxt.others = self.path, self.others
        nxt.source = _Text(text.replace("\r\n", "\n"))
        nxt.workbook = Workbook(model, with_literal(self.workbook.checked, model, key))
        nxt.scenario, _ = reevaluate(Scenario(nxt.workbook.checked, self.scenario.values, self.scenario.fixed),
                                     {key: literal})
        nxt._failing = nxt._unchecked = nxt._diagnostics = None
        nxt.layout = self.layout
        return nxt

    def _input_edit(self, text: str) -> tuple[str, str, A.Node] | None:
        """(key, new value text, its literal) when `text` differs from this snapshot's
        only inside the value of one input written on one line in plain YAML."""
        old_lines, new_lines = self.text().split("\n"), text.split("\n")
        if len(old_lines) != len(new_lines):
            return None
        differing = [i for i, (a, b) in enumerate(zip(old_lines, new_lines)) if a != b]
        if len(differing) != 1:
            return None
        line = differing[0]
        for cell in self.own_cells():
            written = cell.set_by or cell.spec
            origin = written.origin
            if cell.kind != "input" or origin.line != line + 1 or not origin.exact or is_formula(written.text):
                continue
            old, new, start = old_lines[line], new_lines[line], origin.col - 1
            end = start + len(written.text)
            if old[start:end] != written.text or not new.startswith(old[:start]) or not new.endswith(old[end:]):
                return None
            value = new[start:len(new) - len(old) + end]
            if not _PLAIN_VALUE.fullmatch(value) or _unit_of(value) != _unit_of(written.text):
                return None     # another unit may change how the cell is shown: read it all again
            try:
                return cell.key, value, parse_literal_for(self.workbook, cell.key, value)
            except OverrideError:
                return None
        return None

    def reads(self, path: Path) -> bool:
        """Whether the sheet reads the file at `path` (imports it, directly or not, or extends it)."""
        target = Path(path).resolve()
        return any(Path(p).resolve() == target for p in self.workbook.model.files)

    # problems -----------------------------------------------------------------------
    def located_problems(self) -> list[tuple[Diagnostic, Span]]:
        """Every diagnostic with where to show it in this file: its own span, or, for a
        problem inside an imported file, the `use:` entry that reaches that file.
        (Not named `problems`: that is SheetView's list of diagnostics, which this
        method shadowed.)"""
        out = []
        for d in self.diagnostics:
            span = d.span if d.span is not None and d.span.file == self.file else self._entry_for(d.span)
            out.append((d, span))
        return out

    def _entry_for(self, span: Span | None) -> Span:
        root = self.workbook.model.root
        if span is not None and root is not None:
            for alias, spec in root.use.items():
                scope = self.workbook.model.scope.aliases.get(alias)
                if scope is not None and scope.path is not None and str(scope.path) == span.file \
                        and spec.span.file == self.file:
                    return spec.span
            for spec in root.use.values():
                if spec.span.file == self.file:
                    return spec.span
        return Span(self.file, 1, 1, 2)

    # values at the end of each line ------------------------------------------------------
    def own_cells(self) -> Iterator[Cell]:
        """The cells written in this file (its own, and imported cells it sets with `set:`)."""
        for cell in self.workbook.model.cells.values():
            written = cell.set_by or cell.spec
            if written.span.file == self.file:
                yield cell

    def hints(self, samples: Samples | None = None) -> list[Hint]:
        """The value of every cell written in this file, at the end of its line; checks
        and assumptions as held or not; with draws and `samples`, the mean (p5 … p95)."""
        failing = self.failing()
        hints = []
        for cell in self.own_cells():
            written = cell.set_by or cell.spec
            label, problem = self.value_label(cell, samples)
            if cell.key in failing:
                label += "  ≠ expected"
                problem = True
            tooltip = f"{cell.key} = {label}"
            if cell.key in failing:
                tooltip += "\n" + "\n".join(o.diagnostic().message for o in failing[cell.key])
            hints.append(Hint(written.span.line, label, tooltip, cell.key, problem))
        return hints

    def value_label(self, cell: Cell, samples: Samples | None = None) -> tuple[str, bool]:
        """The text shown for a cell's value, and whether it is a problem."""
        value = self.value(cell.key)
        if self.workbook.checked.cells.get(cell.key) is None or not self.workbook.checked.cells[cell.key].ok:
            return "—", False
        if samples is not None and samples.sampled is not None and cell.key in samples.uncertain:
            uncertain = _uncertain_text(cell, samples)
            if uncertain is not None:
                return uncertain
        if cell.kind in ("check", "assume") and isinstance(value, bool):
            if value:
                return "✓", False
            return ("✗ fails" if cell.kind == "check" else "✗ outside the model"), True
        shown = self.shown(cell.key, value)
        return shown.text, isinstance(value, ErrorValue) or (
            isinstance(value, list) and any(isinstance(v, ErrorValue) for v in value))

    # what lies at a position -------------------------------------------------------------
    def spot_at(self, line: int, col: int) -> Spot | None:
        """The cell name, unit, function or import at 1-based (line, col) of this file."""
        model = self.workbook.model
        for cell in self.own_cells():
            written = cell.set_by or cell.spec
            if written.span.line == line and written.span.col <= col < written.span.end_col:
                return Spot("cell", cell.key, written.span)
            found = self._in_formula(cell, written, line, col)
            if found is not None:
                return found
        root = model.root
        if root is not None:
            for alias, spec in root.use.items():
                if spec.span.file == self.file and spec.span.line == line:
                    return Spot("import", alias, spec.span)
        return None

    def _in_formula(self, cell: Cell, written, line: int, col: int) -> Spot | None:
        formula = cell.formula if cell.set_by is None or written is cell.set_by else None
        origin = written.origin
        if formula is None or origin.line != line or not origin.exact:
            return None
        for node in _nodes(formula.expr):
            for kind, text, (start, end) in _named_parts(node):
                span = origin.span(start, end)
                if span.line == line and span.col <= col < span.end_col:
                    if kind == "cell":
                        bound = self.workbook.checked.bindings.get(node)
                        if bound is None:
                            return None
                        text = bound
                    return Spot(kind, text, span)
        if formula.display_unit and formula.display_span is not None:
            span = origin.span(*formula.display_span)
            if span.col <= col < span.end_col:
                return Spot("unit", formula.display_unit, span)
        return None

    def cell_of(self, key: str) -> Cell | None:
        return self.workbook.model.cells.get(key)

    def hover(self, spot: Spot) -> str:
        """Markdown for what lies at a position."""
        if spot.kind == "cell":
            return self.describe_cell(spot.text)
        if spot.kind == "unit":
            return describe_unit(spot.text)
        if spot.kind == "function":
            f = FUNCTIONS.get(spot.text)
            return f"`{f.signature}`\n\n{f.summary}" if f else spot.text
        scope = self.workbook.model.scope.aliases.get(spot.text)
        shown = shown_path(scope.path) if scope is not None and scope.path is not None else "?"
        return f"**{spot.text}**: imports `{shown}`"

    def describe_cell(self, key: str) -> str:
        cell = self.cell_of(key)
        if cell is None:
            return f"`{key}`: not a cell"
        label, _ = self.value_label(cell)
        written = cell.set_by or cell.spec
        lines = [f"**{key}** = `{label}`", "", f"```\n{written.text.strip()}\n```"]
        if cell.set_by is not None:
            lines.append(f"set by this sheet; written in {shown_path(Path(cell.spec.span.file))} as "
                         f"`{cell.spec.text.strip()}`")
        for extra, title in ((cell.spec.doc, ""), (cell.spec.source, "source: ")):
            if extra:
                lines += ["", f"{title}{extra.strip()}"]
        precedents = self.precedents(key)
        if precedents:
            lines += ["", "from:"]
            for dep in precedents[:20]:
                dep_cell = self.cell_of(dep)
                if dep_cell is not None:
                    lines.append(f"* `{dep}` = {self.value_label(dep_cell)[0]}")
        if cell.spec.span.file != self.file:
            lines += ["", f"defined in {shown_path(Path(cell.spec.span.file))}:{cell.spec.span.line}"]
        return "\n".join(lines)

    def definition(self, spot: Spot) -> Span | None:
        """Where what lies at a position is defined: a cell's name in its own file, an
        imported sheet's first line."""
        if spot.kind == "cell":
            cell = self.cell_of(spot.text)
            return cell.spec.span if cell is not None else None
        if spot.kind == "import":
            scope = self.workbook.model.scope.aliases.get(spot.text)
            if scope is not None and scope.path is not None:
                return Span(str(scope.path), 1, 1, 1)
        return None


def _uncertain_text(cell: Cell, samples: Samples) -> tuple[str, bool] | None:
    record = samples.record(cell.key)
    if record is not None:
        digits = samples.digits(cell.key)
        mean, p5, p95 = (format_number(record[s], digits) if record[s] is not None else "#NUM"
                         for s in ("mean", "p5", "p95"))
        unit = f" {record['unit']}" if record["unit"] else ""
        errors = f", {record['error_samples']} error samples" if record.get("error_samples") else ""
        return f"≈ {mean}{unit} (p5 {p5} … p95 {p95}{errors})", bool(errors)
    rate = samples.pass_rate(cell.key)
    if rate is not None:
        verb = "holds" if cell.kind in ("check", "assume") else "true"
        return f"{verb} in {format_number(rate * 100, 3)}% of samples", cell.kind in ("check", "assume") and rate < 1
    return None


def sample(snapshot: Snapshot) -> Samples | None:
    """The snapshot's Monte Carlo (None: no draws) — seconds on big sheets: run it off the request path."""
    return sample_workbook(snapshot.workbook) if has_draws(snapshot.workbook) and snapshot.workbook.ok else None


def describe_unit(text: str) -> str:
    """A unit's dimension and its factor to the base units."""
    try:
        unit = parse_unit(text)
    except UnitError as e:
        return f"`{text}`: {e}"
    return f"`{text}`: {describe(unit.dimensions) or 'a plain number'}; 1 {text} = {unit.factor:.10g} in base units"


def _nodes(node: A.Node) -> Iterator[A.Node]:
    yield node
    if isinstance(node, (A.Array, A.Call)):
        for child in (node.items if isinstance(node, A.Array) else node.args):
            yield from _nodes(child)
    elif isinstance(node, A.Unary):
        yield from _nodes(node.operand)
    elif isinstance(node, A.Binary):
        yield from _nodes(node.left)
        yield from _nodes(node.right)


def _named_parts(node: A.Node) -> Iterator[tuple[str, str, tuple[int, int]]]:
    """The parts of a node a position can name: a cell, a unit, a function."""
    if isinstance(node, A.Name):
        yield "cell", node.name, node.span
    elif isinstance(node, (A.Number, A.Array)) and node.unit and node.unit_span is not None:
        yield "unit", node.unit, node.unit_span
    elif isinstance(node, A.Call):
        yield "function", node.func, node.name_span
