"""`supersheet test`: every expectation of a sheet, checked against its values.

Top-level `expect` is checked against the sheet's own scenario; expectations
inside sweeps, solves and choices are checked by their runners (batch.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ruamel.yaml.comments import CommentedSeq

from .diagnostics import Diagnostic, did_you_mean
from .evaluate import Scenario
from .expect import ExpectationError, Outcome, check_expectation, parse_expectation
from .sheet import raw_text
from .workbook import Workbook


@dataclass
class TestReport:
    outcomes: list[Outcome] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(o.passed for o in self.outcomes)

    @property
    def failed(self) -> int:
        return sum(not o.passed for o in self.outcomes) + len([d for d in self.diagnostics if d.code != "E-EXPECT"])

    def extend(self, other: "TestReport") -> None:
        self.outcomes.extend(other.outcomes)
        self.diagnostics.extend(other.diagnostics)


def test_workbook(workbook: Workbook) -> TestReport:
    report = TestReport()
    if not workbook.ok:
        report.diagnostics.extend(d for d in workbook.diagnostics if d.code != "E-EXPECT")
        return report
    scenario = workbook.evaluate()
    report.extend(check_top_level(workbook, scenario))
    from .blocks import test_blocks   # sweeps, solves and choices
    report.extend(test_blocks(workbook))
    report.diagnostics.extend(o.diagnostic() for o in report.outcomes if not o.passed)
    return report


def check_top_level(workbook: Workbook, scenario: Scenario) -> TestReport:
    report = TestReport()
    root = workbook.model.root
    if root is None:
        return report
    sheet = root.file
    for name, entry in root.expect.items():
        key = workbook.key_for(name)
        if key is None:
            report.diagnostics.append(Diagnostic("E-NAME", f"expectation names unknown cell {name!r}", entry.span,
                                                 hint=did_you_mean(name, workbook.model.cells)))
            continue
        value = scenario.values.get(key)
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
