"""Assumptions (format 9.2): the conditions under which a sheet's formulas are
a valid model, and what falls outside them.

An assumption is a condition cell (kind "assume") like a check, flattened with
its sheet, so an imported sheet's assumptions apply under the alias
(`tp8.within_one_server`). Where one does not hold — or cannot be evaluated —
a result is outside the model: `run` and `test` report E-ASSUME, a sweep row
names the violated ones, a choice excludes the row, a goal seek refuses the
answer.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.compile.evaluate import Scenario, error_code
from supersheet.engine.formula.parser import formula_body
from supersheet.engine.present.headers import header
from supersheet.engine.present.present import show
from supersheet.engine.workbook import Workbook

if TYPE_CHECKING:   # Polars only for a sweep's column: `run` and `check` start without it
    import polars as pl

OUTSIDE_HEADER = header("outside", "assumptions")
OUTSIDE_HINT = "the results are outside the model this sheet describes: change the inputs, or extend the model"


@dataclass(frozen=True)
class Violation:
    """An assumption that does not hold (or holds in only a share of the samples)."""
    key: str                           # the assumption (alias.name for an imported sheet's)
    condition: str                     # its formula as written
    operands: tuple[tuple[str, str], ...]   # (cell, displayed value) of every cell it reads
    error: str | None = None           # the error value it holds, when it could not be evaluated
    share: float | None = None         # with random draws: the share of samples where it holds

    @property
    def state(self) -> str:
        if self.error:
            return f"cannot be evaluated ({self.error})"
        if self.share is not None:
            return f"holds in only {self.share:.1%} of samples"
        return "does not hold"

    def describe(self) -> str:
        """`within_server: tp <= cards (tp = 16, cards = 8)`."""
        values = ", ".join(f"{name} = {value}" for name, value in self.operands)
        state = f" is {self.error}" if self.error else (f" holds in {self.share:.1%} of samples"
                                                         if self.share is not None else "")
        return f"{self.key}: {self.condition}{state}" + (f" ({values})" if values else "")


def assumption_keys(workbook: Workbook) -> list[str]:
    return [key for key, cell in workbook.model.cells.items() if cell.kind == "assume"]


def holds(value: Any) -> bool:
    """True only for a condition that is true (every element, for an array)."""
    if isinstance(value, list):
        return bool(value) and all(v is True for v in value)
    return value is True


def violations(workbook: Workbook, scenario: Scenario, sampled: Any = None) -> list[Violation]:
    """Every assumption that does not hold in `scenario`, with the values it reads.
    With random draws (`sampled`), one that depends on them must hold in every sample."""
    found = []
    for key in assumption_keys(workbook):
        value = scenario.values.get(key)
        share = sampled.shares.get(key) if sampled is not None else None
        if (holds(value) if share is None else share == 1.0):
            continue
        cell = workbook.model.cells[key]
        deps = workbook.checked.cells[key].deps if key in workbook.checked.cells else ()
        operands = tuple((dep, show(workbook.checked, dep, scenario.values.get(dep)).text) for dep in deps)
        found.append(Violation(key, formula_body(cell.spec.text)[0].rstrip(), operands,
                               error_code(value) if share is None else None, share))
    return found


def violation_diagnostic(workbook: Workbook, violation: Violation) -> Diagnostic:
    """E-ASSUME at the assumption's line."""
    cell = workbook.model.cells[violation.key]
    verb = violation.state
    values = ", ".join(f"{name} = {value}" for name, value in violation.operands)
    message = f"assumption {violation.key} {verb}: {violation.condition}" + (f" with {values}" if values else "")
    return Diagnostic("E-ASSUME", message, cell.spec.span, hint=OUTSIDE_HINT)


def diagnostics(workbook: Workbook, scenario: Scenario, sampled: Any = None) -> list[Diagnostic]:
    return [violation_diagnostic(workbook, v) for v in violations(workbook, scenario, sampled)]


def outside_expression(workbook: Workbook, sources: dict[str, Any], over_samples: bool = False) -> pl.Expr | None:
    """Per row: the names of the violated assumptions, ", "-separated, or null
    when every one holds (None when the sheet has no assumption).

    `sources` are the compiled program's cell sources; an assumption that is an
    error value in a row counts as violated there. `over_samples` gives the
    aggregation over the samples of a row (a group) instead."""
    import polars as pl   # deferred: polars
    parts = []
    for key in assumption_keys(workbook):
        source = sources.get(key)
        if source is None:
            continue
        held = pl.all_horizontal([e.fill_null(False) for e in source.exprs()])
        if over_samples:   # aggregated over a row's samples: outside where any sample is
            held = held.all()
        parts.append(pl.when(held).then(pl.lit(None, pl.String)).otherwise(pl.lit(key)))
    if not parts:
        return None
    names = pl.concat_str(parts, separator=", ", ignore_nulls=True)
    return pl.when(names != "").then(names).otherwise(pl.lit(None, pl.String))
