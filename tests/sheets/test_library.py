"""The sheet library: every sheet in sheets/ checks clean and every
expectation in it (top level, sweeps, solves, choices) holds."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine.blocks import validate_blocks
from engine.diagnostics import render_all
from engine.testing import test_workbook as run_expectations
from engine.workbook import open_workbook

ROOT = Path(__file__).resolve().parents[2]
SHEETS = sorted((ROOT / "sheets").rglob("*.yaml"))


def test_library_is_not_empty() -> None:
    assert len(SHEETS) >= 40
    assert (ROOT / "sheets" / "supernodes" / "6.1.2-running-example.yaml") in SHEETS


@pytest.mark.parametrize("path", SHEETS, ids=lambda p: str(p.relative_to(ROOT / "sheets")))
def test_sheet_checks_and_expectations_hold(path: Path) -> None:
    workbook = open_workbook(path)
    problems = workbook.diagnostics or validate_blocks(workbook)
    assert not problems, render_all(problems)
    report = run_expectations(workbook)
    failures = [o.message for o in report.outcomes if not o.passed]
    assert not report.diagnostics and not failures, "\n".join(failures) or render_all(report.diagnostics)
    is_variant = workbook.model.root is not None and workbook.model.root.file.extends is not None
    if "supernodes" in path.parts and not is_variant:
        assert report.outcomes, "a scenario sheet reproduces the book: it must assert at least one number"


def test_index_lists_every_sheet() -> None:
    """sheets/README.md is the index: one line per sheet, none missing, none stale."""
    import re
    index = (ROOT / "sheets" / "README.md").read_text(encoding="utf-8")
    listed = {Path(m) for m in re.findall(r"\]\(([^)]+\.yaml)\)", index)}
    on_disk = {p.relative_to(ROOT / "sheets") for p in SHEETS}
    assert sorted(on_disk - listed) == [] and sorted(listed - on_disk) == []
