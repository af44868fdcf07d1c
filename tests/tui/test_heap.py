"""The editor keeps full garbage collections away from keystrokes (tui/heap.py):
its heap is frozen once a sheet is shown and after each edit, and cycles frozen
as garbage are collected only when the user has been idle."""
from __future__ import annotations

import gc

from supersheet.tui import heap as heap_module
from supersheet.tui.app import SupersheetApp
from supersheet.tui.heap import QuietHeap


async def test_the_heap_is_frozen_once_the_sheet_shows_and_after_an_edit(example) -> None:
    gc.unfreeze()
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert gc.get_freeze_count() > 0 and not app.heap.swept
        gc.unfreeze()
        app.go_to("context")
        await pilot.press(*"16384", "enter")
        await pilot.pause()
        assert app.document.raw_text("context") == "16384 token"
        assert gc.get_freeze_count() > 0, "an edit freezes what it left"


def test_frozen_garbage_is_collected_only_when_the_user_is_idle(monkeypatch) -> None:
    now = [1000.0]
    monkeypatch.setattr(heap_module.time, "monotonic", lambda: now[0])
    heap = QuietHeap()

    class Cycle:
        pass

    garbage = Cycle()
    garbage.me = garbage   # type: ignore[attr-defined]
    del garbage
    heap.freeze()
    assert not heap.sweep_if_idle(), "the user just did something"
    now[0] += heap_module.IDLE_SECONDS + 1
    heap.touched()
    assert not heap.sweep_if_idle(), "a key came in: not now"
    now[0] += heap_module.IDLE_SECONDS + 1
    assert heap.sweep_if_idle() and heap.swept
    assert not any(type(o) is Cycle for o in gc.get_objects()), "the frozen cycle was collected"
    assert gc.get_freeze_count() > 0, "and the heap frozen again"
    assert not heap.sweep_if_idle(), "nothing new to sweep"
    gc.unfreeze()
