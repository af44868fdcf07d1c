"""`supersheet calc "EXPR"`: one formula, no sheet, through the same pipeline."""
from __future__ import annotations

from pathlib import Path

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.base.span import Origin
from supersheet.engine.check.check import check_model
from supersheet.engine.formula.parser import ParseError, formula_body, parse_formula
from supersheet.engine.load.model import Cell, Model, Scope
from supersheet.engine.load.sheet import CellSpec
from supersheet.engine.workbook import Workbook

CALC_FILE = "<calc>"


def calc_workbook(expression: str) -> tuple[Workbook | None, list[Diagnostic]]:
    text, offset = formula_body(expression)
    text = text.rstrip()
    origin = Origin(CALC_FILE, 1, 1 + offset)
    model = Model(path=Path(CALC_FILE), root=None)
    try:
        formula = parse_formula(text)
    except ParseError as e:
        return None, [Diagnostic("E-PARSE", e.message, origin.span(e.start, e.end), hint=e.hint)]
    scope = Scope("")
    spec = CellSpec("result", "formula", "= " + text, formula, origin, origin.span(0, len(text)))
    scope.names["result"] = "result"
    model.cells["result"] = Cell("result", "result", spec, formula, scope, "formula")
    workbook = Workbook(model, check_model(model))
    return workbook, workbook.diagnostics
