"""The expectations the editor's current values fail (issue 16): which cell
each one is about, so the grid can mark it and the diagnostics panel can jump
to it. The same checks as `supersheet test`: the top-level ones on the
deterministic scenario the editor shows and, for the cells that depend on
random draws, over the samples; those of sweeps, solves and choices by
running them."""
from __future__ import annotations

import re
from typing import Any

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.compile.evaluate import Scenario
from supersheet.engine.expect.expect import Outcome
from supersheet.engine.verify.expectations import STATISTIC
from supersheet.engine.workbook import Workbook

_ELEMENT = re.compile(r"\[\d+\]\Z")


def failing_expectations(workbook: Workbook, scenario: Scenario) -> dict[str, list[Outcome]]:
    """Cell key -> the outcomes of its top-level expectations that fail (an array's per element)."""
    if not workbook.ok or workbook.model.root is None:
        return {}
    from supersheet.engine.verify.testing import check_top_level   # deferred: engine.verify.testing (slow to import)
    failing: dict[str, list[Outcome]] = {}
    for outcome in check_top_level(workbook, scenario).outcomes:
        if outcome.passed:
            continue
        key = workbook.key_for(_ELEMENT.sub("", outcome.target))
        if key is not None and key not in workbook.checked.uncertain:   # draws: `test` checks their mean
            failing.setdefault(key, []).append(outcome)
    return failing


def failing_over_samples(workbook: Workbook, sampled: Any) -> dict[str, list[Outcome]]:
    """Cell key -> its top-level expectations that fail, for the cells that depend
    on random draws, checked as `test` checks them: `name` against the mean,
    `p95(name)` (`p5`, `mean` …) against that statistic of the samples.
    (`failing_expectations` leaves these cells out: their shown value is every draw at its mean.)"""
    if not workbook.ok or workbook.model.root is None or sampled is None:
        return {}
    from supersheet.engine.verify.testing import check_top_level   # deferred: engine.verify.testing (slow to import)
    failing: dict[str, list[Outcome]] = {}
    for outcome in check_top_level(workbook, sampled.deterministic, sampled).outcomes:
        if outcome.passed:
            continue
        statistic = STATISTIC.match(outcome.target)
        key = workbook.key_for(statistic.group(2) if statistic else _ELEMENT.sub("", outcome.target))
        if key is not None and key in workbook.checked.uncertain:
            failing.setdefault(key, []).append(outcome)
    return failing


def failing_in_blocks(workbook: Workbook) -> tuple[dict[str | None, list[Outcome]], list[Diagnostic]]:
    """Cell key -> the failing expectations of the sheet's sweeps, solves and
    choices (each run as `test` runs it: a sweep's column per row, a solve's
    answer, a choice's chosen row), and the problems that kept one from being
    checked. Key None: an outcome about no cell of the sheet."""
    root = workbook.model.root
    if not workbook.ok or root is None:
        return {}, []
    from supersheet.engine.verify.blocks import test_blocks   # deferred: engine.verify.blocks (slow to import)
    report = test_blocks(workbook)
    blocks = sorted({*root.sweeps, *root.solve, *root.choose}, key=len, reverse=True)
    failing: dict[str | None, list[Outcome]] = {}
    for outcome in report.outcomes:
        if outcome.passed:
            continue
        block = next((name for name in blocks if outcome.target.startswith(f"{name}.")), None)
        target = _ELEMENT.sub("", outcome.target[len(block) + 1:]) if block is not None else ""
        failing.setdefault(workbook.key_for(target) if target else None, []).append(outcome)
    return failing, report.diagnostics
