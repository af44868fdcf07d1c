"""The open sheet replaced by what is not a regular file (issue 28, item 4):
a symlink to /dev/zero (read without end: MemoryError), a FIFO (a blocking
read: the editor hung). The editor reads only regular files of at most the
size limit, opens them without blocking, keeps the unsaved edits, says why,
and never saves over such a file."""
from __future__ import annotations

import errno
import os
import threading
import time
from pathlib import Path

import pytest
from test_tui_app import SIZE, edit, value

from supersheet.editor.document import Document
from supersheet.editor.safesave import Unreadable
from supersheet.tui.app import SupersheetApp
from supersheet.tui.screens import ChoiceScreen


class FifoUnblocker:
    """Opens the FIFO for writing after `after` seconds, so that a reader stuck
    on it returns (and the test fails on its time) instead of hanging the suite."""

    def __init__(self, fifo: Path, after: float = 4.0) -> None:
        self.fifo, self.after, self.done = fifo, after, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        if self.done.wait(self.after):
            return
        while not self.done.is_set():
            try:
                os.close(os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError as e:
                if e.errno != errno.ENXIO:   # ENXIO: no reader (yet)
                    return
            time.sleep(0.05)

    def stop(self) -> None:
        self.done.set()
        self.thread.join()


def replace_with_fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def replace_with_dev_zero(path: Path) -> None:
    path.unlink()
    os.symlink("/dev/zero", path)


@pytest.mark.parametrize("replace", [replace_with_fifo, replace_with_dev_zero])
def test_opening_a_fifo_or_dev_zero_is_refused_at_once(example: Path, replace) -> None:
    replace(example)
    unblock = FifoUnblocker(example) if replace is replace_with_fifo else None
    start = time.monotonic()
    try:
        with pytest.raises(Unreadable, match="only regular files are read"):
            Document(example)
    finally:
        if unblock:
            unblock.stop()
    assert time.monotonic() - start < 2.0


@pytest.mark.parametrize("replace", [replace_with_fifo, replace_with_dev_zero])
async def test_the_open_sheet_replaced_by_a_fifo_or_dev_zero_keeps_the_edits(example: Path, replace) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await edit(pilot, "context", "32768 token")
        replace(example)
        unblock = FifoUnblocker(example) if replace is replace_with_fifo else None
        start = time.monotonic()
        try:
            app.files.check_disk()          # what the watch does every second
            await pilot.pause()
            app.files.check_disk()
            await pilot.pause()
            assert time.monotonic() - start < 2.0, "reading the file blocked"
            # Ctrl+S asks (the file changed); Overwrite is refused: a save would replace it
            await pilot.press("ctrl+s")
            assert isinstance(app.screen, ChoiceScreen)
            await pilot.click("#answer-overwrite")
            await pilot.pause()
            notes = [n.message for n in app._notifications]
            assert any("not a regular file any more" in n and "not saved" in n for n in notes)
            # a reload says why it cannot, and the edits stay
            await pilot.press("ctrl+s")
            await pilot.click("#answer-reload")
            await pilot.pause()
            assert time.monotonic() - start < 4.0
            notes = [n.message for n in app._notifications]
            assert any("only regular files are read" in n and "your version stays open" in n for n in notes)
        finally:
            if unblock:
                unblock.stop()
        assert app.is_running and app.document.dirty and value(app, "context") == "32768 token"
    assert not example.is_file() and (example.is_symlink() or example.is_fifo())
