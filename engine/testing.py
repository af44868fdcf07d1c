"""`supersheet test`: every expectation of a sheet, checked against its values.

Top-level `expect` is checked against the sheet's own scenario; expectations
inside sweeps, solves and choices are checked by their runners (batch.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml.comments import CommentedSeq

from .diagnostics import Diagnostic, did_you_mean
from .evaluate import Scenario
from .expect import ExpectationError, Outcome, check_expectation, parse_expectation
from .rawtext import raw_text
from .workbook import Workbook


@dataclass
class TestReport:
    outcomes: list[Outcome] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(o.passed for o in self.outcomes)

    @property
    def outside(self) -> list[Diagnostic]:
        """E-ASSUME: the sheet as written is outside its own model (a failure even when every expectation holds)."""
        return [d for d in self.diagnostics if d.code == "E-ASSUME"]

    @property
    def failed(self) -> int:
        return sum(not o.passed for o in self.outcomes) + len([d for d in self.diagnostics if d.code != "E-EXPECT"])

    def extend(self, other: "TestReport") -> None:
        self.outcomes.extend(other.outcomes)
        self.diagnostics.extend(other.diagnostics)


def test_workbook(workbook: Workbook, samples: int | None = None, seed: int | None = None,
                  max_memory: int | None = None) -> TestReport:
    report = TestReport()
    if not workbook.ok:
        report.diagnostics.extend(d for d in workbook.diagnostics if d.code != "E-EXPECT")
        return report
    sampled = None
    if workbook.checked.distributions:
        from .uncertainty import SamplingError, evaluate_samples
        try:
            sampled = evaluate_samples(workbook, samples, seed, max_memory=max_memory)
        except SamplingError as e:
            report.diagnostics.append(Diagnostic("E-TYPE", str(e), None))
            return report
    scenario = sampled.deterministic if sampled is not None else workbook.evaluate()
    from .assume import diagnostics as outside_the_model
    report.diagnostics.extend(outside_the_model(workbook, scenario, sampled))
    report.extend(check_top_level(workbook, scenario, sampled))
    from .blocks import test_blocks   # sweeps, solves and choices
    report.extend(test_blocks(workbook))
    report.diagnostics.extend(o.diagnostic() for o in report.outcomes if not o.passed)
    return report


_STATISTIC = re.compile(r"^(mean|p\d{1,2}(?:\.\d+)?)\(\s*([A-Za-z_][\w.]*)\s*\)$")


def check_top_level(workbook: Workbook, scenario: Scenario, sampled: Any = None) -> TestReport:
    """Top-level expectations. For a cell that depends on random draws, `name`
    checks its mean and `p95(name)` (`p5`, `p50`, `mean` …) a statistic of its samples."""
    report = TestReport()
    root = workbook.model.root
    if root is None:
        return report
    sheet = root.file
    for name, entry in root.expect.items():
        statistic = _STATISTIC.match(name)
        if statistic:
            report.extend(_check_statistic(workbook, sampled, name, statistic.group(1), statistic.group(2), entry))
            continue
        key = workbook.key_for(name)
        if key is None:
            report.diagnostics.append(Diagnostic("E-NAME", f"expectation names unknown cell {name!r}", entry.span,
                                                 hint=did_you_mean(name, workbook.model.cells)))
            continue
        value = scenario.values.get(key)
        if sampled is not None and key in sampled.summaries:
            value = sampled.summaries[key].mean
        typ = workbook.checked.cells[key].type
        try:
            if isinstance(entry.value, CommentedSeq) and isinstance(value, list):
                for i, item in enumerate(value):
                    text, span = raw_text(sheet, entry.value, i) if i < len(entry.value) else ("", entry.span)
                    report.outcomes.append(check_expectation(f"{name}[{i}]", parse_expectation(text, span), item,
                                                             typ.scalar() if typ else None))
                continue
            text, span = raw_text(sheet, entry.node, name)
            report.outcomes.append(check_expectation(name, parse_expectation(text, span), value, typ))
        except ExpectationError as e:
            report.diagnostics.append(Diagnostic(e.code, e.message, entry.span, hint=e.hint))
    return report


def expectation_problems(workbook: Workbook, name: str, entry, whole_cell: bool) -> list[Diagnostic]:
    """The expectation's text parsed and compared with its cell's type, without evaluating:
    what `test` would refuse, `check` refuses too."""
    sheet = workbook.model.root.file  # type: ignore[union-attr]
    key = workbook.key_for(_STATISTIC.match(name).group(2) if not whole_cell else name)  # type: ignore[union-attr]
    typ = workbook.checked.cells[key].type if key else None
    one_per_element = isinstance(entry.value, CommentedSeq)
    if one_per_element and typ is not None:
        typ = typ.scalar()
    items = [(entry.value, i) for i in range(len(entry.value))] if one_per_element else [(entry.node, name)]
    out = []
    for container, index in items:
        problem = written_problem(sheet, container, index, name, typ)
        if problem is not None:
            out.append(Diagnostic(problem.code, problem.message, entry.span, hint=problem.hint))
            break
    return out


def written_problem(sheet: Any, container: Any, index: Any, target: str, typ: Any) -> ExpectationError | None:
    """What is wrong with one written expectation before any value is compared (None if nothing)."""
    from .expect import static_problem
    text, span = raw_text(sheet, container, index)
    try:
        return static_problem(target, parse_expectation(text, span), typ)
    except ExpectationError as e:
        return e


def _check_statistic(workbook: Workbook, sampled: Any, name: str, statistic: str, cell: str, entry) -> TestReport:
    report = TestReport()
    key = workbook.key_for(cell)
    if key is None:
        report.diagnostics.append(Diagnostic("E-NAME", f"expectation names unknown cell {cell!r}", entry.span,
                                             hint=did_you_mean(cell, workbook.model.cells)))
        return report
    if sampled is None or key not in sampled.summaries:
        report.diagnostics.append(Diagnostic("E-TYPE", f"{name}: {cell} depends on no random draw", entry.span,
                                             hint=f"expect the value itself: {cell}: …"))
        return report
    summary = sampled.summaries[key]
    value = summary.mean if statistic == "mean" else sampled.percentile(key, float(statistic[1:]))
    text, span = raw_text(workbook.model.root.file, entry.node, name)
    try:
        report.outcomes.append(check_expectation(name, parse_expectation(text, span), value,
                                                 workbook.checked.cells[key].type))
    except ExpectationError as e:
        report.diagnostics.append(Diagnostic(e.code, e.message, entry.span, hint=e.hint))
    return report
