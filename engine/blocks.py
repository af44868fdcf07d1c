"""Expectations inside `sweeps`, `solve` and `choose` (filled in by sweep.py / solve.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .testing import TestReport
    from .workbook import Workbook


def test_blocks(workbook: "Workbook") -> "TestReport":
    from .testing import TestReport
    return TestReport()
