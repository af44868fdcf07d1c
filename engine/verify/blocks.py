"""Expectations inside `sweeps` (one value per row), `solve` (the solution),
`choose` (cells or axes of the chosen row) and `fit` (the fitted values), for
`supersheet test`."""
from __future__ import annotations

from typing import TYPE_CHECKING, Union

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.compile.errorcodes import ERROR
from supersheet.engine.expect.expect import ExpectationError, check_expectation, parse_expectation
from supersheet.engine.load.specs import ChoiceBlock, ExpectMap, FitBlock, SolveBlock, SweepBlock
from supersheet.engine.present.headers import error_header
from supersheet.engine.scenarios.axes import AxisError
from supersheet.engine.verify.expectations import STATISTIC, TestReport, expectation_problems, written_problem
from supersheet.engine.base.diagnostics import did_you_mean
from supersheet.engine.expect.expect import Expectation, Outcome
from supersheet.engine.compile.evaluate import ErrorValue
from supersheet.engine.expect.expect import Outcome

if TYPE_CHECKING:
    from supersheet.engine.workbook import Workbook

Block = Union[SweepBlock, SolveBlock, ChoiceBlock, FitBlock]


def _blocks(workbook: "Workbook") -> list[tuple[str, str, Block]]:
    root = workbook.model.root
    if root is None:
        return []
    return [(kind, name, block) for kind, blocks in (("sweep", root.sweeps), ("solve", root.solve),
                                                     ("choice", root.choose), ("fit", root.fit))
            for name, block in blocks.items()]


def _located(kind: str, name: str, block: Block, e: AxisError | ExpectationError) -> Diagnostic:
    """A block's problem at its own place (an axis, a value, a formula), else at the block's name."""
    return e.at(block.span, f"{kind} {name!r}: ")


def test_blocks(workbook: "Workbook") -> TestReport:
    report = TestReport()
    root = workbook.model.root
    if root is None:
        return report
    for kind, name, block in _blocks(workbook):
        if not _is_own(root.file, block):
            continue  # expectations are not inherited through `extends`
        try:
            if isinstance(block, SweepBlock):
                _sweep(workbook, name, block, report)
            elif isinstance(block, SolveBlock):
                _solve(workbook, name, block, report)
            elif isinstance(block, FitBlock):
                _fit(workbook, name, block, report)
            else:
                _choice(workbook, name, block, report)
        except (AxisError, ExpectationError) as e:
            report.diagnostics.append(_located(kind, name, block, e))
    return report


def validate_blocks(workbook: "Workbook") -> list[Diagnostic]:
    """Static checks of every sweep, solve and choice (axes, names, units of
    where/require/goal), and every goal seek run: `supersheet check` reports
    E-SOLVE like any other problem of a sheet. Every problem of a sweep's axes
    and `show` is reported, each at its own line."""
    diagnostics: list[Diagnostic] = []
    root = workbook.model.root
    if root is None or not workbook.ok:
        return diagnostics
    diagnostics.extend(top_level_expectation_problems(workbook))
    if not (root.sweeps or root.solve or root.choose or root.fit):
        return diagnostics
    # what running each block would refuse, found without building a Polars plan (check never
    # loads Polars): plans checked, not compiled; a goal seek evaluated in floats
    from supersheet.engine.scenarios.grid import parse_vary   # deferred: numpy
    from supersheet.engine.scenarios.choice import bind_choice, choice_block   # deferred: numpy
    from supersheet.engine.scenarios.solve import SolveError, solve_entry   # deferred: numpy
    from supersheet.engine.scenarios.sweep import check_plan, checked_sweep, plans_for   # deferred: numpy
    for kind, name, block in _blocks(workbook):
        try:
            if isinstance(block, SweepBlock):
                spec, problems = checked_sweep(workbook, name)
                if spec is None:
                    diagnostics.extend(_located(kind, name, block, e) for e in problems)
                    continue
                diagnostics.extend(_static_expectations(workbook, kind, name, block, spec))
                if spec.grid.import_axes:
                    continue  # each imported variant is checked when it runs
                plans_for(workbook, spec.grid, spec.show, spec.where, spec.where_origin, build=check_plan)
            elif isinstance(block, SolveBlock):
                diagnostics.extend(_static_expectations(workbook, kind, name, block))
                solve_entry(workbook, name, floats=True)
            elif isinstance(block, FitBlock):   # everything but the least squares: tables, units, bounds
                from supersheet.engine.scenarios.fit import fit_spec   # deferred: numpy
                fit_spec(workbook, name)
                diagnostics.extend(_static_expectations(workbook, kind, name, block))
            else:
                diagnostics.extend(_static_expectations(workbook, kind, name, block))
                choice = choice_block(workbook, name)
                assert choice.vary is not None and choice.objective is not None
                bind_choice(workbook, choice.require, choice.objective)   # as `choose` binds them, in each sheet
                for sheet in plans_for(workbook, parse_vary(workbook, choice.vary), [], None, sampling=None,
                                       build=check_plan):
                    if sheet is not workbook:
                        bind_choice(sheet, choice.require, choice.objective)
        except SolveError as e:
            diagnostics.append(e.at(block.span, f"fit {name!r}: " if kind == "fit" else ""))
        except AxisError as e:
            diagnostics.append(_located(kind, name, block, e))
    return diagnostics


