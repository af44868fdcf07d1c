"""The reports of the `supersheet` command, as values: `check`, `run`, `explain`,
`sensitivity` and `test` of a sheet file.

Each takes a path (and the `--set` assignments and `Sampling` the command
takes), does what the command does and returns what it prints: rendered
text and the diagnostics and verdicts beside it, as values of this module; the command only prints them
and picks the exit code. A sheet that does not check raises `SheetError` (a
`test` report lists it instead), an assignment that does not fit its cell an
`OverrideError`, a refused request a `RequestError`. Only a sheet with random
draws loads Polars.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from supersheet.engine.base.diagnostics import Diagnostic, sheet_problems
from supersheet.engine.workbook import Workbook, open_workbook

from .errors import RequestError, SolveError
from .inputs import Sampling, has_random_draws, sample, set_inputs, shown_inputs
from .loading import checked_workbook
from supersheet.engine.compile.evaluate import literal_for
from supersheet.engine.present.present import show

if TYPE_CHECKING:
    from supersheet.engine.expect.expect import Expectation

__all__ = ["ExpectationReport", "Influence", "RunReport", "Verdict", "SensitivityReport", "check", "explain", "run", "sensitivity", "test"]


def check(path: str | Path) -> list[Diagnostic]:
    """Every problem of a sheet, as `supersheet check` prints them: loading and checking,
    then (when those are clean) the shape of its sweeps, solves and choices. [] when valid."""
    workbook = open_workbook(path)
    problems = sheet_problems(workbook.diagnostics)
    if not problems:
        from supersheet.engine.verify.blocks import validate_blocks   # deferred: engine.verify.blocks (slow to import)
        problems = validate_blocks(workbook)
    return problems


@dataclass(frozen=True)
class RunReport:
    """`supersheet run`: every cell in `format` (text, json, csv, markdown) as `text`; the
    assumptions the values fall outside of (`outside`); whether a value is an error; whether
    the sheet has random draws (else `Sampling(on="ray")` evaluated it here, not on Ray)."""

    text: str
    outside: list[Diagnostic]
    has_errors: bool
    random_draws: bool

    @property
    def has_findings(self) -> bool:
        return self.has_errors or bool(self.outside)


def run(path: str | Path, sets: Sequence[str] = (), format: str = "text",
        sampling: Sampling = Sampling(), fit: str | None = None) -> RunReport:
    """Evaluate a sheet with `sets` (`NAME=VALUE`) as `supersheet run` does (over its samples
    when it has random draws) and render every cell; with `fit`, at the values that fit finds
    (run at the `sets`), each marked `set by fit NAME`."""
    from supersheet.engine.expect.assume import diagnostics as outside_the_model   # deferred: engine.expect.assume (slow to import)
    from supersheet.engine.present.report import render_run   # deferred: engine.present.report (slow to import)
    workbook = checked_workbook(path)
    overrides = shown_inputs(workbook, sets)
    workbook, fixed = set_inputs(workbook, sets)
    if fit is not None:
        fitted = _fitted(workbook, fit, fixed)
        fixed = {**fixed, **fitted[0]}
        overrides = {**overrides, **fitted[1]}
    sampled = sample(workbook, sampling, fixed, sets)
    scenario = sampled.deterministic if sampled is not None else workbook.evaluate(fixed)
    text = render_run(workbook, scenario, format, sampled, overrides=overrides)
    outside = outside_the_model(workbook, scenario, sampled)
    errors = scenario.has_errors() or (sampled is not None and any(s.errors for s in sampled.summaries.values()))
    return RunReport(text, outside, errors, has_random_draws(workbook))


def _fitted(workbook, name: str, fixed) -> tuple[dict, dict]:
    """The fit's values as overrides (base-unit literals) and as the report shows them."""
    from supersheet.engine.present.report import SetOverride, formula_text   # deferred: engine.present.report (slow to import)
    from supersheet.engine.scenarios.fit import FitError, run_fit   # deferred: numpy
    try:
        result = run_fit(workbook, name, fixed)
    except FitError as e:
        entry = workbook.model.root.fit.get(name) if workbook.model.root else None
        raise SolveError.of(e.at(entry.span if entry else None, f"fit {name!r}: ")) from None
    literals = {key: literal_for(value, None) for key, value in result.values.items()}
    shown = {key: SetOverride(show(workbook.checked, key, value).text,
                              formula_text(workbook.model.cells[key]) if workbook.model.cells[key].kind == "formula"
                              else None, f"fit {name}") for key, value in result.values.items()}
    return literals, shown


