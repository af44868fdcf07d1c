"""Seeing where you are: what the grid shows as changed, the cursor on every
row kind, the formula bar."""
from __future__ import annotations

from pathlib import Path

from test_tui_input import burst, settle

from supersheet.tui.app import SupersheetApp

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
        paths = app.sheet_paths()
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
