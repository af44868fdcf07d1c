"""Seeing where you are: what the grid shows as changed, the cursor on every
row kind, the formula bar."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest
from test_tui_app import edit
from test_tui_input import burst, settle

from supersheet.tui import sampling
from supersheet.tui.app import SupersheetApp
from supersheet.tui.widgets.rows import CHANGE, FORMULA, NAME, RANGE, VALUE, Preferred, fit

SIZE = (120, 36)


async def test_a_change_below_the_displayed_precision_is_not_a_change(tmp_path: Path) -> None:
    path = tmp_path / "precision.yaml"
    path.write_text("cells:\n  a: 3 GB\n  b: = a / 7 -> GB\n  c: = a * 2 -> GB\n", encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("a")
        burst(app, *"3.0000001 GB", "enter")
        await settle(pilot, lambda: app.document.dirty and not app.editor.editing)
        assert app.document.value("b") != 3e9 / 7 and app.grid.texts("b")[2].plain == ""
        assert app.grid.changes == {}
        assert "0 values changed" in str(app.query_one("#status").render())
        burst(app, *"6 GB", "enter")
        await settle(pilot, lambda: len(app.document.history.undo_stack) == 2 and not app.editor.editing)
        assert app.grid.texts("b")[2].plain.startswith("↑ 100%")


async def test_copy_a_value_and_a_formula(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("kv_total")
        await pilot.press("ctrl+c")
        assert app.clipboard == "1.577 GB"
        app.action_copy_formula()
        assert app.clipboard == "= model.kv_per_token * context -> GB"
        app.action_copy_exact()              # issue 31: every digit, with the unit
        assert app.clipboard == "1.577058304 GB"
        app.go_to("expert_read_time")
        app.action_copy_exact()
        number, unit = app.clipboard.split()
        shown = app.document.shown("expert_read_time", app.document.value("expert_read_time"))
        assert float(number) == shown.value and unit == shown.unit == "μs" and len(number) > 10


async def test_open_sheet_lists_sheets_beside_the_open_one_and_under_the_working_directory(
        tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "work" / "nested").mkdir(parents=True)
    (tmp_path / "work" / ".hidden").mkdir()
    sheet = tmp_path / "work" / "a.yaml"
    sheet.write_text("cells:\n  x: 1\n", encoding="utf-8")
    (tmp_path / "work" / "b.yaml").write_text("cells:\n  y: 2\n", encoding="utf-8")
    (tmp_path / "work" / "nested" / "c.yaml").write_text("cells:\n  z: 3\n", encoding="utf-8")
    (tmp_path / "work" / ".hidden" / "d.yaml").write_text("cells:\n  w: 4\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path / "work")
    app = SupersheetApp(sheet, watch_seconds=0)
    async with app.run_test(size=SIZE):
        paths = app.files.sheet_paths()
        assert paths[:3] == ["a.yaml", "b.yaml", "nested/c.yaml"] and ".hidden/d.yaml" not in paths
        assert any(p.endswith("supernodes/6.1.2-running-example.yaml") for p in paths)   # the library


async def test_the_help_screen_scrolls_at_80x24(example: Path) -> None:
    from supersheet.tui.screens import HelpScreen
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        help_view = app.screen.query_one("#help")
        assert help_view.max_scroll_y > 0
        await pilot.press("pagedown")
        assert help_view.scroll_y > 0


async def test_the_focused_pane_has_the_bright_border(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        grid_border = app.grid.styles.border_top
        await pilot.press("f4")
        await pilot.pause()
        assert app.focused is app.diagnostics_panel
        assert app.grid.styles.border_top != grid_border
        assert app.diagnostics_panel.styles.border_top[1] == grid_border[1]


async def test_80x24_with_a_panel_open_keeps_the_values_and_8_rows(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=(80, 24)) as pilot:
        app.go_to("kv_total")
        for panel in ("f2", "f4"):
            await pilot.press(panel)
            await pilot.pause()
            grid = app.grid
            assert grid.scrollable_content_region.height - 1 >= 8
            widths = grid.widths
            assert widths[1] >= 10 and sum(widths) + 2 * len([w for w in widths if w]) <= \
                grid.scrollable_content_region.width
            line = "".join(segment.text for segment in grid.render_line(1 + grid.cursor - grid.scroll_offset.y))
            assert "1.577 GB" in line
            await pilot.press(panel)


def test_spare_width_goes_to_the_formula_then_the_change_column() -> None:
    columns = (NAME, VALUE, CHANGE, FORMULA)
    want = Preferred(name=30, value=20, least_name=20, change=35, formula=80)
    for inner in (76, 96, 116, 156, 196, 260):
        widths = fit(columns, want, inner)
        assert sum(widths) + 2 * len(columns) == inner        # every column of the width is used
        name, value, change, formula = widths
        assert value == 20
        if formula < 40:
            assert change <= 22                              # formulas first, up to 40 columns
        if formula > 40:
            assert change == 35                              # then the change column, to its content
        if inner == 260:
            assert formula == 260 - 30 - 20 - 35 - 8         # then the formulas again, to the edge
    # formulas narrower than 40: the change column grows as soon as they have their room
    assert fit(columns, Preferred(name=30, value=20, least_name=20, change=35, formula=24), 116)[2:] == [34, 24]


def test_beside_sampled_ranges_the_formula_column_keeps_12_characters() -> None:
    """Issue 31: on a sheet with draws at 80 columns the ranges, then long values, then
    names give way (cut with …) before the formula column goes; only a terminal too
    narrow for that gives the formulas up."""
    columns = (NAME, VALUE, RANGE, CHANGE, FORMULA)
    want = Preferred(name=34, value=24, least_name=24, range=24, change=39, formula=80)
    assert fit(columns, want, 76) == [24, 16, 16, 0, 12]          # an 80-column terminal's grid
    assert fit(columns, want, 96) == [34, 24, 18, 0, 12]          # the ranges only
    checked = 0
    for inner in range(70, 140):
        name, value, range_, change, formula = fit(columns, want, inner)
        assert sum(w + 2 for w in (name, value, range_, change, formula) if w) <= inner
        if inner >= 74:
            assert formula >= 12 and range_ >= 16 and value >= 16 and name >= 18
            checked += 1
    assert checked == 66
    # with the inspector open beside the grid (it shows the formula) the ranges keep their width
    assert fit(columns, want, 76, formulas_elsewhere=True)[2:] == [24, 0, 0]


async def test_a_wide_grid_shows_whole_changes_and_formulas(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=(200, 40)) as pilot:
        await edit(pilot, "context", "32768 token")
        change = app.grid.texts("kv_total")[2].plain
        assert change == "↑ 300% was 1.577 GB" and app.grid.widths[2] >= len(change)
        # the formula column takes the rest, to the grid's edge
        assert sum(app.grid.widths) + 2 * 4 == app.grid.scrollable_content_region.width
        assert app.grid.widths[3] >= 80


async def test_the_filter_finds_cells_by_formula_and_value(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        burst(app, "/", *"kv_split", "enter")
        await settle(pilot, lambda: app.grid.filter_text == "kv_split" and app.focused is app.grid)
        keys = [row.key for row in app.grid.rows if not row.key.startswith("§")]
        assert "kv_split" in keys and "kv_per_card" in keys   # its name, and a formula using it
        assert all("kv_split" in k or "kv_split" in app.document.raw_text(k) for k in keys)
        burst(app, "escape", "/", *"1.577 gb")
        await settle(pilot, lambda: app.grid.filter_text == "1.577 gb")
        keys = [row.key for row in app.grid.rows if not row.key.startswith("§")]
        assert "kv_total" in keys and "context" not in keys


async def test_a_failing_expectation_in_a_sweep_is_marked_listed_and_jumps(library: Path) -> None:
    """kv_stored_total has no top-level expect; the kv_replication sweep expects
    32 and 64 GiB. After the edit both rows fail: the cell is marked, the
    inspector says why, the diagnostics panel lists both, Enter jumps to it."""
    app = SupersheetApp(library / "supernodes" / "6.2.2-long-context-capacity.yaml", watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: not any(w.is_running for w in app.workers))
        assert app.sampling.verdicts == [] and not app.grid.row_text("kv_stored_total").startswith("✗")
        app.start_edit("kv_stored_total", "= tp * kv_per_card * 1.5 -> GiB")
        burst(app, "enter")
        await settle(pilot, lambda: bool(app.sampling.verdicts))
        assert [v.key for v in app.sampling.verdicts] == ["kv_stored_total", "kv_stored_total"]
        assert "expected 32 GiB, got 48 GiB" in app.sampling.verdicts[0].summary
        assert app.grid.row_text("kv_stored_total").startswith("✗ kv_stored_total")
        panel = app.diagnostics_panel
        assert set(panel.targets.values()) == {"kv_stored_total"} and panel.border_title == "diagnostics (2)"
        app.go_to("tp")
        await pilot.press("f2")
        app.go_to("kv_stored_total")
        await pilot.pause()
        assert "expected 64 GiB, got 96 GiB" in str(app.inspector.query_one("#inspector-body").render())
        await pilot.press("f2", "f4")
        app.go_to("tp")
        panel.focus()
        panel.highlighted = 1
        await pilot.press("enter")
        await settle(pilot, lambda: app.grid.current_key == "kv_stored_total")
        assert app.grid.current_key == "kv_stored_total" and app.focused is app.grid
        burst(app, "ctrl+z")    # undone: the sweep's expectations hold again, the marks go
        await settle(pilot, lambda: not app.sampling.verdicts)
        assert not app.grid.row_text("kv_stored_total").startswith("✗") and panel.border_title == "diagnostics (0)"


async def test_marks_from_before_an_edit_are_stale_until_checked_again(
        library: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sweep's failing expectation was found on the old inputs: from the edit on,
    and until the background check ends, it shows as stale (`…`, dimmed), never ✗."""
    gate = threading.Event()
    check = sampling.block_verdicts

    def held(path, text, imported=None):
        gate.wait(10)
        return check(path, text, imported)
    app = SupersheetApp(library / "supernodes" / "6.2.2-long-context-capacity.yaml", watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: not any(w.is_running for w in app.workers))
        app.start_edit("kv_stored_total", "= tp * kv_per_card * 1.5 -> GiB")
        burst(app, "enter")
        await settle(pilot, lambda: bool(app.sampling.verdicts) and not app.sampling.blocks_stale)
        assert app.grid.row_text("kv_stored_total").startswith("✗ kv_stored_total")
        monkeypatch.setattr(sampling, "block_verdicts", held)
        await pilot.press("f2", "f4")
        app.go_to("tp")
        app.start_edit("tp", "4")
        burst(app, "enter")     # the edit: the old verdicts are stale at once, before any worker ends
        await settle(pilot, lambda: app.document.raw_text("tp") == "4")
        assert app.sampling.blocks_stale and all(v.stale for v in app.sampling.verdicts)
        assert app.grid.row_text("kv_stored_total").startswith("… kv_stored_total")
        panel = app.diagnostics_panel
        rows = [str(panel.get_option_at_index(i).prompt) for i in range(panel.option_count)]
        assert all("… checking again: " in row for row in rows if "kv_stored_total" in row)
        app.go_to("kv_stored_total")
        await pilot.pause()
        body = str(app.inspector.query_one("#inspector-body").render())
        assert "found before the last edit; checking again" in body and "✗ kv_stored_total" not in body
        gate.set()
        await settle(pilot, lambda: not app.sampling.blocks_stale)
        assert all(not v.stale for v in app.sampling.verdicts)
        assert app.grid.row_text("kv_stored_total")[:2] in ("✗ ", "  ")


