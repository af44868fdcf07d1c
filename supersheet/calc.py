"""`supersheet.calc("470.2 GB -> GiB")`: one formula, no sheet, through the same pipeline
(parsed, checked for units, evaluated) as a sheet's cell. Loads neither Polars nor NumPy."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from supersheet.engine.base.diagnostics import Diagnostic, SourceCache
from supersheet.engine.base.span import Origin
from supersheet.engine.check.check import check_model
from supersheet.engine.formula.parser import ParseError, formula_body, parse_formula
from supersheet.engine.load.model import Cell, Model, Scope
from supersheet.engine.load.sheetfile import CellSpec
from supersheet.engine.workbook import Workbook
from supersheet.engine.present.present import show

__all__ = ["CALC_FILE", "Calculation", "calc", "calc_workbook"]

CALC_FILE = "<calc>"   # the file name diagnostics of a formula give


@dataclass(frozen=True)
class Calculation:
    """The formula's value as `supersheet calc` prints it (`text`, None when it does not
    check), its `diagnostics`, and `sources`, which renders them with the formula's line."""

    text: str | None
    diagnostics: list[Diagnostic]
    sources: SourceCache
    has_errors: bool    # the value is an error (#DIV/0, #NUM, ...)


def calc(expression: str) -> Calculation:
    """Evaluate one formula, e.g. `calc("2 * 94 * 4 * 128 * 2 B -> KiB")`."""
    sources = SourceCache({CALC_FILE: [expression]})
    workbook, diagnostics = calc_workbook(expression)
    if workbook is None or diagnostics:
        return Calculation(None, diagnostics, sources, False)
    scenario = workbook.evaluate()
    shown = show(workbook.checked, "result", scenario.values["result"])
    return Calculation(shown.text, [], sources, scenario.has_errors())


def calc_workbook(expression: str) -> tuple[Workbook | None, list[Diagnostic]]:
    """The formula as a one-cell workbook (its cell `result`) and its diagnostics."""
    text, offset = formula_body(expression)
    text = text.rstrip()
    origin = Origin(CALC_FILE, 1, 1 + offset)
    try:
        formula = parse_formula(text)
    except ParseError as e:
        return None, [Diagnostic("E-PARSE", e.message, origin.span(e.start, e.end), hint=e.hint)]
    scope = Scope("")
    spec = CellSpec("result", "formula", "= " + text, formula, origin, origin.span(0, len(text)))
    scope.names["result"] = "result"
    model = Model(path=Path(CALC_FILE), root=None,
                  cells={"result": Cell("result", "result", spec, formula, scope, "formula")})
    workbook = Workbook(model, check_model(model))
    return workbook, workbook.diagnostics
