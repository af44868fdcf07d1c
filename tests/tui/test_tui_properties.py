"""A cell's unit, digits, doc and source from the editor: each edit is one
undo step and changes only the lines that hold them; a short-form cell
becomes long form only when it must, a formula's unit is its `-> unit`."""
from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from supersheet.editor.document import Document, StructureError
from supersheet.tui.app import SupersheetApp
from supersheet.tui.screens import ChoiceScreen, ImportedPropertiesScreen, PropertiesScreen

SHEET = """\
title: Properties test
cells:
  # inputs
  alpha: 3 us        # one-way latency
  link:
    value: 100 GB/s   # NVLink
    unit: GB/s   # per direction
    doc: Link bandwidth.

  # results
  ring: = 2 * alpha + 64 MiB / link -> us   # the ring
  tree: = alpha * 4
  total:
    formula: ring + tree
    digits: 3
expect:
  alpha: 3 us
"""


@pytest.fixture
def document(tmp_path: Path) -> Document:
    path = tmp_path / "props.yaml"
    path.write_text(SHEET, encoding="utf-8")
    return Document(path)


def saved(document: Document) -> list[str]:
    assert document.save()
    return document.path.read_text(encoding="utf-8").splitlines()


def replaced(lines: dict[int, list[str]]) -> list[str]:
    """SHEET with 1-based line numbers replaced by lists of lines (deleted when empty)."""
    out: list[str] = []
    for number, line in enumerate(SHEET.splitlines(), 1):
        out += lines.get(number, [line])
    return out


def test_a_short_input_becomes_long_form_keeping_its_comment(document: Document) -> None:
    value = document.value("alpha")
    result = document.set_properties("alpha", {"unit": "ns"})
    assert result.ok and document.value("alpha") == value
    assert document.workbook.checked.cells["alpha"].display_unit == "ns"
    assert len(document.history.undo_stack) == 1
    assert saved(document) == replaced({4: ["  alpha:", "    value: 3 us        # one-way latency", "    unit: ns"]})
    document.undo()
    assert document.text() == SHEET and document.properties("alpha")["unit"] == ""


def test_a_formula_unit_is_its_arrow_and_stays_short(document: Document) -> None:
    assert document.set_properties("ring", {"unit": "ms"}).ok
    assert document.set_properties("tree", {"unit": "ns"}).ok
    assert document.properties("ring")["unit"] == "ms" and document.properties("tree")["unit"] == "ns"
    assert saved(document) == replaced({11: ["  ring: = 2 * alpha + 64 MiB / link -> ms   # the ring"],
                                        12: ["  tree: = alpha * 4 -> ns"]})
    assert document.set_properties("ring", {"unit": ""}).ok      # no unit: the arrow goes
    assert document.text().splitlines()[10] == "  ring: = 2 * alpha + 64 MiB / link   # the ring"


def test_several_keys_of_a_long_form_cell_are_one_step(document: Document) -> None:
    result = document.set_properties("link", {"unit": "TB/s", "digits": "3", "doc": "", "source": "NVLink 4 spec"})
    assert result.ok and len(document.history.undo_stack) == 1
    assert document.properties("link") == {"unit": "TB/s", "digits": "3", "doc": "", "source": "NVLink 4 spec"}
    assert saved(document) == replaced({7: ["    unit: TB/s   # per direction", "    digits: 3"],
                                        8: ["    source: NVLink 4 spec"]})
    document.undo()
    assert document.text() == SHEET


def test_a_key_is_added_where_the_format_lists_it(document: Document) -> None:
    assert document.set_properties("total", {"unit": "ms", "doc": "Ring: then tree # both"}).ok
    assert document.cell("total").spec.doc == "Ring: then tree # both"
    assert saved(document) == replaced({14: ["    formula: ring + tree", "    unit: ms"],
                                        15: ["    digits: 3", "    doc: 'Ring: then tree # both'"]})


def test_bad_properties_are_refused_and_change_nothing(document: Document) -> None:
    with pytest.raises(StructureError, match="whole number"):
        document.set_properties("alpha", {"digits": "three"})
    with pytest.raises(StructureError, match="from 1 to 17"):
        document.set_properties("alpha", {"digits": "40"})
    result = document.set_properties("alpha", {"unit": "GB"})
    assert not result.ok and "GB" in result.rendered
    assert document.text() == SHEET and not document.dirty and not document.history.undo_stack


