"""The editor driven with Pilot: keys in, recomputed values and files out."""
from __future__ import annotations

from pathlib import Path

from textual.widgets import Button, DataTable, Input, OptionList, Static
from textual.worker import WorkerCancelled

from supersheet.tui.app import SupersheetApp
from supersheet.tui.commands import SheetCommands
from supersheet.tui.screens import ChoiceScreen, HelpScreen

SIZE = (120, 36)


def value(app: SupersheetApp, key: str) -> str:
    return app.grid.texts(key)[1].plain.strip()


def change(app: SupersheetApp, key: str) -> str:
    return app.grid.texts(key)[2].plain


async def edit(pilot, key: str, text: str) -> None:
    """Select a cell, open the editor (Enter), replace its text, commit (Enter).
    The text is put in the field directly: typing is tested once, on its own."""
    pilot.app.go_to(key)
    await pilot.press("enter")
    field = pilot.app.query_one("#editor-input", Input)
    assert pilot.app.focused is field
    field.value = text
    await pilot.press("enter")
    await pilot.pause()


async def settled(pilot) -> None:
    """Wait for the work done off the UI thread (sweeps, samples, checks) and its showing.
    A run cancelled while it was waited for (a newer run of its group started: tui/background.py)
    is not waited for again; the newer one is."""
    while True:
        try:
            await pilot.app.workers.wait_for_complete()
            break
        except WorkerCancelled:
            continue
    await pilot.pause()


