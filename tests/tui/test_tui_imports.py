"""Swapping what an import names, from the editor (issue 31): Ctrl+O on an
import lists the sheets it could name instead, each with the names of this sheet
it lacks; the swap is one changed line and one undo step."""
from __future__ import annotations

from pathlib import Path

from textual.widgets import OptionList, Static

from supersheet.editor.document import Document
from supersheet.editor import imports
from supersheet.tui.app import SupersheetApp
from supersheet.tui.screens import ChoiceScreen, PickerScreen

SIZE = (100, 30)
MODEL = "  model: ../models/qwen3-235b-a22b.yaml"


def test_the_candidates_list_what_each_lacks(example: Path) -> None:
    document = Document(example)
    used = imports.used_names(document.workbook, "model")
    assert {"layers", "kv_heads", "weights", "top_k"} <= set(used)
    found = {c.written: c for c in imports.candidates(document.workbook, document.path, "model")}
    assert "../models/qwen3-235b-a22b.yaml" not in found              # the present one
    dense = found["../models/qwen3-32b.yaml"]
    assert dense.title.startswith("Qwen3-32B") and "expert_params" in dense.missing
    assert all(n in used for c in found.values() for n in c.missing)
    assert all(Path(c.path).parent.name == "models" for c in found.values() if c.missing)
    hardware = imports.candidates(document.workbook, document.path, "hgx")
    assert {c.written for c in hardware} >= {"../hardware/h100-sxm.yaml", "../hardware/b200.yaml"}


def test_a_swap_changes_one_line_and_is_one_undo_step(example: Path, line_diff) -> None:
    before = example.read_text(encoding="utf-8")
    document = Document(example)
    result = document.swap_import("model", "../models/qwen3-32b.yaml")
    assert result.ok and document.dirty
    assert line_diff(before, document.text()) == [(MODEL, "  model: ../models/qwen3-32b.yaml")]
    assert document.value("model.layers") == 64                    # Qwen3-32B's
    assert any("expert_params" in d.message for d in document.problems)
    document.undo()
    assert document.text() == before and not document.dirty


async def test_ctrl_o_asks_lists_the_missing_names_and_swaps(example: Path, line_diff) -> None:
    before = example.read_text(encoding="utf-8")
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("model.layers")
        await pilot.press("ctrl+o")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, PickerScreen)
        rows = app.screen.query_one(OptionList)
        texts = [str(rows.get_option_at_index(i).prompt) for i in range(rows.option_count)]
        chosen = next(i for i, t in enumerate(texts) if t.startswith("../models/qwen3-32b.yaml"))
        assert "lacks 2: expert_params, replicated_params" in texts[chosen]
        for _ in range(chosen):
            await pilot.press("down")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen) and "model.expert_params" in app.screen.message
        assert app.screen.focused.id == "answer-cancel"
        await pilot.press("down", "enter")
        await pilot.pause()
        assert "model now imports ../models/qwen3-32b.yaml" in str(app.query_one("#status", Static).render())
        assert app.document.value("model.layers") == 64
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert line_diff(before, example.read_text(encoding="utf-8")) == [(MODEL, "  model: ../models/qwen3-32b.yaml")]
