"""Removing `expect` entries from the editor: with the cell they are about
(the delete question offers it), from the diagnostic of a stale or failing
entry (Del in F4), or from a cell (Ctrl+K). Each is one undo step that
changes only the entry's characters, through the same text edits as the
other structural edits (editor/expectations.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from supersheet.editor import expectations
from supersheet.editor.cells import StructureError
from supersheet.editor.document import Document
from supersheet.tui.app import SupersheetApp
from supersheet.tui.screens import ChoiceScreen

SIZE = (120, 36)
Q9 = Path("questions") / "q9-rank-completion-times.yaml"
ALGBW = Path("supernodes") / "6.4.3-algbw-busbw.yaml"


def without(text: str, *gone: str) -> str:
    """`text` without the lines `gone` (each must be there once)."""
    lines = text.split("\n")
    for line in gone:
        assert lines.count(line) == 1, line
        lines.remove(line)
    return "\n".join(lines)


def codes(document: Document) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in document.diagnostics]


def rows(app: SupersheetApp) -> list[str]:
    panel = app.diagnostics_panel
    return [str(panel.get_option_at_index(i).prompt) for i in range(panel.option_count)]


def expect_line(text: str, name: str) -> int:
    """The line of `name`'s entry under the top-level `expect:` (1-based)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("expect:"))
    return next(i for i, line in enumerate(lines[start:], start) if line.startswith(f"  {name}:")) + 1


