"""What `supersheet test` and the checks of sweep/solve/choose blocks share: the
test report, the `p95(cell)` statistic syntax, and the problems of a written
expectation that are found without evaluating (so `check` reports them too)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


from supersheet.engine.base.diagnostics import Diagnostic, sheet_problems
from supersheet.engine.expect.expect import ExpectationError, Outcome, parse_expectation, static_problem
from supersheet.engine.load.specs import Expected, Written
from supersheet.engine.workbook import Workbook


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
        return sum(not o.passed for o in self.outcomes) + len(sheet_problems(self.diagnostics))

    def extend(self, other: "TestReport") -> None:
        self.outcomes.extend(other.outcomes)
        self.diagnostics.extend(other.diagnostics)


STATISTIC = re.compile(r"^(mean|p\d{1,2}(?:\.\d+)?)\(\s*([A-Za-z_][\w.]*)\s*\)$")


def expectation_problems(workbook: Workbook, name: str, expected: Expected, whole_cell: bool) -> list[Diagnostic]:
    """The expectation's text parsed and compared with its cell's type, without evaluating:
    what `test` would refuse, `check` refuses too."""
    statistic = None if whole_cell else STATISTIC.match(name)
    assert whole_cell or statistic is not None, "a statistic's expectation is passed only once STATISTIC matched it"
    key = workbook.key_for(statistic.group(2) if statistic is not None else name)
    typ = workbook.checked.cells[key].type if key else None
    if expected.items is not None and typ is not None:
        typ = typ.scalar()
    for written in expected.items if expected.items is not None else (expected.value,):
        problem = written_problem(written, name, typ)
        if problem is not None:
            return [problem.at(expected.span)]
    return []


def written_problem(written: Written, target: str, typ: Any) -> ExpectationError | None:
    """What is wrong with one written expectation before any value is compared (None if nothing)."""
    try:
        return static_problem(target, parse_expectation(written.text, written.span), typ)
    except ExpectationError as e:
        return e
