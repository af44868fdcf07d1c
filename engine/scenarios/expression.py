"""Free-standing formulas outside `cells`: `where`, `require`, `goal`,
`minimize`/`maximize`. Bound to cells in the root sheet's scope and typed
with the same rules as any cell."""
from __future__ import annotations

from dataclasses import dataclass

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.base.span import Origin
from supersheet.engine.base.types import Type
from supersheet.engine.check.check import Typer, _Fail, resolve_name
from supersheet.engine.formula import ast as A
from supersheet.engine.formula.parser import ParseError, parse_formula
from supersheet.engine.workbook import Workbook


@dataclass
class Bound:
    text: str
    formula: A.Formula       # kept alive: bindings are keyed by node identity
    type: Type
    deps: tuple[str, ...]
    origin: Origin


def bind_expression(workbook: Workbook, text: str, origin: Origin) -> Bound | Diagnostic:
    """Parse, resolve and type one formula in the root scope (a leading '=' is allowed)."""
    body = text.strip()
    offset = len(text) - len(text.lstrip())
    if body.startswith("="):
        stripped = body[1:].lstrip()
        offset += len(body) - len(stripped)
        body = stripped
    origin = Origin(origin.file, origin.line, origin.col + offset, origin.exact)
    try:
        formula = parse_formula(body)
    except ParseError as e:
        return Diagnostic("E-PARSE", e.message, origin.span(e.start, e.end), hint=e.hint)
    checked = workbook.checked
    before = len(checked.diagnostics)
    deps: list[str] = []
    for node in A.names(formula.expr):
        key = resolve_name(checked, node, workbook.model.scope, origin)
        if key is not None and key not in deps:
            deps.append(key)
    if len(checked.diagnostics) > before:
        return _pop(checked, before)
    typer = Typer(checked)
    typer.origin, typer.scope, typer.text = origin, workbook.model.scope, body
    try:
        typ = typer.formula_type(formula)
    except _Fail:
        return _pop(checked, before)
    return Bound(body, formula, typ, tuple(deps), origin)


def _pop(checked, before: int) -> Diagnostic:
    new = checked.diagnostics[before:]
    del checked.diagnostics[before:]
    if new:
        return new[0]
    return Diagnostic("E-TYPE", "this formula uses a cell that has its own error", None)
