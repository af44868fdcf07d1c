"""Problems are never silent (issue 31): the status line counts them (errors —
the sheet's and its error values —, failed checks, violated assumptions, failed
expectations), F8 / Shift+F8 go through them in F4's order, and F4 names the
cell and the code of every error value."""
from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Static

from supersheet.editor.document import Document
from supersheet.editor.problems import summary
from supersheet.tui.app import COUNT_SHARE, SupersheetApp

SIZE = (170, 30)    # wide enough for the count with its kinds (COUNT_SHARE)
SHEET = """\
title: problems
cells:
  a: 0
  b: = 1 / a
  c: = b * 2
  d: = sqrt(a - 1)
  e: = a + 1
checks:
  positive: a > 1
assume:
  small: e < 3
expect:
  e: 2.5
"""


def status(app: SupersheetApp, which: str = "#status") -> str:
    return str(app.query_one(which, Static).render())


def test_the_problems_of_a_sheet_are_counted_by_kind(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(SHEET, encoding="utf-8")
    document = Document(path)
    codes = [(d.code, d.message.split(" (")[0]) for d in document.problems]
    assert ("E-VALUE", "#DIV/0 in b") in codes and ("E-VALUE", "#DIV/0 in c") in codes
    assert ("E-VALUE", "#NUM in d") in codes and ("E-CHECK", "check positive fails: a > 1") in codes
    assert [d.hint for d in document.problems if d.message.startswith("#DIV/0 in c")] == ["from b"]
    assert summary(document.problems) == "5 problems: 3 errors, 1 failed check, 1 failed expectation"
    document.apply("a", "2")
    assert summary(document.problems) == "2 problems: 1 violated assumption, 1 failed expectation"   # e = 3
    document.apply("a", "1.5")
    assert summary(document.problems) == "" and document.problems == []


async def test_the_status_line_counts_them_and_f8_goes_through_them(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(SHEET, encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "5 problems: 3 errors, 1 failed check, 1 failed expectation · F8" in status(app, "#problems")
        visited = []
        for _ in range(6):
            await pilot.press("f8")
            await pilot.pause()
            visited.append(app.grid.current_key)
            assert app.focused is app.grid
        assert visited == ["e", "b", "c", "d", "positive", "e"]     # F4's order, and round
        assert "problem 1/5: E-EXPECT" in status(app)
        await pilot.press("shift+f8", "shift+f8")
        await pilot.pause()
        assert app.grid.current_key == "d" and "problem 4/5: E-VALUE #NUM in d (= sqrt(a - 1))" in status(app)
        await pilot.press("f4")
        await pilot.pause()
        panel = app.diagnostics_panel
        rows = [str(panel.get_option_at_index(i).prompt) for i in range(panel.option_count)]
        assert any(r.startswith("E-VALUE") and "#DIV/0 in b" in r for r in rows)
        assert any(r.startswith("E-VALUE") and "#NUM in d" in r for r in rows)
        await pilot.press("f4")
        app.go_to("a")
        await pilot.press("enter")
        app.query_one("#editor-input", Input).value = "1.5"
        await pilot.press("enter")
        await pilot.pause()
        assert status(app, "#problems") == ""
        await pilot.press("f8")
        assert "no problems" in status(app)


async def test_the_count_is_never_cut_when_it_grows(tmp_path: Path) -> None:
    """The count's width follows its text: it was laid out again only when it appeared or went,
    so a count that grew from "2 problems: …" to "5 problems: …" kept the old width and lost its
    end (`⚠ 20 problems: 1 failed check, 19` at 120 columns, the `· F8` gone). Where the kinds
    would take more than COUNT_SHARE of the line, the total alone is shown, whole."""
    path = tmp_path / "p.yaml"
    path.write_text(SHEET.replace("  a: 0\n", "  a: 2\n"), encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        count = app.query_one("#problems", Static)
        widths = []
        for value, said in [("2", "2 problems: 1 violated assumption, 1 failed expectation"),
                            ("0", "5 problems: 3 errors, 1 failed check, 1 failed expectation"),
                            ("1.2", "1 problem: 1 failed expectation"),
                            ("0", "5 problems: 3 errors, 1 failed check, 1 failed expectation")]:
            if value != "2":
                app.go_to("a")
                await pilot.press("enter")
                app.query_one("#editor-input", Input).value = value
                await pilot.press("enter")
                await pilot.pause()
                await pilot.pause()
            text = f" ⚠ {said} · F8 "
            assert status(app, "#problems") == text
            assert count.region.width == len(text), (value, count.region.width, text)
            widths.append(count.region.width)
        assert len(set(widths)) == 3      # it grew, shrank and grew again


async def test_a_narrow_status_line_shows_the_total_whole(tmp_path: Path) -> None:
    """At 80 or 120 columns the count with all its kinds would leave the message beside it a few
    characters: the last kinds give way to `…` (errors stay longest), then all of them; the
    total and F8 are always shown whole (all the kinds are in F4)."""
    path = tmp_path / "p.yaml"
    path.write_text(SHEET, encoding="utf-8")
    for width, said in ((80, " ⚠ 5 problems: 3 errors, … · F8 "), (120, " ⚠ 5 problems: 3 errors, 1 failed check, … · F8 "),
                        (60, " ⚠ 5 problems · F8 ")):
        app = SupersheetApp(path, watch_seconds=0)
        async with app.run_test(size=(width, 24)) as pilot:
            await pilot.pause()
            count = app.query_one("#problems", Static)
            assert status(app, "#problems") == said and count.region.width == len(said)
            assert len(said) <= width * COUNT_SHARE


async def test_the_count_is_fitted_again_when_the_terminal_is_resized(tmp_path: Path) -> None:
    """The count was fitted to the width only when the sheet was checked: after the terminal
    went from 170 to 80 columns it kept all its kinds (the message beside it cut to `1…`) until
    the next edit. It follows every resize, under a dialog too (there when the dialog goes)."""
    path = tmp_path / "p.yaml"
    path.write_text(SHEET, encoding="utf-8")
    whole, narrow = " ⚠ 5 problems: 3 errors, 1 failed check, 1 failed expectation · F8 ", " ⚠ 5 problems: 3 errors, … · F8 "
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        count = app.query_one("#problems", Static)
        seen = []
        for width, said in ((80, narrow), (SIZE[0], whole), (60, " ⚠ 5 problems · F8 "), (120, " ⚠ 5 problems: 3 errors, 1 failed check, … · F8 ")):
            await pilot.resize_terminal(width, SIZE[1])
            await pilot.pause()
            assert status(app, "#problems") == said and count.region.width == len(said), (width, status(app, "#problems"))
            seen.append(said)
        await pilot.press("ctrl+n")           # a dialog over the sheet
        await pilot.pause()
        await pilot.resize_terminal(80, SIZE[1])
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert status(app, "#problems") == narrow and count.region.width == len(narrow)
        assert len(set(seen)) == 4
