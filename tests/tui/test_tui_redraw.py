"""After an edit of an input's value, the grid draws again only the rows whose
texts changed (grid.py's show_changes); every other row keeps the line it was
drawn with. These tests read what is on screen — the grid's lines as Textual
would paint them, from its own caches — and fail if a row that changed kept
its old line: a dependent far down the sheet, a row in a folded group, an
error value appearing and going, a ✗ or ! that comes or goes, a value that
needs a wider column, the formula bar and the inspector of the selected cell."""
from __future__ import annotations

import re
from pathlib import Path

from textual.geometry import Region
from textual.widgets import Input, OptionList, Static

from supersheet.tui.app import SupersheetApp
from supersheet.tui.widgets.rowsview import RowsView
from supersheet.units import format_number

SIZE = (120, 36)
FAR = 60    # cells in the long chain: its end is far below the first screen


def redraw_sheet(tmp_path: Path) -> Path:
    lines = ["title: Redraw", "cells:", "  # inputs", "  x: 2", "  d: 2", "  untouched: 7 GB",
             "  y: = x * 3", "  r: = 1 / (d - 1)", "", "  # chain"]
    lines += ["  c0: = x + 1"] + [f"  c{i}: = c{i - 1} + 1" for i in range(1, FAR)]
    lines += ["", "  # tail", f"  far: = c{FAR - 1} * 2", "assume:", "  small: x <= 10", "expect:", "  y: 6 ± 0.000001%"]
    path = tmp_path / "redraw.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def screen_lines(app: SupersheetApp) -> list[str]:
    """The grid's lines as they would be painted now (its cached lines where they
    were not refreshed: what the terminal shows)."""
    grid = app.grid
    lines = grid.render_lines(Region(0, 0, grid.outer_size.width, grid.outer_size.height))
    return [line.text for line in lines]


def on_screen(app: SupersheetApp, key: str) -> str:
    """The line showing `key`'s row (its name is the line's first word, after a marker)."""
    for line in screen_lines(app):
        words = re.sub(r"[│╭╮╰╯─]", " ", line).split()
        if words[:1] == [key] or (len(words) > 1 and words[0] in "!✗…" and words[1] == key):
            return line
    raise AssertionError(f"{key} is not on screen:\n" + "\n".join(screen_lines(app)))


async def show_row(pilot, key: str) -> str:
    """Move the cursor to `key` (scrolling it into view) and read its line on screen."""
    pilot.app.go_to(key)
    await pilot.pause()
    return on_screen(pilot.app, key)


async def edit(pilot, key: str, text: str) -> None:
    pilot.app.go_to(key)
    await pilot.press("enter")
    pilot.app.query_one("#editor-input", Input).value = text
    await pilot.press("enter")
    await pilot.pause()


def assert_every_drawn_row_current(app: SupersheetApp) -> None:
    """Every row the grid keeps drawn (on screen or not) is what drawing it afresh gives."""
    grid = app.grid
    for key, kept in list(grid._strips.items()):
        grid._strips.pop(key)
        grid._texts.pop(key, None)
        fresh = RowsView._strip(grid, key)
        assert list(kept) == list(fresh), f"{key}: drawn {kept.text!r}, now {fresh.text!r}"


