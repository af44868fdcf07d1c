"""Completion in the cell editor (issue 31): names with their values, an import's
cells after `alias.`, units after a number, functions with their signature; Tab
takes the first offer, and nothing is completed unasked."""
from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Static

from supersheet.editor.completion import complete
from supersheet.editor.document import Document
from supersheet.tui.app import SupersheetApp

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
