"""Every key reaches the widget it was typed at, in order: bursts (a paste or
a fast typist: keys queued before the editor has opened), type-ahead after a
commit, with a slow recompute. Keys are queued the way the terminal driver
queues them, without waiting for the app between them (Pilot's `press` waits)."""
from __future__ import annotations

import time
from pathlib import Path

from textual import events
from textual.widgets import Input, Static

from supersheet.editor.document import Document
from supersheet.tui.app import SupersheetApp
from supersheet.tui.screens import ChoiceScreen

SIZE = (120, 36)
Q9 = Path("questions") / "q9-rank-completion-times.yaml"


def burst(app: SupersheetApp, *keys: str) -> None:
    """Queue keys at once, as the driver does for a burst of input."""
    for key in keys:
        if len(key) == 1:
            name = {" ": "space", "/": "slash", "?": "question_mark", "*": "asterisk", "=": "equals_sign",
                    "-": "minus", ".": "full_stop", ">": "greater_than_sign"}.get(key, key)
            event = events.Key(name, key)
        else:
            event = events.Key(key, None)
        app._driver.send_message(event)


async def settle(pilot, done, timeout: float = 20.0) -> None:
    """Wait until `done()` holds (the queued keys are worked through). Pilot's
    pause waits for the process to look idle, which a loaded machine can fool."""
    deadline = time.monotonic() + timeout
    await pilot.pause()
    while not done() and time.monotonic() < deadline:
        await pilot.pause(0.05)
    await pilot.pause()


def value(app: SupersheetApp, key: str) -> str:
    return app.grid.texts(key)[1].plain.strip()


def field(app: SupersheetApp) -> Input:
    return app.query_one("#editor-input", Input)


