"""`Sheet`: one evaluated scenario of a sheet, immutable, read like a mapping.

A Sheet is the engine's `Workbook` (loaded and checked once) with the inputs
set on it from Python and the `Scenario` evaluated with them, on first read
(a sheet opened by `open_checked` for a sweep, solve or
choice is never evaluated as a whole). `with_inputs` returns a new Sheet that
re-evaluates only the changed cells and their dependents
(`supersheet.engine.compile.evaluate.reevaluate`, as the editor does); the
original keeps its values. A Sheet is also the handle the command-level entry
points (supersheet.sweeps, .goals, .inputs) take: the command never holds an
engine object.

This module is the top of the API: `Sheet`'s notebook methods call the sweeps,
goals, reports and HTML below it, which name what they take of a sheet with
`supersheet.handle.SheetHandle` instead of importing this module; and only this
module builds a Sheet (`load`, `open_checked`, `Sheet.opened`, `with_inputs`,
`solve`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from supersheet.engine.base.diagnostics import sheet_problems, unknown_cell
from supersheet.engine.compile.evaluate import Scenario, error_code, reevaluate
from supersheet.engine.formula import ast as A
from supersheet.engine.workbook import Workbook, apply_assignments, open_workbook

from .errors import OverrideError, SheetError, UnknownCell, problem
from .inputs import Sampling, sample
from .loading import checked_workbook, library_path
from .quantities import CellValue, Share, Spread, literal_text, python_value, spread_value
from supersheet.units import registry
from supersheet.engine.present.report import ordered_cells
from supersheet.engine.present.report import cell_record
from supersheet.engine.present.report import set_overrides

if TYPE_CHECKING:
    import pint

    from supersheet.engine.scenarios.uncertainty import Sampled

    from .fits import Fitted
    from .results import SweepResult
    from .scenarios import Choice, Range


def load(path: str | Path, *, samples: int | None = None, seed: int | None = None) -> Sheet:
    """Load, check and evaluate a sheet (a YAML file); SheetError lists every problem.

    A sheet with random draws is evaluated over its samples when a value is first read,
    as `supersheet run` does: `samples` and `seed` are `run`'s `--samples` and `--seed`
    (None: the sheet's `samples:`, else 10,000 and seed 0). `path` may name a library
    file (`"supersheet:supernodes/6.1.2-running-example.yaml"`)."""
    path = library_path(path)
    if not Path(path).is_file():
        raise problem("E-IMPORT", f"no such sheet: {path}")
    workbook = open_workbook(path)
    if not workbook.ok:
        raise SheetError(sheet_problems(workbook.diagnostics))
    given = None if workbook.checked.distributions else workbook.evaluate()
    return Sheet(workbook, workbook, given, sampling=Sampling(samples, seed))


@dataclass(frozen=True, eq=False)
class Sheet(Mapping[str, CellValue]):
    """A loaded sheet evaluated with the inputs set on it: a read-only Mapping from cell
    name to value; `sheet["name"]` is a cell's value, an unknown name a KeyError
    (`UnknownCell`, which is also a SheetError with a did-you-mean hint).

    Keys are cell names as the CLI spells them (`context`, `hgx.cards` for an
    imported cell). Iterating yields every cell name, the sheet's own first. Two
    Sheets are equal only when they are the same object (comparing values would
    evaluate both)."""

    __eq__ = object.__eq__
    __hash__ = object.__hash__

    _base: Workbook        # the sheet as loaded (what `inputs` are set on)
    _workbook: Workbook    # the workbook evaluated: the base, or a variant for inputs that reshape it
    _given: Scenario | None   # its values when already evaluated; None: evaluated on first read
    inputs: Mapping[str, str] = field(default_factory=dict)   # name -> literal text, as `--set` takes it
    sampling: Sampling = Sampling()   # how a sheet with random draws is sampled (`run`'s --samples, --seed)

    @cached_property
    def _scenario(self) -> Scenario:
        """The values, evaluated once on first read (cached_property writes the instance's
        __dict__, so the frozen dataclass stays immutable to its users). For a sheet with
        random draws, the scenario `run` shows beside the samples: every draw at its mean,
        reductions over the samples (p95, prob, ...) at their value over them."""
        if self._sampled is not None:
            return self._sampled.deterministic
        return self._given if self._given is not None else self._workbook.evaluate()

    @cached_property
    def _sampled(self) -> Sampled | None:
        """The sheet over its samples, exactly as `supersheet run --set ...` samples it (None
        without random draws)."""
        if not self._workbook.checked.distributions:
            return None
        sets = self._assignments()
        workbook, fixed = apply_assignments(self._base, sets) if sets else (self._workbook, None)
        return sample(workbook, self.sampling, fixed, sets)

    @cached_property
    def written_workbook(self) -> Workbook:
        """The engine's workbook of the sheet as written with its inputs, which sweeps, solves,
        choices and diffs evaluate: read again from the texts loaded, not from disk, once."""
        return _written(self)

    def opened(self, workbook: Workbook) -> Sheet:
        """A Sheet of another checked workbook (a variant of this one), evaluated when read."""
        return Sheet(workbook, workbook, None)

    # -- reading ------------------------------------------------------------
    @property
    def path(self) -> Path:
        return Path(self._base.model.path)

    @property
    def title(self) -> str:
        return self._base.model.title or ""

    def __getitem__(self, name: str) -> CellValue:
        """The value in its display unit: a Pint quantity, a float (dimensionless), a bool
        (a check or condition); a list or array for an array cell. A cell that depends on
        random draws is a `Spread` (mean and percentiles over the samples) or, for a
        boolean, a `Share` (the share of samples where it holds), as `supersheet run`
        shows them. An error value (#DIV/0, #NUM, ...) raises SheetError with code
        E-VALUE at the cell."""
        key = self._key(name)
        checked = self._workbook.checked
        if key in checked.uncertain:
            sampled = self._sampled
            if sampled is not None and key in sampled.summaries:
                return spread_value(checked, key, self._record(key))
            if sampled is not None and key in sampled.shares:
                record = self._record(key)
                return Share(record["share_true"], record["samples"], record["display"])
            raise problem("E-TYPE", f"{name} is an array that depends on random draws: it has no one value",
                          "sweep it, or reduce it in the sheet (mean, max, p95 ...)",
                          span=self._workbook.model.cells[key].spec.span)
        return python_value(checked, key, self._scenario.values.get(key))

    def quantity(self, name: str) -> pint.Quantity:
        """`sheet[name]` typed as a Pint quantity of `registry()` (a dimensionless number as a
        dimensionless quantity), for arithmetic a type checker follows; E-TYPE for a check,
        a condition or a cell over random draws (read those with `sheet[name]`)."""
        value = self[name]
        if isinstance(value, (bool, Spread, Share)) or (isinstance(value, list) and value and isinstance(value[0], bool)):
            raise problem("E-TYPE", f"{name} is {type(value).__name__ if not isinstance(value, list) else 'a list of bools'}, "
                          "not a quantity", "read it with sheet[name]")
        return value if isinstance(value, registry().Quantity) else registry().Quantity(value, "")

    def __iter__(self) -> Iterator[str]:
        return (cell.key for cell in ordered_cells(self._workbook))

    def __len__(self) -> int:
        return len(self._workbook.model.cells)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._workbook.key_for(name) is not None

    def error(self, name: str) -> str | None:
        """The error code a cell holds (`#DIV/0`, `#NUM`, ...), or None; for a cell over
        random draws, the error `run` shows (#NUM when its mean overflows)."""
        key = self._key(name)
        if self._sampled is not None and key in self._workbook.checked.uncertain:
            return self._record(key).get("error")
        return error_code(self._scenario.values.get(key))

    def display(self, name: str) -> str:
        """The value as `supersheet run` shows it, e.g. `35 session`, or `1.98 (p5 1.69 … p95 2.35)`
        for a cell over random draws."""
        return str(self._record(self._key(name))["display"])

    def records(self) -> list[dict[str, Any]]:
        """Every cell as `supersheet run --format json` prints it (name, value, unit, display,
        kind, formula; mean, p5, p50, p95 and samples for a cell over random draws)."""
        return [self._record(c.key) for c in ordered_cells(self._workbook)]

    def _record(self, key: str) -> dict[str, Any]:
        return cell_record(self._workbook, self._scenario, self._workbook.model.cells[key], self._sampled,
                           overrides=self._overrides)

    @cached_property
    def _overrides(self) -> dict[str, Any] | None:
        return set_overrides(self._base, self._assignments()) if self.inputs else None

    def _key(self, name: str) -> str:
        key = self._workbook.key_for(name)
        if key is None:
            raise _unknown(name, self._workbook.name_hint(name))
        return key

    # -- changing inputs ----------------------------------------------------
    def with_inputs(self, **values: Any) -> Sheet:
        """A new Sheet with cells set (as `--set NAME=VALUE`); this one is unchanged.

        Values are literal text (`"32768 token"`), numbers, bools or Pint
        quantities. Only the changed cells and their dependents are recomputed,
        unless a value changes the sheet's shape (a range's length): then the
        sheet is read again with it, as the CLI does. Use `**{"hgx.cards": 4}`
        for an imported cell."""
        texts = {name: literal_text(self._base.checked, self._base_key(name), value) for name, value in values.items()}
        inputs = {**self.inputs, **texts}
        try:
            workbook, fixed = apply_assignments(self._base, [f"{k}={v}" for k, v in inputs.items()])
        except OverrideError as e:
            raise e.naming_its_assignment() from None
        if workbook.checked.distributions:
            scenario = None   # evaluated over its samples when read (`_sampled`), as `run --set` does
        elif workbook is self._workbook:
            given = {self._base_key(name) for name in texts}
            changed: dict[str, A.Node | None] = {key: node for key, node in fixed.items() if key in given}
            scenario, _ = reevaluate(self._scenario, changed)
        else:
            scenario = workbook.evaluate(fixed)
        return Sheet(self._base, workbook, scenario, inputs, self.sampling)

    def _base_key(self, name: str) -> str:
        key = self._base.key_for(name)
        if key is None:
            raise _unknown(name, self._base.name_hint(name))
        return key

    def _assignments(self) -> list[str]:
        return [f"{k}={v}" for k, v in self.inputs.items()]

    # -- scenarios ----------------------------------------------------------
    def sweep(self, name: str | None = None, *, show: list[str] | None = None, where: str | None = None,
              on: str = "local", address: str | None = None, **axes: Any) -> SweepResult:
        """A sweep: the rows `supersheet sweep` prints, as a `SweepResult` (`.frame` a Polars
        DataFrame with plain column names, values in display units; `.units` name -> unit;
        `.to_pandas()`, `.to_arrow()`).

        `name` runs a sweep of the sheet; keyword axes add to or replace its axes:
        a list of values (`tp=[1, 2, 4, 8]`) or `supersheet.range(...)`. `on="ray"` evaluates
        row ranges as Ray tasks (`supersheet sweep --on ray`) on the cluster at `address`
        (None: `RAY_ADDRESS`, else a local runtime)."""
        from .scenarios import sweep   # deferred: the sweep machinery loads Polars
        return sweep(self, name, axes, show, where, on=on, address=address)

    def plot(self, sweep: str | None = None, *, x: str | None = None, y: str | Sequence[str] | None = None,
             color: str | None = None, facet: str | None = None, log_x: bool = False, log_y: bool = False,
             title: str | None = None, **axes: Any) -> Any:
        """A chart of a sweep, as `supersheet plot` draws it, as an altair chart (Jupyter shows it;
        `.save("x.svg")` writes it). Without `x`/`y`, the sweep's `plot:` gives them."""
        from .sweeps import sheet_plot   # deferred: Polars and altair
        return sheet_plot(self, sweep, axes, x, y, color, facet, log_x, log_y, title)

    def report(self, path: str | Path | None = None, revision: str | None = None) -> str | Path:
        """The sheet's page as `supersheet report` writes it (cells, verdicts, expectations, each
        sweep charted; against `revision`, the diff): written to `path`, or returned as HTML text."""
        from .report import report_html, write_report   # deferred: Polars and altair (its charts)
        return report_html(self, revision) if path is None else write_report(self, path, revision)

    def solve(self, name: str) -> Solution:
        """Run the sheet's solve `name` (goal seeking)."""
        from .scenarios import solved   # deferred: the goal seek loads Polars
        answer, text = solved(self, name)
        workbook, solution = answer.workbook, answer.solution
        # Its values are the scenario the solver evaluated at the root it found, not the root
        # written as text and parsed back, which can land an ulp away, where the goal no longer
        # holds exactly; `text`, the answer in its display unit, is how later inputs set it.
        sheet = Sheet(self._base, workbook, solution.scenario, {**self.inputs, solution.key: text}, self.sampling)
        return Solution(name, solution.goal, solution.key,
                        python_value(workbook.checked, solution.key, solution.value), sheet)

    def fit(self, name: str) -> Fitted:
        """Run the sheet's fit `name` (a `fit:` block): the varied cells' values and standard
        errors (`.quantities()`, `.errors()`, `.values`), the rows with the model beside them
        (`.residuals()`, a Polars frame), RMS and worst error (`.summary()`), as `supersheet fit`."""
        from .fits import fit_named   # deferred: fits (slow to import)
        return fit_named(self, name)

    def choose(self, name: str, top: int | None = None, *, show: list[str] | None = None,
               on: str = "local", address: str | None = None) -> Choice:
        """Run the sheet's choice `name`: the feasible rows ranked, the answer first; `show` adds
        the cells behind the ranking as columns (`choose --show`); `on="ray"` reduces row
        ranges as Ray tasks (`choose --on ray`)."""
        from .scenarios import choose   # deferred: Polars
        return choose(self, name, top, show, on, address)

    # -- Jupyter ------------------------------------------------------------
    def _repr_html_(self) -> str:
        from .html import sheet_html   # deferred: html and the diff's view, for Jupyter only
        return sheet_html(self.records(), self.title, self.path)

    def __repr__(self) -> str:
        set_text = ", ".join(f"{k}={v!r}" for k, v in self.inputs.items())
        return f"<Sheet {self.path}{' with ' + set_text if set_text else ''}>"


def _unknown(name: str, hint: str | None) -> UnknownCell:
    return UnknownCell.of(unknown_cell(name, hint))


def range(start: str, stop: str, *, times: float | None = None, step: str | None = None,
          count: int | None = None, scale: str = "linear") -> Range:
    """A sweep axis over a range, as a sweep's `vary: {from, to, times|step|count}`:
    `range("4096 token", "131072 token", times=2)`."""
    from .scenarios import Range   # deferred: the scenarios' module loads the sweep machinery
    return Range(start, stop, times, step, count, scale)


def open_checked(path: str | Path) -> Sheet:
    """A sheet loaded and checked, as a `Sheet` evaluated only when a value is read (a sweep,
    solve or choice evaluates what it needs). SheetError with every diagnostic when it does
    not check; RequestError when `path` is no file."""
    workbook = checked_workbook(path)
    return Sheet(workbook, workbook, None)


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

    def _repr_html_(self) -> str:
        from .html import solution_html   # deferred: html and the diff's view, for Jupyter only
        return solution_html(self.name, self.goal, self.cell, self.sheet.display(self.cell))


def _written(sheet: Sheet) -> Workbook:
    if not sheet.inputs:
        return sheet._workbook
    workbook = sheet._base.variant(cell_overrides=dict(sheet.inputs))   # from the texts loaded, not from disk
    if not workbook.ok:
        raise SheetError(sheet_problems(workbook.diagnostics))
    return workbook
