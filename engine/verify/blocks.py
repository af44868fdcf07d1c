"""Expectations inside `sweeps` (one value per row), `solve` (the solution)
and `choose` (cells or axes of the chosen row), for `supersheet test`."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.expect.expect import ExpectationError, check_expectation, parse_expectation
from supersheet.engine.load.rawtext import raw_text
from supersheet.engine.load.sheet import Entry
from supersheet.engine.present.headers import error_header
from supersheet.engine.scenarios.axes import AxisError
from supersheet.engine.verify.expectations import STATISTIC, TestReport, expectation_problems, written_problem

if TYPE_CHECKING:
    from supersheet.engine.workbook import Workbook


def test_blocks(workbook: "Workbook") -> TestReport:
    report = TestReport()
    root = workbook.model.root
    if root is None:
        return report
    own = root.file
    for kind, entries in (("sweep", root.sweeps), ("solve", root.solve), ("choice", root.choose)):
        for name, entry in entries.items():
            if entry.node is None or not _is_own(own, entry):
                continue  # expectations are not inherited through `extends`
            expect = entry.value.get("expect") if isinstance(entry.value, CommentedMap) else None
            try:
                if kind == "sweep":
                    _sweep(workbook, name, entry, expect, report)
                elif kind == "solve":
                    _solve(workbook, name, entry, expect, report)
                else:
                    _choice(workbook, name, entry, expect, report)
            except (AxisError, ExpectationError) as e:
                report.diagnostics.append(e.at(entry.span, f"{kind} {name!r}: "))
    return report


def validate_blocks(workbook: "Workbook") -> list[Diagnostic]:
    """Static checks of every sweep, solve and choice (axes, names, units of
    where/require/goal), and every goal seek run: `supersheet check` reports
    E-SOLVE like any other problem of a sheet."""
    diagnostics: list[Diagnostic] = []
    root = workbook.model.root
    if root is None or not workbook.ok:
        return diagnostics
    diagnostics.extend(_unknown_expectations(workbook))
    if not (root.sweeps or root.solve or root.choose):
        return diagnostics   # (and Polars, which compiling a block needs, is not imported)
    from supersheet.engine.scenarios.solve import SolveError, choice_entry, solve_entry
    from supersheet.engine.scenarios.sweep import load_sweep, plans_for
    for kind, entries in (("sweep", root.sweeps), ("solve", root.solve), ("choice", root.choose)):
        for name, entry in entries.items():
            try:
                if kind == "sweep":
                    spec = load_sweep(workbook, name)
                    diagnostics.extend(_static_expectations(workbook, kind, name, entry, spec))
                    if spec.grid.import_axes:
                        continue  # each imported variant is checked when it runs
                    plans_for(workbook, spec.grid, spec.show, spec.where, spec.where_origin)
                elif kind == "solve":
                    diagnostics.extend(_static_expectations(workbook, kind, name, entry))
                    solve_entry(workbook, name)
                else:
                    diagnostics.extend(_static_expectations(workbook, kind, name, entry))
                    choice_entry(workbook, name)
            except SolveError as e:
                diagnostics.append(e.at(entry.span))
            except AxisError as e:
                diagnostics.append(e.at(entry.span, f"{kind} {name!r}: "))
    return diagnostics


def _unknown_expectations(workbook: "Workbook") -> list[Diagnostic]:
    """Top-level expectations that name no cell or cannot hold (`check` reports them, not only `test`)."""
    from supersheet.engine.base.diagnostics import did_you_mean
    out = []
    for name, entry in workbook.model.root.expect.items():  # type: ignore[union-attr]
        statistic = STATISTIC.match(name)
        cell = statistic.group(2) if statistic else name
        if workbook.key_for(cell) is None:
            out.append(Diagnostic("E-NAME", f"expectation names unknown cell {cell!r}", entry.span,
                                  hint=did_you_mean(cell, workbook.model.cells)))
        elif statistic and workbook.key_for(cell) not in workbook.checked.uncertain:
            out.append(Diagnostic("E-TYPE", f"{name}: {cell} depends on no random draw", entry.span,
                                  hint=f"expect the value itself: {cell}: …"))
        else:
            out.extend(expectation_problems(workbook, name, entry, statistic is None))
    return out


def _static_expectations(workbook: "Workbook", kind: str, name: str, entry: Entry, spec: Any = None) -> list[Diagnostic]:
    """What `test` would refuse in a block's `expect` before comparing a value
    (an unknown cell, the wrong shape, a number of the wrong dimension), found
    without evaluating so that `check` reports it too."""
    body = entry.value
    expect = body.get("expect") if isinstance(body, CommentedMap) else None
    if expect is None or entry.node is None or not _is_own(workbook.model.root.file, entry):
        return []
    sheet = workbook.model.root.file

    def problem(code: str, message: str, hint: str | None = None) -> list[Diagnostic]:
        return [Diagnostic(code, f"{kind} {name!r}: {message}", entry.span, hint=hint)]

    def first_problem(items: list) -> list[Diagnostic]:
        for target, container, index, typ in items:
            found = written_problem(sheet, container, index, target, typ)
            if found is not None:
                return [found.at(entry.span, f"{kind} {name!r}: ")]
        return []

    if kind == "solve":
        key = workbook.key_for(str(body.get("vary")))
        return first_problem([(f"{name}.{key}", body, "expect", workbook.checked.cells[key].type)] if key else [])
    if not isinstance(expect, CommentedMap):
        shape = "a column to one value per row" if kind == "sweep" else "axes or cells to the chosen row's values"
        return problem("E-SHEET", f"a {kind}'s 'expect' maps {shape}")
    columns = None
    if kind == "sweep":
        from supersheet.engine.scenarios.sweep import shown_keys
        columns = {a.key for a in spec.grid.axes} | set(shown_keys(workbook, spec.grid, None))
    for target, values in expect.items():   # in order, stopping at the first problem, as `test` does
        target = str(target)
        key = workbook.key_for(target)
        if key is None:
            return problem("E-NAME", f"expectation names unknown cell {target!r}", workbook.name_hint(target))
        typ = workbook.checked.cells[key].type
        if columns is None:
            found = first_problem([(f"{name}.{target}", expect, target, typ)])
        elif key not in columns:
            return problem("E-NAME", f"{target!r} is not a column of this sweep")
        elif not isinstance(values, CommentedSeq):
            return problem("E-SHEET", f"expectation of {target!r} must list one value per row")
        else:
            found = first_problem([(f"{name}.{target}[{i}]", values, i, typ) for i in range(len(values))])
        if found:
            return found
    return []


def _is_own(sheet, entry: Entry) -> bool:
    return entry.span.file == sheet.file


def _sweep(workbook, name: str, entry: Entry, expect: Any, report) -> None:
    from supersheet.engine.scenarios.sweep import evaluate_chunk, load_sweep, plans_for
    spec = load_sweep(workbook, name)
    if expect is None:
        return
    if not isinstance(expect, CommentedMap):
        raise AxisError("E-SHEET", "a sweep's 'expect' maps a column to one value per row")
    plans = plans_for(workbook, spec.grid, None, spec.where, spec.where_origin)
    frames = [evaluate_chunk(p, spec.grid, 0, spec.grid.value_size(), display=False) for p in plans]
    sheet = workbook.model.root.file
    for target, values in expect.items():
        target = str(target)
        key = workbook.key_for(target)
        if key is None:
            raise AxisError("E-NAME", f"expectation names unknown cell {target!r}", workbook.name_hint(target))
        column = next((c.header for c in plans[0].columns if c.source == key), None)
        if column is None:
            raise AxisError("E-NAME", f"{target!r} is not a column of this sweep")
        actual = [v for f in frames for v in f[column].to_list()]
        errors = _error_column(plans, frames, key)
        if not isinstance(values, CommentedSeq):
            raise AxisError("E-SHEET", f"expectation of {target!r} must list one value per row")
        typ = workbook.checked.cells[key].type
        if len(values) != len(actual):
            text, span = raw_text(sheet, expect, target)
            from supersheet.engine.expect.expect import Expectation, Outcome
            report.outcomes.append(Outcome(f"{name}.{target}", Expectation(f"{len(values)} rows", span, "error", ""),
                                           False, f"{len(actual)} rows",
                                           f"sweep {name}: {target} expects {len(values)} rows, the sweep has {len(actual)}"))
            continue
        for i, value in enumerate(actual):
            text, span = raw_text(sheet, values, i)
            from supersheet.engine.compile.evaluate import ErrorValue
            got = ErrorValue(errors[i] or "#ERROR") if value is None else value
            report.outcomes.append(check_expectation(f"{name}.{target}[{i}]", parse_expectation(text, span), got, typ))


def _error_column(plans, frames, key: str) -> list[str | None]:
    header = error_header(key)
    out: list[str | None] = []
    for frame in frames:
        out.extend(frame[header].to_list() if header in frame.columns else [None] * frame.height)
    return out


def _solve(workbook, name: str, entry: Entry, expect: Any, report) -> None:
    from supersheet.engine.scenarios.solve import SolveError, solve_entry
    try:
        solution, _ = solve_entry(workbook, name)
    except SolveError as e:
        report.diagnostics.append(e.at(entry.span))
        return
    if expect is None:
        return
    text, span = raw_text(workbook.model.root.file, entry.value, "expect")
    typ = workbook.checked.cells[solution.key].type
    report.outcomes.append(check_expectation(f"{name}.{solution.key}", parse_expectation(text, span),
                                             solution.value, typ))


def _choice(workbook, name: str, entry: Entry, expect: Any, report) -> None:
    from supersheet.engine.scenarios.solve import choice_entry
    choice, _ = choice_entry(workbook, name)
    if expect is None:
        return
    if not isinstance(expect, CommentedMap):
        raise AxisError("E-SHEET", "a choice's 'expect' maps axes or cells to the chosen row's values")
    answer = choice.answer
    sheet = workbook.model.root.file
    scenario = choice.scenario_of(answer) if answer is not None else None
    for target, _ in expect.items():
        target = str(target)
        text, span = raw_text(sheet, expect, target)
        expectation = parse_expectation(text, span)
        if scenario is None:
            from supersheet.engine.expect.expect import Outcome
            report.outcomes.append(Outcome(f"{name}.{target}", expectation, False, "no feasible row",
                                           f"choice {name}: no row is feasible"))
            continue
        key = scenario.checked.model.cells.get(target) and target
        if key is None:
            raise AxisError("E-NAME", f"expectation names unknown cell {target!r}", workbook.name_hint(target))
        report.outcomes.append(check_expectation(f"{name}.{target}", expectation, scenario.values[key],
                                                 scenario.checked.cells[key].type))