def top_level_expectation_problems(workbook: "Workbook") -> list[Diagnostic]:
    """Top-level expectations that name no cell or cannot hold (`check` reports them, not
    only `test`, and the editor lists them), found without evaluating."""
    out: list[Diagnostic] = []
    root = workbook.model.root
    if root is None:   # a sheet that did not load: no expectations
        return out
    for name, expected in root.expect.items():
        statistic = STATISTIC.match(name)
        cell = statistic.group(2) if statistic else name
        if workbook.key_for(cell) is None:
            out.append(workbook.unknown_cell(cell, expected.span, by="expectation"))
        elif statistic and workbook.key_for(cell) not in workbook.checked.uncertain:
            out.append(Diagnostic("E-TYPE", f"{name}: {cell} depends on no random draw", expected.span,
                                  hint=f"expect the value itself: {cell}: …"))
        else:
            out.extend(expectation_problems(workbook, name, expected, statistic is None))
    return out


def _static_expectations(workbook: "Workbook", kind: str, name: str, block: Block, spec=None) -> list[Diagnostic]:
    """What `test` would refuse in a block's `expect` before comparing a value
    (an unknown cell, the wrong shape, a number of the wrong dimension), found
    without evaluating so that `check` reports it too."""
    root = workbook.model.root
    if block.expect is None or root is None or not _is_own(root.file, block):
        return []

    def problem(code: str, message: str, where, hint: str | None = None) -> list[Diagnostic]:
        return [Diagnostic(code, f"{kind} {name!r}: {message}", where, hint=hint)]

    def first_problem(items: list) -> list[Diagnostic]:
        for target, written, typ in items:
            found = written_problem(written, target, typ)
            if found is not None:
                return [found.at(block.span, f"{kind} {name!r}: ")]
        return []

    if isinstance(block, SolveBlock):
        key = workbook.key_for(block.vary)
        return first_problem([(f"{name}.{key}", block.expect, workbook.checked.cells[key].type)] if key else [])
    expect: ExpectMap = block.expect
    if not expect.mapped:
        shape = "a column to one value per row" if kind == "sweep" else "axes or cells to the chosen row's values"
        return problem("E-SHEET", f"a {kind}'s 'expect' maps {shape}", expect.span)
    columns = None
    if kind == "sweep":
        from supersheet.engine.scenarios.sweep_columns import shown_keys   # deferred: numpy
        columns = {a.key for a in spec.grid.axes} | set(shown_keys(workbook, spec.grid, None))
    for expected in expect.entries:   # in order, stopping at the first problem, as `test` does
        target = expected.name
        key = workbook.key_for(target)
        if key is None:
            unknown = workbook.unknown_cell(target, expected.span, by="expectation")
            return problem(unknown.code, unknown.message, unknown.span, unknown.hint)
        typ = workbook.checked.cells[key].type
        if isinstance(block, FitBlock) and not any(workbook.key_for(v.name) == key for v in block.vary):
            return problem("E-NAME", f"{target!r} is not a cell this fit varies", expected.span,
                           f"a fit's expect checks its varied cells: {', '.join(v.name for v in block.vary)}")
        if columns is None:
            found = first_problem([(f"{name}.{target}", expected.value, typ)])
        elif key not in columns:
            return problem("E-NAME", f"{target!r} is not a column of this sweep", expected.span)
        elif expected.items is None:
            return problem("E-SHEET", f"expectation of {target!r} must list one value per row", expected.value.span)
        else:
            found = first_problem([(f"{name}.{target}[{i}]", item, typ) for i, item in enumerate(expected.items)])
        if found:
            return found
    return []


def _is_own(sheet, block: Block) -> bool:
    return block.span.file == sheet.file


