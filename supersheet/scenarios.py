"""Sweeps, goal seeking and choices from Python, run by the CLI's own engine calls.

`Sheet.sweep`/`solve`/`choose` land here: the axes given in Python become the
engine's `Axis` objects through the same constructors `--vary` and a sheet's
`vary:` use (`supersheet.engine.scenarios.axes`), so their values are checked the same way, and the
rows come from the same plans and chunks as `supersheet sweep`.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from supersheet.engine.scenarios.axes import AxisError, axis_cell, import_axis, range_axis, value_axis

from .errors import SheetError, from_engine
from .quantities import literal_text, python_value
from .sheet import scenario_workbook, solved_sheet

if TYPE_CHECKING:
    import polars as pl

    from supersheet.engine.scenarios.choice_tally import ChoiceRow

    from supersheet.engine.workbook import Workbook

    from .sheet import Sheet

MAX_ROWS = 10_000_000   # the CLI's default --max-rows


@dataclass(frozen=True)
class Range:
    """A range axis (`supersheet.range`): from `start` to `stop` by a factor (`times`),
    a step, or a number of values (`count`, linear or `scale="log"`)."""

    start: Any
    stop: Any
    times: float | None = None
    step: Any = None
    count: int | None = None
    scale: str = "linear"


def _axis(workbook: Workbook, name: str, values: Any):
    if name in workbook.model.scope.aliases and workbook.key_for(name) is None:   # an import axis: sheet paths
        return import_axis(workbook, name, [str(v) for v in (values if isinstance(values, (list, tuple)) else [values])])
    key, _, _ = axis_cell(workbook, name)
    checked = workbook.checked

    def text(value: Any) -> Any:
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else \
            literal_text(checked, key, value)

    if isinstance(values, Range):
        return range_axis(workbook, name, text(values.start), text(values.stop),   # numbers stay numbers
                          times=None if values.times is None else float(values.times),
                          step=None if values.step is None else text(values.step),
                          count=values.count, scale=values.scale)
    items = list(values) if isinstance(values, (list, tuple)) else [values]
    return value_axis(workbook, name, [text(v) for v in items])


def sweep(sheet: Sheet, name: str | None, axes: dict[str, Any], show: list[str] | None, where: str | None,
          max_rows: int = MAX_ROWS) -> pl.DataFrame:
    import polars as pl

    from supersheet.engine.base.span import Origin
    from supersheet.engine.scenarios.grid import Grid
    from supersheet.engine.scenarios.sweep import (
        SweepSpec,
        drop_clean_error_columns,
        iterate_chunks,
        load_sweep,
        plans_for,
        units_metadata,
    )
    workbook = scenario_workbook(sheet)
    try:
        if name is None and not axes:
            sweeps = ", ".join(workbook.model.root.sweeps) if workbook.model.root else ""
            raise AxisError("E-SHEET", "give a sweep name or at least one axis, e.g. sheet.sweep(tp=[1, 2, 4])",
                            f"sweeps in this sheet: {sweeps}" if sweeps else None)
        spec = load_sweep(workbook, name) if name is not None else SweepSpec("ad hoc", Grid([]))
        for axis_name, values in axes.items():
            if spec.grid.rows is not None:
                raise AxisError("E-SHEET", "axes cannot be added to a sweep of explicit rows")
            axis = _axis(workbook, axis_name, values)
            spec.grid.axes = [a for a in spec.grid.axes if a.name != axis.name] + [axis]
        if show is not None:
            spec.show = list(show)
        if where is not None:
            spec.where, spec.where_origin = where, Origin("<where>", 1, 1)
        size = spec.grid.size()
        if size > max_rows:
            raise AxisError("E-SHEET", f"the sweep has {size:,} rows, more than max_rows={max_rows:,}")
        units: dict = {}
        plans = plans_for(workbook, spec.grid, spec.show, spec.where, spec.where_origin, (None, None), units)
        frames = list(iterate_chunks(plans, spec.grid))
    except AxisError as e:
        raise from_engine(e) from None
    frame = drop_clean_error_columns(pl.concat(frames, how="diagonal_relaxed")) if frames else pl.DataFrame()
    frame.supersheet_units = {header: unit for header, unit in  # type: ignore[attr-defined]
                              json.loads(units_metadata(plans)["supersheet.units"]).items() if header in frame.columns}
    return frame


@dataclass(frozen=True)
class Solution:
    """A solve's answer: `cell` takes `value` (in its display unit) where `goal` holds;
    `sheet` is the sheet with that value set."""

    name: str
    goal: str
    cell: str
    value: Any
    sheet: Sheet

    def __repr__(self) -> str:
        return f"<Solution {self.goal} when {self.cell} = {self.sheet.display(self.cell)}>"


def solve(sheet: Sheet, name: str) -> Solution:
    from supersheet.engine.present.present import show
    from supersheet.engine.scenarios.solve import SolveError, solve_entry
    workbook = scenario_workbook(sheet)
    try:
        solution, _ = solve_entry(workbook, name)
    except AxisError as e:
        raise from_engine(e) from None
    except SolveError as e:   # at the solve's name, as `supersheet solve` and `check` report it
        entry = workbook.model.root.solve.get(name) if workbook.model.root else None
        raise SheetError([e.at(entry.span if entry else None)]) from None
    shown = show(workbook.checked, solution.key, solution.value)
    text = f"{shown.value!r} {shown.unit}" if shown.unit else repr(shown.value)
    return Solution(name, solution.goal, solution.key, python_value(workbook.checked, solution.key, solution.value),
                    solved_sheet(sheet, workbook, solution.scenario, solution.key, text))


@dataclass(frozen=True)
class Choice:
    """A choice's result: feasible rows ranked by the objective (best first), and the
    rows a requirement excluded, as `supersheet choose` prints them (display units,
    `name [unit]` headers)."""

    name: str
    objective: str
    minimize: bool
    ranked: pl.DataFrame
    excluded: pl.DataFrame
    feasible: int
    reasons: dict[str, int] = field(default_factory=dict)

    @property
    def answer(self) -> dict[str, Any] | None:
        """The best feasible row, or None when no row is feasible."""
        return self.ranked.row(0, named=True) if self.ranked.height else None


def choose(sheet: Sheet, name: str, top: int | None = None) -> Choice:
    import polars as pl

    from supersheet.engine.scenarios.solve import choice_entry
    try:
        choice, _ = choice_entry(scenario_workbook(sheet), name, top)
    except AxisError as e:
        raise from_engine(e) from None

    def public(rows: list[ChoiceRow]) -> pl.DataFrame:
        return pl.DataFrame([r.values for r in rows])

    return Choice(name, choice.objective, choice.minimize, public(choice.ranked), public(choice.excluded),
                  choice.feasible or len(choice.ranked), dict(choice.reasons))
