"""A choice's rows reduced range by range: which are feasible, which are
excluded and why, and the best ones. A range reduces where it is evaluated (in
this process, or in a Ray task) and tallies merge, so with a limit (`--top N`)
only the N best rows of each range travel, never the grid.

Rows are classified as `choose` always has: a row outside the sheet's
assumptions is excluded, then one that fails requirements (each failing one
named: false or an error value), then one whose objective is an error value;
feasible rows rank by the objective (in base units), ties in grid order.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import polars as pl

from supersheet.engine.expect.assume import OUTSIDE_HEADER
from supersheet.engine.present.headers import EXCLUDED_HEADER
from supersheet.engine.scenarios.expression import Bound
from supersheet.engine.scenarios.grid import Grid
from supersheet.engine.scenarios.sweep import Plan
from supersheet.engine.scenarios.sweep_columns import shown_axes


# Columns of a tally's frame that are not shown: they travel into ChoiceRow's fields.
OBJECTIVE, PLAN, INDEX = "__objective", "__plan", "__index"


@dataclass(frozen=True)
class ChoiceRow:
    """One row of a choice: the columns it shows, and where it comes from in the grid."""

    values: dict[str, Any]      # as shown: axes and shown cells in display units (+ "excluded because")
    objective: float | None     # the objective in base units: what ranks the rows
    plan: int                   # which of the choice's plans (one per import-axis sheet) evaluated it
    index: int                  # its row in the grid, from which its full scenario is rebuilt


def _rows(frame: pl.DataFrame) -> list[ChoiceRow]:
    return [ChoiceRow({k: v for k, v in row.items() if k not in (OBJECTIVE, PLAN, INDEX)},
                      row[OBJECTIVE], row[PLAN], row[INDEX]) for row in frame.iter_rows(named=True)]


@dataclass
class Tally:
    ranked: list[ChoiceRow] = field(default_factory=list)     # feasible rows, best first
    excluded: list[ChoiceRow] = field(default_factory=list)   # in grid order; only without a limit
    reasons: dict[str, int] = field(default_factory=dict)          # excluded rows per reason, in order of appearance
    feasible: int = 0
    first_objective: float | None = None   # the first objective in grid order that is not null (it picks the unit)


def tally_rows(plan: Plan, plan_index: int, requirements: list[Bound], goal: Bound, grid: Grid, start: int,
               stop: int, minimize: bool, top: int | None) -> Tally:
    """Rows [start, stop) of one plan, classified and ranked."""
    def compiled(bound: Bound) -> pl.Expr:
        return plan.program.compiler(bound.checked).compile_expression(bound.formula.expr)[0].scalar_expr()

    checks = [compiled(r).alias(f"__req{i}") for i, r in enumerate(requirements)]
    objective = compiled(goal).alias(OBJECTIVE)
    shown = [pl.lit(v).alias(k) for k, v in plan.imports.items()] + [c.display() for c in plan.columns]
    tags = [pl.lit(plan_index).alias(PLAN), (pl.int_range(0, pl.len()) + start).alias(INDEX)]
    lazy = plan.program.apply(plan.program.frame(grid.chunk(start, stop, shown_axes(plan.columns)),
                                                 stop - start)).with_columns(checks)
    frame = lazy.with_columns(objective).select([*shown, *(c.meta.output_name() for c in checks),
                                                 OBJECTIVE, *tags]).collect()
    reason: Any = pl
    if OUTSIDE_HEADER in frame.columns:   # a row outside the model's assumptions (format 9.2) is excluded first
        outside = pl.col(OUTSIDE_HEADER)
        reason = reason.when(outside.is_not_null() & (outside != "")).then(pl.lit("outside the model: ") + outside)
    if requirements:   # every requirement the row fails, not only the first
        failures = [pl.when(pl.col(f"__req{i}").is_null()).then(pl.lit(f"{r.text} is an error value"))
                    .when(~pl.col(f"__req{i}")).then(pl.lit(f"fails {r.text}")) for i, r in enumerate(requirements)]
        failed = pl.concat_str(failures, separator="; ", ignore_nulls=True)
        reason = reason.when(failed != "").then(failed)
    value = pl.col(OBJECTIVE)
    reason = reason.when(value.is_null() | value.cast(pl.Float64).is_nan()).then(pl.lit(f"{goal.text} is an error value"))
    keep = [c for c in frame.columns if not c.startswith("__req") and c != OUTSIDE_HEADER]
    frame = frame.with_columns(reason.otherwise(pl.lit(None, pl.String)).alias(EXCLUDED_HEADER))
    tally = Tally()
    objectives = frame[OBJECTIVE].drop_nulls()
    tally.first_objective = float(objectives[0]) if len(objectives) else None
    feasible = frame.filter(pl.col(EXCLUDED_HEADER).is_null()).select(keep)
    tally.feasible = feasible.height
    best = feasible.sort(OBJECTIVE, descending=not minimize, maintain_order=True)
    tally.ranked = _rows(best if top is None else best.head(top))
    excluded = frame.filter(pl.col(EXCLUDED_HEADER).is_not_null())
    counts = excluded.group_by(EXCLUDED_HEADER, maintain_order=True).len()
    tally.reasons = dict(zip(counts[EXCLUDED_HEADER].to_list(), counts["len"].to_list()))
    if top is None:
        tally.excluded = _rows(excluded.select(keep + [EXCLUDED_HEADER]))
    return tally


def merge(tallies: list[Tally], minimize: bool, top: int | None) -> Tally:
    """Tallies of consecutive ranges (in grid order) as one."""
    merged = Tally()
    for tally in tallies:
        merged.ranked.extend(tally.ranked)
        merged.excluded.extend(tally.excluded)
        for reason, count in tally.reasons.items():
            merged.reasons[reason] = merged.reasons.get(reason, 0) + count
        merged.feasible += tally.feasible
        if merged.first_objective is None:
            merged.first_objective = tally.first_objective
    # a stable sort: ties keep grid order, as each range's own ranking did
    merged.ranked.sort(key=lambda r: r.objective, reverse=not minimize)  # type: ignore[arg-type,return-value]  # feasible: not null
    if top is not None:
        del merged.ranked[top:]
    return merged
