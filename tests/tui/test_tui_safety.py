"""Safe by default: the external-change dialog, an undoable reload, keeping
one's edits on top of the file on disk, pending editor text on save and quit,
a deleted file."""
from __future__ import annotations

from pathlib import Path

from test_tui_input import burst, settle, value
from textual.widgets import Input

from supersheet.tui.app import SupersheetApp
from supersheet.tui.screens import ChoiceScreen

SIZE = (120, 36)


async def test_keep_my_edits_on_top_of_the_file_on_disk(example: Path, line_diff) -> None:
    before = example.read_text(encoding="utf-8")
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("context")
        burst(app, *"32768 token", "enter")
        await settle(pilot, lambda: app.document.dirty and not app.editor.editing)
        theirs = before.replace("value: 2 GiB", "value: 4 GiB")
        example.write_text(theirs, encoding="utf-8")
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, ChoiceScreen) and app.screen.focused.id == "answer-cancel"
        await pilot.click("#answer-merge")
        await pilot.pause()
        assert value(app, "context") == "32768 token" and value(app, "workspace") == "4 GiB"
        assert app.document.dirty
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not isinstance(app.screen, ChoiceScreen) and not app.document.dirty
    assert line_diff(before, example.read_text(encoding="utf-8")) == [
        ("    value: 8192 token", "    value: 32768 token"), ("    value: 2 GiB", "    value: 4 GiB")]


async def test_a_conflicting_merge_changes_nothing(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("context")
        burst(app, *"32768 token", "enter")
        await settle(pilot, lambda: app.document.dirty and not app.editor.editing)
        theirs = example.read_text(encoding="utf-8").replace("value: 8192 token", "value: 4096 token")
        example.write_text(theirs, encoding="utf-8")
        await pilot.press("ctrl+s")
        await pilot.click("#answer-merge")
        await pilot.pause()
        assert value(app, "context") == "32768 token" and app.document.dirty
    assert example.read_text(encoding="utf-8") == theirs


async def test_undo_after_a_reload_never_reverts_the_file_on_disk(example: Path) -> None:
    """Issue 28, item 5: Ctrl+Z after Reload restored the whole old buffer,
    reverting another program's change on lines the user never touched. Now
    it puts the unsaved edits back on top of the file on disk; after keeping
    them on top, it takes them off; after a reload with nothing unsaved there
    is nothing to undo."""
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("context")
        burst(app, *"32768 token", "enter")
        await settle(pilot, lambda: app.document.dirty and not app.editor.editing)
        example.write_text(example.read_text(encoding="utf-8").replace("value: 2 GiB", "value: 4 GiB"),
                           encoding="utf-8")
        await pilot.press("ctrl+s")
        await pilot.click("#answer-reload")
        await pilot.pause()
        assert value(app, "context") == "8192 token" and value(app, "workspace") == "4 GiB"
        assert not app.document.dirty
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert value(app, "context") == "32768 token" and value(app, "workspace") == "4 GiB"
        assert app.document.dirty
        await pilot.press("ctrl+z")     # the reload is where the history starts
        await pilot.pause()
        assert value(app, "workspace") == "4 GiB" and "nothing to undo" in str(app.query_one("#status").render())
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert value(app, "context") == "8192 token" and not app.document.dirty
        # kept on top of a newer change on disk: Ctrl+Z takes them off, the disk's change stays
        await pilot.press("ctrl+z")
        await pilot.pause()
        example.write_text(example.read_text(encoding="utf-8").replace("value: 4 GiB", "value: 6 GiB"),
                           encoding="utf-8")
        await pilot.press("ctrl+s")
        await pilot.click("#answer-merge")
        await pilot.pause()
        assert value(app, "context") == "32768 token" and value(app, "workspace") == "6 GiB"
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert value(app, "context") == "8192 token" and value(app, "workspace") == "6 GiB"
        assert not app.document.dirty
        # nothing unsaved: the watch reloads, and Ctrl+Z has nothing to take back
        example.write_text(example.read_text(encoding="utf-8").replace("value: 6 GiB", "value: 1 GiB"),
                           encoding="utf-8")
        app.files.check_disk()
        await pilot.pause()
        assert value(app, "workspace") == "1 GiB"
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert value(app, "workspace") == "1 GiB" and not app.document.dirty
    assert "value: 1 GiB" in example.read_text(encoding="utf-8")


async def test_ctrl_s_commits_the_text_in_the_editor(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("workspace")
        burst(app, *"3 GiB", "ctrl+s")
        await settle(pilot, lambda: app.document.can_undo and not app.document.dirty)
        assert not app.editor.editing and not app.document.dirty
    assert "value: 3 GiB" in example.read_text(encoding="utf-8")


async def test_ctrl_s_and_ctrl_q_never_drop_an_edit_that_does_not_check(example: Path) -> None:
    before = example.read_text(encoding="utf-8")
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("workspace")
        burst(app, *"3 ms", "ctrl+s")
        await settle(pilot, lambda: "does not check" in str(app.query_one("#status").render()))
        assert app.editor.editing and app.query_one("#editor-input", Input).value == "3 ms"
        burst(app, "ctrl+q")
        await settle(pilot, lambda: "not quitting" in str(app.query_one("#status").render()))
        assert app.is_running and app.editor.editing and app.query_one("#editor-input", Input).value == "3 ms"
        assert "does not check" in str(app.query_one("#status").render())
    assert example.read_text(encoding="utf-8") == before


async def test_ctrl_q_commits_then_asks_about_saving(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("workspace")
        burst(app, *"3 GiB", "ctrl+q")
        await settle(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        assert isinstance(app.screen, ChoiceScreen) and app.document.raw_text("workspace") == "3 GiB"
        await pilot.click("#answer-save")
        await pilot.pause()
    assert "value: 3 GiB" in example.read_text(encoding="utf-8")


async def test_a_deleted_file_is_noticed_and_saved_again_with_its_mode(example: Path) -> None:
    example.chmod(0o644)
    text = example.read_text(encoding="utf-8")
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("workspace")
        burst(app, *"3 GiB", "enter")
        await settle(pilot, lambda: app.document.dirty and not app.editor.editing)
        example.unlink()
        app.files.check_disk()
        await pilot.pause()
        assert any("was deleted" in str(n.message) for n in app._notifications)
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.click("#answer-recreate")
        await pilot.pause()
        assert not app.document.dirty
    assert example.read_text(encoding="utf-8") == text.replace("value: 2 GiB", "value: 3 GiB")
