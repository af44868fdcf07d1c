"""The sheet library: every sheet in sheets/ checks clean and every
expectation in it (top level, sweeps, solves, choices) holds."""
from __future__ import annotations

from pathlib import Path

import pytest

from supersheet.engine.base.diagnostics import render_all
from supersheet.engine.verify.blocks import validate_blocks
from supersheet.engine.verify.testing import test_workbook as run_expectations
from supersheet.engine.workbook import open_workbook
from repo_paths import REPO

SHEETS = sorted((REPO / "sheets").rglob("*.yaml"))


def test_library_is_not_empty() -> None:
    assert len(SHEETS) >= 40
    assert (REPO / "sheets" / "supernodes" / "6.1.2-running-example.yaml") in SHEETS


@pytest.mark.parametrize("path", SHEETS, ids=lambda p: str(p.relative_to(REPO / "sheets")))
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
    index = (REPO / "sheets" / "README.md").read_text(encoding="utf-8")
    listed = {Path(m) for m in re.findall(r"\]\(([^)]+\.yaml)\)", index)}
    on_disk = {p.relative_to(REPO / "sheets") for p in SHEETS}
    assert sorted(on_disk - listed) == [] and sorted(listed - on_disk) == []


def has_assumed_sweeps(path: Path) -> bool:
    """A sheet with its own sweeps and assumptions (its own or an import's) to hold them to."""
    from supersheet.engine.scenarios.sweep import sweep_specs
    workbook = open_workbook(path)
    return bool(sweep_specs(workbook)) and any(c.kind == "assume" for c in workbook.model.cells.values())


@pytest.mark.parametrize("path", [p for p in SHEETS if has_assumed_sweeps(p)],
                         ids=lambda p: str(p.relative_to(REPO / "sheets")))
def test_the_book_rows_lie_inside_the_model(path: Path) -> None:
    """Every row of a sheet's own sweeps - the book's worked cases - satisfies the
    sheet's assumptions (format 9.2): an example the model cannot describe is a bug
    in the example or in the assumption. Only sheets with both are parametrised,
    and each asserts that rows were held to the assumptions."""
    from supersheet.engine.expect.assume import OUTSIDE_HEADER
    from supersheet.engine.scenarios.sweep import load_sweep, run_in_memory, sweep_specs
    workbook = open_workbook(path)
    rows = 0
    for name in sweep_specs(workbook):
        frame = run_in_memory(workbook, load_sweep(workbook, name))
        assert OUTSIDE_HEADER in frame.columns, f"sweep {name}: no assumption column on a sheet with assumptions"
        outside = [v for v in frame[OUTSIDE_HEADER].to_list() if v]
        assert not outside, f"sweep {name}: rows outside the model: {outside}"
        rows += frame.height
    assert rows >= 1
