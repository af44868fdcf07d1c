"""docs/python.md's notebook example runs and does what the doc says it does."""
from __future__ import annotations

import re
import subprocess
import sys
from repo_paths import REPO


DOC = REPO / "docs" / "python.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_three_line_notebook_example_sweeps_the_running_example():
    block = python_blocks()[0]
    assert len(block.strip().splitlines()) == 3
    probe = block + ("print(df.height); print(df.columns); print(df['max_sessions'].to_list()); "
                     "print(df['outside [assumptions]'].to_list())\n")
    result = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    height, columns, sessions, outside = result.stdout.strip().splitlines()
    assert height == "12"
    assert columns == "['cards', 'context', 'max_sessions', 'outside [assumptions]']"
    assert outside == str([None] * 12)   # 1 and 8 cards split attention by whole heads
    # one card cannot hold the 470 GB of weights: no session, never a negative count
    assert sessions == str([0.0] * 6 + [95.0, 47.0, 23.0, 11.0, 5.0, 2.0])


def test_the_readme_points_to_the_python_doc():
    assert "docs/python.md" in (REPO / "README.md").read_text(encoding="utf-8")


def test_the_pint_examples_of_the_readme_and_the_python_doc_run():
    readme = re.findall(r"```python\n(.*?)```", (REPO / "README.md").read_text(encoding="utf-8"), re.S)
    blocks = [b for b in readme + python_blocks() if "set_application_registry" in b]
    assert len(blocks) == 2
    for block in blocks:
        result = subprocess.run([sys.executable, "-c", block], cwd=REPO, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        if "print" in block:   # the README's, which says what it prints
            assert result.stdout.strip() == "472.3 gigabyte", result.stdout