def test_a_cell_written_where_a_line_cannot_take_the_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "flow.yaml"
    for text, key in (("title: t\ncells: {a: 1 s, b: = a * 2}\n", "a"),
                      ("title: t\ncells:\n  a: {value: 1 s, unit: ms}\n", "a"),
                      ("title: t\ncells:\n  a: 1 s\n  b: >-\n    = a\n    * 2\n", "b")):
        path.write_text(text, encoding="utf-8")
        document = Document(path)
        with pytest.raises(StructureError, match="by hand"):
            document.set_properties(key, {"digits": "3"})
        assert document.text() == text and not document.dirty


def test_only_this_sheets_own_cells(library: Path) -> None:
    document = Document(library / "supernodes" / "6.1.2-running-example.yaml")
    for key in ("hgx.cards", "fits"):
        with pytest.raises(StructureError, match="own cells"):
            document.set_properties(key, {"unit": "GB"})
    assert not document.dirty


async def test_the_properties_dialog_sets_them_as_one_step_and_saves_their_lines(library: Path) -> None:
    from textual.widgets import Input

    from supersheet.tui.app import SupersheetApp
    from supersheet.tui.screens import PropertiesScreen
    path = library / "supernodes" / "6.1.2-running-example.yaml"
    before = path.read_text(encoding="utf-8").splitlines()
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=(120, 36)) as pilot:
        app.go_to("kv_total")
        await pilot.press("ctrl+e")
        assert isinstance(app.screen, PropertiesScreen)
        assert [field.value for field in app.screen.query(Input)] == ["GB", "", "", ""]
        app.screen.query_one("#property-unit", Input).value = "GiB"
        await pilot.press("down", "down", *"KV of one session", "enter")
        await pilot.pause()
        assert not isinstance(app.screen, PropertiesScreen)
        assert app.grid.texts("kv_total")[1].plain.strip().endswith("GiB")
        assert app.document.cell("kv_total").spec.doc == "KV of one session"
        assert len(app.document.history.undo_stack) == 1
        await pilot.press("ctrl+s")
    after = path.read_text(encoding="utf-8").splitlines()
    at = before.index("  kv_total: = model.kv_per_token * context -> GB")
    assert after == before[:at] + ["  kv_total:", "    formula: model.kv_per_token * context -> GiB",
                                   "    doc: KV of one session"] + before[at + 1:]


async def test_escape_leaves_the_properties_unchanged(library: Path) -> None:
    from supersheet.tui.app import SupersheetApp
    app = SupersheetApp(library / "supernodes" / "6.1.2-running-example.yaml", watch_seconds=0)
    async with app.run_test(size=(120, 36)) as pilot:
        app.go_to("capacity")
        await pilot.press("ctrl+e", *"x", "escape")
        await pilot.pause()
        assert not app.document.dirty and app.document.properties("capacity")["unit"] == "GB"
        app.go_to("hgx.cards")
        await pilot.press("ctrl+e")
        assert isinstance(app.screen, ImportedPropertiesScreen)   # an imported cell: its value only
        await pilot.press("escape")
        await pilot.pause()
    app = SupersheetApp(library / "supernodes" / "6.4.2-ring-vs-tree.yaml", watch_seconds=0)
    async with app.run_test(size=(120, 36)) as pilot:
        app.go_to("within_one_server")
        await pilot.press("ctrl+e")                   # an assumption has none: refused, said
        assert app.screen is app.screen_stack[0] and "is an assumption" in str(app.query_one("#status").render())


