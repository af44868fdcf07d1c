"""Save As (issue 31): the sheet with its unsaved edits goes to a new file,
never over an existing one; the editor then edits the new file and the old one
stays as it was on disk. A folder where the relative imports would name other
files is refused with them named."""
from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Static

from supersheet.editor.cells import StructureError
from supersheet.editor.document import Document
from supersheet.editor.saveas import save_as
from supersheet.tui.app import SupersheetApp

SIZE = (120, 36)


def test_save_as_refuses_what_would_lose_or_mislead(example: Path, tmp_path: Path) -> None:
    document = Document(example)
    beside = example.parent / "6.1.3-prefill-vs-decode.yaml"
    before = beside.read_bytes()
    with pytest.raises(StructureError, match="never writes over a file"):
        save_as(document.workbook, example, document.text(), beside)
    assert beside.read_bytes() == before
    with pytest.raises(StructureError, match=r"imports \.\./hardware/hgx-h100\.yaml, \.\./models/"):
        save_as(document.workbook, example, document.text(), tmp_path / "elsewhere.yaml")
    assert not (tmp_path / "elsewhere.yaml").exists()
    with pytest.raises(StructureError, match="ends in .yaml"):
        save_as(document.workbook, example, document.text(), example.parent / "x.txt")
    assert not [p for p in example.parent.iterdir() if p.name.endswith(".tmp")]     # no temporary left


async def test_save_as_writes_the_edits_to_a_new_file_and_edits_it(example: Path) -> None:
    before = example.read_text(encoding="utf-8")
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("context")
        await pilot.press(*"16384", "enter", "ctrl+w")
        await pilot.pause()
        assert app.screen.query_one(Input).value == "6.1.2-running-example-2.yaml"
        await pilot.press(*"plan-16k.yaml", "enter")        # the proposed name is selected: replaced
        await pilot.pause()
        target = example.parent / "plan-16k.yaml"
        assert app.document.path == target and not app.document.dirty
        assert "saved as" in str(app.query_one("#status", Static).render())
        assert app.document.raw_text("context") == "16384 token"
    assert example.read_text(encoding="utf-8") == before                            # the old file as it was
    written = target.read_text(encoding="utf-8").splitlines()
    assert [(a, b) for a, b in zip(before.splitlines(), written) if a != b] == [
        ("    value: 8192 token", "    value: 16384 token")]
    assert len(written) == len(before.splitlines())


async def test_save_as_leaves_no_recovery_of_the_old_file(example: Path) -> None:
    """The unsaved edits went to the new file: the old file's recovery file goes with them. It
    stayed, so the next `supersheet edit` of the old file offered to "recover" edits that were
    saved (in the new file), with a diff against a file that never had them."""
    from supersheet.editor import recovery
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("context")
        await pilot.press(*"16384", "enter")
        await pilot.pause()
        app.recovery.write()              # as RECOVER_AFTER seconds after the edit
        assert recovery.find(example) is not None
        await pilot.press("ctrl+w", *"plan-16k.yaml", "enter")
        await pilot.pause()
        target = example.parent / "plan-16k.yaml"
        assert app.document.path == target and not app.document.dirty
        assert recovery.find(example) is None and recovery.find(target) is None
        app.go_to("context")
        await pilot.press(*"32768", "enter")       # the new file's own unsaved edits are kept as ever
        await pilot.pause()
        app.recovery.write()
        found = recovery.find(target)
        assert found is not None and "32768 token" in found.text and recovery.find(example) is None
