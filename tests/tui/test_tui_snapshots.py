"""SVG snapshots (120x36) of each screen of the editor, on the bundled running
example. Update deliberately: pytest tests/tui --snapshot-update, then review the SVGs."""
from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from supersheet.tui.app import SupersheetApp
from repo_paths import RUNNING_EXAMPLE

SIZE = (120, 36)


def _app() -> SupersheetApp:
    return SupersheetApp(RUNNING_EXAMPLE, watch_seconds=0)


async def _steady(pilot) -> None:
    for field in pilot.app.query(Input):
        field.cursor_blink = False
    await pilot.pause()


def test_running_example_opened(snap_compare) -> None:
    assert snap_compare(_app(), terminal_size=SIZE, run_before=_steady)


def test_cell_being_edited(snap_compare) -> None:
    async def run_before(pilot) -> None:
        await _steady(pilot)
        pilot.app.go_to("kv_total")
        await pilot.press("enter", "end", *["left"] * 6, *" * 2")
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=SIZE, run_before=run_before)


def test_diagnostic_shown(snap_compare) -> None:
    async def run_before(pilot) -> None:
        await _steady(pilot)
        pilot.app.go_to("kv_total")
        await pilot.press("enter")
        pilot.app.query_one("#editor-input", Input).value = "= model.kv_per_token * contxt -> GB"
        await pilot.press("enter")
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=SIZE, run_before=run_before)


def test_inspector(snap_compare) -> None:
    async def run_before(pilot) -> None:
        await _steady(pilot)
        pilot.app.go_to("total_per_card")
        await pilot.press("f2")
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=SIZE, run_before=run_before)


def test_sweep_view_with_plot(snap_compare) -> None:
    async def run_before(pilot) -> None:
        await _steady(pilot)
        pilot.app.go_to("context")
        pilot.app.sweeping.show("experiment_6_1a")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=SIZE, run_before=run_before)


def test_sweep_table_stale_while_it_reruns(snap_compare, monkeypatch) -> None:
    """After an edit the sweep's old rows are dimmed and said to be from before
    it ("… found before the last edit; running again") until the rerun ends."""
    import threading

    from supersheet.editor import sweep as editsweep
    run, gate = editsweep.run_sweep, threading.Event()

    async def run_before(pilot) -> None:
        await _steady(pilot)
        app = pilot.app
        app.go_to("context")
        app.sweeping.show("experiment_6_1a")
        await app.workers.wait_for_complete()
        await pilot.pause()
        monkeypatch.setattr(editsweep, "run_sweep", lambda *a: (gate.wait(5), run(*a))[1])
        app.go_to("workspace")
        await pilot.press("enter")
        app.query_one("#editor-input", Input).value = "3 GiB"
        await pilot.press("enter")
        await pilot.pause()

    try:
        assert snap_compare(_app(), terminal_size=SIZE, run_before=run_before)
    finally:
        gate.set()


def test_help_screen(snap_compare) -> None:
    async def run_before(pilot) -> None:
        await _steady(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=SIZE, run_before=run_before)


def test_diff_against_the_saved_file(snap_compare) -> None:
    """An unsaved edit of the repository's sheet (never saved) against the file on disk."""
    async def run_before(pilot) -> None:
        await _steady(pilot)
        pilot.app.go_to("context")
        await pilot.press("enter")
        pilot.app.query_one("#editor-input", Input).value = "32768 token"
        await pilot.press("enter", "f5")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=SIZE, run_before=run_before)


def test_uncertain_cell_in_the_inspector(snap_compare) -> None:
    """A sheet with random draws: the sampled ranges, and the histogram and drivers of `step`."""
    async def run_before(pilot) -> None:
        await _steady(pilot)
        await pilot.app.workers.wait_for_complete()
        pilot.app.go_to("step")
        await pilot.press("f2")
        await pilot.pause()

    app = SupersheetApp("tests/tui/sheets/uncertain-step.yaml", watch_seconds=0)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_cursor_on_a_group_row(snap_compare) -> None:
    async def run_before(pilot) -> None:
        await _steady(pilot)
        grid = pilot.app.grid
        grid._set_cursor(grid._index["§import-hgx"])
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=SIZE, run_before=run_before)


def test_a_cell_added_after_the_selected_one(snap_compare) -> None:
    """A structural edit (never saved): `kv_half` added after kv_total, in its group."""
    async def run_before(pilot) -> None:
        await _steady(pilot)
        pilot.app.go_to("kv_total")
        await pilot.press("ctrl+n")
        pilot.app.screen.query_one(Input).value = "kv_half: = kv_total / 2 -> GB"
        await pilot.press("enter")
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=SIZE, run_before=run_before)


