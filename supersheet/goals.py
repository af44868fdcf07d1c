"""Goal seeking and choices on a `Sheet` (opened, or with inputs set): what `Sheet.solve`/`choose` and the
`supersheet solve`/`choose` commands run.

`solve_named` runs a solve the sheet defines, `solve_goal` an ad hoc one (a cell
varied between two values until a goal `A == B` holds); both give a `Solved`,
which renders as the command prints it. `rank_choice` runs a choice (here, or
its row ranges as Ray tasks) and gives a `Ranking`: every row as a dict of the
values shown (display units, `name [unit]` keys). A goal with no answer raises
`SolveError` (at the solve's name for a named one), an axis or goal that does
not fit the sheet an `AxisError`; both are `supersheet.errors.Problem`s.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from supersheet.engine.base.span import Origin
from .errors import AxisError, RequestError, SolveError
import json

if TYPE_CHECKING:
    from supersheet.engine.present.present import Shown
    from supersheet.engine.scenarios.solve import Solution
    from supersheet.engine.workbook import Workbook

    from .handle import SheetHandle

__all__ = ["CHOOSE_SCHEMA", "SOLVE_SCHEMA", "AxisError", "Ranking", "SolveError", "Solved", "rank_choice", "solve_goal",
           "solve_named", "solve_names"]

SOLVE_SCHEMA = "supersheet-solve/1"     # the JSON schema of `solve --format json` (supersheet/schemas/)
CHOOSE_SCHEMA = "supersheet-choose/1"   # the JSON schema of `choose --format json` (supersheet/schemas/)


@dataclass(frozen=True)
class Solved:
    """A goal met: `cell` takes the value `display` (as `run` shows it) where `goal` holds;
    `solution` is the engine's (its `value` in base units, its `scenario` every cell there)."""

    name: str | None
    workbook: Workbook
    solution: Solution

    @property
    def goal(self) -> str:
        return self.solution.goal

    @property
    def cell(self) -> str:
        return self.solution.key

    @property
    def display(self) -> str:
        return self.shown().text

    def shown(self) -> Shown:
        """The value as presented: `value` and `unit` in the display unit, and `text`."""
        from supersheet.engine.present.present import show   # deferred: ruamel
        return show(self.workbook.checked, self.solution.key, self.solution.value)

    def render(self, format: str = "text") -> str:
        """As `supersheet solve` prints it: the answer, then every cell there (`text`), or
        one JSON document (`json`)."""
        from supersheet.engine.present.report import cell_record, ordered_cells, render_run   # deferred: ruamel
        solution, shown = self.solution, self.shown()
        if format == "json":
            return json.dumps({"schema": SOLVE_SCHEMA, "solve": self.name, "goal": solution.goal, "vary": solution.key,
                               "solution": {"name": solution.key, "value": shown.value, "unit": shown.unit,
                                            "display": shown.text},
                               "cells": [cell_record(self.workbook, solution.scenario, c)
                                         for c in ordered_cells(self.workbook)]},
                              indent=2, ensure_ascii=False)
        return f"{solution.goal}  when  {solution.key} = {shown.text}\n\n" + \
            render_run(self.workbook, solution.scenario, "text")


def solve_names(sheet: SheetHandle) -> list[str]:
    """The solves the sheet defines (for a message that lists them)."""
    root = _workbook(sheet).model.root
    return list(root.solve) if root else []


def solve_named(sheet: SheetHandle, name: str) -> Solved:
    """Run the sheet's solve `name`. SolveError (at the solve's name) when the goal has no answer."""
    from supersheet.engine.scenarios.solve import solve_entry   # deferred: numpy, ruamel
    workbook = _workbook(sheet)
    try:
        solution, _ = solve_entry(workbook, name)
    except SolveError as e:   # at the solve's name, as `supersheet check` reports it
        entry = workbook.model.root.solve.get(name) if workbook.model.root else None
        raise SolveError.of(e.at(entry.span if entry else None)) from None
    return Solved(name, workbook, solution)


