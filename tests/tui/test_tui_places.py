"""Enter on a diagnostic or a diff row always goes somewhere (issue 16): its
cell, an import's group row, its sweep, or its lines in the inspector; never
nothing."""
from __future__ import annotations

from pathlib import Path

from test_tui_app import SIZE, edit
from test_tui_input import burst, settle
from textual.widgets import Static

from supersheet.editor.document import Document
from supersheet.editor.places import change_place, entry_at
from supersheet.engine.base.span import Span
from supersheet.tui.app import SupersheetApp

BLOCKS = """\
title: places
cells:
  a: 2 GB
  b: = a * 2
sweeps:
  scaling:
    vary:
      a: [1 GB, 2 GB]
    show: [b]
    expect:
      b: 100 GB
solve:
  fit:
    vary: a
    goal: b = 8 GB
    between: [1 GB, 100 GB]
"""


def status(app: SupersheetApp) -> str:
    return str(app.query_one("#status", Static).render())


def inspector(app: SupersheetApp) -> str:
    return str(app.query_one("#inspector-body", Static).render())


async def choose(pilot, index: int) -> None:
    panel = pilot.app.diagnostics_panel
    panel.display = True
    panel.focus()
    panel.highlighted = index
    await pilot.press("enter")
    await pilot.pause()


def rows(app: SupersheetApp) -> list[str]:
    panel = app.diagnostics_panel
    return [str(panel.get_option_at_index(i).prompt) for i in range(panel.option_count)]


def test_a_position_in_a_block_is_in_its_entry(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(BLOCKS, encoding="utf-8")
    document = Document(path)
    lines = BLOCKS.splitlines()
    at = document.workbook.model.root.sweeps["scaling"].span
    assert entry_at(document.workbook.model, lines, Span(at.file, 9, 5, 9)).name == "scaling"
    assert entry_at(document.workbook.model, lines, Span(at.file, 15, 5, 9)).block == "solve"
    assert entry_at(document.workbook.model, lines, Span(at.file, 3, 3, 4)) is None   # a cell's line


def test_a_diff_row_that_is_no_cell_says_what_it_was() -> None:
    cells, imports = {"a", "b"}.__contains__, {"gpu"}.__contains__
    assert change_place("removed", "old", "3 GB", None, "saved file", cells, imports).cell is None
    assert "old: was 3 GB (saved file); not in the sheet now" in \
        change_place("removed", "old", "3 GB", None, "saved file", cells, imports).text
    assert change_place("renamed", "x -> a", "x", "a", "saved file", cells, imports).cell == "a"
    assert change_place("imports", "gpu", "h100.yaml", "b200.yaml", "HEAD", cells, imports).section == "import-gpu"
    assert change_place("results", "b[2]", "1", "2", "HEAD", cells, imports).cell == "b"


async def test_enter_on_a_sweep_problem_opens_the_sweep_and_on_a_solve_problem_shows_its_lines(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(BLOCKS, encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        found = rows(app)
        sweep = next(i for i, r in enumerate(found) if "sweep 'scaling'" in r)
        solve = next(i for i, r in enumerate(found) if "solve 'fit'" in r)
        await choose(pilot, sweep)
        assert app.sweep.display and app.sweep.choice == "scaling"
        assert status(app).startswith("→ sweeps: scaling (s.yaml:")
        await choose(pilot, solve)
        assert app.inspector.display
        assert status(app).startswith("→ solve: fit (s.yaml:15:")
        shown = inspector(app)
        assert "solve: fit" in shown and "15 |     goal: b = 8 GB" in shown and "^" in shown


async def test_enter_on_an_import_problem_goes_to_its_group_row_or_its_line(library: Path) -> None:
    path = library / "supernodes" / "broken-import.yaml"
    path.write_text("title: t\nuse:\n  gone: nowhere.yaml\ncells:\n  a: 1\n", encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await choose(pilot, 0)
        # no group for an import that was not found: its line, in the inspector
        assert app.inspector.display and "nowhere.yaml" in inspector(app) and "3 |   gone: nowhere.yaml" in inspector(app)
        assert status(app).startswith("→ use: gone (broken-import.yaml:3:3)")


async def test_enter_on_a_removed_cell_or_a_title_row_of_the_diff(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        result = app.document.delete_cell("cards_of_memory", force=True)
        assert result.ok
        app.after_edit(result, "deleted cards_of_memory")
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = app.diff_view.rows()
        assert "cells removed" in shown, shown
        table = app.diff_view.query_one("#diff-table")
        table.focus()
        table.move_cursor(row=shown.index("cells removed") + 1)
        await pilot.press("enter")
        await pilot.pause()
        assert app.inspector.display
        assert "cards_of_memory: was 5.924 (saved file)" in inspector(app)
        assert "not in the sheet now" in inspector(app)
        # a part's title row goes to its first row's cell
        await edit(pilot, "context", "16384 token")
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = app.diff_view.rows()
        table.focus()
        table.move_cursor(row=shown.index("inputs changed"))
        await pilot.press("enter")
        await pilot.pause()
        assert app.grid.current_key == "context"


async def test_f4_and_enter_in_one_burst_choose_a_diagnostic_not_a_cell(tmp_path: Path) -> None:
    """F4 moves the focus before the next key is looked at: ↓ Enter typed with it choose a
    row of the panel; they never move the grid's cursor or open the editor."""
    path = tmp_path / "s.yaml"
    path.write_text(BLOCKS, encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.diagnostics_panel.display = False
        app.grid.focus()
        await pilot.pause()
        row = app.grid.cursor
        burst(app, "f4", "down", "enter")
        await settle(pilot, lambda: status(app).startswith("→ "))
        assert app.grid.cursor == row and not app.editor.editing
        assert status(app).startswith("→ sweeps: scaling") and app.sweep.display


async def test_keys_typed_right_after_enter_on_a_diagnostic_go_where_it_went(tmp_path: Path) -> None:
    """Enter on a diagnostic moves the focus before the next key is looked at: `5` typed in
    the same burst opens the editor of the cell the diagnostic is about, holding `5`."""
    path = tmp_path / "s.yaml"
    path.write_text("title: t\ncells:\n  a: 2 GB\n  b: = a * 2\n  c: = b + 1 s\n", encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        panel = app.diagnostics_panel
        panel.display = True
        panel.focus()
        await pilot.pause()
        panel.highlighted = 0
        assert panel.place_at_cursor() is not None and panel.place_at_cursor().cell == "c"
        burst(app, "enter", "5")
        await settle(pilot, lambda: app.editor.editing)
        assert app.grid.current_key == "c" and app.editor.editing
        assert app.editor.input.value == "5"
        assert app.focused is app.editor.input
