"""An edit of a shared instance's cell in the editor (issue 26, item 3; format 10.3).

TP16 in one NVLink domain (6.5.3) imports `latencies.yaml` as `lat`, and its TP8
comparator (6.4.2, imported as `tp8`) imports it too, without `set:`: one instance.
Editing `lat.nvlink_latency` in the editor moves both sides of the comparison, as
`--set lat.nvlink_latency=0.65us` does, checked here against the chapter's equations
written out independently of the sheets (tests/sheets/test_comparators_follow_hardware.py).
Saving asks before writing `latencies.yaml`, which every importer reads."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from textual.widgets import Button, Static

from supersheet.engine.present.present import show
from supersheet.tui.app import SupersheetApp
from supersheet.tui.screens import ChoiceScreen

SIZE = (140, 40)
HERE = Path(__file__).resolve().parent


def _independent():
    """The chapter's equations (Eq. 6-4, 6-5, 6-9) as the comparator test writes them."""
    spec = importlib.util.spec_from_file_location(
        "comparators", HERE.parent / "sheets" / "test_comparators_follow_hardware.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)      # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def value(app: SupersheetApp, key: str) -> str:
    return app.grid.texts(key)[1].plain.strip()


def status(app: SupersheetApp) -> str:
    return str(app.query_one("#status", Static).render())


def ms(app: SupersheetApp, key: str) -> float:
    document = app.document
    shown = show(document.workbook.checked, key, document.value(key))
    assert shown.unit == "ms"
    return shown.value


async def test_the_comparator_follows_an_edit_of_the_shared_latency(library: Path) -> None:
    chapter = _independent()
    at_file, at_065 = chapter.Hardware(), chapter.Hardware(alpha=0.65 * chapter.US)
    sheet = library / "supernodes" / "6.5.3-tp16-nvlink-domain.yaml"
    latencies = library / "hardware" / "latencies.yaml"
    sheet_text, latencies_text = sheet.read_text(encoding="utf-8"), latencies.read_text(encoding="utf-8")
    app = SupersheetApp(sheet, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        assert value(app, "tp8_step") == "5.147 ms"
        assert ms(app, "tp8_step") == pytest.approx(chapter.tp_step(8, at_file) / 1e-3, rel=1e-9)
        app.go_to("lat.nvlink_latency")
        await pilot.press("enter")
        assert "one instance shared by lat, tp8.lat" in status(app)
        app.query_one("#editor-input").value = "0.65 us"
        await pilot.press("enter")
        await pilot.pause()
        # every dependent on screen follows, the comparator's too: 5.147 -> 4.839 ms
        assert value(app, "tp8_step") == "4.839 ms"
        assert ms(app, "tp8_step") == pytest.approx(chapter.tp_step(8, at_065) / 1e-3, rel=1e-9)
        tp16 = chapter.tp16_local(at_065) + chapter.REDUCTIONS * chapter.ring(16, at_065)   # Eq. 6-9 over NVLink
        assert ms(app, "step") == pytest.approx(tp16 / 1e-3, rel=1e-9)
        assert app.document.value("faster_than_tp8") is (tp16 < chapter.tp_step(8, at_065))
        # the value says what it is: an unsaved edit of the imported file, not what the file says
        assert app.grid.texts("lat.nvlink_latency")[3].plain.startswith("latencies.yaml*: 0.65 us")
        assert status(app).startswith("edited lat.nvlink_latency in latencies.yaml: ")
        assert "an unsaved edit of latencies.yaml, which lat, tp8.lat share" in status(app)
        await pilot.press("f2")
        await pilot.pause()
        inspector = str(app.inspector.query_one("#inspector-body").render())
        assert "one instance shared by lat, tp8.lat · unsaved edit of latencies.yaml (not what the file says)" \
            in " ".join(inspector.split())
        await pilot.press("f2")
        assert app.document.text() == sheet_text                      # no `set:` splits the instance
        assert latencies.read_text(encoding="utf-8") == latencies_text   # nothing written before Ctrl+S
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert value(app, "tp8_step") == "5.147 ms" and not app.document.dirty
        assert not app.grid.texts("lat.nvlink_latency")[3].plain.startswith("latencies.yaml*")
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert value(app, "tp8_step") == "4.839 ms" and app.document.dirty
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        assert [str(b.label) for b in app.screen.query(Button)] == [
            "Cancel", "Write latencies.yaml and this sheet",
            "Save this sheet only; latencies.yaml stays as it is on disk"]
        message = str(app.screen.query_one("#dialog-message", Static).render())
        assert "nvlink_latency: 0.822 us -> 0.65 us" in message
        assert "6.5.1-tp16-two-servers.yaml as lat" in message and "6.4.2-ring-vs-tree.yaml as tp8.lat" in message
        await pilot.press("escape")                                   # Cancel writes nothing
        await pilot.pause()
        assert latencies.read_text(encoding="utf-8") == latencies_text and app.document.dirty
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.click("#answer-write")
        await pilot.pause()
        assert not isinstance(app.screen, ChoiceScreen) and not app.document.dirty
        assert "(and wrote latencies.yaml, which every importer now reads)" in status(app)
    written = latencies.read_text(encoding="utf-8")
    changed = [(a, b) for a, b in zip(latencies_text.splitlines(), written.splitlines()) if a != b]
    assert len(changed) == 1 and "0.65 us" in changed[0][1] and "0.822 us" in changed[0][0]
    assert sheet.read_text(encoding="utf-8") == sheet_text


async def test_save_this_sheet_only_keeps_the_edit_in_the_session(library: Path) -> None:
    sheet = library / "supernodes" / "6.5.3-tp16-nvlink-domain.yaml"
    latencies = library / "hardware" / "latencies.yaml"
    latencies_text = latencies.read_text(encoding="utf-8")
    app = SupersheetApp(sheet, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("lat.nvlink_latency")
        await pilot.press("enter")
        app.query_one("#editor-input").value = "0.65 us"
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.click("#answer-keep")
        await pilot.pause()
        assert latencies.read_text(encoding="utf-8") == latencies_text
        assert app.document.dirty and "not written (this session only): latencies.yaml" in status(app)
        assert value(app, "tp8_step") == "4.839 ms"          # still the edited value, still marked
        assert app.grid.texts("lat.nvlink_latency")[3].plain.startswith("latencies.yaml*")
