"""`supersheet check` never loads Polars (issue 14), not even for a sheet with sweeps,
solves or choices: what running a block would refuse is found without building a plan
(`plans_for(..., build=check_plan)`), and a goal seek runs on the one-row path in floats.
The diagnostics are those `check` always gave (tests/golden, tests/cli/test_problems.py)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from repo_paths import REPO

SHEETS = REPO / "sheets"

CHECK = """
import sys
from supersheet.cli.main import main
code = main(["check", *sys.argv[1:]])
print("exit", code, "polars" in sys.modules)
"""


def _blocks(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    return {kind for kind in ("sweeps", "solve", "choose") if f"\n{kind}:" in "\n" + text}


def test_check_of_library_sheets_with_sweeps_solves_and_choices_does_not_import_polars():
    sheets = sorted(SHEETS.rglob("*.yaml"))
    chosen = [p for p in sheets if _blocks(p)]
    kinds = set().union(*(_blocks(p) for p in chosen))
    assert kinds == {"sweeps", "solve", "choose"}, kinds     # every kind of block is among them
    result = subprocess.run([sys.executable, "-c", CHECK, *map(str, chosen)], cwd=REPO,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"{len(chosen)} sheets checked, 0 invalid" in result.stdout
    assert result.stdout.strip().splitlines()[-1] == "exit 0 False"


def test_check_still_runs_the_goal_seek_and_reports_no_solution(tmp_path):
    """The goal seek `check` runs in floats finds what the Polars one finds: here, no sign change."""
    sheet = tmp_path / "nosolution.yaml"
    sheet.write_text("cells:\n  x: 1\n  y: = x * x + 1\nsolve:\n  never:\n    vary: x\n    goal: y == 0\n"
                     "    between: [-10, 10]\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-c", CHECK, str(sheet)], cwd=REPO, capture_output=True, text=True,
                            timeout=120)
    assert "E-SOLVE" in result.stderr and "no solution of y == 0 for x in [-10, 10]" in result.stderr
    assert result.stdout.strip().splitlines()[-1] == "exit 2 False"


CHECK_IMPORTS = """
import sys
from supersheet.cli.main import main
code = main(["check", *sys.argv[1:]])
print("exit", code, sorted(m for m in ("polars", "numpy") if m in sys.modules))
"""


def test_check_of_library_sheets_without_blocks_imports_neither_polars_nor_numpy(tmp_path):
    """Nor NumPy (issue 30: ~90 ms of every `check`) for a sheet without sweeps, solves or
    choices: an axis builds its values with NumPy only when a grid needs them. (Pint imports
    NumPy: the first run, with an empty cache of unit names, resolves them with Pint; the
    second is what every later `check` of the sheets is.)"""
    from supersheet.engine.workbook import open_workbook

    def has_blocks(path: Path) -> bool:   # its own or those of the sheet it extends; a table's numbers are NumPy's
        root = open_workbook(path).model.root
        return root is None or bool(root.sweeps or root.solve or root.choose or root.fit or root.tables)
    chosen = [p for p in sorted(SHEETS.rglob("*.yaml")) if not _blocks(p) and not has_blocks(p)]
    assert len(chosen) >= 20, len(chosen)
    env = {**os.environ, "SUPERSHEET_CACHE_DIR": str(tmp_path)}   # its own cache, warmed by the first run
    for run in ("cold", "warm"):
        result = subprocess.run([sys.executable, "-c", CHECK_IMPORTS, *map(str, chosen)], cwd=REPO,
                                capture_output=True, text=True, timeout=600, env=env)
        assert result.returncode == 0, result.stderr[-2000:]
        assert f"{len(chosen)} sheets checked, 0 invalid" in result.stdout
    assert result.stdout.strip().splitlines()[-1] == "exit 0 []"
