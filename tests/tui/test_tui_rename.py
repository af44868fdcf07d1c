"""Renaming a cell from the editor: every reference in the sheet follows (found
with the formula lexer), one undo step, only the renamed lines change on save."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.widgets import Input

from supersheet.editor.document import Document, StructureError
from supersheet.engine.base.diagnostics import sheet_problems
from supersheet.tui.app import SupersheetApp
from supersheet.tui.screens import ChoiceScreen, PromptScreen

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
        assert isinstance(app.screen, ChoiceScreen) and "6.4.2-ring-vs-tree-alpha-halved.yaml (extends it; imports it as base)" in str(
            app.screen.message)
        await pilot.press("enter")      # only this sheet
        await pilot.press("ctrl+s")
    after = path.read_text(encoding="utf-8").splitlines()
    changed = [(old, new) for old, new in zip(before, after) if old != new]
    assert len(after) == len(before) and changed == [
        ("  alpha:", "  startup_latency:"),
        ("  ring_startup: = ring_rounds * alpha -> us", "  ring_startup: = ring_rounds * startup_latency -> us"),
        ("  tree: = tree_rounds * (alpha + message / link) -> us",
         "  tree: = tree_rounds * (startup_latency + message / link) -> us"),
    ]


# -- the sheets that import or extend the renamed cell's sheet ----------------------------------
LIB = """\
title: A latency library
cells:
  alpha: 3 us
  alphabet: 2
"""

USER = """\
title: Uses the library
use:
  l:
    sheet: lib/latency.yaml
    set: {alpha: 2 us}   # measured here
cells:
  alpha: 1 ms            # this sheet's own alpha: not the library's
  total: = l.alpha * 4 + alpha + l.alphabet * 1 us
expect:
  l.alpha: 2 us
sweeps:
  by_alpha:
    vary: {l.alpha: [1 us, 2 us]}
    show: [total]
"""

VARIANT = """\
title: The library, slower
extends: latency.yaml
cells:
  alpha: 5 us   # an override
  doubled: = 2 * alpha
"""

ON_TOP = """\
title: Extends the user sheet
extends: ../user.yaml
cells:
  total: = l.alpha * 8
"""

UNRELATED = """\
title: Names latency.yaml in its doc only
doc: see lib/latency.yaml
cells:
  alpha: 1 us