async def test_expectations_and_assumptions_over_the_samples_are_marked(tmp_path: Path) -> None:
    """y's mean (4) meets its expect, its p95 does not; `y < 5` holds at the mean
    but not in every sample: both are marked and listed once the samples are in."""
    path = tmp_path / "draws.yaml"
    path.write_text("samples: {count: 2000, seed: 1}\ncells:\n  x: = uniform(1, 3)\n  y: = x * 2\n  z: = y + 1\n"
                    "assume:\n  small: y < 5\nexpect:\n  y: 4 ± 0.2\n  p95(y): 4 ± 0.5\n  z: 5 ± 0.2\n",
                    encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: app.sampling.samples is not None and not app.grid.samples_pending)
        found = {(v.key, v.diagnostic.code) for v in app.sampling.verdicts}
        assert found == {("y", "E-EXPECT"), ("small", "E-ASSUME")}
        assert any("p95(y)" in v.summary for v in app.sampling.verdicts)
        assert any("holds in only" in v.summary for v in app.sampling.verdicts)
        assert app.grid.row_text("y").startswith("✗ y") and app.grid.row_text("small").startswith("✗ small")
        assert not app.grid.row_text("z").startswith("✗")
        assert set(app.diagnostics_panel.targets.values()) == {"y", "small"}