async def test_a_burst_opens_the_editor_with_every_character(library: Path) -> None:
    app = SupersheetApp(library / "supernodes" / "6.4.3-algbw-busbw.yaml", watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("ranks")
        burst(app, "1", "6")
        await settle(pilot, lambda: field(app).value == "16")
        assert app.editor.editing and field(app).value == "16"
        burst(app, "enter")
        await settle(pilot, lambda: not app.editor.editing)
        assert app.document.raw_text("ranks") == "16" and value(app, "bus_factor") == "1.875"


async def test_a_space_in_a_burst_is_part_of_the_value(library: Path) -> None:
    app = SupersheetApp(library / "supernodes" / "6.4.2-ring-vs-tree.yaml", watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("alpha")
        rows = len(app.grid.rows)
        burst(app, *"2 us", "enter")
        await settle(pilot, lambda: app.document.dirty and not app.editor.editing)
        assert app.document.raw_text("alpha") == "2 us" and value(app, "alpha") == "2 μs"
        assert len(app.grid.rows) == rows   # nothing folded


async def test_text_typed_on_a_group_row_is_refused_and_never_folds(example: Path) -> None:
    """In tmux, Home (the first row: a group's title) then `8193 token` Enter: the digits
    went nowhere, the space folded the group and Enter unfolded it. A group's row has no
    value: the text, its space and the Enter that ends it are refused, with a word in the
    status line; no cell is edited, nothing folds; the keys after it do their own work."""
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.grid._set_cursor(0)
        assert app.grid.current_key is None and app.grid.current_row_key.startswith("§")
        rows = len(app.grid.rows)
        burst(app, *"8193 token", "enter")
        await settle(pilot, lambda: "not typed" in str(app.query_one("#status", Static).render()))
        assert "'8193 token'" in str(app.query_one("#status", Static).render())
        assert len(app.grid.rows) == rows and not app.editor.editing and not app.document.dirty
        burst(app, "down", *"16384 token", "enter")    # the next key after it: the grid's again
        await settle(pilot, lambda: app.document.dirty and not app.editor.editing)
        assert app.grid.rows[1].key == "context" and app.document.raw_text("context") == "16384 token"
        burst(app, "up", "space")                  # a space alone on a group's row still folds it
        await settle(pilot, lambda: len(app.grid.rows) < rows)
        app._driver.send_message(events.Paste("16"))    # a paste on a group's row: refused too
        await settle(pilot, lambda: "'16'" in str(app.query_one("#status", Static).render()))
        assert not app.editor.editing


async def test_type_ahead_after_a_commit_goes_to_the_cell_it_was_typed_at(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("context")
        order = [row.key for row in app.grid.rows]
        target = order[order.index("context") + 2]
        burst(app, *"16384 token", "enter", "down", "down", *"3 GiB", "enter")
        await settle(pilot, lambda: len(app.document.history.undo_stack) == 2 and not app.editor.editing)
        assert app.document.raw_text("context") == "16384 token"
        assert app.document.raw_text(target) == "3 GiB"
        assert not app.editor.editing and app.grid.current_key == target


async def test_type_ahead_with_a_slow_recompute(example: Path, monkeypatch) -> None:
    apply = Document.apply

    def slow(self, key, text):
        time.sleep(0.3)
        return apply(self, key, text)
    monkeypatch.setattr(Document, "apply", slow)
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("workspace")
        burst(app, *"3 GiB", "enter", "up", "up", *"= 4 * 1 token", "enter")
        await settle(pilot, lambda: len(app.document.history.undo_stack) == 2 and not app.editor.editing)
        assert app.document.raw_text("workspace") == "3 GiB"
        assert app.document.raw_text("context") == "= 4 * 1 token" and value(app, "context") == "4 token"


async def test_a_paste_into_the_grid_opens_the_editor_with_it(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("workspace")
        app._driver.send_message(events.Paste("3 GiB"))
        burst(app, "enter")
        await settle(pilot, lambda: app.document.dirty)
        assert app.document.raw_text("workspace") == "3 GiB"


async def test_a_burst_through_the_filter_edits_the_cell_it_found(library: Path) -> None:
    app = SupersheetApp(library / "supernodes" / "6.4.2-ring-vs-tree.yaml", watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        burst(app, "/", *"alpha", "enter", *"2 us", "enter")
        await settle(pilot, lambda: app.document.dirty and not app.editor.editing)
        assert app.grid.current_key == "alpha" and app.document.raw_text("alpha") == "2 us"
        assert app.query_one("#filter", Input).value == "alpha"


async def test_ctrl_z_in_the_editor_undoes_typing_not_the_last_edit(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("workspace")
        burst(app, *"3 GiB", "enter")
        await settle(pilot, lambda: app.document.dirty and not app.editor.editing)
        burst(app, *"4 GiB", "backspace", "ctrl+z", "ctrl+z")
        await settle(pilot, lambda: field(app).value == "4 Gi")
        assert app.editor.editing and field(app).value == "4 Gi"
        burst(app, "ctrl+z", "ctrl+z", "ctrl+z")
        await settle(pilot, lambda: field(app).value == "4")
        assert field(app).value == "4" and app.document.raw_text("workspace") == "3 GiB"
        burst(app, "escape", "ctrl+z")
        await settle(pilot, lambda: not app.document.dirty)
        assert not app.editor.editing and app.document.raw_text("workspace") == "2 GiB"


async def test_a_bare_number_keeps_the_cells_unit(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("context")
        burst(app, *"16384", "enter", "down", "down", *"3", "enter")
        await settle(pilot, lambda: len(app.document.history.undo_stack) == 2 and not app.editor.editing)
        assert app.document.raw_text("context") == "16384 token" and value(app, "context") == "16384 token"
        assert app.document.raw_text("workspace") == "3 GiB" and value(app, "max_sessions") == "22"
        status = str(app.query_one("#status").render())
        assert "3 has no unit: kept workspace's unit, 3 GiB" in status


async def test_the_filter_selects_its_first_match_when_the_selected_cell_is_filtered_out(library: Path) -> None:
    """The tmux run of issue 16: on `startup_latency` (4th row), `/skew` Enter left the
    cursor on the 4th row's index clamped to the list — `skew_after`, the last match —
    so Del asked to delete skew_after. The first match is selected instead; a cell whose
    name still matches keeps the cursor, unless another cell has exactly the name typed
    (issue 31)."""
    app = SupersheetApp(library / Q9, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("alpha")
        burst(app, "/", *"skew", "enter", "delete")
        await settle(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        assert app.grid.current_key == "skew" and app.screen.title_text == "Delete skew?"
        burst(app, "escape", "escape")
        await settle(pilot, lambda: not isinstance(app.screen, ChoiceScreen) and not app.grid.filter_text)
        app.go_to("skew_after")
        burst(app, "/", *"skew_", "enter")
        await settle(pilot, lambda: app.focused is app.grid and app.grid.filter_text == "skew_")
        assert app.grid.current_key == "skew_after"
        burst(app, "/", "end", "backspace", "enter")   # (/ selects the filter's text: End keeps it)
        await settle(pilot, lambda: app.focused is app.grid and app.grid.filter_text == "skew")
        assert app.grid.current_key == "skew"
