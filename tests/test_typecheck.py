"""mypy on the package as installed, clean (issue 32): run inside the suite, so the
README's one test command (and CI, which runs exactly it) includes the type check."""
from __future__ import annotations

import subprocess
import sys

from repo_paths import TOOLS


def test_mypy_finds_no_issue_in_the_package():
    done = subprocess.run([sys.executable, str(TOOLS / "typecheck.py")],
                          capture_output=True, text=True, timeout=900)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-6000:]
    assert "Success: no issues found" in report, report[-2000:]
