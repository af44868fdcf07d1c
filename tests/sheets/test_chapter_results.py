"""tools/chapter_results.py counts the chapter's results reproduced by formula;
sheets/README.md states its count, and every typed-in result is labelled."""
from __future__ import annotations

import re
import subprocess
import sys
from repo_paths import REPO



def test_the_readme_states_what_the_command_counts() -> None:
    result = subprocess.run([sys.executable, str(REPO / "tools" / "chapter_results.py")], capture_output=True,
                            text=True, timeout=300, cwd=REPO)
    assert result.returncode == 0, result.stderr          # no unlabelled typed-in result
    counted = re.match(r"(\d+) assertions of the chapter's numbers in (\d+) sheets: (\d+) reproduced by formula, "
                       r"(\d+) typed in \((\d+) labelled with their source, 0 unlabelled\)", result.stdout)
    assert counted, result.stdout
    total, sheets, by_formula, typed, _ = counted.groups()
    assert int(by_formula) + int(typed) == int(total)
    readme = (REPO / "sheets" / "README.md").read_text(encoding="utf-8")
    stated = f"**{by_formula} of {total} assertions in {sheets} sheets are reproduced by\nformula**"
    assert stated in readme, f"sheets/README.md should say: {stated}"
    assert f"; {typed} check a typed-in input" in readme