def explain(path: str | Path, cell: str, sets: Sequence[str] = (), sampling: Sampling = Sampling()) -> str:
    """`supersheet explain`: the cell's formula, value and unit, and the tree of its
    precedents down to the inputs. RequestError for a cell the sheet does not have."""
    from supersheet.engine.present.report import render_explain   # deferred: engine.present.report (slow to import)
    workbook = checked_workbook(path)
    key = _key(workbook, cell)
    overrides = shown_inputs(workbook, sets)
    workbook, fixed = set_inputs(workbook, sets)
    # Reductions over samples (p95, prob …) are only what they say over the samples, not at the mean.
    sampled = sample(workbook, sampling, fixed) if workbook.checked.reduced else None
    scenario = sampled.deterministic if sampled is not None else workbook.evaluate(fixed)
    return render_explain(workbook, scenario, key, overrides=overrides)


@dataclass(frozen=True)
class Influence:
    """How strongly one random draw moves a cell: Spearman's rank correlation of the draw's
    cell (`draw`) with it over the samples, and its `share`, rho squared."""

    draw: str
    rank_correlation: float

    @property
    def share(self) -> float:
        return self.rank_correlation ** 2


@dataclass(frozen=True)
class SensitivityReport:
    """`supersheet explain --sensitivity`: the cell's value over the samples (`display`) and the
    draws it depends on, the strongest first."""

    cell: str
    display: str
    samples: int
    seed: int
    influences: tuple[Influence, ...]


def sensitivity(path: str | Path, cell: str, sets: Sequence[str] = (),
                sampling: Sampling = Sampling()) -> SensitivityReport:
    """Rank the random draws `cell` depends on. RequestError when it depends on none."""
    from supersheet.engine.present.report import uncertain_record   # deferred: engine.present.report (slow to import)
    from supersheet.engine.scenarios.uncertainty import sensitivity as rank   # deferred: numpy
    workbook = checked_workbook(path)
    key = _key(workbook, cell)
    workbook, fixed = set_inputs(workbook, sets)
    sampled = sample(workbook, sampling, fixed)
    if sampled is None or key not in sampled.summaries:
        raise RequestError(f"{key} depends on no random draw: there is nothing to rank")
    record = uncertain_record(workbook, key, sampled.summaries[key])
    influences = tuple(Influence(i.draw, i.rank_correlation) for i in rank(sampled, key))
    return SensitivityReport(key, record["display"], sampled.samples, sampled.seed, influences)


@dataclass(frozen=True)
class Verdict:
    """One expectation checked: `target` computed as `actual` against `expected` (as written,
    with the tolerance used), written at `line` of the sheet; `diagnostic` says why it failed."""

    target: str
    actual: str
    expected: str
    line: int
    passed: bool
    diagnostic: Diagnostic


@dataclass(frozen=True)
class ExpectationReport:
    """`supersheet test` of one sheet: the `verdicts` of its expectations, the assumptions the
    values fall outside of (`outside`, each a failure), and `problems`: why the sheet does not
    check (then it has no verdicts)."""

    verdicts: list[Verdict]
    outside: list[Diagnostic]
    problems: list[Diagnostic]

    @property
    def passed(self) -> int:
        return sum(v.passed for v in self.verdicts)

    @property
    def failed(self) -> int:
        return sum(not v.passed for v in self.verdicts) + len(self.outside)


def test(path: str | Path, sampling: Sampling = Sampling()) -> ExpectationReport:
    """Check every `expect` of a sheet (top level, and in sweeps, solves and choices) and its
    assumptions, as `supersheet test` does."""
    from supersheet.engine.verify.testing import test_workbook   # deferred: engine.verify.testing (slow to import)
    report = test_workbook(open_workbook(path), sampling.samples, sampling.seed, sampling.max_memory)
    verdicts = [Verdict(o.target, o.actual, _expected(o.expectation), o.expectation.span.line, o.passed,
                        o.diagnostic()) for o in report.outcomes]
    problems = [d for d in sheet_problems(report.diagnostics) if d.code != "E-ASSUME"]
    return ExpectationReport(verdicts, report.outside, problems)


def _expected(expectation: Expectation) -> str:
    """The expectation as written, and the tolerance used unless it is written there."""
    text = expectation.text
    if "±" not in text and "+/-" not in text and "+-" not in text:
        text += f", {expectation.describe_tolerance()}"
    return text


def _key(workbook: Workbook, cell: str) -> str:
    key = workbook.key_for(cell)
    if key is None:
        raise RequestError(workbook.unknown_cell(cell).message + (f"; {hint}" if (hint := workbook.name_hint(cell)) else ""))
    return key