async def test_properties_of_an_imported_cell_open_the_sheet_it_is_written_in(library: Path) -> None:
    """Ctrl+E on hgx.cards: its unit, digits, doc and source are written in the imported
    sheet, shown read-only; Escape changes nothing, the button opens that sheet there
    with the same dialog, and nothing is written to it."""
    example = library / "supernodes" / "6.1.2-running-example.yaml"
    hgx = library / "hardware" / "hgx-h100.yaml"
    before = hgx.read_text(encoding="utf-8")
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=(120, 36)) as pilot:
        app.go_to("hgx.cards")
        await pilot.press("ctrl+e")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ImportedPropertiesScreen) and screen.focused.id == "property-value"
        assert screen.where == "../hardware/hgx-h100.yaml (as cards)"
        shown = [str(s.render()) for s in screen.query(".property-value")]
        assert shown == ["(none)", "(none)", "H100 SXM cards per server.",
                         "HGX H100 datasheet; DGX H100 user guide (8 H100, 640 GB GPU memory)"]
        assert screen.query_one("#property-value", Input).value == "8"
        await pilot.press("escape")
        await pilot.pause()
        assert app.document.path == example and not app.document.dirty
        assert "properties are in ../hardware/hgx-h100.yaml" in str(app.query_one("#status").render())
        await pilot.press("ctrl+e", "down", "enter")    # a burst: to the button, and open it
        await pilot.pause()
        await pilot.pause()
        assert app.document.path.resolve() == hgx.resolve() and app.grid.current_key == "cards"
        assert isinstance(app.screen, PropertiesScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, PropertiesScreen)
    assert hgx.read_text(encoding="utf-8") == before


async def test_the_value_of_an_imported_cell_is_overridden_from_its_properties(library: Path) -> None:
    """The one change the format lets an importing sheet make: the value, written as
    `use: hgx … set: cards` in this sheet (one undo step, comments kept), never in
    the imported file; Enter with the value unchanged writes nothing."""
    example = library / "supernodes" / "6.1.2-running-example.yaml"
    hgx = library / "hardware" / "hgx-h100.yaml"
    before, hgx_before = example.read_text(encoding="utf-8"), hgx.read_text(encoding="utf-8")
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=(120, 36)) as pilot:
        app.go_to("hgx.cards")
        await pilot.press("ctrl+e", "enter")             # unchanged: nothing written
        await pilot.pause()
        assert not app.document.dirty and "unchanged; nothing written" in str(app.query_one("#status").render())
        await pilot.press("ctrl+e", "ctrl+u", *"4", "enter")    # one burst
        await pilot.pause()
        assert not isinstance(app.screen, ImportedPropertiesScreen)
        assert app.document.raw_text("hgx.cards") == "4" and app.document.cell("hgx.cards").set_by is not None
        assert app.document.text() != before
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert app.document.text() == before
        await pilot.press("ctrl+y", "ctrl+s")
        await pilot.pause()
    after = example.read_text(encoding="utf-8")
    assert [b for a, b in zip(before.splitlines(), after.splitlines()) if a != b] == \
        ["  hgx: {sheet: ../hardware/hgx-h100.yaml, set: {cards: 4}}"]
    assert len(after.splitlines()) == len(before.splitlines())
    assert hgx.read_text(encoding="utf-8") == hgx_before


async def test_an_inherited_cell_is_written_in_the_variant_with_its_properties(library: Path) -> None:
    """A cell a variant inherits with `extends`: the format lets the variant replace it
    whole, so every field is editable, prefilled with the base's; Enter writes it into
    the variant's `cells:` as one undo step; the base file is untouched."""
    variant = library / "supernodes" / "6.1.2-running-example-32k.yaml"
    base = library / "supernodes" / "6.1.2-running-example.yaml"
    base_before, before = base.read_text(encoding="utf-8"), variant.read_text(encoding="utf-8")
    app = SupersheetApp(variant, watch_seconds=0)
    async with app.run_test(size=(120, 36)) as pilot:
        app.go_to("workspace")
        await pilot.press("ctrl+e", "enter")             # nothing changed: nothing written
        await pilot.pause()
        assert not app.document.dirty and "unchanged; nothing written" in str(app.query_one("#status").render())
        await pilot.press("ctrl+e")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ImportedPropertiesScreen) and screen.focused.id == "property-value"
        assert screen.where == "6.1.2-running-example.yaml (as workspace)" and "`cells: workspace`" in screen.how
        fields = {f.id: f.value for f in screen.query(Input)}
        assert fields["property-value"] == "2 GiB" and fields["property-digits"] == ""
        assert fields["property-doc"].startswith("Activations and remaining workspace")
        await pilot.press("ctrl+u", *"3 GiB", "down", "down", *"3", "enter")    # value, then digits: one burst
        await pilot.pause()
        document = app.document
        assert document.raw_text("workspace") == "3 GiB" and document.home_of("workspace") is None
        assert document.properties("workspace")["digits"] == "3"
        assert document.properties("workspace")["doc"].startswith("Activations and remaining workspace")
        await pilot.press("ctrl+z")                      # one undo step takes all of it back
        await pilot.pause()
        assert document.text() == before and document.home_of("workspace") is not None
        await pilot.press("ctrl+y", "ctrl+s")
        await pilot.pause()
    lines = variant.read_text(encoding="utf-8").splitlines()
    at = lines.index("  workspace:")
    assert lines[at + 1:at + 3] == ["    value: 3 GiB", "    digits: 3"]
    assert lines[:at] == before.splitlines()[:at] and lines[at + 5:] == before.splitlines()[at:]
    assert base.read_text(encoding="utf-8") == base_before