def test_80x24_with_the_inspector_open(snap_compare) -> None:
    async def run_before(pilot) -> None:
        await _steady(pilot)
        pilot.app.go_to("kv_total")
        await pilot.press("f2")
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=(80, 24), run_before=run_before)


def test_failing_expectation_marked(snap_compare) -> None:
    """context 32768 token: kv_total and the cells after it fail their `expect` (✗, red,
    the expected value in the inspector, E-EXPECT rows in the diagnostics panel)."""
    async def run_before(pilot) -> None:
        await _steady(pilot)
        pilot.app.go_to("context")
        await pilot.press("enter")
        pilot.app.query_one("#editor-input", Input).value = "32768 token"
        await pilot.press("enter")
        await pilot.pause()
        pilot.app.go_to("kv_total")
        await pilot.press("f2", "f4")
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=SIZE, run_before=run_before)


def test_cell_properties_dialog(snap_compare) -> None:
    async def run_before(pilot) -> None:
        await _steady(pilot)
        pilot.app.go_to("capacity")
        await pilot.press("ctrl+e", "down", *"3")
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=SIZE, run_before=run_before)


def test_the_deleted_file_dialog(snap_compare, example, monkeypatch) -> None:
    """The open sheet deleted by another program, then Ctrl+S: said to be *deleted* (not
    "changed on disk"), Recreate or Cancel. A copy of the library, opened by the same
    relative path as the other snapshots."""
    monkeypatch.chdir(example.parents[2])

    async def run_before(pilot) -> None:
        await _steady(pilot)
        pilot.app.go_to("workspace")
        await pilot.press("enter")
        pilot.app.query_one("#editor-input", Input).value = "3 GiB"
        await pilot.press("enter")
        await pilot.pause()
        example.unlink()
        await pilot.press("ctrl+s")
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=SIZE, run_before=run_before)


def test_a_solve_problem_shown_in_the_inspector(snap_compare) -> None:
    """Enter on a diagnostic that is no cell's (a solve's goal that does not parse):
    its file, line and source line marked in the inspector, the status line says where."""
    async def run_before(pilot) -> None:
        await _steady(pilot)
        app = pilot.app
        await app.workers.wait_for_complete()
        await pilot.pause()
        panel = app.diagnostics_panel
        panel.display = True
        panel.focus()
        panel.highlighted = next(i for i in range(panel.option_count)
                                 if "solve 'fit'" in str(panel.get_option_at_index(i).prompt))
        await pilot.press("enter")
        await pilot.pause()

    app = SupersheetApp("tests/tui/sheets/places.yaml", watch_seconds=0)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_stale_marks_after_an_edit(snap_compare, monkeypatch) -> None:
    """A sweep's failing expectation found before an edit shows as stale (… dimmed,
    "checking again") from the edit on, until the background check ends."""
    import threading

    from supersheet.tui import sampling
    check, gate = sampling.block_verdicts, threading.Event()

    async def run_before(pilot) -> None:
        await _steady(pilot)
        app = pilot.app
        app.go_to("kv_stored_total")
        await pilot.press("enter")
        app.query_one("#editor-input", Input).value = "= tp * kv_per_card * 1.5 -> GiB"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        monkeypatch.setattr(sampling, "block_verdicts", lambda path, text, imported=None: (gate.wait(5), check(path, text, imported))[1])
        app.go_to("tp")
        await pilot.press("enter")
        app.query_one("#editor-input", Input).value = "4"
        await pilot.press("enter")
        app.go_to("kv_stored_total")
        await pilot.press("f2", "f4")
        await pilot.pause()

    app = SupersheetApp("sheets/supernodes/6.2.2-long-context-capacity.yaml", watch_seconds=0)
    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
    finally:
        gate.set()


def test_properties_of_an_imported_cell_asks(snap_compare) -> None:
    """Ctrl+E on hgx.cards: its properties as written in the imported sheet, read-only;
    the value this sheet may override (focused), and the button that opens that sheet."""
    async def run_before(pilot) -> None:
        await _steady(pilot)
        pilot.app.go_to("hgx.cards")
        await pilot.press("ctrl+e")
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=SIZE, run_before=run_before)


def test_a_wide_grid_after_an_edit(snap_compare) -> None:
    """200 columns: spare width goes to the formulas (up to 40), then to the change
    column until the widest '↑ 300% was 1.577 GB' fits, then to the formulas again."""
    async def run_before(pilot) -> None:
        await _steady(pilot)
        pilot.app.go_to("context")
        await pilot.press("enter")
        pilot.app.query_one("#editor-input", Input).value = "32768 token"
        await pilot.press("enter")
        await pilot.pause()
        pilot.app.go_to("kv_total")
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=(200, 40), run_before=run_before)


