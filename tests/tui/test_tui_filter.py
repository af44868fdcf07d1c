"""The filter with structural edits and jumps (issue 31): the rows stay filtered,
the cell the edit made or went to shows among them, on screen, and selected;
Enter after `/name` is the cell of that name, not the first row that mentions it."""
from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from supersheet.tui.app import SupersheetApp
from supersheet.tui.screens import PromptScreen

SIZE = (120, 36)
HEADER = "§"


def cells(app: SupersheetApp) -> list[str]:
    return [row.key for row in app.grid.rows if not row.key.startswith(HEADER)]


def shown_and_selected(app: SupersheetApp, key: str) -> None:
    grid = app.grid
    assert grid.current_key == key
    assert grid.on_screen(grid.cursor), (grid.cursor, grid.scroll_offset)


async def filter_for(pilot, text: str) -> None:
    await pilot.press("slash", *text, "enter")
    await pilot.pause()


async def answer(pilot, text: str | None) -> None:
    """Type into the open prompt (replacing what it holds) and press Enter."""
    assert isinstance(pilot.app.screen, PromptScreen)
    if text is not None:
        pilot.app.screen.query_one(Input).value = text
    await pilot.press("enter")
    await pilot.pause()


async def test_rename_add_and_duplicate_keep_the_filter(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        everything = len(app.grid.rows)
        await filter_for(pilot, "total")
        filtered = cells(app)
        assert "weights_total" in filtered and "context" not in filtered
        app.go_to("weights_total")
        await pilot.press("ctrl+r")
        await answer(pilot, "w_all")          # matches "total" by neither name, formula nor value
        shown_and_selected(app, "w_all")
        assert app.filter_field.value == "total" and app.grid.filter_text == "total"
        assert "context" not in cells(app) and all(k == "w_all" or app.grid.matches(k, "total") for k in cells(app))
        await pilot.press("ctrl+n")
        await answer(pilot, "spare: 5 GB")
        shown_and_selected(app, "spare")
        assert len(app.grid.rows) < everything and "context" not in cells(app)
        await pilot.press("ctrl+d")
        await pilot.press(*"spare2", "enter")   # the prompt's `spare_copy` is selected: typing replaces it
        await pilot.pause()
        shown_and_selected(app, "spare2")
        assert app.document.raw_text("spare2") == "5 GB" and not app.document.has_cell("spare_copyspare2")
        assert "context" not in cells(app) and app.filter_field.value == "total"
        await pilot.press("slash", "escape", "slash", *"kv")   # a new filter: only its matches
        await pilot.pause()
        assert app.grid.filter_text == "kv" and "kv_total" in cells(app)
        assert not {"w_all", "spare", "spare2"} & set(cells(app))


async def test_a_jump_keeps_the_filter_and_shows_the_cell_on_screen(example: Path) -> None:
    """Many matches (the last one far down), then a jump to a cell that does not match."""
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await filter_for(pilot, "_")
        assert len(cells(app)) > 30
        app.go_to(cells(app)[-1])
        shown_and_selected(app, cells(app)[-1])
        app.go_to("context")                      # no `_` in its name, formula or value
        shown_and_selected(app, "context")
        assert app.grid.filter_text == "_" == app.filter_field.value


async def test_enter_after_a_name_is_that_cell(example: Path) -> None:
    """`/kv_total` Enter is kv_total, wherever the cursor was while the name was typed
    (`kv_split` matched `kv`). A part of a name: the first cell whose name has it, before
    the formulas that only mention it (kv_total's `model.kv_per_token * context`)."""
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("context")
        await filter_for(pilot, "kv_total")
        assert app.focused is app.grid and app.grid.current_key == "kv_total"
        await pilot.press("escape")
        app.go_to("context")
        await filter_for(pilot, "kv_per")
        first = cells(app)[0]
        assert "kv_per" not in first                  # the first row only mentions it (a formula)
        assert app.grid.current_key == "kv_per_card"
        await pilot.press(*"2", "enter")
        await pilot.pause()
        assert app.document.raw_text("kv_per_card") == "2 GB"
        assert "kv_per" in app.document.raw_text(first)   # the formula that mentions it is intact


async def test_a_stale_change_of_the_filter_field_is_not_applied(example: Path) -> None:
    """The field's Changed messages arrive after the keys queued with them: one about an
    older text (`k` of `kv_total` typed in a burst) must not filter again (it moved the
    cursor under the keys typed next); a change by other means (the mouse, a paste
    into the field) is applied."""
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await filter_for(pilot, "kv_total")
        field = app.filter_field
        field.post_message(Input.Changed(field, "k"))
        await pilot.pause()
        assert app.grid.filter_text == "kv_total" and app.grid.current_key == "kv_total"
        field.value = "context"                  # not through a routed key: Changed carries it
        await pilot.pause()
        assert app.grid.filter_text == "context" and app.grid.current_key == "context"


async def test_the_formula_bar_follows_a_filter_that_puts_another_cell_under_the_cursor(tmp_path: Path) -> None:
    """`/c` Enter with the cursor on `a`, the first cell: `c` is then the first cell too, at the
    same index. The cursor had not moved, so the formula bar (and the inspector) went on
    showing `a` while `c` was selected: typing edited `c` under a bar saying `a`."""
    path = tmp_path / "s.yaml"
    path.write_text("cells:\n  # one group\n  a: 1 GB\n  b: 2 GB\n  c: = a + b\n", encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("a")
        await pilot.pause()
        index = app.grid.cursor
        await pilot.press("f2")
        await filter_for(pilot, "c")
        assert app.grid.current_key == "c" and app.grid.cursor == index       # the same index, another cell
        bar = app.query_one("#editor-input", Input)
        assert bar.value == "= a + b", bar.value
        assert str(app.query_one("#editor-label").render()).strip() == "c"
        assert app.inspector.key == "c"
        await pilot.press("escape")                      # the filter cleared: the cursor stays on c
        await pilot.pause()
        assert app.grid.current_key == "c" and bar.value == "= a + b"
