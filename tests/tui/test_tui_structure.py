"""Editing the structure from the editor: add, duplicate, delete a cell; each
one undo step, saved through the round-trip writer."""
from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Static

from supersheet.editor.document import Document, StructureError
from supersheet.tui.app import SupersheetApp
from supersheet.tui.screens import ChoiceScreen, PromptScreen

SIZE = (120, 36)


def status(app: SupersheetApp) -> str:
    return str(app.query_one("#status", Static).render())


def sheet(library: Path) -> Path:
    return library / "supernodes" / "6.4.3-algbw-busbw.yaml"


async def test_add_a_cell_after_the_selected_one_and_save(library: Path, line_diff) -> None:
    path = sheet(library)
    before = path.read_text(encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("time")
        await pilot.press("ctrl+n")
        assert isinstance(app.screen, PromptScreen)
        app.screen.query_one(Input).value = "busbw_per_rank: = busbw / ranks -> GB/s"
        await pilot.press("enter")
        await pilot.pause()
        assert app.grid.current_key == "busbw_per_rank"
        assert app.grid.texts("busbw_per_rank")[1].plain.strip() == "16.87 GB/s"
        # undo and redo say the step in words (they read `undo busbw_per_rank = added busbw_per_rank`)
        await pilot.press("ctrl+z")
        assert status(app).startswith("undo: added busbw_per_rank"), status(app)
        await pilot.press("ctrl+y")
        assert status(app).startswith("redo: added busbw_per_rank"), status(app)
        await pilot.press("ctrl+s")
    lines = before.splitlines()
    end = lines.index("  algbw: = message / time -> GB/s") - 1      # the blank line that ends time's group
    assert lines[end] == ""
    new = "  busbw_per_rank: = busbw / ranks -> GB/s"             # in time's group, before the blank line
    assert path.read_text(encoding="utf-8").splitlines() == lines[:end] + [new] + lines[end:]


async def test_a_refused_new_cell_is_asked_again_with_what_was_typed(library: Path) -> None:
    """A line the sheet refuses (a formula naming no cell) is not lost with the dialog: the
    prompt comes back holding it, to fix the typo (it closed, the typed formula gone)."""
    path = sheet(library)
    before = path.read_text(encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("time")
        await pilot.press("ctrl+n")
        typed = "per_rank: = busbw / rankz -> GB/s"
        app.screen.query_one(Input).value = typed
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen) and app.screen.query_one(Input).value == typed
        assert "per_rank" not in app.document.workbook.model.cells and not app.document.dirty
        await pilot.press("backspace", "backspace", "backspace", "backspace", "backspace", "backspace",
                          "backspace", "backspace", "backspace", "s", " ", "-", ">", " ", "G", "B", "/", "s")
        assert app.screen.query_one(Input).value == "per_rank: = busbw / ranks -> GB/s"
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, PromptScreen) and app.grid.current_key == "per_rank"
        await pilot.press("ctrl+n", "escape")         # Esc still cancels
        await pilot.pause()
        assert not isinstance(app.screen, PromptScreen)
    assert path.read_text(encoding="utf-8") == before


