"""A sheet ready to use: loaded, checked, with its diagnostics in one list.

The CLI, the UI and the sweep/solve/choose runners all start here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from supersheet.engine.base.diagnostics import Diagnostic, did_you_mean, sheet_problems, sort_key, unknown_cell
from supersheet.engine.base.problems import OverrideError
from supersheet.engine.base.span import Span
from supersheet.engine.base.gcpause import without_cycle_collection
from supersheet.engine.base.limits import project_limits
from supersheet.engine.base.types import Type
from supersheet.engine.check.check import check_model
from supersheet.engine.check.checked import Checked
from supersheet.engine.compile.evaluate import Scenario, evaluate
from supersheet.engine.formula import ast as A
from supersheet.engine.formula.parser import ParseError, parse_formula
from supersheet.engine.load.model import Model
from supersheet.engine.load.resolve import build_model
from supersheet.units import DIMENSIONLESS, UnitError, multiply, parse_unit


@dataclass
class Workbook:
    """A sheet loaded and checked, with its diagnostics."""
    model: Model
    checked: Checked
    _baseline: Scenario | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return unique([*self.model.diagnostics, *self.checked.diagnostics])

    @property
    def ok(self) -> bool:
        return not sheet_problems(self.diagnostics)

    def key_for(self, name: str) -> str | None:
        """A cell key from a user's name: `weights` or `gpu.hbm_bandwidth`; a shared
        instance's cell by any alias that reaches it (`mid.hw.bw` is `hw.bw`, format 10.3)."""
        if name in self.model.cells:
            return name
        key = self.model.canonical(name)
        return key if key in self.model.cells else None

    def name_hint(self, name: str) -> str | None:
        return self.model.twin_hint(name) or did_you_mean(self.model.canonical(name), self.model.cells)

    def unknown_cell(self, name: str, span: Span | None = None, by: str = "") -> Diagnostic:
        """E-NAME for `name`, which is no cell of this sheet, with the sheet's did-you-mean."""
        return unknown_cell(name, self.name_hint(name), span, by)

    @without_cycle_collection
    def variant(self, import_overrides: dict[str, str] | None = None,
                cell_overrides: dict[str, str] | None = None) -> Workbook:
        """This sheet with imports pointed at other sheets (an import axis) or root cells set
        as inputs (a cell that shapes the sheet, an array of another length), built from the
        texts it was loaded from — an editor's unsaved text stays what it is; only a sheet
        the variant imports anew is read from disk. The one way to make a variant: a path is
        never opened again for it."""
        texts = {path: sheet.text for path, sheet in self.model.files.items() if sheet.text}
        model = build_model(self.model.path, import_overrides, texts=texts, cell_overrides=cell_overrides)
        with project_limits(model.limits):
            return Workbook(model, check_model(model))

    def evaluate(self, fixed: dict[str, A.Node] | None = None) -> Scenario:
        """One scenario; the sheet as written is evaluated once and remembered
        (sweeps, solves and choices all start from it)."""
        if fixed:
            return evaluate(self.checked, fixed)
        if self._baseline is None:
            self._baseline = evaluate(self.checked)
        return self._baseline


@without_cycle_collection   # loading and checking as one pause: no collection walks the model between them
def open_workbook(path: str | Path, import_overrides: dict[str, str] | None = None,
                  cell_overrides: dict[str, str] | None = None) -> Workbook:
    model = build_model(path, import_overrides, cell_overrides=cell_overrides)
    with project_limits(model.limits):     # the project's defaults hold while the sheet is checked too
        return Workbook(model, check_model(model))