def _sweep(workbook, name: str, block: SweepBlock, report) -> None:
    from supersheet.engine.scenarios.sweep import evaluate_chunk, load_sweep, plans_for   # deferred: numpy
    spec = load_sweep(workbook, name)
    if block.expect is None:
        return
    if not block.expect.mapped:
        raise AxisError("E-SHEET", "a sweep's 'expect' maps a column to one value per row", span=block.expect.span)
    plans = plans_for(workbook, spec.grid, None, spec.where, spec.where_origin)
    frames = [evaluate_chunk(p, spec.grid, 0, spec.grid.value_size(), display=False) for p in plans]
    for expected in block.expect.entries:
        target = expected.name
        key = workbook.key_for(target)
        if key is None:
            raise AxisError.of(workbook.unknown_cell(target, expected.span, by="expectation"))
        column = next((c.header for c in plans[0].columns if c.source == key), None)
        if column is None:
            raise AxisError("E-NAME", f"{target!r} is not a column of this sweep", span=expected.span)
        actual = [v for f in frames for v in f[column].to_list()]
        errors = _error_column(plans, frames, key)
        if expected.items is None:
            raise AxisError("E-SHEET", f"expectation of {target!r} must list one value per row",
                            span=expected.value.span)
        typ = workbook.checked.cells[key].type
        if len(expected.items) != len(actual):
            count = len(expected.items)
            report.outcomes.append(Outcome(f"{name}.{target}", Expectation(f"{count} rows", expected.value.span,
                                                                           "error", ""),
                                           False, f"{len(actual)} rows",
                                           f"sweep {name}: {target} expects {count} rows, the sweep has {len(actual)}"))
            continue
        for i, value in enumerate(actual):
            written = expected.items[i]
            got = ErrorValue(errors[i] or ERROR) if value is None else value
            report.outcomes.append(check_expectation(f"{name}.{target}[{i}]",
                                                     parse_expectation(written.text, written.span), got, typ))


def _error_column(plans, frames, key: str) -> list[str | None]:
    header = error_header(key)
    out: list[str | None] = []
    for frame in frames:
        out.extend(frame[header].to_list() if header in frame.columns else [None] * frame.height)
    return out


def _solve(workbook, name: str, block: SolveBlock, report) -> None:
    from supersheet.engine.scenarios.solve import SolveError, solve_entry   # deferred: numpy
    try:
        solution, _ = solve_entry(workbook, name)
    except SolveError as e:
        report.diagnostics.append(e.at(block.span))
        return
    if block.expect is None:
        return
    typ = workbook.checked.cells[solution.key].type
    report.outcomes.append(check_expectation(f"{name}.{solution.key}",
                                             parse_expectation(block.expect.text, block.expect.span),
                                             solution.value, typ))


def _fit(workbook, name: str, block: FitBlock, report) -> None:
    from supersheet.engine.scenarios.fit import FitError, run_fit   # deferred: numpy
    try:
        result = run_fit(workbook, name)
    except FitError as e:
        report.diagnostics.append(e.at(block.span, f"fit {name!r}: "))
        return
    if block.expect is None:
        return
    if not block.expect.mapped:
        raise AxisError("E-SHEET", "a fit's 'expect' maps varied cells to their values", span=block.expect.span)
    for expected in block.expect.entries:
        key = workbook.key_for(expected.name)
        if key not in result.values:
            raise AxisError("E-NAME", f"{expected.name!r} is not a cell this fit varies", span=expected.span)
        report.outcomes.append(check_expectation(f"{name}.{expected.name}",
                                                 parse_expectation(expected.value.text, expected.value.span),
                                                 result.values[key], workbook.checked.cells[key].type))


def _choice(workbook, name: str, block: ChoiceBlock, report) -> None:
    from supersheet.engine.scenarios.choice import choice_entry   # deferred: numpy
    choice, _ = choice_entry(workbook, name)
    if block.expect is None:
        return
    if not block.expect.mapped:
        raise AxisError("E-SHEET", "a choice's 'expect' maps axes or cells to the chosen row's values",
                        span=block.expect.span)
    answer = choice.answer
    scenario = choice.scenario_of(answer) if answer is not None else None
    for expected in block.expect.entries:
        target = expected.name
        expectation = parse_expectation(expected.value.text, expected.value.span)
        if scenario is None:
            report.outcomes.append(Outcome(f"{name}.{target}", expectation, False, "no feasible row",
                                           f"choice {name}: no row is feasible"))
            continue
        key = target if target in scenario.checked.model.cells else None
        if key is None:
            raise AxisError.of(workbook.unknown_cell(target, expected.span, by="expectation"))
        report.outcomes.append(check_expectation(f"{name}.{target}", expectation, scenario.values[key],
                                                 scenario.checked.cells[key].type))
