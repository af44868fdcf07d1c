"""The editor in a real terminal (tmux, tests/tui/tmux_editor.py): raw bytes in,
the screen as drawn and the saved file's `git diff` out. Pilot hands Textual
its events ready-made; these go through the terminal parser as a user's keys
do, focus reports and bracketed paste included (issue 31)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tmux_editor import FOCUS_IN, FOCUS_OUT, KEYS, PASTE_END, PASTE_START, TmuxEditor, changed, git_diff, \
    git_repository

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = Path("sheets") / "supernodes" / "6.1.2-running-example.yaml"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A git work tree holding a copy of the library (the sheet root; `git diff` shows what a save wrote)."""
    shutil.copytree(REPO / "sheets", tmp_path / "sheets")
    git_repository(tmp_path)
    return tmp_path


def formula_bar(screen: str) -> tuple[str, str]:
    """The selected cell's name and its text as written, from the line over the status line."""
    name, _, text = screen.splitlines()[-3].partition("│")
    return name.strip(), text.strip()


def test_no_key_is_lost_to_focus_reports(work: Path) -> None:
    """tmux sends `ESC [ I` when a client attaches and `ESC [ O` when it detaches (or the
    pane loses focus). The key right after one went through Textual's own queue and ran
    after the keys behind it: `Home Down 2048 Enter` meant for `context` (first row
    under the group's title) edited the row below it, then moved to the top — every time.
    Each round here is one burst after the reports, on a row chosen from the top; a
    paste (its bracketed markers) and a cursor report in the burst change nothing."""
    rounds = [
        ((FOCUS_IN, FOCUS_OUT), ("home", "down", "8200", "enter"), "context", "8200 token"),
        ((FOCUS_OUT,), ("home", "down", "down", "down", "3", "enter"), "workspace", "3 GiB"),
        ((FOCUS_OUT, FOCUS_IN), ("home", "down", "8300", "enter"), "context", "8300 token"),
        ((FOCUS_IN, FOCUS_OUT, FOCUS_IN, FOCUS_OUT), ("home", "down", "down", "down"), "workspace", None),
        ((FOCUS_OUT,), ("home", "down"), "context", None),
    ]
    with TmuxEditor(work / EXAMPLE, work) as editor:
        editor.wait_for("99 cells")
        ran = 0
        for reports, keys, cell, value in rounds:
            editor.send(b"".join(reports))
            editor.keys(*keys)
            if value is not None:
                screen = editor.wait_for(f"edited {cell}:")
                assert formula_bar(screen) == (cell, value), screen
            else:   # only moved: the formula bar names the cell the cursor is on
                editor.wait(lambda screen: formula_bar(screen)[0] == cell, f"{cell} in the formula bar")
            ran += 1
        # a paste after a focus report, its markers included, is the cell's new text
        editor.send(FOCUS_OUT + KEYS["home"] + KEYS["down"] + PASTE_START + b"4096" + PASTE_END + b"\r")
        screen = editor.wait_for("4096 token")
        assert formula_bar(screen) == ("context", "4096 token"), screen
        editor.keys("ctrl+s")
        editor.wait_for(" saved ", absent=("unsaved",))
    assert ran == len(rounds)
    assert changed(git_diff(work)) == ["-    value: 8192 token", "+    value: 4096 token",
                                       "-    value: 2 GiB", "+    value: 3 GiB"]