async def test_a_cell_of_an_import_of_an_import_can_change_nothing_here(library: Path) -> None:
    """hgx.gpu.hbm_capacity: `set:` reaches only hgx's own cells, so this sheet can
    change nothing about it; the dialog says so and offers only to open its sheet."""
    example = library / "supernodes" / "6.1.2-running-example.yaml"
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=(120, 36)) as pilot:
        key = next(k for k in app.document.keys() if k.startswith("hgx.gpu."))
        app.go_to(key)
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen) and app.screen.focused.id == "answer-cancel"
        assert "This sheet can change none of it" in app.screen.message
        await pilot.press("enter")
        await pilot.pause()
        assert app.document.path == example and not app.document.dirty


async def test_a_long_doc_does_not_push_the_value_or_the_button_off_an_80x24_screen(tmp_path: Path, allow_path) -> None:
    allow_path(tmp_path)
    words = " ".join(f"word{i}" for i in range(60))
    (tmp_path / "lib.yaml").write_text(
        f"title: lib\ncells:\n  cards:\n    value: 8\n    doc: {words}\n    source: {words}\n", encoding="utf-8")
    (tmp_path / "main.yaml").write_text("title: main\nuse:\n  lib: lib.yaml\ncells:\n  n: = lib.cards * 2\n",
                                        encoding="utf-8")
    app = SupersheetApp(tmp_path / "main.yaml", watch_seconds=0)
    async with app.run_test(size=(80, 24)) as pilot:
        app.go_to("lib.cards")
        await pilot.press("ctrl+e")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ImportedPropertiesScreen)
        dialog = screen.query_one("#dialog")
        assert dialog.region.bottom <= 24 and dialog.region.y >= 0
        field = screen.query_one("#property-value", Input)
        assert screen.focused is field and dialog.region.contains_region(field.region)
        await pilot.press("down")
        await pilot.pause()
        button = screen.query_one("#answer-open")
        assert screen.focused is button and dialog.region.contains_region(button.region)


async def test_a_cell_of_the_bundled_library_is_named_by_its_library_name(tmp_path: Path) -> None:
    """A sheet of one's own imports `supersheet:hardware/h100-sxm.yaml`: Ctrl+E on its cell says
    where it is written by the library name (format 10.1), not by where supersheet is installed."""
    from supersheet.engine.base.project import bundled_library
    sheet = tmp_path / "plan.yaml"
    sheet.write_text("use:\n  gpu: supersheet:hardware/h100-sxm.yaml\ncells:\n  weights: 58.96 GB\n"
                     "  t: = weights / gpu.hbm_bandwidth -> ms\n", encoding="utf-8")
    app = SupersheetApp(sheet, watch_seconds=0)
    async with app.run_test(size=(120, 36)) as pilot:
        app.go_to("gpu.hbm_capacity")
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert isinstance(app.screen, ImportedPropertiesScreen)
        assert app.screen.where == "supersheet:hardware/h100-sxm.yaml (as hbm_capacity)"
        assert str(bundled_library()) not in app.screen.where
