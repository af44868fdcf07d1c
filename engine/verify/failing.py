"""The expectations the editor's current values fail (issue 16): which cell
each one is about, so the grid can mark it and the diagnostics panel can jump
to it. The same check as `supersheet test` (testing.check_top_level) on the
deterministic scenario the editor shows."""
from __future__ import annotations

import re

from supersheet.engine.compile.evaluate import Scenario
from supersheet.engine.expect.expect import Outcome
from supersheet.engine.workbook import Workbook

_ELEMENT = re.compile(r"\[\d+\]\Z")


def failing_expectations(workbook: Workbook, scenario: Scenario) -> dict[str, list[Outcome]]:
    """Cell key -> the outcomes of its top-level expectations that fail (an array's per element)."""
    if not workbook.ok or workbook.model.root is None:
        return {}
    from supersheet.engine.verify.testing import check_top_level
    failing: dict[str, list[Outcome]] = {}
    for outcome in check_top_level(workbook, scenario).outcomes:
        if outcome.passed:
            continue
        key = workbook.key_for(_ELEMENT.sub("", outcome.target))
        if key is not None and key not in workbook.checked.uncertain:   # draws: `test` checks their mean
            failing.setdefault(key, []).append(outcome)
    return failing
