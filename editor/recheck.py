"""After the sheet's text changed (a structural edit, a formula, undo of one):
which diagnostics the new text brought, and the values again — only the
edited cell and its dependents when nothing else can have moved. Pure Python:
no UI imports.
"""
from __future__ import annotations

from collections import Counter

from supersheet.editor.results import same
from supersheet.engine.base.diagnostics import Diagnostic, sheet_problems
from supersheet.engine.compile.evaluate import Scenario, evaluate, reevaluate
from supersheet.engine.workbook import Workbook


def evaluate_dependents(old_wb: Workbook, old: Scenario, wb: Workbook, key: str) -> tuple[Scenario, list[str]]:
    """Re-evaluate `key` and its dependents under a re-checked sheet, feeding the
    other cells their previous values; a full evaluation when the sheet's
    validity changed elsewhere (a fixed problem can revive unrelated cells)."""
    same_keys = list(old_wb.model.cells) == list(wb.model.cells)
    clean = not sheet_problems(old_wb.diagnostics)
    if same_keys and clean and key in wb.model.cells:
        try:
            partial = Scenario(wb.checked, old.values, old.fixed)   # reevaluate never writes it
            return reevaluate(partial, {key: None})   # None: the cell's own (new) formula
        except Exception:  # noqa: BLE001 - fall back to the plain, always-correct path
            pass
    scenario = evaluate(wb.checked)
    return scenario, [k for k in wb.checked.order if not same(old.values.get(k), scenario.values.get(k))]


def new_problems(before: list[Diagnostic], after: list[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics of `after` that `before` did not have (spans may have moved)."""
    seen = Counter((d.code, d.message) for d in sheet_problems(before))
    new = []
    for d in sheet_problems(after):
        if seen[(d.code, d.message)] > 0:
            seen[(d.code, d.message)] -= 1
        else:
            new.append(d)
    return new


def type_note(old_wb: Workbook, wb: Workbook, key: str) -> str:
    """Why an edit that changed a cell's type was refused ("was a time and would become …")."""
    old = old_wb.checked.cells.get(key)
    new = wb.checked.cells.get(key)
    if old is None or new is None or old.type is None or new.type is None or old.type == new.type:
        return ""
    return f"{key} was {old.type.describe()} and would become {new.type.describe()}"