def unique(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[tuple] = set()
    out: list[Diagnostic] = []
    for d in sorted(diagnostics, key=sort_key):
        key = (d.code, d.span, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def parse_assignment(workbook: Workbook, text: str) -> tuple[str, str]:
    """`NAME=VALUE` (from --set) -> (cell key, value text)."""
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not name or not value.strip():
        raise OverrideError("E-SHEET", f"--set needs NAME=VALUE, got {text!r}", "e.g. --set context=32768token")
    key = workbook.key_for(name)
    if key is None:
        raise OverrideError.of(workbook.unknown_cell(name))
    return key, value.strip()


def apply_assignments(workbook: Workbook, texts: list[str]) -> tuple[Workbook, dict[str, A.Node]]:
    """Every `--set NAME=VALUE`: the workbook to evaluate and the values to fix in it.

    Any cell can be set. Most are fixed to the literal in the compiled sheet; a
    cell that shapes the sheet (the length of a `range`) or an array given
    another length (four pipeline stages set to five) is set by reading the
    sheet again with it as an input, as a sweep over it does: the arrays
    computed from it take its length, and the check says where lengths then
    disagree."""
    fixed: dict[str, A.Node] = {}
    reshaping: dict[str, str] = {}
    for text in texts:
        try:
            key, value = parse_assignment(workbook, text)
            literal = _checked_literal(workbook, key, value, lengths=False)
            if key in workbook.checked.structural_inputs or _another_length(workbook, key, literal):
                reshaping[key] = value
            fixed[key] = literal   # for a reshaping cell: shown as set by --set
        except OverrideError as e:
            e.assignment = text
            raise
    if not reshaping:
        return workbook, fixed
    variant = workbook.variant(cell_overrides=reshaping)
    if not variant.ok:
        d = variant.diagnostics[0]
        where = f" (at {d.span})" if d.span else ""
        error = OverrideError(d.code, d.message + where, d.hint)
        error.assignment = " ".join(f"{k}={v}" for k, v in reshaping.items())
        raise error
    return variant, fixed


def parse_literal_for(workbook: Workbook, key: str, value: str) -> A.Node:
    """A literal for `key` that fits the compiled sheet as it is (same type, not a cell that shapes it)."""
    if key in workbook.checked.structural_inputs:
        raise OverrideError("E-TYPE", f"{key} sets the length of an array (range) and cannot be overridden",
                            "edit the sheet instead")
    return _checked_literal(workbook, key, value, lengths=True)


def _another_length(workbook: Workbook, key: str, literal: A.Node) -> bool:
    expected = workbook.checked.cells[key].type
    return expected is not None and expected.is_array and literal_type_of(literal).length != expected.length


def _checked_literal(workbook: Workbook, key: str, value: str, lengths: bool) -> A.Node:
    try:
        formula = parse_formula(value)
    except ParseError as e:
        raise OverrideError("E-PARSE", f"{key}: {e.message} in {value!r}", e.hint) from None
    if not A.is_literal(formula):
        raise OverrideError("E-SHEET", f"{key}: the value must be a number or quantity, got {value!r}")
    literal_type = literal_type_of(formula.expr)
    expected = workbook.checked.cells[key].type
    if expected is not None and (literal_type.kind, literal_type.dims) != (expected.kind, expected.dims) or (
            lengths and expected is not None and literal_type.length != expected.length):
        raise OverrideError("E-UNIT" if literal_type.kind == expected.kind else "E-TYPE",
                            f"{key} is {expected.describe()}, but {value!r} is {literal_type.describe()}")
    return formula.expr


def literal_type_of(node: A.Node) -> Type:
    try:
        if isinstance(node, A.Bool):
            return Type("bool")
        if isinstance(node, A.Unary):
            return literal_type_of(node.operand)
        if isinstance(node, A.Number):
            return Type("number", parse_unit(node.unit).dimensions if node.unit else DIMENSIONLESS)
        assert isinstance(node, A.Array)
        first = literal_type_of(node.items[0])
        dims = multiply(first.dims, parse_unit(node.unit).dimensions) if node.unit else first.dims
        return Type(first.kind, dims, len(node.items))
    except UnitError as e:
        raise OverrideError("E-UNIT", e.message, e.hint) from None
