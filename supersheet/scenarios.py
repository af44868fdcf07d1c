"""Sweeps, goal seeking and choices from Python, run by the CLI's own engine calls.

`Sheet.sweep`/`solve`/`choose` land here: the axes given in Python become the
engine's `Axis` objects through the same constructors `--vary` and a sheet's
`vary:` use (`supersheet.engine.scenarios.axes`), so their values are checked the same way, and the
rows come from the same `SweepSetup` (supersheet.sweeps) and goal seeks and choices
(supersheet.goals) as `supersheet sweep`, `solve` and `choose`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from supersheet.engine.base.limits import MAX_ROWS
from supersheet.engine.present.headers import EXCLUDED_HEADER
from supersheet.engine.scenarios.axes import AxisError, axis_cell, import_axis, range_axis, value_axis

from .errors import RequestError, SheetError, from_engine
from .goals import Solved, SolveError, rank_choice, solve_named
from .html import choice_html
from .quantities import literal_text
from .results import Rows, SweepResult
from .sweeps import SweepSetup
import tempfile
from pathlib import Path

if TYPE_CHECKING:
    import polars as pl

    from supersheet.engine.workbook import Workbook

    from .handle import SheetHandle


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


def sweep(sheet: SheetHandle, name: str | None, axes: dict[str, Any], show: list[str] | None, where: str | None,
          max_rows: int = MAX_ROWS, on: str = "local", address: str | None = None) -> SweepResult:
    try:
        if name is None and not axes:
            sweeps = ", ".join(SweepSetup(sheet).sweeps)
            raise AxisError("E-SHEET", "give a sweep name or at least one axis, e.g. sheet.sweep(tp=[1, 2, 4])",
                            f"sweeps in this sheet: {sweeps}" if sweeps else None)
        setup = SweepSetup(sheet, name)
        workbook = setup.workbook
        for axis_name, values in axes.items():
            setup.check_can_vary()
            setup.vary(_axis(workbook, axis_name, values))
        if show is not None:
            setup.show(show)
        if where is not None:
            setup.where(where)
        if setup.rows > max_rows:
            raise AxisError("E-SHEET", f"the sweep has {setup.rows:,} rows, more than max_rows={max_rows:,}")
        plan = setup.plan()
        frame = plan.frame() if on == "local" else _on_ray(plan, on, address)
    except AxisError as e:
        raise from_engine(e) from None
    return SweepResult.from_headed(frame)


def _on_ray(plan: Any, on: str, address: str | None) -> pl.DataFrame:
    """The rows evaluated as Ray tasks (`supersheet sweep --on ray`), each writing a Parquet
    part into a temporary dataset read back in grid order."""

    import polars as pl   # deferred: polars

    if on != "ray":
        raise RequestError(f"on={on!r}: give on='local' or on='ray'")
    with tempfile.TemporaryDirectory(prefix="supersheet-sweep-") as folder:
        target = Path(folder) / "rows"
        plan.write_dataset(target, address)
        return pl.concat([pl.read_parquet(part) for part in sorted(target.glob("part-*.parquet"))], how="vertical")


def solved(sheet: SheetHandle, name: str) -> tuple[Solved, str]:
    """The sheet's solve `name` (goal seeking): the answer, and its value as the text an input
    takes (`Sheet.solve` builds the `Solution` and the sheet with that value set)."""
    try:
        answer = solve_named(sheet, name)
    except AxisError as e:
        raise from_engine(e) from None
    except SolveError as e:   # at the solve's name, as `supersheet solve` and `check` report it
        raise SheetError([e.diagnostic]) from None
    shown = answer.shown()
    return answer, f"{shown.value!r} {shown.unit}" if shown.unit else repr(shown.value)


@dataclass(frozen=True)
class Choice:
    """A choice's result, as `supersheet choose` ranks it: the feasible rows ranked by the
    objective (best first) and the rows a requirement excluded (with `excluded because`),
    each a `Rows` like a sweep's: `.frame` under plain cell names, `.units` beside it
    (`name [unit]` headers only in `.headed()` and the files)."""

    name: str
    objective: str
    minimize: bool
    ranked: Rows
    excluded: Rows
    feasible: int
    reasons: dict[str, int] = field(default_factory=dict)

    @property
    def answer(self) -> dict[str, Any] | None:
        """The best feasible row (plain names, display units), or None when no row is feasible."""
        return self.ranked.frame.row(0, named=True) if self.ranked.height else None

    @property
    def units(self) -> dict[str, str]:
        """Column name -> display unit, for the ranked and the excluded rows alike."""
        return {**self.excluded.units, **self.ranked.units}

    def __repr__(self) -> str:
        direction = "minimize" if self.minimize else "maximize"
        return (f"<Choice {self.name}: {direction} {self.objective}, {self.feasible:,} feasible, "
                f"answer {self.answer}>")

    def _repr_html_(self) -> str:
        return choice_html(self.name, self.objective, self.minimize, self.feasible, self.ranked.headed(), self.reasons)


def choose(sheet: SheetHandle, name: str, top: int | None = None, show: list[str] | None = None,
           on: str = "local", address: str | None = None) -> Choice:
    try:
        ranking = rank_choice(sheet, name, top, show, on, address)
    except AxisError as e:
        raise from_engine(e) from None
    headers = list(dict.fromkeys(k for row in ranking.ranked + ranking.excluded for k in row))
    ranked = _rows(ranking.ranked, [h for h in headers if h != EXCLUDED_HEADER])
    return Choice(name, ranking.objective, ranking.minimize, ranked, _rows(ranking.excluded, headers),
                  ranking.feasible or len(ranking.ranked), ranking.reasons)


def _rows(rows: list[dict[str, Any]], headers: list[str]) -> Rows:
    """A choice's rows (dicts keyed by the files' headers) as `Rows`, with every column even
    when there is no row (a choice with no feasible row still says what it would have shown)."""
    import polars as pl   # deferred: polars
    frame = pl.DataFrame(rows) if rows else pl.DataFrame({h: [] for h in headers})
    return Rows.from_headed(frame)
