"""Renaming a cell from the editor: every reference in the sheet follows (found
with the formula lexer), one undo step, only the renamed lines change on save."""
from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from supersheet.editor.document import Document, StructureError
from supersheet.tui.app import SupersheetApp
from supersheet.tui.screens import PromptScreen

SHEET = """\
title: Ring vs tree (rename test)
cells:
  # the latency term
  alpha: 3 us        # one-way latency; alphabet below is another cell
  alphabet: 2
  link: 100 GB/s
  message: 64 MiB
  ranks: 8
  ring: = 2 * (ranks - 1) * (alpha + message / ranks / link) -> us
  tree:
    formula: 2 * alphabet * (alpha + message / link)
    unit: us
  fits: = ring < 10 s
expect:
  alpha: 3 us
  ring: 9396 us ± 1%
checks:
  latency_positive: alpha > 0 us
assume:
  small_latency: alpha < 1 ms   # the model has no congestion term
sweeps:
  by_latency:
    vary:
      alpha: [1 us, 3 us]
    show: [alpha, ring]
    where: alpha < 1 ms
solve:
  crossover:
    vary: alpha
    goal: ring == tree
    between: [1 ns, 1 s]
choose:
  best:
    vary: {alpha: [1 us, 3 us]}
    require: [fits, alpha <= 3 us]
    minimize: ring + alpha * 0
"""

RENAMED = {     # 1-based line -> the line after the rename; no other line may change
    4: "  startup_latency: 3 us        # one-way latency; alphabet below is another cell",
    9: "  ring: = 2 * (ranks - 1) * (startup_latency + message / ranks / link) -> us",
    11: "    formula: 2 * alphabet * (startup_latency + message / link)",
    15: "  startup_latency: 3 us",
    18: "  latency_positive: startup_latency > 0 us",
    20: "  small_latency: startup_latency < 1 ms   # the model has no congestion term",
    24: "      startup_latency: [1 us, 3 us]",
    25: "    show: [startup_latency, ring]",
    26: "    where: startup_latency < 1 ms",
    29: "    vary: startup_latency",
    34: "    vary: {startup_latency: [1 us, 3 us]}",
    35: "    require: [fits, startup_latency <= 3 us]",
    36: "    minimize: ring + startup_latency * 0",
}


def test_rename_rewrites_every_reference_as_one_undo_step(tmp_path: Path) -> None:
    path = tmp_path / "ring.yaml"
    path.write_text(SHEET, encoding="utf-8")
    document = Document(path)
    ring, tree = document.value("ring"), document.value("tree")
    result = document.rename_cell("alpha", "startup_latency")
    assert result.ok
    cells = document.workbook.model.cells
    assert "alpha" not in cells and "startup_latency" in cells and "alphabet" in cells
    assert document.value("ring") == ring and document.value("tree") == tree
    assert document.precedents("ring").count("startup_latency") == 1
    assert document.save()
    before, after = SHEET.splitlines(), path.read_text(encoding="utf-8").splitlines()
    assert len(after) == len(before)
    changed = {i + 1: new for i, (old, new) in enumerate(zip(before, after)) if old != new}
    assert changed == RENAMED
    document.undo()
    assert document.text() == SHEET and "alpha" in document.workbook.model.cells
    document.redo()
    assert "startup_latency" in document.workbook.model.cells


def test_rename_is_refused_with_a_reason(tmp_path: Path) -> None:
    path = tmp_path / "ring.yaml"
    path.write_text(SHEET, encoding="utf-8")
    document = Document(path)
    for name, reason in (("2fast", "not a cell name"), ("alphabet", "already a cell"),
                         ("a b", "not a cell name")):
        with pytest.raises(StructureError, match=reason):
            document.rename_cell("alpha", name)
    with pytest.raises(StructureError, match="no cell"):
        document.rename_cell("beta", "gamma")
    assert document.text() == SHEET and not document.dirty


def test_rename_refuses_a_reference_it_cannot_place_exactly(tmp_path: Path) -> None:
    path = tmp_path / "ring.yaml"
    folded = SHEET.replace("  fits: = ring < 10 s\n", "  fits: >-\n    = ring < 10 s\n    and alpha > 0 us\n")
    path.write_text(folded, encoding="utf-8")
    document = Document(path)
    with pytest.raises(StructureError, match="line 13"):
        document.rename_cell("alpha", "startup_latency")
    assert document.text() == folded


def test_rename_refuses_an_override_of_the_base_sheet(library: Path) -> None:
    path = library / "supernodes" / "6.4.2-ring-vs-tree-alpha-halved.yaml"
    document = Document(path)
    with pytest.raises(StructureError, match="overrides the base sheet's alpha"):
        document.rename_cell("alpha", "startup_latency")
    assert not document.dirty


async def test_rename_from_the_grid_and_save(library: Path) -> None:
    path = library / "supernodes" / "6.4.2-ring-vs-tree.yaml"
    before = path.read_text(encoding="utf-8").splitlines()
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=(120, 36)) as pilot:
        app.go_to("alpha")
        ring_startup = app.document.value("ring_startup")
        await pilot.press("ctrl+r")
        assert isinstance(app.screen, PromptScreen)
        app.screen.query_one(Input).value = "startup_latency"
        await pilot.press("enter")
        await pilot.pause()
        assert app.grid.current_key == "startup_latency"
        assert app.document.value("ring_startup") == ring_startup
        await pilot.press("ctrl+s")
    after = path.read_text(encoding="utf-8").splitlines()
    changed = [(old, new) for old, new in zip(before, after) if old != new]
    assert len(after) == len(before) and changed == [
        ("  alpha:", "  startup_latency:"),
        ("  ring_startup: = ring_rounds * alpha -> us", "  ring_startup: = ring_rounds * startup_latency -> us"),
        ("  tree: = tree_rounds * (alpha + message / link) -> us",
         "  tree: = tree_rounds * (startup_latency + message / link) -> us"),
    ]