def solve_goal(sheet: SheetHandle, vary: str, goal: str, between: tuple[str | float, str | float],
               source: str = "<goal>") -> Solved:
    """Vary the cell `vary` between two values (literal text such as `"1 KiB"`, or numbers)
    until `goal` (`"A == B"`) holds; its diagnostics name `source` as the file."""
    from supersheet.engine.scenarios.solve import solve   # deferred: numpy, ruamel
    workbook = _workbook(sheet)
    return Solved(None, workbook, solve(workbook, vary, goal, between, Origin(source, 1, 1)))


@dataclass(frozen=True)
class Ranking:
    """A choice's rows, each a dict of the values shown: the feasible ones best first
    (`ranked`, the best `top` when given), the excluded ones with their reason, or, with
    `top`, only a count per reason (`reasons`); `feasible` counts the feasible rows."""

    name: str
    objective: str
    minimize: bool
    ranked: list[dict[str, Any]]
    excluded: list[dict[str, Any]]
    feasible: int
    reasons: dict[str, int] = field(default_factory=dict)
    top: int | None = None

    @property
    def answer(self) -> dict[str, Any] | None:
        """The best feasible row, or None when no row is feasible."""
        return self.ranked[0] if self.ranked else None

    def to_json(self) -> str:
        """As `supersheet choose --format json` prints it (the schema `supersheet-choose/1`):
        the rows keyed by their files' headers (`all_done [ms]`), values in display units."""

        from supersheet.engine.scenarios.output import json_number   # deferred: polars, ruamel

        def rows(items: list[dict[str, Any]]) -> list[dict[str, Any]]:   # inf as "inf", as the sweep's JSON
            return [{k: json_number(v) for k, v in row.items()} for row in items]

        ranked = rows(self.ranked)
        document: dict[str, Any] = {
            "schema": CHOOSE_SCHEMA, "choice": self.name, "objective": self.objective,
            "direction": "minimize" if self.minimize else "maximize",
            "answer": ranked[0] if ranked else None, "ranked": ranked, "excluded": rows(self.excluded)}
        if self.top is not None:
            document.update({"top": self.top, "feasible": self.feasible, "excluded_by_reason": self.reasons})
        return json.dumps(document, indent=2, ensure_ascii=False, default=str)


def rank_choice(sheet: SheetHandle, name: str, top: int | None = None, show: list[str] | None = None,
                on: str = "local", address: str | None = None) -> Ranking:
    """Run the sheet's choice `name`: every row of its grid, ranked by the objective.
    `on="ray"` reduces row ranges as Ray tasks (only the `top` best rows of each travel back;
    default 10); RequestError when Ray is unavailable or a task fails."""
    workbook = _workbook(sheet)
    if on == "ray":
        from supersheet.engine.scenarios.choice_ray import DEFAULT_TOP, choose_on_ray   # deferred: polars, numpy, ruamel
        from supersheet.engine.scenarios.on_ray import RayUnavailable, TaskFailed   # deferred: engine.scenarios.on_ray (slow to import)

        from .inputs import ray_session   # deferred: ruamel
        try:
            with ray_session(address):
                choice = choose_on_ray(workbook, name, top or DEFAULT_TOP, address=address, show=show)
        except (RayUnavailable, TaskFailed) as e:
            raise RequestError(str(e)) from None
    else:
        from supersheet.engine.scenarios.choice import choice_entry   # deferred: numpy, ruamel
        choice, _ = choice_entry(workbook, name, top, show=show)
    return Ranking(name, choice.objective, choice.minimize, [r.values for r in choice.ranked],
                   [r.values for r in choice.excluded], choice.feasible, dict(choice.reasons), choice.top)


def _workbook(sheet: SheetHandle) -> Workbook:
    """The sheet as written with its inputs: what a solve or a choice evaluates."""
    return sheet.written_workbook