async def test_a_dependent_far_below_shows_its_new_value_when_scrolled_to(tmp_path: Path) -> None:
    app = SupersheetApp(redraw_sheet(tmp_path), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        assert " 124 " in await show_row(pilot, "far")            # drawn once, then off screen
        assert " 62 " in await show_row(pilot, f"c{FAR - 1}")
        await edit(pilot, "x", "5")
        assert app.document.layout is app._shown_layout           # the in-place path, not a reload
        assert "far" not in "".join(screen_lines(app))
        assert_every_drawn_row_current(app)
        line = await show_row(pilot, "far")
        assert " 130 " in line and "↑" in line and "was 124" in line, line
        assert " 125 " not in on_screen(app, f"c{FAR - 2}") and " 64 " in on_screen(app, f"c{FAR - 2}")


async def test_a_row_in_a_folded_group_shows_its_new_value_when_unfolded(tmp_path: Path) -> None:
    app = SupersheetApp(redraw_sheet(tmp_path), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await show_row(pilot, "c3")
        grid = app.grid
        section = grid._section_of["c3"]
        grid.go_to_section(section.id)
        grid.action_toggle_section()                              # fold the chain
        await pilot.pause()
        assert section.id in grid.folded
        await edit(pilot, "x", "10")
        assert_every_drawn_row_current(app)
        line = await show_row(pilot, "c3")                        # go_to unfolds it
        assert " 14 " in line and "was 6" in line, line


async def test_an_error_value_appears_and_goes(tmp_path: Path) -> None:
    app = SupersheetApp(redraw_sheet(tmp_path), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        assert " 1 " in on_screen(app, "r")
        await edit(pilot, "d", "1")
        assert re.search(r"\br +#DIV/0 ", on_screen(app, "r")), on_screen(app, "r")
        assert_every_drawn_row_current(app)
        await edit(pilot, "d", "3")
        line = on_screen(app, "r")
        assert re.search(r"\br +0\.5 +• was #DIV/0", line), line
        assert_every_drawn_row_current(app)


async def test_a_failing_expectation_and_a_violated_assumption_mark_their_rows(tmp_path: Path) -> None:
    app = SupersheetApp(redraw_sheet(tmp_path), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        assert not on_screen(app, "y").split("│")[1].lstrip().startswith("✗")
        await edit(pilot, "x", "11")          # y = 33, expected 6; x <= 10 no longer holds
        assert app.document.layout is app._shown_layout
        assert "✗ y" in on_screen(app, "y") and " 33 " in on_screen(app, "y")
        assert "✗ OUTSIDE" in await show_row(pilot, "small")
        assert app.grid.problems >= {"small"} and "! small" in on_screen(app, "small")
        assert_every_drawn_row_current(app)
        await edit(pilot, "x", "2")
        assert "✗ y" not in on_screen(app, "y") and " 6 " in on_screen(app, "y")
        line = await show_row(pilot, "small")
        assert "✓ holds" in line and "! small" not in line, line
        assert_every_drawn_row_current(app)


async def test_an_expectation_failing_below_the_shown_precision_marks_its_row(tmp_path: Path) -> None:
    """y shows 6 before and after (no visible change), but its expectation (6 ± 0.000001%) now fails."""
    app = SupersheetApp(redraw_sheet(tmp_path), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await edit(pilot, "x", "2.0000001")
        assert "y" not in app.grid.changes
        line = on_screen(app, "y")
        assert "✗ y" in line and re.search(r"\by +6 ", line), line
        await edit(pilot, "x", "2")
        assert "✗ y" not in on_screen(app, "y")
        assert_every_drawn_row_current(app)


async def test_the_last_edits_highlights_clear_on_the_next_edit(tmp_path: Path) -> None:
    app = SupersheetApp(redraw_sheet(tmp_path), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await edit(pilot, "x", "3")
        assert "was 6" in on_screen(app, "y")
        await edit(pilot, "d", "5")          # y does not change
        line = on_screen(app, "y")
        assert "was" not in line and re.search(r"\by +9 ", line), line
        assert "was 1" in on_screen(app, "r")
        assert_every_drawn_row_current(app)


async def test_a_filter_by_value_follows_the_new_values(tmp_path: Path) -> None:
    app = SupersheetApp(redraw_sheet(tmp_path), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.grid.set_filter("33")                 # no value is 33 yet
        await pilot.pause()
        assert app.grid.index_of("y") is None
        assert app.commit_edit("x", "11")         # y = 33
        await pilot.pause()
        assert app.grid.index_of("y") is not None and re.search(r"\by +33 ", on_screen(app, "y"))
        assert app.commit_edit("x", "2")
        await pilot.pause()
        assert app.grid.index_of("y") is None


async def test_a_longer_value_widens_its_column(tmp_path: Path) -> None:
    app = SupersheetApp(redraw_sheet(tmp_path), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        before = app.grid.widths[1]
        await edit(pilot, "x", "-123456789")
        value = app.document.shown("far", app.document.value("far")).text
        assert app.grid.widths[1] > before and len(value) + 3 <= app.grid.widths[1]
        assert value in await show_row(pilot, "far") and "…" not in on_screen(app, "far")
        assert_every_drawn_row_current(app)


def inspected(app: SupersheetApp) -> str:
    """What the inspector shows: its description of the cell and its links with their values."""
    body = str(app.query_one("#inspector-body", Static).render())
    links = app.query_one("#inspector-links", OptionList)
    return body + "\n" + "\n".join(str(links.get_option_at_index(i).prompt) for i in range(links.option_count))


async def test_the_formula_bar_and_the_inspector_follow_the_edit(tmp_path: Path) -> None:
    app = SupersheetApp(redraw_sheet(tmp_path), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("x")
        await pilot.press("f2")                  # the inspector
        await pilot.pause()
        assert app.inspector.display and re.search(r"\by\b.*\b6\b", inspected(app)), inspected(app)
        await edit(pilot, "x", "4")
        assert app.query_one("#editor-input", Input).value == "4"
        assert re.search(r"\by\b.*\b12\b", inspected(app)) and not re.search(r"\by\b.*\b6\b", inspected(app))
        await pilot.press("down", "down", "down")   # x, d, untouched, y
        await pilot.pause()
        assert app.grid.current_key == "y"
        assert app.query_one("#editor-input", Input).value == "= x * 3"
        assert re.search(r"\b12\b", inspected(app).split("uses")[0]), inspected(app)


async def test_new_samples_draw_again_only_the_ranges_they_changed(tmp_path: Path) -> None:
    """Samples arrive while the user may be typing: a row on screen whose range reads
    the same keeps its rendered line (only undimmed), a row whose range changed shows
    the new one, and every range is shown as the new samples have it."""
    from supersheet.editor.sample import sample_workbook
    sheet = tmp_path / "uncertain.yaml"
    sheet.write_text((Path(__file__).parent / "sheets" / "uncertain-step.yaml").read_text(), encoding="utf-8")
    app = SupersheetApp(sheet, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        grid, before = app.grid, app.sampling.samples
        assert before is not None and {"efficiency", "step", "comm_time"} <= before.uncertain
        kept = {key: grid._strips[key] for key in ("efficiency", "step", "comm_time")}
        # the same sheet sampled again: every range reads the same, no row is rendered again
        grid.set_samples(before, pending=True)
        app.sampling.show_samples(sample_workbook(app.document.workbook))
        await pilot.pause()
        assert all(grid._strips[key] is strip for key, strip in kept.items())
        # an input that moves only the HBM term: read_time and step change, comm_time does not
        app.document.apply("weights", "71 GB")     # (the document alone: only the samples are new)
        moved = sample_workbook(app.document.workbook)
        grid.set_samples(app.sampling.samples, pending=True)
        widths = list(grid.widths)
        app.sampling.show_samples(moved)
        await pilot.pause()
        assert grid.widths == widths      # (new widths would draw every row again, rightly)
        assert grid._strips["comm_time"] is kept["comm_time"]
        assert grid._strips["step"] is not kept["step"]
        for key in ("step", "read_time", "comm_time", "efficiency"):
            record = moved.record(key)
            assert record is not None and f"({format_number(record['p5'], moved.digits(key))} …" in on_screen(app, key)


async def test_an_edit_paints_its_changed_rows_first_and_alone(tmp_path: Path) -> None:
    """The first frame after an edit of an input's value repaints the grid's changed rows
    only: not the whole screen (a callback meant for after it, the title's or the focus's
    return, run before it: rowsview.py's repaint_rows) and not the editor bar or the status
    line, which follow in the next frame (widgets/status.py, widgets/editor.py) and then say
    what the edit did. A sheet with no problems: a problem count that changes draws the
    status bar in that frame too."""
    from textual._compositor import ChopsUpdate

    path = tmp_path / "chain.yaml"
    path.write_text("title: Chain\ncells:\n  # inputs\n  x: 2 GB\n  untouched: 2\n\n  # chain\n  c0: = x * 2\n"
                    + "".join(f"  c{i}: = c{i - 1} + x\n" for i in range(1, 10)), encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    frames: list[object] = []
    display = app._display

    def recorded(screen, update):
        frames.append(update)
        return display(screen, update)

    app._display = recorded  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await edit(pilot, "x", "3 GB")        # the first edit makes the sheet unsaved: a new title
        checked = 0
        for gb in (4, 5, 6):
            await pilot.press("enter")
            assert app.editor.editing
            app.query_one("#editor-input", Input).value = f"{gb} GB"
            await pilot.pause()
            frames.clear()
            await pilot.press("enter")
            await pilot.pause()
            first = next(f for f in frames if f is not None)
            assert isinstance(first, ChopsUpdate), type(first)       # not a full repaint
            grid = app.grid
            lines = sorted({y for y, _, _ in first.spans})
            row_y = {key: grid.content_region.y + 1 + grid.index_of(key) - grid.scroll_offset.y
                     for key in ("x", "c0", "c9", "untouched")}
            assert {row_y["x"], row_y["c0"], row_y["c9"]} <= set(lines), (row_y, lines)
            assert row_y["untouched"] not in lines and all(grid.region.y < y < grid.region.bottom - 1 for y in lines)
            status = str(app.query_one("#status", Static).render())
            assert "edited x: " in status and "✎" not in str(app.query_one("#editor-label", Static).render())
            assert f" {gb * 11} GB " in on_screen(app, "c9")
            checked += 1
        assert checked == 3
