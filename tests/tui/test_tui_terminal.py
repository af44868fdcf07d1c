"""The editor in a real terminal (tmux, tests/tui/tmux_editor.py): raw bytes in,
the screen as drawn and the saved file's `git diff` out. Pilot hands Textual
its events ready-made; these go through the terminal parser as a user's keys
do, focus reports and bracketed paste included (issue 31)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from repo_paths import REPO
from tmux_editor import FOCUS_IN, FOCUS_OUT, KEYS, PASTE_END, PASTE_START, TmuxEditor, changed, git_diff, \
    git_repository

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
        editor.wait_for(" cells · Enter or type to edit")
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
        editor.wait(lambda screen: formula_bar(screen) == ("context", "4096 token") and "edited context" in screen,
                    "context = 4096 token in the formula bar")
        editor.keys("ctrl+s")
        editor.wait_for(" saved ", absent=("unsaved",))
    assert ran == len(rounds)
    assert changed(git_diff(work)) == ["-    value: 8192 token", "+    value: 4096 token",
                                       "-    value: 2 GiB", "+    value: 3 GiB"]


def git(work: Path, *arguments: str) -> str:
    return subprocess.run(["git", *arguments], cwd=work, capture_output=True, text=True, check=True).stdout


def test_a_planning_session_in_a_real_terminal(work: Path) -> None:
    """Issue 31's "Done when" walk, in tmux with raw bytes, each step checked on the screen
    and in git: a focus report then keys; swap the running example's model (saved: one line
    in `git diff`); jump through the problems the swap brings (F8 round, Shift+F8 back);
    fix them with completed formulas; Save As (the original keeps only the swap, the new
    file has the fixes); import a sheet and give it a set: entry there (Ctrl+U, Ctrl+T);
    export the sweep the sweep view shows."""
    sheet = work / EXAMPLE
    swapped = ["-  model: ../models/qwen3-235b-a22b.yaml", "+  model: ../models/qwen3-32b.yaml"]
    with TmuxEditor(sheet, work) as editor:
        editor.wait_for(" cells · Enter or type to edit")
        # the key after a focus-out is not lost: End goes to the last row, the model's group
        # row (imports are folded at the end), where Ctrl+O swaps its sheet
        editor.send(FOCUS_OUT + KEYS["end"] + KEYS["ctrl+o"])
        editor.wait_for("Import another sheet as model", "../models/qwen3-32b.yaml",
                        "lacks 2: expert_params, replicated_params")
        editor.keys("down", "enter")           # qwen3-30b-a3b is first (as many missing, its name first)
        editor.wait_for("Swap model for qwen3-32b.yaml?")
        editor.keys("down", "enter")
        screen = editor.wait_for("model now imports ../models/qwen3-32b.yaml")
        assert "⚠ 3 problems: 3 errors · F8" in screen, screen   # the two names it lacks, three times
        editor.keys("ctrl+s")
        editor.wait_for(" saved ", absent=("unsaved",))
        assert changed(git_diff(work)) == swapped
        # through the problems: F8 goes round them, Shift+F8 back
        seen = []
        for key, at in (("f8", "1/3"), ("f8", "2/3"), ("f8", "3/3"), ("f8", "1/3"), ("shift+f8", "3/3"),
                        ("f8", "1/3")):
            editor.keys(key)
            screen = editor.wait_for(f"problem {at}: E-NAME")
            seen.append((at, formula_bar(screen)[0]))
        assert seen[0][1] == "weights_per_card" and seen[3] == seen[0] and seen[4] == seen[2], seen
        assert {cell for _, cell in seen} == {"weights_per_card", "expert_flops"}, seen
        bar = formula_bar(screen)
        assert bar[0] == "weights_per_card" and "model.replicated_params" in bar[1], screen
        # the cell at the cursor is the broken one: a new formula, completed as typed
        editor.keys("=", " model.weig")
        editor.wait_for("Tab: model.weights")
        editor.keys("tab", " / car")
        editor.wait_for("Tab: cards 8")
        editor.keys("tab", " -> GB", "enter")
        screen = editor.wait_for("edited weights_per_card")
        assert formula_bar(screen) == ("weights_per_card", "= model.weights / cards -> GB"), screen
        assert "⚠ 1 problem: 1 error · F8" in screen, screen
        editor.keys("f8")
        screen = editor.wait_for("problem 1/1: E-NAME")
        assert formula_bar(screen)[0] == "expert_flops", screen
        editor.keys("=", " 2 * model.layer_p")
        editor.wait_for("Tab: model.layer_params")
        editor.keys("tab", " * 1 FLOP -> MFLOP", "enter")
        screen = editor.wait_for("edited expert_flops")
        assert "1 error" in screen.splitlines()[-2], screen
        # no name is missing now; the error left is a value — a dense model reads no expert
        # (0 MiB) — and F8, going round the problems, names the cell that divides by it
        said: list[str] = []
        while not any("E-VALUE #DIV/0 in mfu_ceiling" in s for s in said) and len(said) < 80:
            editor.keys("f8")
            screen = editor.wait(lambda screen: "problem " in screen.splitlines()[-2]
                                 and screen.splitlines()[-2] != (said or [""])[-1], "the next problem")
            said.append(screen.splitlines()[-2])
        assert any("E-VALUE #DIV/0 in mfu_ceiling" in s for s in said), said
        assert formula_bar(screen)[0] == "mfu_ceiling" and not any("E-NAME" in s for s in said), said
        assert changed(git_diff(work)) == swapped                   # unsaved: the file has the swap alone
        # Save As: the new file has the fixes too, the sheet on disk only the swap
        editor.keys("ctrl+w")
        editor.wait_for("Save As", "6.1.2-running-example-2.yaml")
        editor.keys("plan-32b.yaml", "enter")
        editor.wait_for("saved as plan-32b.yaml")
        new = sheet.with_name("plan-32b.yaml")
        status = [line for line in git(work, "status", "--porcelain").splitlines() if not line.startswith("?? state/")]
        assert status == [f" M {EXAMPLE.as_posix()}", f"?? {new.relative_to(work).as_posix()}"], status
        # in the new file: import the H100 sheet (typed text finds it) and give it its own capacity
        editor.keys("ctrl+u")
        editor.wait_for("Import a sheet", "type to filter")
        editor.keys("h100-sxm")
        editor.wait_for("filter: h100-sxm", "../hardware/h100-sxm.yaml")
        editor.keys("enter")
        editor.wait_for("Import ../hardware/h100-sxm.yaml as", "h100_sxm")
        editor.keys("h100", "enter")
        editor.wait_for("imported ../hardware/h100-sxm.yaml as h100")
        editor.keys("ctrl+t")
        editor.wait_for("set: entries of which import?")
        editor.keys("sxm", "enter")
        editor.wait_for("set: of h100", "shares one instance with hgx.gpu")
        editor.keys("hbm_cap", "enter")
        editor.wait_for("h100: set hbm_capacity", "splits it off")
        editor.keys("96 GB", "enter")
        editor.wait_for("h100: set hbm_capacity = 96 GB · h100 now its own instance")
        editor.keys("ctrl+s")
        editor.wait_for(" saved ", absent=("unsaved",))
        # export the sweep the sweep view opens on (per_card_table)
        editor.keys("f3")
        editor.wait_for("per_card_table")
        editor.keys("ctrl+x")
        editor.wait_for("Export the sweep table", "plan-32b-per_card_table.csv")
        editor.keys("cards.csv", "enter")
        editor.wait_for("wrote 2 rows of per_card_table")
    assert changed(git_diff(work)) == swapped                        # the running example: the swap, saved
    diff = subprocess.run(["git", "diff", "--no-index", "-U0", str(sheet), str(new)], capture_output=True,
                          text=True).stdout
    assert changed(diff) == ["+  h100: {sheet: ../hardware/h100-sxm.yaml, set: {hbm_capacity: 96 GB}}",
                             "-    formula: ((model.params_total - model.replicated_params - kv_proj) / cards "
                             "+ model.replicated_params + kv_proj / kv_split) * model.dtype_bytes",
                             "+    formula: model.weights / cards -> GB",
                             "-  expert_flops: = 2 * model.top_k * model.expert_params * 1 FLOP -> MFLOP",
                             "+  expert_flops: = 2 * model.layer_params * 1 FLOP -> MFLOP"]
    rows = (sheet.parent / "cards.csv").read_text().splitlines()
    assert rows[0].startswith("cards,weights_per_card [GB]") and len(rows) == 3
    # the rows are the 32B model's weights split over 1 and 8 cards (its weights from its own sheet)
    from supersheet.editor.document import Document
    weights = Document(new).value("model.weights") / 1e9
    split = {int(float(r.split(",")[0])): float(r.split(",")[1]) for r in rows[1:]}
    assert split[1] == pytest.approx(weights, rel=1e-3) and split[8] == pytest.approx(weights / 8, rel=1e-3)
