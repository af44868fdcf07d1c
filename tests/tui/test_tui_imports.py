"""Swapping what an import names, from the editor (issue 31): Ctrl+O on an
import lists the sheets it could name instead, each with the names of this sheet
it lacks; the swap is one changed line and one undo step."""
from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList, Static

from supersheet.editor.cells import StructureError

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


# -- add, remove, set: (issue 31 item 2) -------------------------------------------------
HGX = "  hgx: ../hardware/hgx-h100.yaml"


def added_lines(before: str, after: str) -> list[str]:
    """The lines of `after` that `before` lacks, and the lines it lost marked '-'."""
    import difflib
    return [line for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def test_an_import_is_added_as_one_line_under_a_free_alias(example: Path) -> None:
    before = example.read_text(encoding="utf-8")
    document = Document(example)
    found = document.addable_imports()()
    written = [c.written for c in found]
    assert "../hardware/h100-sxm.yaml" in written and "supersheet:hardware/h100-sxm.yaml" in written
    assert written.index("6.1.2-running-example-32k.yaml") < written.index("../hardware/h100-sxm.yaml")  # nearest first
    assert not any(c.path == example.resolve() for c in found)                                 # not itself
    assert next(c for c in found if c.written == "../hardware/h100-sxm.yaml").title.startswith("NVIDIA H100")
    assert document.free_alias("../hardware/hgx-h100.yaml") == "hgx_h100"
    for taken, why in (("hgx", "already imports"), ("cards", "has a cell"), ("2x", "not a name")):
        with pytest.raises(StructureError, match=why):
            document.add_import(taken, "supersheet:hardware/h100-sxm.yaml")
    result = document.add_import("h100", "supersheet:hardware/h100-sxm.yaml")
    assert result.ok and document.value("h100.hbm_capacity") == pytest.approx(80e9)
    assert added_lines(before, document.text()) == ["+  h100: supersheet:hardware/h100-sxm.yaml"]
    document.save()
    assert added_lines(before, example.read_text(encoding="utf-8")) == ["+  h100: supersheet:hardware/h100-sxm.yaml"]
    document.undo()
    assert document.text() == before


def test_a_sheet_without_imports_gets_its_use_block_before_its_cells(library: Path) -> None:
    sheet = library / "models" / "qwen3-32b.yaml"
    before = sheet.read_text(encoding="utf-8")
    document = Document(sheet)
    assert document.add_import("hw", "../hardware/h100-sxm.yaml").ok
    lines = document.text().splitlines()
    assert added_lines(before, document.text()) == ["+use:", "+  hw: ../hardware/h100-sxm.yaml"]
    assert lines.index("use:") < lines.index("cells:") and lines.index("use:") > 0
    assert document.remove_import("hw").ok and document.text() == before       # and back, `use:` with it


def test_an_import_in_use_is_removed_only_when_asked_naming_its_users(example: Path) -> None:
    before = example.read_text(encoding="utf-8")
    document = Document(example)
    users = document.import_users("hgx")
    assert users[:2] == ["cards", "capacity"] and "per_card_step" in users
    refused = document.remove_import("hgx")
    assert not refused.ok and "cards" in refused.message and document.text() == before
    assert document.remove_import("hgx", force=True).ok
    assert added_lines(before, document.text()) == ["-" + HGX]
    assert any("unknown import 'hgx'" in d.message for d in document.problems)   # left as problems
    document.undo()
    assert document.text() == before and not any("'hgx'" in d.message for d in document.problems)


def test_set_entries_are_written_checked_and_removed_one_line_each(example: Path) -> None:
    before = example.read_text(encoding="utf-8")
    model = "  model: ../models/qwen3-235b-a22b.yaml"
    document = Document(example)
    assert document.set_entries("model") == [] and ("layers", "94") in document.settable("model")
    # the status line's label: a formula's own `=` is the sign (not `set layers = = 2 * 45`)
    assert document.set_import_value("model", "layers", "= 2 * 45").text == "model: set layers = 2 * 45"
    document.undo()
    assert document.set_import_value("model", "layers", "90").ok
    assert document.value("model.layers") == 90
    assert added_lines(before, document.text()) == [
        "-" + model, "+  model: {sheet: ../models/qwen3-235b-a22b.yaml, set: {layers: 90}}"]
    refused = document.set_import_value("model", "layers", "= 2 GB")      # checked like a cell's edit
    assert not refused.ok and "E-UNIT" in refused.rendered and document.value("model.layers") == 90
    result = document.set_import_value("model", "dtype_bytes", "1")       # a bare number keeps the unit
    assert result.ok and "kept" in result.note and document.set_entries("model")[-1] == ("dtype_bytes", "1 B")
    with pytest.raises(StructureError, match="not a cell"):
        document.set_import_value("model", "nonesuch", "1")
    assert document.remove_set_entry("model", "layers").ok
    assert document.remove_set_entry("model", "dtype_bytes").ok
    assert document.text() == before                                        # `{sheet: …}` is the path again
    assert len(document.history.undo_stack) == 4                           # one step each (the undone one gone)
    document.undo()
    assert document.set_entries("model") == [("dtype_bytes", "1 B")]


def test_the_first_set_entry_of_a_shared_import_splits_it(example: Path) -> None:
    """Format 10.3: `h100` imports the file `hgx` imports as `hgx.gpu`, both without set:,
    so they are one instance; a set: entry makes `h100` one of its own."""
    document = Document(example)
    assert document.add_import("h100", "../hardware/h100-sxm.yaml").ok
    assert document.shares("h100") == ["hgx.gpu"]
    assert document.set_import_value("h100", "hbm_capacity", "96 GB").ok
    assert document.value("h100.hbm_capacity") == pytest.approx(96e9)
    assert document.value("hgx.gpu.hbm_capacity") == pytest.approx(80e9)   # split off: hgx's stays
    assert document.shares("h100") == []
    assert document.remove_set_entry("h100", "hbm_capacity").ok
    assert document.shares("h100") == ["hgx.gpu"]


def _status(app) -> str:
    return str(app.query_one("#status", Static).render())


def _options(app) -> list[str]:
    rows = app.screen.query_one(OptionList)
    return [str(rows.get_option_at_index(i).prompt) for i in range(rows.option_count)]


async def test_ctrl_u_imports_ctrl_t_sets_and_del_removes_at_80x24(example: Path) -> None:
    """The keys as a user finds them: the footer names them on an import's row; a typed filter
    finds the sheet, a taken alias is asked again with the reason, the first set: entry of a
    shared import says it splits it; Del asks before removing. Saved, the file is as it was."""
    from textual.widgets import Input
    from supersheet.tui.screens import PromptScreen
    from supersheet.tui.widgets.footer import KeyFooter
    before = example.read_text(encoding="utf-8")
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+u")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, PickerScreen) and len(_options(app)) > 100
        await pilot.press(*"h100-sxm")
        assert _options(app)[0].startswith("../hardware/h100-sxm.yaml  NVIDIA H100")
        assert all("h100-sxm" in text for text in _options(app))
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen) and app.screen.query_one(Input).value == "h100_sxm"
        await pilot.press(*"cards", "enter")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen) and "has a cell 'cards'" in str(app.screen.message)
        await pilot.press(*"h100", "enter")
        await pilot.pause()
        # the file hgx imports as hgx.gpu, without set: one instance: its rows are hgx.gpu's
        assert "imported ../hardware/h100-sxm.yaml as h100" in _status(app)
        assert "one instance with hgx.gpu" in _status(app) and app.imports.import_row() is None
        await pilot.press("ctrl+t")                      # not on an import's row: which one?
        await pilot.pause()
        assert isinstance(app.screen, PickerScreen) and app.screen.title_text == "set: entries of which import?"
        assert [text.split()[0] for text in _options(app)] == ["hgx", "model", "h100"]
        await pilot.press(*"sxm", "enter")             # typed text filters: hgx-h100.yaml has h100 too
        await pilot.pause()
        assert isinstance(app.screen, PickerScreen) and "shares one instance with hgx.gpu" in app.screen.message
        await pilot.press(*"hbm_cap", "enter")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen) and "splits it off" in str(app.screen.message)
        await pilot.press(*"2 s", "enter")                           # not a capacity: asked again, saying why
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen) and "E-UNIT" in str(app.screen.message)
        await pilot.press(*"96 GB", "enter")
        await pilot.pause()
        assert "h100: set hbm_capacity = 96 GB" in _status(app) and "h100 now its own instance" in _status(app)
        assert app.document.value("h100.hbm_capacity") == pytest.approx(96e9)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert added_lines(before, example.read_text(encoding="utf-8")) == [
            "+  h100: {sheet: ../hardware/h100-sxm.yaml, set: {hbm_capacity: 96 GB}}"]
        app.imports.go_to_import("h100")                         # an instance of its own now: rows of its own
        await pilot.pause()
        assert app.imports.import_row() == "h100"
        wanted = {"Remove import", "Swap import", "set: entries", "Add import"}
        for _ in range(40):    # the footer recomposes when the bindings' refresh reaches it, a frame or more later
            footer = {key.description for key in app.query_one(KeyFooter).query("FooterKey")}
            if wanted <= footer:
                break
            await pilot.pause(0.05)
        assert wanted <= footer
        await pilot.press("delete")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen) and "Nothing in this sheet uses h100" in app.screen.message
        assert app.screen.focused.id == "answer-cancel"
        await pilot.press("down", "enter")
        await pilot.pause()
        assert "removed the import h100" in _status(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert example.read_text(encoding="utf-8") == before


async def test_del_on_an_imported_cell_removes_its_set_entry(example: Path) -> None:
    document = Document(example)
    assert document.set_import_value("model", "layers", "90").ok
    document.save()
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("model.layers")
        await pilot.press("delete")
        await pilot.pause()
        assert "removed the set: entry layers" in _status(app) and app.document.value("model.layers") == 94
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert app.document.value("model.layers") == 90


def test_a_set_entry_of_an_inherited_import_copies_it_into_the_variant(library: Path) -> None:
    """A variant (`extends`) gives its base's import a set: entry by writing the import into
    its own use: with it, as an edit of the imported cell does; the base is not written.
    Removing or swapping the base's import is refused: it is written there."""
    variant = library / "supernodes" / "6.1.2-running-example-32k.yaml"
    base = library / "supernodes" / "6.1.2-running-example.yaml"
    base_text, before = base.read_text(encoding="utf-8"), variant.read_text(encoding="utf-8")
    document = Document(variant)
    assert [alias for alias, *_ in document.own_imports()] == ["hgx", "model"]
    assert document.set_import_value("model", "layers", "90").ok and document.value("model.layers") == 90
    assert added_lines(before, document.text()) == [
        "+use:", "+  model: {sheet: ../models/qwen3-235b-a22b.yaml, set: {layers: 90}}"]
    with pytest.raises(StructureError, match="imported by the base sheet"):
        document.remove_import("hgx")
    document.save()
    assert base.read_text(encoding="utf-8") == base_text


async def test_ctrl_o_off_an_import_asks_which_one(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("context")
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert isinstance(app.screen, PickerScreen) and app.screen.title_text == "Swap which import?"
        await pilot.press(*"model", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, PickerScreen) and app.screen.title_text == "Import another sheet as model"
