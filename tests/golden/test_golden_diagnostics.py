"""Golden diagnostics: one minimal failing sheet per file, rendered exactly as
the CLI prints it (supersheet.engine.base.diagnostics.render), stored as a text snapshot.

The sheets are the conformance `errors/` cases and the extra ones in
tests/golden/sheets/. Paths are relative (the test runs from the folder that
holds `errors/` or `sheets/`), so the snapshots do not depend on the machine.
What is rendered is what `supersheet check` reports, or, for a sheet that
checks clean, the diagnostics of `supersheet test` (E-EXPECT and friends).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from supersheet.engine.base.diagnostics import SourceCache, render
from supersheet.engine.verify.blocks import validate_blocks
from supersheet.engine.verify.testing import test_workbook as run_expectations
from supersheet.engine.workbook import open_workbook
from repo_paths import CONFORMANCE

HERE = Path(__file__).resolve().parent


def _cases() -> list:
    cases = [pytest.param(HERE, f"sheets/{p.name}", id=f"golden-{p.stem}")
             for p in sorted((HERE / "sheets").glob("*.yaml"))]
    if (CONFORMANCE / "errors").is_dir():
        cases += [pytest.param(CONFORMANCE, f"errors/{p.name}", id=f"conformance-{p.stem}")
                  for p in sorted((CONFORMANCE / "errors").glob("*.yaml"))]
    return cases


def rendered_diagnostics(path: str) -> str:
    workbook = open_workbook(path)
    problems = [d for d in workbook.diagnostics if d.code != "E-EXPECT"]
    stage = "check"
    if not problems:
        problems = validate_blocks(workbook)
    if not problems:
        stage = "test"
        problems = run_expectations(workbook).diagnostics
    sources = SourceCache()
    body = "\n\n".join(render(d, sources) for d in problems)
    return f"# supersheet {stage} {path}\n\n{body}\n"


@pytest.mark.parametrize("root, path", _cases())
def test_rendered_diagnostics(root, path, monkeypatch, snapshot_txt, allow_path):
    monkeypatch.chdir(root)
    allow_path(root)        # conformance cases import across their folders (../valid/)
    text = rendered_diagnostics(path)
    assert "Traceback" not in text
    assert text.count(": E-") >= 1, text
    assert text == snapshot_txt