async def test_delete_refuses_silently_nothing_and_asks_with_the_dependents(library: Path) -> None:
    path = sheet(library)
    before = path.read_text(encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("ranks")
        await pilot.press("delete")
        assert isinstance(app.screen, ChoiceScreen) and "used by bus_factor" in str(app.screen.message)
        assert app.screen.focused.id == "answer-cancel"
        await pilot.press("enter")
        assert "ranks" in app.document.workbook.model.cells
        app.go_to("busbw")
        await pilot.press("delete")
        await pilot.click("#answer-delete")
        await pilot.pause()
        assert "busbw" not in app.document.workbook.model.cells and app.document.dirty
        await pilot.press("ctrl+z")
        assert "busbw" in app.document.workbook.model.cells and not app.document.dirty
        await pilot.press("ctrl+s")
    assert path.read_text(encoding="utf-8") == before


async def test_duplicate_a_cell(library: Path) -> None:
    app = SupersheetApp(sheet(library), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("message")
        await pilot.press("ctrl+d")
        app.screen.query_one(Input).value = "message_2"
        await pilot.press("enter")
        await pilot.pause()
        assert app.document.raw_text("message_2") == "64 MiB" and app.grid.current_key == "message_2"
        assert "doc: Each rank's AllReduce input." in app.document.text().split("message_2:")[1]


def test_structure_is_refused_with_a_reason(library: Path) -> None:
    document = Document(library / "supernodes" / "6.1.2-running-example.yaml")
    for call in (lambda: document.add_cell("hgx.cards", "x", "1"),
                 lambda: document.add_cell("context", "2x", "1"),
                 lambda: document.add_cell("context", "cards", "1"),
                 lambda: document.delete_cell("fits")):
        try:
            call()
        except StructureError as e:
            assert str(e)
        else:
            raise AssertionError("not refused")
    result = document.add_cell("context", "broken", "= nowhere * 2")
    assert not result.ok and "broken" not in document.workbook.model.cells and not document.dirty


async def test_edit_a_new_sheet_asks_its_title_and_creates_it(tmp_path: Path) -> None:
    path = tmp_path / "new.yaml"
    app = SupersheetApp(path, watch_seconds=0, new=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen) and not path.exists()
        app.screen.query_one(Input).value = "Ring vs tree: my notes"
        await pilot.press("enter")
        await pilot.pause()
        assert app.document is not None and app.document.title == "Ring vs tree: my notes"
        assert app.grid.current_key == "x"
    assert path.read_text(encoding="utf-8") == "title: 'Ring vs tree: my notes'\ncells:\n  x: 1\n"


def test_what_names_a_cell_outside_formulas_is_listed_and_a_forced_delete_leaves_it_a_diagnostic(
        library: Path) -> None:
    """`expect:` and sweeps name cells too: deleting `skew_after` (no formula uses it,
    an expectation does) is refused with where it is named; forced, the expectation
    that names no cell any more is a diagnostic, as `supersheet check` reports it."""
    document = Document(library / "questions" / "q9-rank-completion-times.yaml")
    line = document.text().splitlines().index("  skew_after: 1.367") + 1
    assert document.users("skew_after") == [f"expect (line {line})"]
    example = Document(library / "supernodes" / "6.1.2-running-example.yaml")
    assert example.users("context")[0] == "kv_total" and example.users("context")[1].startswith("sweeps (line ")
    refused = document.delete_cell("skew_after")
    assert not refused.ok and refused.message == f"skew_after is used by expect (line {line})"
    assert document.diagnostics == []
    assert document.delete_cell("skew_after", force=True).ok
    found = [(d.code, d.message, d.span.line) for d in document.diagnostics]
    assert found == [("E-NAME", "expectation names unknown cell 'skew_after'", line - 1)]   # one line less now
    document.undo()
    assert document.diagnostics == []


async def test_the_delete_question_lists_the_expectation_and_f4_shows_what_it_left(library: Path) -> None:
    path = library / "questions" / "q9-rank-completion-times.yaml"
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("skew_after")
        await pilot.press("delete")
        assert isinstance(app.screen, ChoiceScreen) and app.screen.focused.id == "answer-cancel"
        assert "skew_after is used by expect (line " in app.screen.message
        assert "whatever is left naming it becomes a diagnostic" in app.screen.message
        await pilot.press("down", "down", "enter")     # keep the expectation (the second answer removes it)
        await pilot.pause()
        assert not app.document.has_cell("skew_after")
        await pilot.press("f4")
        await pilot.pause()
        panel = app.diagnostics_panel
        rows = [str(panel.get_option_at_index(i).prompt) for i in range(panel.option_count)]
        assert any("expectation names unknown cell 'skew_after'" in row for row in rows)


async def test_a_prompt_is_centred_like_the_other_questions(library: Path) -> None:
    """In the tmux run of issue 16 the prompts (a new sheet's title, add, rename) sat in
    the top left corner over the grid, while every other question is centred."""
    app = SupersheetApp(sheet(library), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("time")
        for key in ("ctrl+r", "delete"):
            await pilot.press(key)
            await pilot.pause()
            box = app.screen.query_one("#dialog").region
            assert abs((box.x + box.right) / 2 - SIZE[0] / 2) <= 1, (key, box)
            await pilot.press("escape")