async def test_editing_an_input_recomputes_its_dependents(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        assert value(app, "kv_total") == "1.577 GB" and value(app, "max_sessions") == "47"
        await edit(pilot, "context", "32768 token")
        assert value(app, "context") == "32768 token"
        assert value(app, "kv_total") == "6.308 GB" and change(app, "kv_total") == "↑ 300% was 1.577 GB"
        assert value(app, "kv_per_card") == "1.577 GB"
        assert value(app, "total_per_card") == "62.68 GB"
        assert value(app, "max_sessions") == "11" and change(app, "max_sessions") == "↓ 76.6% was 47"
        assert value(app, "weights_total") == "470.2 GB" and change(app, "weights_total") == ""
        assert "15 values changed" in str(app.query_one("#status", Static).render())
        assert app.focused is app.grid and "unsaved" in app.sub_title
        # the highlights last until the next edit
        await edit(pilot, "workspace", "3 GiB")
        assert change(app, "kv_total") == "" and change(app, "total_per_card").startswith("↑")


async def test_typing_on_a_cell_starts_editing_it(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("context")
        await pilot.press(*"16384 token")
        assert app.editor.editing and app.query_one("#editor-input", Input).value == "16384 token"
        await pilot.press("enter")
        await pilot.pause()
        assert value(app, "context") == "16384 token" and value(app, "max_sessions") == "23"


async def test_a_bad_formula_shows_its_diagnostic_and_keeps_the_values(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    text = example.read_text(encoding="utf-8")
    async with app.run_test(size=SIZE) as pilot:
        await edit(pilot, "kv_total", "= model.kv_per_token * context + 1 ms -> GB")
        assert app.editor.editing
        problem = str(app.query_one("#editor-problem", Static).render())
        assert "E-UNIT: cannot add B (information) and ms (time)" in problem
        assert "kv_total: = model.kv_per_token * context + 1 ms -> GB" in problem and "^^^^" in problem
        assert value(app, "kv_total") == "1.577 GB" and value(app, "max_sessions") == "47"
        assert not app.document.dirty
        await pilot.press("escape")
        assert not app.editor.editing and app.focused is app.grid
        assert app.query_one("#editor-input", Input).value == "= model.kv_per_token * context -> GB"
    assert example.read_text(encoding="utf-8") == text


async def test_undo_and_redo_every_edit(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await edit(pilot, "context", "32768 token")
        await edit(pilot, "kv_split", "= 2")
        assert value(app, "kv_per_card") == "3.154 GB"
        await pilot.press("ctrl+z")
        assert value(app, "kv_split") == "4" and value(app, "kv_per_card") == "1.577 GB"
        # a formula's own `=` is the status line's sign (it read `kv_split = = min(…)`)
        assert status(app).startswith("undo kv_split = min(cards, model.kv_heads): "), status(app)
        await pilot.press("ctrl+z")
        assert value(app, "context") == "8192 token" and value(app, "max_sessions") == "47"
        assert status(app).startswith("undo context = 8192 token: "), status(app)
        assert not app.document.dirty and "unsaved" not in app.sub_title
        await pilot.press("ctrl+y", "ctrl+y")
        assert value(app, "kv_split") == "2" and value(app, "context") == "32768 token"
        assert status(app).startswith("redo kv_split = 2: "), status(app)


def status(app: SupersheetApp) -> str:
    return str(app.query_one("#status", Static).render())


async def test_save_changes_exactly_one_line(example: Path, line_diff) -> None:
    before = example.read_text(encoding="utf-8")
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await edit(pilot, "context", "32768 token")
        await pilot.press("ctrl+s")
        assert not app.document.dirty and "unsaved" not in app.sub_title
    assert line_diff(before, example.read_text(encoding="utf-8")) == [
        ("    value: 8192 token", "    value: 32768 token")]


async def test_an_unchanged_sheet_is_saved_byte_for_byte(example: Path) -> None:
    before = example.read_bytes()
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await edit(pilot, "hgx.cards", "4")   # an override in `use:`, then undone
        await pilot.press("ctrl+z", "ctrl+s")
    assert example.read_bytes() == before


async def test_a_file_changed_on_disk_is_not_clobbered(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await edit(pilot, "context", "32768 token")
        theirs = example.read_text(encoding="utf-8").replace("workspace:", "workspace:  # theirs", 1)
        example.write_text(theirs, encoding="utf-8")
        app.files.check_disk()   # unsaved edits: warn, do not reload
        assert app.document.dirty and value(app, "context") == "32768 token"
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, ChoiceScreen)
        assert [str(b.label) for b in app.screen.query(Button)] == [
            "Cancel", "Keep my edits on top of the file on disk", "Reload", "Overwrite"]
        assert app.screen.focused.id == "answer-cancel"
        await pilot.press("escape")
        assert example.read_text(encoding="utf-8") == theirs
        await pilot.press("ctrl+s")
        await pilot.click("#answer-overwrite")
        await pilot.pause()
        assert not isinstance(app.screen, ChoiceScreen) and not app.document.dirty
    assert "32768 token" in example.read_text(encoding="utf-8")


async def test_reload_when_the_file_changed_and_nothing_is_unsaved(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        example.write_text(example.read_text(encoding="utf-8").replace("8192 token", "4096 token"),
                           encoding="utf-8")
        app.files.check_disk()
        await pilot.pause()
        assert value(app, "context") == "4096 token" and value(app, "max_sessions") == "95"


async def test_reload_is_offered_when_saving_over_a_changed_file(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await edit(pilot, "context", "32768 token")
        example.write_text(example.read_text(encoding="utf-8").replace("8192 token", "4096 token"),
                           encoding="utf-8")
        await pilot.press("ctrl+s")
        await pilot.click("#answer-reload")
        await pilot.pause()
        assert value(app, "context") == "4096 token" and not app.document.dirty


async def test_quitting_with_unsaved_edits_asks(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await edit(pilot, "context", "32768 token")
        await pilot.press("ctrl+q")
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, ChoiceScreen) and app.is_running
        await pilot.press("ctrl+q")
        await pilot.click("#answer-discard")
        await pilot.pause()
    assert app.return_value == 0
    assert "8192 token" in example.read_text(encoding="utf-8")


async def test_filter_by_name(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", *"kv_per")
        keys = [row.key for row in app.grid.rows if not row.key.startswith("§")]
        named = [k for k in keys if "kv_per" in k]
        assert named == ["kv_per_card", "kv_per_card_bytes", "model.kv_per_token"]
        assert all("kv_per" in app.document.raw_text(k) for k in keys if k not in named)   # found by formula
        await pilot.press("enter")
        # the first cell whose name has the text, before a formula that only mentions it
        assert keys[0] not in named
        assert app.focused is app.grid and app.grid.current_key == named[0]
        await pilot.press("escape")
        assert len(app.grid.rows) > 40


async def test_imports_are_folded_under_their_alias(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        assert "hgx.cards" not in app.grid._index and "§import-hgx" in app.grid._index
        app.grid._set_cursor(app.grid._index["§import-hgx"])
        await pilot.press("enter")
        assert "hgx.cards" in app.grid._index
        await pilot.press("enter")
        assert "hgx.cards" not in app.grid._index
        app.go_to("model.layers")
        assert app.grid.current_key == "model.layers"


async def test_inspector_shows_precedents_and_dependents_and_jumps(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("kv_total")
        await pilot.press("f2")
        body = str(app.query_one("#inspector-body", Static).render())
        assert "kv_total" in body and "= model.kv_per_token * context -> GB" in body and "GB (information)" in body
        links = app.query_one("#inspector-links", OptionList)
        ids = [links.get_option_at_index(i).id for i in range(links.option_count)]
        assert ids == [None, "model.kv_per_token", "context", None, "total_single", "kv_per_card",
                       "kv_total_bytes", "step_read"]
        links.focus()
        links.highlighted = ids.index("kv_per_card")
        await pilot.press("enter")
        assert app.grid.current_key == "kv_per_card" and app.focused is app.grid
        assert "kv_per_card" in str(app.query_one("#inspector-body", Static).render())


async def test_diagnostics_panel_jumps_to_the_cell(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("cells:\n  a: 2 GB\n  b: = a + 1 ms\n  c: = b * 2\n", encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        panel = app.diagnostics_panel
        assert panel.display and panel.option_count == 1
        assert app.grid.texts("b")[0].plain.startswith("! ") and value(app, "c") == "—"
        panel.focus()
        panel.highlighted = 0
        await pilot.press("enter")
        assert app.grid.current_key == "b"
        await edit(pilot, "b", "= a + 1 GB")
        assert value(app, "c") == "6 GB" and "no problems" in str(panel.get_option_at_index(0).prompt)


async def test_the_command_palette_lists_every_action(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        titles = [title for title, _, _ in SheetCommands(app.screen)._commands()]
        for title in ("Save", "Undo", "Redo", "Toggle inspector", "Toggle sweep view", "Toggle diagnostics",
                      "Toggle diff view", "Diff against the saved file", "Diff against git HEAD", "Help", "Quit", "Run sweep: per_card_table", "Go to cell: max_sessions",
                      "Open sheet: sheets/supernodes/6.1.2-running-example.yaml"):
            assert title in titles
        await pilot.press("ctrl+p")
        app.screen.query_one(Input).value = "go to cell: max_sessions"
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert app.grid.current_key == "max_sessions"


async def test_open_another_sheet_asks_about_unsaved_edits(example: Path) -> None:
    other = example.parent / "6.1.2-running-example-32k.yaml"
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await edit(pilot, "context", "32768 token")
        app.files.open_sheet(other)
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.click("#answer-discard")
        await pilot.pause()
        assert app.document.path == other and value(app, "max_sessions") == "11"


async def test_the_sweep_view_reruns_when_an_input_changes(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.sweeping.show("experiment_6_1a")
        await settled(pilot)
        assert app.sweep.display and app.sweep.last.frame["max_sessions"].to_list() == [95.0, 47.0, 23.0]
        assert app.sweep.y == "max_sessions" and app.sweep.x == "context [token]"
        await edit(pilot, "workspace", "10 GiB")
        await settled(pilot)
        assert app.sweep.last.frame["max_sessions"].to_list() == [52.0, 26.0, 13.0]
        app.go_to("workspace")
        app.action_adhoc_sweep()
        await settled(pilot)
        assert app.sweep.last.title == "ad hoc workspace=1.25 GiB..80 GiB*2"


def sweep_status(app: SupersheetApp) -> str:
    return str(app.query_one("#sweep-status", Static).render())


def table_column(app: SupersheetApp, column: str) -> list[str]:
    table = app.query_one("#sweep-table", DataTable)
    return [str(v) for v in table.get_column(column)]


async def test_the_sweep_table_is_marked_stale_while_it_reruns(example: Path, monkeypatch) -> None:
    """An edit makes the rows on screen old: from the edit until the rerun's rows
    arrive they are marked stale (dimmed, `…`, "found before the last edit"),
    never shown as current; the new rows clear the mark."""
    import threading

    from supersheet.editor import sweep as editsweep
    run, gate = editsweep.run_sweep, threading.Event()
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.sweeping.show("experiment_6_1a")
        await settled(pilot)
        assert table_column(app, "max_sessions") == ["95", "47", "23"] and not app.sweep.has_class("-stale")
        assert sweep_status(app) == "sweep experiment_6_1a: 3 rows · S sort, H hide"
        monkeypatch.setattr(editsweep, "run_sweep", lambda *a: (gate.wait(5), run(*a))[1])
        app.go_to("workspace")
        assert app.commit_edit("workspace", "3 GiB")
        assert app.sweep.stale, "marked with the edit itself, before the screen shows its new values"
        await pilot.pause()
        gate.set()
        await settled(pilot)
        assert table_column(app, "max_sessions") == ["90", "45", "22"] and not app.sweep.stale
        gate.clear()
        await edit(pilot, "workspace", "10 GiB")
        await pilot.pause()
        assert app.sweep.stale and app.sweep.has_class("-stale")
        assert sweep_status(app) == "… sweep experiment_6_1a: 3 rows found before the last edit; running again"
        assert table_column(app, "max_sessions") == ["90", "45", "22"]    # the rows at 3 GiB, marked
        gate.set()
        await settled(pilot)
        assert not app.sweep.stale and not app.sweep.has_class("-stale")
        assert table_column(app, "max_sessions") == ["52", "26", "13"]
        assert sweep_status(app) == "sweep experiment_6_1a: 3 rows · S sort, H hide"


async def test_a_sweep_that_cannot_run_again_leaves_its_old_rows_marked_stale(example: Path, monkeypatch) -> None:
    from supersheet.editor import sweep as editsweep
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.sweeping.show("experiment_6_1a")
        await settled(pilot)
        run, failing = editsweep.run_sweep, [True]

        def fail_once(workbook, name, axis, rows):
            if failing.pop():
                return editsweep.SweepRun(editsweep.run_title(name, axis), None, [], [],
                                          "cannot run sweep experiment_6_1a: MemoryError: ")
            return run(workbook, name, axis, rows)
        monkeypatch.setattr(editsweep, "run_sweep", fail_once)
        await edit(pilot, "workspace", "10 GiB")
        await settled(pilot)
        assert app.sweep.stale and app.sweep.has_class("-stale")
        assert table_column(app, "max_sessions") == ["95", "47", "23"]
        assert sweep_status(app) == ("… sweep experiment_6_1a: 3 rows found before the last edit; "
                                     "cannot run it again: cannot run sweep experiment_6_1a: MemoryError: ")
        failing.append(False)
        await edit(pilot, "workspace", "12 GiB")     # it runs again: the mark goes
        await settled(pilot)
        assert not app.sweep.stale and table_column(app, "max_sessions") != ["95", "47", "23"]


async def test_help_screen(example: Path) -> None:
    """? and F1 open the help (its text, in the screen's width); Esc, q, ? and F1 each close
    it, back to the grid as it was, with nothing edited."""
    from supersheet.tui.screens import HELP_WIDTH, help_text

    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        grid = app.screen
        for opening, closing in (("question_mark", "escape"), ("f1", "q"), ("question_mark", "question_mark"),
                                 ("f1", "f1")):
            await pilot.press(opening)
            assert isinstance(app.screen, HelpScreen), opening
            shown = app.screen.query_one("#help-text", Static).content
            assert shown.plain == help_text(min(HELP_WIDTH, SIZE[0] - 6)).plain, opening
            await pilot.press(closing)
            assert app.screen is grid and len(app.screen_stack) == 1, (opening, closing)
        assert not app.document.dirty and not app.document.can_undo


async def test_the_help_fits_an_80_column_terminal(example: Path) -> None:
    """In tmux at 80x24 the help was 90 columns wide: every long line was cut off at
    the right edge (`copies its fo`). It is as wide as the screen, and wraps."""
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        box = app.screen.query_one("#help").region
        assert box.x >= 0 and box.right <= 80


async def test_done_when(example: Path, line_diff) -> None:
    """The issue's acceptance path: 8192 -> 32768 tokens, a context that no longer
    fits turns the check red, Ctrl+Z, save, and one line changed."""
    before = example.read_text(encoding="utf-8")
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await edit(pilot, "context", "32768 token")
        assert change(app, "kv_total").startswith("↑ 300%") and change(app, "kv_per_card").startswith("↑ 300%")
        assert change(app, "total_per_card").startswith("↑") and change(app, "max_sessions").startswith("↓")
        assert value(app, "fits") == "✓ pass" and app.grid.texts("§checks")[0].plain.endswith("3/4 pass")
        await edit(pilot, "context", "524288 token")
        assert value(app, "fits") == "✗ FAIL" and "fits" in app.grid.changes
        assert app.grid.texts("§checks")[0].plain.endswith("2/4 pass")
        await pilot.press("ctrl+z")
        assert value(app, "fits") == "✓ pass" and value(app, "context") == "32768 token"
        await pilot.press("ctrl+s")
    assert line_diff(before, example.read_text(encoding="utf-8")) == [
        ("    value: 8192 token", "    value: 32768 token")]


async def test_a_failing_expectation_marks_its_cell_until_undone(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        assert "E-EXPECT" not in str([d.code for d in app.document.diagnostics])
        assert app.grid.texts("kv_total")[0].plain.startswith("  ")
        await edit(pilot, "context", "32768 token")   # kv_total: 1.58 GB is expected
        name = app.grid.texts("kv_total")[0]
        assert name.plain.startswith("✗ ") and value(app, "kv_total") == "6.308 GB"
        assert app.grid.texts("weights_total")[0].plain.startswith("  ")
        app.go_to("kv_total")
        await pilot.pause()
        assert "✗ expected 1.58 GB, got 6.308" in str(app.inspector._describe(app.document, "kv_total"))
        panel = app.diagnostics_panel
        rows = [str(panel.get_option_at_index(i).prompt) for i in range(panel.option_count)]
        expect_rows = [r for r in rows if r.startswith("E-EXPECT")]
        assert any("kv_total: expected 1.58 GB, got 6.308" in r for r in expect_rows), rows
        option_id = next(panel.get_option_at_index(i).id for i in range(panel.option_count)
                         if str(panel.get_option_at_index(i).prompt).startswith("E-EXPECT")
                         and "kv_total:" in str(panel.get_option_at_index(i).prompt))
        assert panel.targets[option_id] == "kv_total"   # Enter on the row jumps to the cell
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert app.grid.texts("kv_total")[0].plain.startswith("  ")
        assert not [d for d in app.document.diagnostics if d.code == "E-EXPECT"]


async def test_an_ad_hoc_axis_that_does_not_parse_says_why_and_clears_the_table(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.sweeping.show(axis="nope=1,2")
        await settled(pilot)
        assert sweep_status(app).startswith("E-NAME") and not app.sweep.stale
        assert app.query_one("#sweep-table", DataTable).row_count == 0


async def test_a_fit_in_the_sweep_view(tmp_path: Path) -> None:
    """A fit shows as a sweep does: the table's rows with the model and its error beside each,
    the fitted values in the status line, data against model in the plot; it reruns after an edit."""
    sizes = [1024 * 4 ** i for i in range(8)]
    (tmp_path / "ar.csv").write_text("size [B],time [us]\n" + "".join(
        f"{s},{(14 * 4e-6 + 1.75 * s / 370e9) * 1e6!r}\n" for s in sizes))
    sheet = tmp_path / "fit.yaml"
    sheet.write_text("tables:\n  nccl: ar.csv\ncells:\n  n: 8\n  size: 1 MiB\n  alpha: 5 us\n  busbw: 300 GB/s\n"
                     "  predicted: = 2 * (n - 1) * alpha + 2 * (n - 1) / n * size / busbw -> us\n"
                     "fit:\n  ar:\n    table: nccl\n    inputs: {size: size}\n    targets: {time: predicted}\n"
                     "    vary: {alpha: [0 us, 1 ms], busbw: [1 GB/s, 5000 GB/s]}\n")
    from supersheet.tui.widgets.sweep import FIT
    app = SupersheetApp(sheet, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.sweeping.show(FIT + "ar")
        await settled(pilot)
        run = app.sweep.last
        assert run.title == "fit ar" and run.frame.columns == ["size [B]", "time [us]", "predicted [us]",
                                                               "time error [%]"]
        assert run.frame.height == 8 and app.sweep.x == "size [B]" and app.sweep.y == "predicted [us]"
        status = sweep_status(app)
        assert status.startswith("fit ar: 8 rows") and "alpha = 4 μs" in status and "busbw = 370 GB/s" in status
        await edit(pilot, "n", "4")     # the model changes: the fit runs again on the edited sheet
        await settled(pilot)
        assert "alpha = 9.33333 μs" in sweep_status(app), sweep_status(app)
