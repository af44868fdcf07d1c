"""The diff view: the unsaved sheet against the saved file and against git HEAD
(in a temporary repository), and the messages when there is no HEAD to use."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from test_tui_app import SIZE, edit
from textual.widgets import Static

from supersheet.editor.baselines import HEAD, Baselines
from supersheet.tui.app import SupersheetApp
from repo_paths import SHEETS

EXAMPLE = Path("supernodes") / "6.1.2-running-example.yaml"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=repo,
                          check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository with the running example and its imports committed."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    root = tmp_path / "repo"
    for folder in ("hardware", "models"):
        shutil.copytree(SHEETS / folder, root / "sheets" / folder)
    (root / "sheets" / "supernodes").mkdir()
    shutil.copy(SHEETS / EXAMPLE, root / "sheets" / EXAMPLE)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "sheets")
    return root


async def shown_diff(pilot) -> list[str]:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    return pilot.app.diff_view.rows()


def summary(app: SupersheetApp) -> str:
    return str(app.diff_view.query_one("#diff-summary", Static).render())


async def test_the_diff_against_the_saved_file_follows_edits(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        assert app.diff_view.display and await shown_diff(pilot) == []
        assert summary(app).startswith("no differences")
        await edit(pilot, "context", "32768 token")
        rows = await shown_diff(pilot)
        assert rows[0] == "results changed"
        assert rows[1] == "kv_total | 1.577 GB | 6.308 GB | ↑ 4.731 GB | +300%"
        assert "max_sessions | 47 | 11 | ↓ 36 | -76.6%" in rows
        assert rows[rows.index("inputs changed") + 1] == "context | 8192 token | 32768 token | ↑ 24576 token | +300%"
        assert summary(app).startswith("15 results · 19 expectations failing · 1 input ·")
        # choosing a row jumps to its cell
        table = app.diff_view.query_one("#diff-table")
        table.focus()
        table.move_cursor(row=rows.index("max_sessions | 47 | 11 | ↓ 36 | -76.6%"))
        await pilot.press("enter")
        assert app.grid.current_key == "max_sessions"
        await pilot.press("ctrl+s")   # saved: nothing differs (expectations failing in both are no change)
        assert await shown_diff(pilot) == []


async def test_the_diff_against_git_head_resolves_imports_at_head(repo: Path) -> None:
    # a committed import changed in the work tree: the saved sheet sees it, HEAD does not
    gpu = repo / "sheets" / "hardware" / "h100-sxm.yaml"
    gpu.write_text(gpu.read_text(encoding="utf-8").replace("value: 80 GB", "value: 96 GB"), encoding="utf-8")
    app = SupersheetApp(repo / "sheets" / EXAMPLE, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await edit(pilot, "context", "16384 token")
        app.action_diff_head()
        rows = await shown_diff(pilot)
        assert app.diff_view.border_title.startswith("diff · unsaved against HEAD (")
        assert "context | 8192 token | 16384 token | ↑ 8192 token | +100%" in rows
        assert "capacity | 80 GB | 96 GB | ↑ 16 GB | +20%" in rows          # from the import at HEAD
        app.action_diff_saved()
        rows = await shown_diff(pilot)
        assert "context | 8192 token | 16384 token | ↑ 8192 token | +100%" in rows
        assert not any(row.startswith("capacity |") for row in rows)


def test_no_head_to_compare_with_is_said_clearly(tmp_path: Path, repo: Path) -> None:
    text = (SHEETS / "hardware" / "h100-sxm.yaml").read_text(encoding="utf-8")
    outside = tmp_path / "outside.yaml"
    outside.write_text(text, encoding="utf-8")
    baselines = Baselines()
    found = baselines.compare(outside, text, HEAD)
    assert found.diff is None and found.message == \
        "outside.yaml is not inside a git work tree: there is no HEAD to compare with"
    untracked = repo / "sheets" / "hardware" / "new-card.yaml"
    untracked.write_text(text, encoding="utf-8")
    found = baselines.compare(untracked, text, HEAD)
    assert found.diff is None and found.message == "sheets/hardware/new-card.yaml is untracked: HEAD has no version of it"
    git(repo, "add", str(untracked))
    found = baselines.compare(untracked, text, HEAD)
    assert found.message == "sheets/hardware/new-card.yaml is added but not committed yet: HEAD has no version of it"
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    (empty / "a.yaml").write_text(text, encoding="utf-8")
    found = baselines.compare(empty / "a.yaml", text, HEAD)
    assert found.diff is None and "has no HEAD yet (nothing committed)" in found.message
    # committed: the diff is there, and unchanged
    found = baselines.compare(repo / "sheets" / "hardware" / "h100-sxm.yaml", text, HEAD)
    assert found.diff is not None and not found.diff.differs and found.diff.unchanged > 0
