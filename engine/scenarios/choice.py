"""Choices (spec §8): every row of a grid classified against the requirements,
the feasible ones ranked by the objective (choice_tally.py counts the rows,
choice_ray.py on Ray). The goal seek is in solve.py.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable, Sequence

from supersheet.engine.compile.evaluate import Scenario
from supersheet.engine.formula import ast as A
from supersheet.engine.load.specs import ChoiceBlock, Expression
from supersheet.engine.present.headers import EXCLUDED_HEADER, header, is_error_header
from supersheet.engine.present.present import display_unit, unit_factor
from supersheet.engine.scenarios.axes import AxisError, rebind
from supersheet.engine.scenarios.expression import Bound
from supersheet.engine.scenarios.grid import Grid, parse_vary
from supersheet.engine.scenarios.solve import bind_at_means, bound_span, named_block
from supersheet.engine.scenarios.sweep import plans_for
from supersheet.engine.workbook import Workbook
from supersheet.units import compact_unit
from supersheet.engine.compile.evaluate import literal_for

if TYPE_CHECKING:
    from supersheet.engine.scenarios.choice_tally import ChoiceRow


@dataclass
class Choice:
    name: str
    objective: str
    minimize: bool
    ranked: list[ChoiceRow] = field(default_factory=list)     # feasible rows, best first (the best `top`)
    excluded: list[ChoiceRow] = field(default_factory=list)   # rows with the reason in "excluded because" (no `top`)
    feasible: int = 0                                              # feasible rows in all
    reasons: dict[str, int] = field(default_factory=dict)          # excluded rows per reason
    top: int | None = None
    plans: list = field(default_factory=list)
    grid: Grid | None = None

    @property
    def answer(self) -> ChoiceRow | None:
        return self.ranked[0] if self.ranked else None

    def scenario_of(self, row: ChoiceRow) -> Scenario:
        """The full scenario of one row (base units), e.g. to check the answer's cells."""
        plan = self.plans[row.plan]
        assert self.grid is not None
        index = row.index
        columns = Grid(plan_axes(plan, self.grid), self.grid.rows).chunk(index, index + 1)
        fixed = {key: (A.Bool(bool(v[0]), (0, 0)) if v.dtype == bool else literal_for(float(v[0]), None))
                 for key, v in columns.items()}
        return plan.workbook.evaluate(fixed)


def plan_axes(plan, grid: Grid) -> list:
    return [rebind(plan.workbook, a) for a in grid.value_axes] if plan.imports else grid.value_axes


def choose(workbook: Workbook, name: str, grid: Grid, require: Sequence[Expression],
           objective: Expression, minimize: bool, top: int | None = None,
           tallies: Callable[..., list] | None = None, show: list[str] | None = None) -> Choice:
    """Every row of the grid classified, the feasible ones ranked (the best `top` of them, with
    excluded rows only counted per reason). `tallies(plans, units, grid, minimize, top)`, when
    given, reduces the rows elsewhere (Ray tasks), range by range, in grid order. `show` adds the
    cells behind the ranking as columns."""
    from supersheet.engine.scenarios.choice_tally import merge, tally_rows   # deferred: polars
    requirements, goal = bind_choice(workbook, require, objective)
    units: dict[str, str | None] = {}
    plans = plans_for(workbook, grid, show or [], None, sampling=None, units=units)   # the mean view of draws
    if tallies is None:
        parts = []
        for i, plan in enumerate(plans):   # a plan of an import axis binds the terms in its own sheet
            terms = (requirements, goal) if plan.workbook is workbook else bind_choice(plan.workbook, require, objective)
            parts.append(tally_rows(plan, i, *terms, grid, 0, grid.value_size(), minimize, top))
    else:
        parts = tallies(plans, units, grid, minimize, top)
    tally = merge(parts, minimize, top)
    first = tally.first_objective
    objective_unit = _objective_unit(workbook, goal, float(abs(first)) if first is not None else 1.0)
    factor, objective_header = unit_factor(objective_unit), header(goal.text, objective_unit)

    def shown(row: ChoiceRow) -> ChoiceRow:
        values = {k: v for k, v in row.values.items() if k != EXCLUDED_HEADER}
        for alias in [a.name for a in grid.import_axes]:   # paths as the user types them
            if isinstance(values.get(alias), str):
                values[alias] = _relative(values[alias])
        values[objective_header] = None if row.objective is None else row.objective / factor
        if EXCLUDED_HEADER in row.values:
            values[EXCLUDED_HEADER] = row.values[EXCLUDED_HEADER]
        return replace(row, values=values)

    ranked, excluded = [shown(r) for r in tally.ranked], [shown(r) for r in tally.excluded]
    clean = {k for r in ranked + excluded for k in r.values if is_error_header(k)} - {
        k for r in ranked + excluded for k, v in r.values.items() if is_error_header(k) and v is not None}
    if clean:   # as in sweeps: an error column only where a row holds an error
        ranked, excluded = ([replace(r, values={k: v for k, v in r.values.items() if k not in clean}) for r in rows]
                            for rows in (ranked, excluded))
    result = Choice(name, goal.text, minimize, ranked, excluded, tally.feasible, tally.reasons, top)
    result.plans, result.grid = plans, grid
    return result


def _relative(path: str) -> str:
    """An import axis's sheet relative to the working directory."""
    try:
        return os.path.relpath(path)
    except ValueError:   # another drive
        return path


def bind_choice(workbook: Workbook, require: Sequence[Expression],
                objective: Expression) -> tuple[list[Bound], Bound]:
    requirements = [bind_at_means(workbook, r.text, r.origin) for r in require]
    for bound in requirements:
        if not bound.type.is_bool or bound.type.is_array:
            raise AxisError("E-TYPE", f"a requirement must be a condition: {bound.text!r}", span=bound_span(bound))
    goal = bind_at_means(workbook, objective.text, objective.origin)
    if goal.type.is_bool or goal.type.is_array:
        raise AxisError("E-TYPE", f"the objective must be a number: {goal.text!r}", span=bound_span(goal))
    return requirements, goal


def _objective_unit(workbook: Workbook, goal: Bound, sample: float) -> str | None:
    expr = goal.formula.expr
    if isinstance(expr, A.Name):
        key = goal.checked.bindings.get(expr)
        if key:
            return display_unit(workbook.checked, key, sample)
    return goal.formula.display_unit or compact_unit(sample, goal.type.dims)


def choice_entry(workbook: Workbook, name: str, top: int | None = None,
                 tallies: Callable[..., list] | None = None, show: list[str] | None = None) -> tuple[Choice, ChoiceBlock]:
    block = choice_block(workbook, name)
    assert block.vary is not None and block.objective is not None
    return choose(workbook, name, parse_vary(workbook, block.vary), block.require, block.objective, block.minimize,
                  top, tallies, show), block


def choice_block(workbook: Workbook, name: str) -> ChoiceBlock:
    """The choice `name` as written (a problem of its shape raised)."""
    return named_block(workbook.model.root.choose if workbook.model.root else {}, "choice", name)
