"""mypy on the package as installed, clean (issue 32): run inside the suite, so the
README's one test command (and CI, which runs exactly it) includes the type check."""
from __future__ import annotations

import re
import subprocess
import sys

from repo_paths import PACKAGE_FOLDERS, REPO, TOOLS


def test_mypy_finds_no_issue_in_the_package():
    done = subprocess.run([sys.executable, str(TOOLS / "typecheck.py")],
                          capture_output=True, text=True, timeout=900)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-6000:]
    assert "Success: no issues found" in report, report[-2000:]


IGNORE = re.compile(r"#\s*type:\s*ignore(\[[-a-z, ]*\])?(.*)$")


def test_every_type_ignore_says_why():
    """An ignore hides what mypy found: each names its error codes and, after them, a
    comment saying why the code is right as it is (issue 32: no silent ignores)."""
    seen, silent = 0, []
    for folder in PACKAGE_FOLDERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                found = IGNORE.search(line)
                if found is None:
                    continue
                seen += 1
                codes, rest = found.groups()
                if not codes or "#" not in rest or not rest.split("#", 1)[1].strip():
                    silent.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert seen > 0   # the scan read the package (it has ignores, each explained)
    assert not silent, "\n".join(silent)
