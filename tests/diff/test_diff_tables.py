"""diff --rev of a sheet whose table changed (issue 35): the table is read at both revisions and
the sheet is compared though its own text did not change."""
from __future__ import annotations

import subprocess


def test_a_changed_table_is_a_changed_input(tmp_path, run_cli, monkeypatch):
    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=a", *args], cwd=tmp_path, check=True,
                       capture_output=True)
    git("init", "-q")
    (tmp_path / "t.csv").write_text("size [B],time [us]\n1024,10\n2048,12\n")
    (tmp_path / "s.yaml").write_text("tables:\n  t: t.csv\ncells:\n  slowest: = max(t.time) -> us\n")
    git("add", "-A")
    git("commit", "-qm", "one")
    (tmp_path / "t.csv").write_text("size [B],time [us]\n1024,10\n2048,15\n")
    monkeypatch.chdir(tmp_path)
    result = run_cli("diff", "--rev", "HEAD")
    assert result.code == 1, result.output
    assert "s.yaml" in result.out and "slowest: 12 μs → 15 μs" in result.out, result.out
