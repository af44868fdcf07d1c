"""Free-standing formulas outside `cells`: `where`, `require`, `goal`,
`minimize`/`maximize`. Bound to cells in the root sheet's scope and typed
with the same rules as any cell.

What the checker finds about such a formula (its names' cells, its nodes'
types) is kept in its own result, `Bound.checked`: the sheet's checked result
seen together with the formula. The sheet's own result is never written, so
binding the `where` of every sweep an editor runs leaves it as it was."""
from __future__ import annotations

from dataclasses import dataclass

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.base.span import Origin
from supersheet.engine.base.types import Type
from supersheet.engine.check.checked import Checked, Draft
from supersheet.engine.check.names import resolve_name
from supersheet.engine.check.typer import CheckFailed, Typer
from supersheet.engine.formula import ast as A
from supersheet.engine.formula.parser import ParseError, formula_body, parse_formula
from supersheet.engine.workbook import Workbook


@dataclass
class Bound:
    """A free formula (a where, goal, requirement) typed over a sheet."""
    text: str
    formula: A.Formula
    type: Type
    deps: tuple[str, ...]
    origin: Origin
    checked: Checked         # the sheet's result with this formula's bindings and types: compile it with this


def bind_expression(workbook: Workbook, text: str, origin: Origin) -> Bound | Diagnostic:
    """Parse, resolve and type one formula in the root scope (a leading '=' is allowed)."""
    body, offset = formula_body(text)
    body = body.rstrip()
    origin = Origin(origin.file, origin.line, origin.col + offset, origin.exact)
    try:
        formula = parse_formula(body)
    except ParseError as e:
        return Diagnostic("E-PARSE", e.message, origin.span(e.start, e.end), hint=e.hint)
    draft = Draft.over(workbook.checked)
    deps: list[str] = []
    for node in A.names(formula.expr):
        key = resolve_name(draft, node, workbook.model.scope, origin)
        if key is not None and key not in deps:
            deps.append(key)
    if draft.diagnostics:
        return draft.diagnostics[0]
    typer = Typer(draft)
    typer.origin, typer.scope, typer.text = origin, workbook.model.scope, body
    try:
        typ = typer.formula_type(formula)
    except CheckFailed:
        return draft.diagnostics[0] if draft.diagnostics else Diagnostic(
            "E-TYPE", "this formula uses a cell that has its own error", None)
    return Bound(body, formula, typ, tuple(deps), origin, draft.freeze(workbook.checked))
