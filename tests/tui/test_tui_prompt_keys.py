"""Keys typed at a dialog land in it, in order, however fast they come: the
keys that open a prompt and the text after it arrive in one burst (queued
before the dialog exists), also when the dialog is slow to open; none of them
reaches the grid behind it, and the keys after Enter go back to the grid."""
from __future__ import annotations

import time
from pathlib import Path

from test_tui_input import SIZE, burst, settle

from supersheet.tui import screens
from supersheet.tui.app import SupersheetApp


def sheet(library: Path) -> Path:
    return library / "supernodes" / "6.4.3-algbw-busbw.yaml"


def rows(app: SupersheetApp) -> list[str | None]:
    return [row.key for row in app.grid.rows]


async def test_a_rename_typed_in_one_burst(library: Path) -> None:
    app = SupersheetApp(sheet(library), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("time")
        order = rows(app)
        burst(app, "ctrl+r", *"t_a?/ b", "backspace", "backspace", "enter")     # "t_a?/ " - " " = "t_a?/"
        await settle(pilot, lambda: app.screen is app.screen_stack[0])
        assert "time" in app.document.workbook.model.cells and not app.document.dirty    # refused: not a name
        burst(app, "ctrl+r", *"time_x2", "enter", "down", "down")    # the old name is selected: typing replaces it
        await settle(pilot, lambda: "time_x2" in app.document.workbook.model.cells and app.grid.current_key
                     != "time_x2")
        assert app.grid.current_key == order[order.index("time") + 2]    # the keys after Enter: the grid's
        assert not app.editor.editing
        app.go_to("time_x2")
        burst(app, "ctrl+r", "end", *"_y", "enter")      # an arrow key first: the text is kept, typing appends
        await settle(pilot, lambda: "time_x2_y" in app.document.workbook.model.cells)


async def test_a_rename_typed_once_the_prompt_is_shown_replaces_the_old_name(library: Path) -> None:
    app = SupersheetApp(sheet(library), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("time")
        await pilot.press("ctrl+r")
        await settle(pilot, lambda: isinstance(app.screen, screens.PromptScreen) and app.screen.fields())
        field = app.screen.fields()[0]
        assert field.value == "time" and field.selection == (0, 4)
        burst(app, *"duration", "enter")
        await settle(pilot, lambda: "duration" in app.document.workbook.model.cells)
        assert "time" not in app.document.workbook.model.cells


async def test_a_new_cell_typed_in_one_burst_and_the_keys_after_it(library: Path) -> None:
    app = SupersheetApp(sheet(library), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("time")
        before = len(rows(app))
        burst(app, "ctrl+n", *"x2: = time * 2 -> ms", "enter", "up")
        await settle(pilot, lambda: app.document.dirty and app.grid.current_key == "time")
        assert app.document.raw_text("x2") == "= time * 2 -> ms" and len(rows(app)) == before + 1
        assert app.grid.current_key == "time" and not app.editor.editing


async def test_properties_typed_in_one_burst(library: Path) -> None:
    app = SupersheetApp(sheet(library), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("algbw")
        burst(app, "ctrl+e", "down", *"3", "down", *"Bytes / time", "enter")
        await settle(pilot, lambda: app.document.dirty)
        assert app.document.properties("algbw")["digits"] == "3"
        assert app.document.cell("algbw").spec.doc == "Bytes / time"
        assert len(app.document.history.undo_stack) == 1


async def test_the_delete_question_takes_its_keys(library: Path) -> None:
    app = SupersheetApp(sheet(library), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("ranks")
        burst(app, "delete", "enter", *"7")     # Cancel has the focus; the 7 then edits ranks
        await settle(pilot, lambda: app.editor.editing)
        assert "ranks" in app.document.workbook.model.cells and app.query_one("#editor-input").value == "7"
        burst(app, "escape")
        await settle(pilot, lambda: not app.editor.editing)
        app.go_to("busbw")
        assert "busbw" in app.document.workbook.model.cells and app.grid.current_key == "busbw"
        burst(app, "delete", "down", "enter")
        await settle(pilot, lambda: "busbw" not in app.document.workbook.model.cells)
        assert app.document.dirty and "busbw" not in app.document.workbook.model.cells


async def test_a_slow_dialog_still_gets_every_key(library: Path, monkeypatch) -> None:
    compose = screens.PromptScreen.compose

    def slow(self):
        time.sleep(0.3)          # a loaded machine: the dialog is built after the keys arrived
        yield from compose(self)
    monkeypatch.setattr(screens.PromptScreen, "compose", slow)
    app = SupersheetApp(sheet(library), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("time")
        # `time_copy` is selected: the name typed replaces it (issue 31)
        burst(app, "ctrl+d", *"time_2", "enter", *"5")
        await settle(pilot, lambda: app.editor.editing)
        assert app.document.raw_text("time_2") == app.document.raw_text("time")
        assert app.grid.current_key == "time_2" and app.query_one("#editor-input").value == "5"


async def test_editing_keys_in_a_burst_keep_their_order(library: Path) -> None:
    app = SupersheetApp(sheet(library), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("time")
        # time_copy, Home: a_time_copy, End and 5 Backspaces: a_time, ← and Delete: a_tim, then 2b
        burst(app, "ctrl+d", "home", *"a_", "end", *["backspace"] * 5, "left", "delete", *"2b", "enter")
        await settle(pilot, lambda: "a_tim2b" in app.document.workbook.model.cells)
        assert "a_tim2b" in app.document.workbook.model.cells


def test_keys_before_the_field_exists_edit_the_text_it_starts_with() -> None:
    """On a loaded machine the app may take keys before the dialog's own task has
    built its field: they edit the text the field is then built with, cursor and all."""
    from textual import events
    dialog = screens.PromptScreen("Duplicate a cell", "The name of the copy of time:", "time_copy")
    for key in ("home", *"a_", "end", *["backspace"] * 5, "left", "delete", *"2b"):
        character = key if len(key) == 1 else None
        assert dialog.take_key(events.Key(key, character))
    assert dialog.texts == ["a_tim2b"] and dialog.cursors == [7]
    dialog.take_paste("x\ny")
    assert dialog.answer(dialog.texts) == "a_tim2bx"