"""


def folder(tmp_path: Path, allow_path) -> Path:
    root = tmp_path / "sheets"
    for name, text in (("lib/latency.yaml", LIB), ("user.yaml", USER), ("lib/slower.yaml", VARIANT),
                       ("more/on-top.yaml", ON_TOP), ("unrelated.yaml", UNRELATED)):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    allow_path(root)
    return root


def test_importing_and_extending_sheets_are_found_and_updated(tmp_path: Path, allow_path, line_diff) -> None:
    root = folder(tmp_path, allow_path)
    document = Document(root / "lib" / "latency.yaml")
    assert document.rename_cell("alpha", "startup").ok
    updates = document.importers_of("alpha", "startup")
    assert [(u.path.relative_to(root.resolve()).as_posix(), u.how) for u in updates] == [
        ("lib/slower.yaml", "extends it"),
        ("more/on-top.yaml", "extends user.yaml, which imports it as l"),
        ("user.yaml", "imports it as l"),
    ]
    assert len(document.history.undo_stack) == 1
    for update in updates:      # nothing is written before the user says so
        assert update.path.read_text(encoding="utf-8") == update.before
    document.save()
    written, skipped = document.update_importers(updates)
    assert len(written) == 3 and skipped == []
    assert line_diff(USER, (root / "user.yaml").read_text(encoding="utf-8")) == [
        ("    set: {alpha: 2 us}   # measured here", "    set: {startup: 2 us}   # measured here"),
        ("  total: = l.alpha * 4 + alpha + l.alphabet * 1 us", "  total: = l.startup * 4 + alpha + l.alphabet * 1 us"),
        ("  l.alpha: 2 us", "  l.startup: 2 us"),
        ("    vary: {l.alpha: [1 us, 2 us]}", "    vary: {l.startup: [1 us, 2 us]}"),
    ]
    assert line_diff(VARIANT, (root / "lib" / "slower.yaml").read_text(encoding="utf-8")) == [
        ("  alpha: 5 us   # an override", "  startup: 5 us   # an override"),
        ("  doubled: = 2 * alpha", "  doubled: = 2 * startup"),
    ]
    assert line_diff(ON_TOP, (root / "more" / "on-top.yaml").read_text(encoding="utf-8")) == [
        ("  total: = l.alpha * 8", "  total: = l.startup * 8"),
    ]
    assert (root / "unrelated.yaml").read_text(encoding="utf-8") == UNRELATED
    for name in ("user.yaml", "lib/slower.yaml", "more/on-top.yaml"):   # each one checks again
        updated = Document(root / name)
        assert not sheet_problems(updated.workbook.diagnostics), name
    assert Document(root / "lib" / "slower.yaml").value("doubled") == pytest.approx(1e-5)


def test_undo_of_the_rename_writes_the_importers_back_and_redo_again(tmp_path: Path, allow_path) -> None:
    root = folder(tmp_path, allow_path)
    document = Document(root / "lib" / "latency.yaml")
    assert document.rename_cell("alpha", "startup").ok
    updates = document.importers_of("alpha", "startup")
    document.save()
    written, _ = document.update_importers(updates)
    renamed = {p: p.read_text(encoding="utf-8") for p in written}
    assert len(renamed) == 3 and all("startup" in text for text in renamed.values())
    result = document.undo()
    assert result is not None and result.ok and "alpha" in document.workbook.model.cells
    assert "wrote" in result.note and "user.yaml" in result.note
    assert (root / "user.yaml").read_text(encoding="utf-8") == USER          # byte for byte as before
    assert (root / "lib" / "slower.yaml").read_text(encoding="utf-8") == VARIANT
    assert (root / "more" / "on-top.yaml").read_text(encoding="utf-8") == ON_TOP
    assert document.dirty        # this sheet's undo is unsaved, like any undo
    result = document.redo()
    assert result is not None and "startup" in document.workbook.model.cells
    assert {p: p.read_text(encoding="utf-8") for p in written} == renamed
    # a file changed on disk after the update is left alone, and said
    (root / "user.yaml").write_text(renamed[(root / "user.yaml").resolve()] + "# mine\n", encoding="utf-8")
    result = document.undo()
    assert "not written: user.yaml: changed on disk since; left as it is" in result.note
    assert (root / "user.yaml").read_text(encoding="utf-8").endswith("# mine\n")
    assert (root / "lib" / "slower.yaml").read_text(encoding="utf-8") == VARIANT


def test_an_importer_changed_on_disk_since_is_not_overwritten(tmp_path: Path, allow_path) -> None:
    root = folder(tmp_path, allow_path)
    document = Document(root / "lib" / "latency.yaml")
    document.rename_cell("alpha", "startup")
    updates = document.importers_of("alpha", "startup")
    changed = USER.replace("title: Uses the library", "title: Uses the library (edited elsewhere)")
    (root / "user.yaml").write_text(changed, encoding="utf-8")
    written, skipped = document.update_importers(updates)
    assert len(written) == 2 and len(skipped) == 1 and "user.yaml: changed on disk" in skipped[0]
    assert (root / "user.yaml").read_text(encoding="utf-8") == changed


async def rename_in_the_grid(pilot, key: str, new: str) -> None:
    pilot.app.go_to(key)
    await pilot.press("ctrl+r")
    pilot.app.screen.query_one(Input).value = new
    await pilot.press("enter")
    await pilot.pause()


async def test_rename_offers_to_update_the_importing_sheets(library: Path) -> None:
    hgx = library / "hardware" / "hgx-h100.yaml"
    example = library / "supernodes" / "6.1.2-running-example.yaml"
    before = example.read_text(encoding="utf-8").splitlines()
    app = SupersheetApp(hgx, watch_seconds=0)
    async with app.run_test(size=(120, 36)) as pilot:
        await rename_in_the_grid(pilot, "cards", "gpus")
        await app.workers.wait_for_complete()       # the search for the other sheets
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        message = str(app.screen.message)
        assert "../supernodes/6.1.2-running-example.yaml (imports it as hgx)" in message
        assert "extends tp-allreduce-nvlink-vs-pcie.yaml, which imports it as hgx" in message
        assert "… and 5 more" in message        # 11 sheets: the answers stay on screen
        assert app.screen.focused.id == "answer-keep"       # the default changes no other file
        await pilot.click("#answer-update")
        await pilot.pause()
        assert not app.document.dirty and "gpus" in app.document.workbook.model.cells
        after = example.read_text(encoding="utf-8").splitlines()
        await pilot.press("ctrl+z")             # the rename, in this sheet and the others
        await pilot.pause()
        assert "cards" in app.document.workbook.model.cells
        assert example.read_text(encoding="utf-8").splitlines() == before
        assert "running-example.yaml" in str(app.query_one("#status").render())
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert example.read_text(encoding="utf-8").splitlines() == after
    assert [(a, b) for a, b in zip(before, after) if a != b] == [
        ("    formula: hgx.cards", "    formula: hgx.gpus"),
    ]
    assert not sheet_problems(Document(example).workbook.diagnostics)


async def test_keeping_the_importers_leaves_them_alone(library: Path) -> None:
    hgx = library / "hardware" / "hgx-h100.yaml"
    example = library / "supernodes" / "6.1.2-running-example.yaml"
    before = example.read_text(encoding="utf-8")
    app = SupersheetApp(hgx, watch_seconds=0)
    async with app.run_test(size=(120, 36)) as pilot:
        await rename_in_the_grid(pilot, "cards", "gpus")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("enter")      # the focused answer: only this sheet
        await pilot.pause()
        assert app.document.dirty and "still name cards" in str(app.query_one("#status").render())
    assert example.read_text(encoding="utf-8") == before


async def test_the_search_for_importers_runs_in_a_worker_and_keys_go_on_to_the_grid(
        library: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hgx = library / "hardware" / "hgx-h100.yaml"
    gate = threading.Event()
    search = Document.importers_of

    def slow(self, old, new):          # the search, held until the keys were typed
        gate.wait(10)
        return search(self, old, new)
    monkeypatch.setattr(Document, "importers_of", slow)
    app = SupersheetApp(hgx, watch_seconds=0)
    async with app.run_test(size=(120, 36)) as pilot:
        await rename_in_the_grid(pilot, "cards", "gpus")
        assert "searching the sheet root for other sheets that name cards…" in str(app.query_one("#status").render())
        assert not isinstance(app.screen, ChoiceScreen) and app.grid.has_focus
        row = app.grid.cursor
        await pilot.press("down", "down")  # a burst while it searches: the grid's, as typed
        await pilot.pause()
        assert app.grid.cursor == row + 2
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        dialog = app.screen        # then the question, with what was found; nothing changes by default
        assert isinstance(dialog, ChoiceScreen) and "11 other sheets name cards" in str(dialog.message)
        assert dialog.focused.id == "answer-keep"


async def test_no_question_when_nothing_names_the_cell_or_the_rename_was_undone(
        library: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = library / "loner.yaml"
    path.write_text("title: alone\ncells:\n  a: 1\n", encoding="utf-8")
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=(120, 36)) as pilot:
        await rename_in_the_grid(pilot, "a", "b")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not isinstance(app.screen, ChoiceScreen)
        assert "no other sheet names a" in str(app.query_one("#status").render())
    gate = threading.Event()
    search = Document.importers_of
    monkeypatch.setattr(Document, "importers_of", lambda self, old, new: (gate.wait(10), search(self, old, new))[1])
    app = SupersheetApp(library / "hardware" / "hgx-h100.yaml", watch_seconds=0)
    async with app.run_test(size=(120, 36)) as pilot:
        await rename_in_the_grid(pilot, "cards", "gpus")
        await pilot.press("ctrl+z")        # undone before the search ended: nothing to offer
        await pilot.pause()
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not isinstance(app.screen, ChoiceScreen) and "cards" in app.document.workbook.model.cells


def test_an_importer_keeps_its_bom_line_ends_and_mode(tmp_path: Path, allow_path) -> None:
    root = folder(tmp_path, allow_path)
    user = root / "user.yaml"
    user.write_bytes(("\ufeff" + USER).replace("\n", "\r\n").encode("utf-8"))
    user.chmod(0o640)
    document = Document(root / "lib" / "latency.yaml")
    document.rename_cell("alpha", "startup")
    written, _ = document.update_importers(document.importers_of("alpha", "startup"))
    assert user.resolve() in written
    data = user.read_bytes()
    assert data.startswith("\ufeff".encode("utf-8")) and data.count(b"\r\n") == USER.count("\n")
    assert (user.stat().st_mode & 0o777) == 0o640
    after = data.decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n")
    assert after == USER.replace("{alpha: 2 us}", "{startup: 2 us}").replace("l.alpha *", "l.startup *").replace(
        "l.alpha:", "l.startup:")


def test_a_cell_named_through_two_imports_in_sweep_and_expect_keys(tmp_path: Path, allow_path, line_diff) -> None:
    root = folder(tmp_path, allow_path)
    top = """\
title: Imports the user sheet
use:
  u: user.yaml
cells:
  double: = u.total * 2
expect:
  u.l.alpha: 2 us
sweeps:
  deep:
    vary: {u.l.alpha: [1 us, 2 us]}
    show: [u.l.alpha, double]
"""
    (root / "top.yaml").write_text(top, encoding="utf-8")
    document = Document(root / "lib" / "latency.yaml")
    document.rename_cell("alpha", "startup")
    updates = {u.path.name: u for u in document.importers_of("alpha", "startup")}
    assert updates["top.yaml"].how == "imports user.yaml as u, which imports it as l"
    assert line_diff(top, updates["top.yaml"].after) == [
        ("  u.l.alpha: 2 us", "  u.l.startup: 2 us"),
        ("    vary: {u.l.alpha: [1 us, 2 us]}", "    vary: {u.l.startup: [1 us, 2 us]}"),
        ("    show: [u.l.alpha, double]", "    show: [u.l.startup, double]"),
    ]
    document.save()
    document.update_importers(list(updates.values()))
    assert not sheet_problems(Document(root / "top.yaml").workbook.diagnostics)
