"""The editor's recovery file (supersheet.editor.recovery): written a few
seconds after the last unsaved edit, at once when the editor is killed by
SIGHUP (a dropped ssh session, a closed terminal) or SIGTERM or stops on an
internal error, removed on save, discard and undo back to the saved text, and
offered with a diff when the sheet is next opened. A controller the app holds
(tui/app.py: `app.recovery`)."""
from __future__ import annotations

import difflib
import os
import signal
import time
from types import FrameType
from typing import Any

from rich.text import Text
from textual.timer import Timer

from supersheet.editor import recovery
from supersheet.editor.document import Document

from .host import Editor
from .screens import ChoiceScreen

RECOVER_AFTER = 2.0      # seconds after the last edit: typing does not write on every key
SIGNALS = (signal.SIGHUP, signal.SIGTERM)
DIFF_LINES = 10          # of the offer's diff (the dialog fits a 30-row terminal); the rest is counted
DIFF_WIDTH = 64          # the dialog's width inside its border
IMPORT_DIFF_LINES = 6    # of each imported file's diff


class RecoveryController:
    def __init__(self, app: Editor) -> None:
        self.app = app
        self.timer: Timer | None = None     # writes the recovery file RECOVER_AFTER s after the last edit
        self.due_at = 0.0                   # ... at this time.monotonic()
        self.warned = False                 # that it cannot be written: said once
        self.old_handlers: dict[int, Any] = {}   # SIGHUP's and SIGTERM's before ours

    # writing ---------------------------------------------------------------------
    def due(self) -> None:
        """The text changed: keep it RECOVER_AFTER seconds after the last change. One timer
        for a run of edits, set again for the time left when it fires (a timer stopped and
        made anew at every edit cost ~0.1 ms of the edit's time on the UI thread)."""
        self.due_at = time.monotonic() + RECOVER_AFTER
        if self.timer is None:
            self.timer = self.app.set_timer(RECOVER_AFTER, self._when_due)

    def _when_due(self) -> None:
        left = self.due_at - time.monotonic()
        if left > 0:        # edited since the timer was set
            self.timer = self.app.set_timer(left, self._when_due)
            return
        self.timer = None
        self.write()

    def write(self) -> None:
        """Keep the unsaved text now (nothing unsaved: remove the recovery file)."""
        document = self.app.document
        if document is None:
            return
        try:
            if not document.dirty:
                recovery.remove(document.path)
                return
            recovery.write(document.path, document.text(), document.source.original, document.unsaved_imports())
        except OSError as e:
            if not self.warned:
                self.warned = True
                self.app.notify(f"cannot keep a recovery file: {e}", severity="warning")

    def drop(self) -> None:
        """The edits were saved or discarded: no recovery file."""
        if self.timer is not None:
            self.timer.stop()
            self.timer = None
        if self.app.document is not None:
            try:
                recovery.remove(self.app.document.path)
            except OSError:
                pass

    # leaving without asking --------------------------------------------------------
    def catch_hangups(self) -> None:
        """SIGHUP and SIGTERM keep the unsaved text before the editor goes."""
        for number in SIGNALS:
            try:
                self.old_handlers[number] = signal.signal(number, self._killed)
            except ValueError:      # not the main thread (an embedding program): its signals are its own
                return

    def release_hangups(self) -> None:
        for number, handler in self.old_handlers.items():
            signal.signal(number, handler)
        self.old_handlers = {}

    def _killed(self, number: int, frame: FrameType | None) -> None:
        self.write()
        self.release_hangups()
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)        # and die of it, as before

    # offering ----------------------------------------------------------------------
    def offer(self) -> None:
        """A recovery file of the opened sheet: offer it, with its diff against the file."""
        app = self.app
        document = app.document
        if document is None:
            return
        found = recovery.find(document.path)
        if found is None:
            return
        if found.text == document.text() and not found.imported:
            recovery.remove(document.path)      # nothing it would bring back
            return

        def answer(choice: str | None) -> None:
            if choice == "recover" and app.document is document:
                result = document.recover(found.text, found.base, found.imported)
                app.after_edit(result, "recovered the unsaved edits (Ctrl+Z takes them back; Ctrl+S saves them)")
            elif choice == "discard":
                recovery.remove(document.path)
                app.set_status("recovery file discarded")
        app.push_screen(ChoiceScreen("Unsaved edits were recovered", recovery_message(document, found),
                                     [("recover", "Recover them"), ("discard", "Discard them")]), answer)


def recovery_message(document: Document, found: recovery.Recovery) -> Text:
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(found.written))
    text = Text(f"{document.path.name} has unsaved edits from {when} (process {found.pid}"
                + (", still running: another editor has it open" if found.writer_running() else "")
                + "). Esc decides later; the next edit replaces them.\n\n")
    text.append_text(diff_text(document.text(), found.text))
    for path, edited in found.imported.items():
        text.append(f"\nand of {path.name}, imported and shared (written only when you save and say so):\n")
        text.append_text(diff_text(edited.base, edited.text, IMPORT_DIFF_LINES))
    return text


def diff_text(disk: str, recovered: str, most: int = DIFF_LINES) -> Text:
    lines = list(difflib.unified_diff(disk.splitlines(), recovered.splitlines(), "file on disk", "recovered",
                                      n=1, lineterm=""))
    text = Text()
    for line in lines[:most]:
        style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
        text.append((line if len(line) <= DIFF_WIDTH else line[:DIFF_WIDTH - 1] + "…") + "\n", style=style)
    if len(lines) > most:
        text.append(f"… {len(lines) - most} more lines\n", style="dim")
    return text
