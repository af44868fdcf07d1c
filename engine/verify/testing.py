"""`supersheet test`: every expectation of a sheet, checked against its values.

Top-level `expect` is checked against the sheet's own scenario; expectations
inside sweeps, solves and choices are checked by their runners (batch.py).
"""
from __future__ import annotations

import math

from typing import Any


from supersheet.engine.base.diagnostics import Diagnostic, sheet_problems
from supersheet.engine.compile.evaluate import Scenario
from supersheet.engine.expect.expect import ExpectationError, check_expectation, parse_expectation
from supersheet.engine.load.specs import Expected
from supersheet.engine.verify.blocks import test_blocks
from supersheet.engine.verify.expectations import STATISTIC, TestReport
from supersheet.engine.workbook import Workbook
from supersheet.engine.compile.evaluate import ErrorValue, Value
from supersheet.engine.compile.errorcodes import NUM


def test_workbook(workbook: Workbook, samples: int | None = None, seed: int | None = None,
                  max_memory: int | None = None) -> TestReport:
    report = TestReport()
    if not workbook.ok:
        report.diagnostics.extend(sheet_problems(workbook.diagnostics))
        return report
    sampled = None
    if workbook.checked.distributions:
        from supersheet.engine.scenarios.uncertainty import SamplingError, evaluate_samples   # deferred: numpy
        try:
            sampled = evaluate_samples(workbook, samples, seed, max_memory=max_memory)
        except SamplingError as e:
            report.diagnostics.append(Diagnostic("E-TYPE", str(e), None))
            return report
    scenario = sampled.deterministic if sampled is not None else workbook.evaluate()
    from supersheet.engine.expect.assume import diagnostics as outside_the_model   # deferred: engine.expect.assume (slow to import)
    report.diagnostics.extend(outside_the_model(workbook, scenario, sampled))
    report.extend(check_top_level(workbook, scenario, sampled))
    report.extend(test_blocks(workbook))  # sweeps, solves and choices
    report.diagnostics.extend(o.diagnostic() for o in report.outcomes if not o.passed)
    return report


def check_top_level(workbook: Workbook, scenario: Scenario, sampled: Any = None) -> TestReport:
    """Top-level expectations. For a cell that depends on random draws, `name`
    checks its mean and `p95(name)` (`p5`, `p50`, `mean` …) a statistic of its samples."""
    report = TestReport()
    root = workbook.model.root
    if root is None:
        return report
    for name, expected in root.expect.items():
        statistic = STATISTIC.match(name)
        if statistic:
            report.extend(_check_statistic(workbook, sampled, name, statistic.group(1), statistic.group(2), expected))
            continue
        key = workbook.key_for(name)
        if key is None:
            report.diagnostics.append(workbook.unknown_cell(name, expected.span, by="expectation"))
            continue
        value = scenario.values.get(key)
        if sampled is not None and key in sampled.summaries:
            value = _statistic(sampled.summaries[key].mean, value)
        typ = workbook.checked.cells[key].type
        try:
            if expected.items is not None and isinstance(value, list):
                for i, item in enumerate(value):
                    text, span = (expected.items[i].text, expected.items[i].span) if i < len(expected.items) \
                        else ("", expected.span)
                    report.outcomes.append(check_expectation(f"{name}[{i}]", parse_expectation(text, span), item,
                                                             typ.scalar() if typ else None))
                continue
            written = expected.value
            report.outcomes.append(check_expectation(name, parse_expectation(written.text, written.span), value, typ))
        except ExpectationError as e:
            report.diagnostics.append(e.at(expected.span))
    return report


def _check_statistic(workbook: Workbook, sampled: Any, name: str, statistic: str, cell: str,
                     expected: Expected) -> TestReport:
    report = TestReport()
    key = workbook.key_for(cell)
    if key is None:
        report.diagnostics.append(workbook.unknown_cell(cell, expected.span, by="expectation"))
        return report
    if sampled is None or key not in sampled.summaries:
        report.diagnostics.append(Diagnostic("E-TYPE", f"{name}: {cell} depends on no random draw", expected.span,
                                             hint=f"expect the value itself: {cell}: …"))
        return report
    summary = sampled.summaries[key]
    value = _statistic(summary.mean if statistic == "mean" else sampled.percentile(key, float(statistic[1:])),
                       sampled.deterministic.values.get(key))
    try:
        report.outcomes.append(check_expectation(name, parse_expectation(expected.value.text, expected.value.span), value,
                                                 workbook.checked.cells[key].type))
    except ExpectationError as e:
        report.diagnostics.append(e.at(expected.span))
    return report


def _statistic(value: float | None, cell: Value) -> float | ErrorValue:
    """A statistic over samples as the value an expectation checks: where no sample holds a
    number (NaN, or none at all) it is an error value, the cell's own if it holds one."""
    if value is not None and math.isfinite(value):
        return value
    return cell if isinstance(cell, ErrorValue) else ErrorValue(NUM)