async def test_a_violated_assumption_is_marked_in_the_grid_and_listed(tmp_path: Path) -> None:
    path = tmp_path / "assume.yaml"
    path.write_text("cells:\n  tp: 8\n  cards: 8\nassume:\n  within_server: tp <= cards\n", encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        assert "✓ holds" in app.grid.row_text("within_server")
        app.go_to("tp")
        burst(app, *"16", "enter")
        await settle(pilot, lambda: app.document.value("tp") == 16.0 and not app.editor.editing)
        row = app.grid.row_text("within_server")
        assert row.startswith("! within_server") and "✗ OUTSIDE" in row
        assert "0/1 hold" in app.grid.row_text("§assumptions")
        assert list(app.diagnostics_panel.targets.values()) == ["within_server"]
        assert app.diagnostics_panel.border_title == "diagnostics (1)"


def _backgrounds(grid, key: str) -> set:
    """The background colours of the visible text of row `key`."""
    y = 1 + grid._index[key] - grid.scroll_offset.y
    return {segment.style.bgcolor for segment in grid.render_line(y) if segment.style and segment.text.strip()}


async def test_the_cursor_shows_on_every_row_kind_and_dims_when_the_grid_is_not_focused(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        grid = app.grid
        rows = {("group" if row.key.startswith("§") else "cell", row.section.kind): row.key for row in grid.rows}
        assert {("group", "cells"), ("group", "checks"), ("group", "import"), ("cell", "checks")} <= set(rows)
        plain = _backgrounds(grid, rows[("cell", "cells")])
        for kind, key in rows.items():
            grid._set_cursor(grid._index[key])
            await pilot.pause()
            cursor = _backgrounds(grid, key)
            assert len(cursor) == 1 and cursor != plain, kind     # the whole row, in the cursor's colour
        await pilot.press("f4")
        await pilot.pause()
        assert app.focused is app.diagnostics_panel
        dimmed = _backgrounds(grid, grid.current_row_key)
        assert len(dimmed) == 1 and dimmed not in (plain, cursor)


async def test_the_formula_bar_separates_name_and_value(tmp_path: Path) -> None:
    """A name longer than its place ends in an ellipsis, never runs into the value."""
    path = tmp_path / "long.yaml"
    name = "a_really_long_cell_name_that_goes_on_and_on"
    path.write_text(f"cells:\n  {name}: 3 GB\n  b: = {name} * 2\n", encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=(80, 24)) as pilot:
        for key, shown in ((name, "3 GB"), ("b", f"= {name} * 2")):
            app.go_to(key)
            await pilot.pause()
            line = "".join(segment.text for segment in
                           app.screen._compositor.render_strips()[app.editor.input.region.y])
            label, value = line.split("│", 1)
            assert label.strip() in (key, key[:29] + "…")
            assert value.startswith(" ") and value.strip().startswith(shown[:20])


async def test_a_change_of_a_negative_value_has_one_sign(tmp_path: Path) -> None:
    path = tmp_path / "negative.yaml"
    path.write_text("cells:\n  a: -84\n  b: = a * 2\n", encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("a")
        app.start_edit("a", "-100")
        burst(app, "enter")
        await settle(pilot, lambda: app.document.value("a") == -100.0 and not app.editor.editing)
        assert app.grid.texts("a")[2].plain == "↓ 19% was -84"
        assert app.grid.texts("b")[2].plain == "↓ 19% was -168"


LONG_FORMULA = "= base * 2 + base * 3 + base * 4 + base * 5 + base * 6 + base * 7 + base * 8 + base * 9"


def _bar(app: SupersheetApp) -> str:
    """The formula bar's text as it is on screen (the Input draws a cell more than it shows)."""
    field = app.editor.input
    return "".join(segment.text for segment in field.render_line(0).crop(0, field.size.width))


async def test_80x24_the_formula_bar_shows_a_long_formula_from_its_start_with_an_ellipsis(tmp_path: Path) -> None:
    """Issue 31: not editing, the formula bar shows a long formula's start cut with …,
    also right after a commit (the Input had scrolled to its end); editing, it is the
    Input's own line, scrolled to the cursor, with no … ."""
    path = tmp_path / "long.yaml"
    path.write_text(f"cells:\n  base: 1 GB\n  total: {LONG_FORMULA}\n", encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=(80, 24)) as pilot:
        app.go_to("total")
        await pilot.pause()
        shown = _bar(app).rstrip()
        assert shown.startswith("= base * 2 + base * 3") and shown.endswith("…")
        assert len(shown) < len(LONG_FORMULA)
        await pilot.press("enter", "end")
        await pilot.pause()
        editing = _bar(app)
        assert "…" not in editing and "base * 9" in editing and not editing.startswith("= base * 2")
        await pilot.press(*" + 0 GB", "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert not app.editor.editing and app.document.raw_text("total").endswith("+ 0 GB")
        shown = _bar(app).rstrip()
        assert shown.startswith("= base * 2 + base * 3") and shown.endswith("…")
        app.go_to("base")
        await pilot.pause()
        assert _bar(app).rstrip() == "1 GB"