async def test_delete_offers_to_take_the_expectations_about_the_cell_in_the_same_undo_step(library: Path) -> None:
    path = library / Q9
    before = path.read_text(encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("skew_after")
        await pilot.press("delete")
        dialog = app.screen
        assert isinstance(dialog, ChoiceScreen) and dialog.focused.id == "answer-cancel"
        assert f"expect: skew_after (line {expect_line(before, 'skew_after')})" in dialog.message
        assert [c for c, _ in dialog.choices] == ["cancel", "delete_expectations", "delete"]
        await pilot.press("down", "enter")
        await pilot.pause()
        assert not app.document.has_cell("skew_after") and app.document.diagnostics == []
        await pilot.press("ctrl+z")         # one step: the cell and its expectation come back together
        assert app.document.has_cell("skew_after") and app.document.text() == before
        await pilot.press("ctrl+y", "ctrl+s")
        await pilot.pause()
    assert path.read_text(encoding="utf-8") == without(
        before, "  skew_after: = max(loads_after) / mean(loads_after)", "  skew_after: 1.367")


async def test_del_on_the_diagnostic_of_a_stale_expectation_removes_the_entry(library: Path) -> None:
    """A forced delete that keeps the expectation leaves E-NAME in F4; Del on that row
    removes the entry (one undo step) and the diagnostic is gone."""
    path = library / Q9
    before = path.read_text(encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("skew_after")
        await pilot.press("delete", "down", "down", "enter")     # delete, keep the expectations
        await pilot.pause()
        assert codes(app.document) == [("E-NAME", "expectation names unknown cell 'skew_after'")]
        await pilot.press("f4")
        await pilot.pause()
        app.diagnostics_panel.focus()
        await pilot.pause()
        app.diagnostics_panel.highlighted = 0
        await pilot.press("delete")
        await pilot.pause()
        assert app.document.diagnostics == []
        assert not any("skew_after" in row for row in rows(app))
        assert f"removed expect: skew_after (line {expect_line(before, 'skew_after') - 1})" in str(app.query_one("#status").render())
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert codes(app.document) == [("E-NAME", "expectation names unknown cell 'skew_after'")]
        assert any("expectation names unknown cell 'skew_after'" in row for row in rows(app))
        await pilot.press("ctrl+y", "ctrl+s")
        await pilot.pause()
    assert path.read_text(encoding="utf-8") == without(
        before, "  skew_after: = max(loads_after) / mean(loads_after)", "  skew_after: 1.367")


async def test_a_failing_expectation_goes_from_its_diagnostic_or_from_its_cell(library: Path) -> None:
    path = library / ALGBW
    before = path.read_text(encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        assert app.document.apply("time", "500 us").ok
        app.after_edit(app.document.apply("time", "500 us"), "edited time")
        failing = [m for c, m in codes(app.document) if c == "E-EXPECT"]
        assert len(failing) == 2 and failing[0].startswith("algbw") and failing[1].startswith("busbw")
        app.go_to("algbw")                       # Ctrl+K on the cell: asks which entry
        await pilot.press("ctrl+k")
        assert isinstance(app.screen, ChoiceScreen) and app.screen.focused.id == "answer-cancel"
        assert [label for _, label in app.screen.choices] == ["Cancel", "Remove expect: algbw (line 36)"]
        await pilot.press("down", "enter")
        await pilot.pause()
        assert [m.split(":")[0] for c, m in codes(app.document) if c == "E-EXPECT"] == ["busbw"]
        await pilot.press("f4")                  # Del on busbw's E-EXPECT in F4: no question
        await pilot.pause()
        panel = app.diagnostics_panel
        panel.focus()
        await pilot.pause()
        panel.highlighted = next(i for i, row in enumerate(rows(app)) if "E-EXPECT" in row)
        await pilot.press("delete")
        await pilot.pause()
        assert app.document.diagnostics == [] and rows(app) == ["no problems"]
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert path.read_text(encoding="utf-8") == without(
        before, "    value: 466.1 us", "  algbw: 143.98 GB/s           # the book: 143.99, from the unrounded time (see doc)",
        "  busbw: 269.96 GB/s           # the book: 269.98, same reason").replace(
        "  time:\n", "  time:\n    value: 500 us\n")


async def test_del_on_a_diagnostic_that_is_not_an_expectation_changes_nothing(library: Path) -> None:
    path = library / ALGBW
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("ranks")
        await pilot.press("ctrl+k")
        assert not isinstance(app.screen, ChoiceScreen)
        assert "no expect entry is about ranks" in str(app.query_one("#status").render())
        assert app.document.apply("ranks", "1").ok               # violates assume: a_collective
        app.after_edit(app.document.apply("ranks", "1"), "edited ranks")
        await pilot.press("f4")
        await pilot.pause()
        panel = app.diagnostics_panel
        panel.focus()
        await pilot.pause()
        panel.highlighted = next(i for i, row in enumerate(rows(app)) if "E-ASSUME" in row)
        text = app.document.text()
        await pilot.press("delete")
        await pilot.pause()
        assert app.document.text() == text
        assert "not in an expect entry" in str(app.query_one("#status").render())


# -- the text edits -----------------------------------------------------------------------
FLOW = """\
choose:
  best:   # the cheapest
    vary: {tp: [1, 2]}
    minimize: cost
    expect: {tp: 2, all_done: 119.1 ms, cost: 0.2 GPU*s}
  other:
    vary: {tp: [1, 2]}
    minimize: cost
    expect: {tp: 2}
"""


def test_a_flow_mapping_loses_only_the_entry_and_its_comma() -> None:
    def removed(*pairs: tuple[str, str]) -> str:
        found = [e for e in expectations.entries(FLOW) if (e.path[1], e.key) in pairs]
        assert len(found) == len(pairs)
        return expectations.remove(FLOW, found)
    line = "    expect: {tp: 2, all_done: 119.1 ms, cost: 0.2 GPU*s}"
    assert removed(("best", "tp")) == FLOW.replace(line, "    expect: {all_done: 119.1 ms, cost: 0.2 GPU*s}")
    assert removed(("best", "all_done")) == FLOW.replace(line, "    expect: {tp: 2, cost: 0.2 GPU*s}")
    assert removed(("best", "cost")) == FLOW.replace(line, "    expect: {tp: 2, all_done: 119.1 ms}")
    assert removed(("best", "tp"), ("best", "cost")) == FLOW.replace(line, "    expect: {all_done: 119.1 ms}")
    # the last entry of a mapping: its `expect` key goes too
    assert removed(("other", "tp")) == FLOW.replace("    minimize: cost\n    expect: {tp: 2}\n", "    minimize: cost\n")


BLOCK = """\
cells:
  step: 5 ms
expect:
  # from the book, p. 12
  step: 5 ms          # rounded
  p95(step):
  - 6 ms
  other: 1
sweeps:
  s:
    vary: {step: [1 ms, 2 ms]}
    expect:
      step: [1 ms, 2 ms]
"""


def test_a_block_mapping_loses_the_entry_lines_and_keeps_its_comments() -> None:
    entries = expectations.naming(BLOCK, "step")
    assert [e.label for e in entries] == ["expect: step (line 5)", "expect: p95(step) (line 6)",
                                          "sweeps: s: expect: step (line 13)"]
    assert expectations.entry_at(BLOCK, 7, 5) == entries[1]       # on the sequence under p95(step)
    assert expectations.entry_at(BLOCK, 8, 3).key == "other"
    assert expectations.entry_at(BLOCK, 2, 3) is None             # a cell, not an expectation
    assert expectations.remove(BLOCK, entries) == """\
cells:
  step: 5 ms
expect:
  # from the book, p. 12
  other: 1
sweeps:
  s:
    vary: {step: [1 ms, 2 ms]}
"""
    every = expectations.entries(BLOCK)
    assert [e.key for e in every[:3]] == ["step", "p95(step)", "other"]
    assert expectations.remove(BLOCK, every[:3]) == BLOCK.replace(   # the empty `expect:` goes; its comment stays
        "expect:\n  # from the book, p. 12\n  step: 5 ms          # rounded\n  p95(step):\n  - 6 ms\n  other: 1\n",
        "  # from the book, p. 12\n")


def test_what_cannot_be_removed_cleanly_is_refused() -> None:
    text = "expect: {a: 1,\n  b: 2}\ncells:\n  a: 1\n  b: 2\n"
    entry = next(e for e in expectations.entries(text) if e.key == "b")
    assert expectations.remove(text, [entry]) == "expect: {a: 1}\ncells:\n  a: 1\n  b: 2\n"
    shared = "expect: &e\n  a: 1\n  b: 2\nsweeps:\n  s:\n    vary: {a: [1]}\n    expect: *e\n"
    entry = expectations.entries(shared)[0]
    assert (entry.path, entry.key) == (("expect",), "a")
    with pytest.raises(StructureError, match="remove them in a text editor"):
        expectations.remove(shared, [entry])     # the anchor's other use would lose it too


def test_a_statistic_of_the_cell_is_an_expectation_about_it(library: Path) -> None:
    """`p95(cell):` names the cell too: listed among what uses it (so a plain delete is
    refused, not left to fail `check`), and removed with it on request."""
    document = Document(library / "questions" / "q4-ep-skew-monte-carlo.yaml")
    text = document.text()
    assert "expect (line 105)" in document.users("mc_skew_uniform")
    assert [e.label for e in document.expectations_of("mc_skew_uniform")] == [
        "sweeps: mc_skew_vs_batch: expect: mc_skew_uniform (line 93)", "expect: mc_skew_uniform (line 104)",
        "expect: p95(mc_skew_uniform) (line 105)"]
    assert not document.delete_cell("mc_skew_uniform").ok
    assert document.delete_cell("mc_skew_uniform", force=True, expectations_too=True).ok
    assert "mc_skew_uniform" not in document.text().split("\nexpect:")[1]
    assert document.expectations_of("mc_skew_uniform") == []
    document.undo()
    assert document.text() == text


async def test_the_prompts_break_lines_between_sentences_only(library: Path) -> None:
    """The rename prompt broke its sentence at fixed columns, so the dialog wrapped it
    again into one-word lines (`sweep,`) in the tmux run of issue 16."""
    app = SupersheetApp(library / ALGBW, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("time")
        for key in ("ctrl+r", "ctrl+n"):
            await pilot.press(key)
            for line in app.screen.message.split("\n"):
                assert not line or line.rstrip().endswith((".", ":")), line
            await pilot.press("escape")
