"""Completion in the cell editor (issue 31): names with their values, an import's
cells after `alias.`, units after a number, functions with their signature; Tab
takes the first offer, and nothing is completed unasked."""
from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Static

from supersheet.editor.completion import complete, complete_new_cell
from supersheet.editor.document import Document
from supersheet.tui.app import SupersheetApp
from supersheet.tui.screens import PromptScreen

SIZE = (120, 36)


def offers(document: Document, text: str, key: str = "context") -> list[tuple[str, str]]:
    found = complete(document, key, text, len(text))
    return [] if found is None else [(o.text, o.detail) for o in found.offers]


def test_what_is_offered(example: Path) -> None:
    document = Document(example)
    assert ("kv_total", "1.577 GB") in offers(document, "= kv_t")
    assert [t for t, _ in offers(document, "= model.kv_")] == ["model.kv_heads", "model.kv_per_token",
                                                               "model.kv_proj_params"]
    assert ("model.", "import") in offers(document, "= mo")
    assert ("max(", "max(a, b, …) | max(array)") in offers(document, "= ma")
    assert ("GiB", "unit") in offers(document, "16 G") and ("GB/s", "unit") in offers(document, "= 2 * 3 G")
    assert offers(document, "8192 token") == [] and offers(document, "abc") == []   # a value's words: no names
    assert all(t != "context" for t, _ in offers(document, "= con"))               # not the cell itself
    found = complete(document, "context", "= kv_to * 2", 7)                       # mid-text: only the word
    assert found is not None and found.accept("= kv_to * 2", 7) == ("= kv_total * 2", 10)


async def test_tab_takes_the_first_offer_and_enter_never_completes(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("workspace")
        await pilot.press("enter", "ctrl+u", *"= kv_tot")
        await pilot.pause()
        assert "Tab: kv_total 1.577 GB" in str(app.query_one("#status", Static).render())
        await pilot.press("tab", *" + 2 ")
        assert app.query_one("#editor-input", Input).value == "= kv_total + 2 "
        await pilot.press(*"G")
        status = str(app.query_one("#status", Static).render())
        assert status.startswith("Tab: GB unit") and "GiB unit" in status
        await pilot.press("tab", "enter")
        await pilot.pause()
        assert app.document.raw_text("workspace") == "= kv_total + 2 GB"
        app.go_to("cards")
        await pilot.press("enter", "ctrl+u", *"= hgx.car", "enter")   # offered, not taken: an unknown name
        await pilot.pause()
        assert app.editor.editing and app.query_one("#editor-input", Input).value == "= hgx.car"
        assert app.document.raw_text("cards") == "= hgx.cards"


def test_a_new_cell_s_line_is_completed_after_its_colon(example: Path) -> None:
    """Ctrl+N's line `name: text`: the text is completed as a cell's; the name is new, nothing to offer."""
    document = Document(example)
    line = "per_card: = kv_to"
    found = complete_new_cell(document, line, len(line))
    assert found is not None and ("kv_total", "1.577 GB") in [(o.text, o.detail) for o in found.offers]
    assert found.accept(line, len(line)) == ("per_card: = kv_total", len("per_card: = kv_total"))
    assert complete_new_cell(document, "kv_to", 5) is None                 # the name being typed
    assert complete_new_cell(document, "per_card: = kv_to", 4) is None    # the cursor in the name
    found = complete_new_cell(document, "spare: 16 G", 11)                 # a value's unit
    assert found is not None and found.accept("spare: 16 G", 11)[0].startswith("spare: 16 G")
    assert ("GiB", "unit") in [(o.text, o.detail) for o in found.offers]


async def test_tab_completes_in_the_new_cell_dialog(example: Path) -> None:
    """Ctrl+N's dialog had no completion (Tab did nothing there): the offers are under its field
    as it changes, Tab takes the first, in a burst of keys too; Enter adds the cell as completed."""
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("workspace")
        await pilot.press("ctrl+n", *"per_card: = kv_to")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        shown = str(app.screen.query_one("#prompt-offers", Static).render())
        assert shown.startswith("Tab: kv_total 1.577 GB"), shown
        await pilot.press("tab", *" / car", "tab", *" -> GB")      # one burst: each Tab on the text before it
        field = app.screen.query_one(Input)
        assert field.value == "per_card: = kv_total / cards -> GB", field.value
        await pilot.press("enter")
        await pilot.pause()
        assert app.grid.current_key == "per_card" and app.document.raw_text("per_card") == "= kv_total / cards -> GB"
        assert app.document.value("per_card") == app.document.value("kv_total") / app.document.value("cards")