def test_properties_of_an_inherited_cell(snap_compare) -> None:
    """Ctrl+E on a cell the 32K variant inherits with `extends`: the variant may replace
    it whole, so value, unit, digits, doc and source are fields, prefilled with the base's."""
    async def run_before(pilot) -> None:
        await _steady(pilot)
        pilot.app.go_to("workspace")
        await pilot.press("ctrl+e")
        await pilot.pause()
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False
        await pilot.pause()

    app = SupersheetApp("sheets/supernodes/6.1.2-running-example-32k.yaml", watch_seconds=0)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def _edited_with_problems(pilot) -> None:
    """An edit (the header's `● unsaved`), its changes, the problem count, F8 to the first."""
    await _steady(pilot)
    pilot.app.go_to("workspace")
    await pilot.press("enter")
    pilot.app.query_one("#editor-input", Input).value = "30 GiB"
    await pilot.press("enter")
    await pilot.pause()
    await pilot.press("f8")
    await pilot.pause()


def test_80x24_after_an_edit_with_problems(snap_compare) -> None:
    """Issue 31: at 80x24 `● unsaved` is not cut from the header, the problem count shows."""
    assert snap_compare(_app(), terminal_size=(80, 24), run_before=_edited_with_problems)


def test_200x60_after_an_edit_with_problems(snap_compare) -> None:
    assert snap_compare(_app(), terminal_size=(200, 60), run_before=_edited_with_problems)


def test_80x24_a_long_formula_in_the_diff_ends_in_an_ellipsis(snap_compare) -> None:
    """Issue 31: at 80x24 a long formula in the diff view is cut with … in columns that fit
    the panel; the table never gets a horizontal scrollbar."""
    from textual.widgets import DataTable

    async def run_before(pilot) -> None:
        await _steady(pilot)
        app = pilot.app
        app.go_to("weights_per_card")
        await pilot.press("enter", "end", *" + 0 GB", "enter", "f5")
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.query_one("#diff-table", DataTable)
        assert not table.show_horizontal_scrollbar
        assert table.virtual_size.width <= table.scrollable_content_region.width
        was, now = app.diff_view.rows()[-1].split(" | ")[1:3]
        assert was.endswith("…") and now.endswith("…") and was.startswith("((model.params_total")

    assert snap_compare(_app(), terminal_size=(80, 24), run_before=run_before)


def test_80x24_help_screen(snap_compare) -> None:
    """Issue 31: at 80x24 each key's words wrap beside it, paragraphs are filled to the box."""
    async def run_before(pilot) -> None:
        await _steady(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=(80, 24), run_before=run_before)


MONTE_CARLO = Path("sheets") / "questions" / "q4-ep-skew-monte-carlo.yaml"   # relative to REPO, as RUNNING_EXAMPLE


async def _sampled(pilot) -> None:
    """Wait until the sheet's draws are sampled and their ranges shown."""
    app = pilot.app
    for _ in range(600):
        samples = app.grid.samples
        if samples is not None and samples.sampled is not None and not app.grid.samples_pending:
            break
        await pilot.pause(0.05)
    else:
        raise AssertionError("the samples never came")
    await app.workers.wait_for_complete()
    await _steady(pilot)


def test_80x24_monte_carlo_sheet_keeps_its_formula_column(snap_compare) -> None:
    """Issue 31: at 80x24 a sheet with draws keeps a formula column of at least 12
    characters; the sampled ranges (and long values) are cut with … instead."""
    from supersheet.tui.widgets.rows import FORMULA, RANGE

    async def run_before(pilot) -> None:
        await _sampled(pilot)
        app = pilot.app
        app.go_to("mc_skew_clustered")
        await pilot.pause()
        grid = app.grid
        widths = dict(zip(grid.columns, grid.widths))
        assert widths[FORMULA] >= 12 and widths[RANGE] >= 12
        assert sum(w + 2 for w in grid.widths if w) <= grid.scrollable_content_region.width
        line = "".join(s.text for s in grid.render_line(1 + grid.cursor - grid.scroll_offset.y))
        assert "≈ 4.836 (4.752" in line and "4.927" not in line      # the range: cut at its p95
        assert "= max(norma…" in line                                  # the formula: its start, cut

    assert snap_compare(SupersheetApp(MONTE_CARLO, watch_seconds=0), terminal_size=(80, 24),
                        run_before=run_before)


def test_80x24_formula_bar_shows_a_long_formula_from_its_start(snap_compare) -> None:
    """Issue 31: after a commit the formula bar shows the long formula's start, cut with …"""
    async def run_before(pilot) -> None:
        await _steady(pilot)
        app = pilot.app
        app.go_to("weights_per_card")
        await pilot.press("enter", "end", *" + 0 GB", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=(80, 24), run_before=run_before)
