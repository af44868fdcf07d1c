"""The recovery file (issue 28, item 4): a killed terminal, a dropped ssh
session or a crash lost every unsaved edit. The editor now keeps the unsaved
text in the user's state folder a few seconds after the last edit (at once on
SIGHUP, SIGTERM or an internal error), offers it with a diff when the sheet is
next opened, and removes it on save, discard and undo back to the saved text.
Pilot for the app; a real pty and real signals for the kills."""
from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest
from test_tui_app import SIZE, edit, value

from supersheet.editor import recovery
from supersheet.tui.app import SupersheetApp
from supersheet.tui.recover import RECOVER_AFTER
from supersheet.tui.screens import ChoiceScreen

SHEET = "title: t\ncells:\n  a: 2 GB    # the first cell\n  b: 3 GB\n  total: = a + b\n"


@pytest.fixture
def state(tmp_path: Path, monkeypatch) -> Path:
    folder = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(folder))
    return folder


@pytest.fixture
def sheet(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    path = folder / "s.yaml"
    path.write_text(SHEET, encoding="utf-8")
    subprocess.run(["git", "-C", str(folder), "add", "s.yaml"], check=True)
    subprocess.run(["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "s"],
                   check=True)
    return path


async def wait_for(pilot, condition, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.1)


async def test_unsaved_edits_are_kept_offered_with_a_diff_and_recovered(sheet: Path, state: Path) -> None:
    app = SupersheetApp(sheet, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await edit(pilot, "a", "5 GB")
        assert recovery.find(sheet) is None               # not on every key: a few seconds after the last edit
        await wait_for(pilot, lambda: recovery.find(sheet) is not None, RECOVER_AFTER + 5)
        kept = recovery.find(sheet)
        assert "a: 5 GB" in kept.text and kept.base == SHEET and kept.pid == os.getpid()
        assert kept.file.parent == state / "supersheet" / "recover"
        assert kept.file.stat().st_mode & 0o777 == 0o600 and kept.file.parent.stat().st_mode & 0o777 == 0o700
        # never in the sheet's folder, its git status or diff
        status = subprocess.run(["git", "-C", str(sheet.parent), "status", "--porcelain", "--ignored"],
                                capture_output=True, text=True, check=True).stdout
        assert status == "" and sorted(p.name for p in sheet.parent.iterdir()) == [".git", "s.yaml"]
    # the app went without saving (as a kill would): the file is unchanged, the edits are offered
    assert sheet.read_text() == SHEET
    app = SupersheetApp(sheet, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        message = str(app.screen.message)
        assert "Unsaved edits were recovered" == app.screen.title_text
        assert "-  a: 2 GB    # the first cell" in message and "+  a: 5 GB    # the first cell" in message
        await pilot.pause()
        assert app.screen.focused.id == "answer-recover"
        await pilot.press("enter")
        await pilot.pause()
        assert value(app, "a") == "5 GB" and value(app, "total") == "8 GB" and app.document.dirty
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert recovery.find(sheet) is None and not recovery.file_for(sheet).exists()
    assert "a: 5 GB    # the first cell" in sheet.read_text()


async def test_recovering_onto_a_file_changed_since_keeps_its_changes(sheet: Path, state: Path) -> None:
    recovery.write(sheet, SHEET.replace("a: 2 GB", "a: 5 GB"), SHEET)
    sheet.write_text(SHEET.replace("b: 3 GB", "b: 4 GB"), encoding="utf-8")     # changed on disk since
    app = SupersheetApp(sheet, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert value(app, "a") == "5 GB" and value(app, "b") == "4 GB"
        await pilot.press("ctrl+z")          # takes the recovered edits back, not the file's change
        await pilot.pause()
        assert value(app, "a") == "2 GB" and value(app, "b") == "4 GB" and not app.document.dirty


async def test_discarding_removes_the_recovery_file_and_undo_to_the_saved_text_too(sheet: Path, state: Path) -> None:
    recovery.write(sheet, SHEET.replace("a: 2 GB", "a: 5 GB"), SHEET)
    app = SupersheetApp(sheet, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.pause()
        await pilot.press("down", "enter")
        await pilot.pause()
        assert recovery.find(sheet) is None and value(app, "a") == "2 GB"
        await edit(pilot, "a", "7 GB")
        await wait_for(pilot, lambda: recovery.find(sheet) is not None, RECOVER_AFTER + 5)
        await pilot.press("ctrl+z")
        await wait_for(pilot, lambda: recovery.find(sheet) is None, RECOVER_AFTER + 5)
        await edit(pilot, "a", "8 GB")
        app.recovery.write()
        await pilot.press("ctrl+q")
        await pilot.click("#answer-discard")     # quit, discarding: nothing to recover
        await pilot.pause()
    assert recovery.find(sheet) is None and sheet.read_text() == SHEET


async def test_an_internal_error_keeps_the_unsaved_edits(sheet: Path, state: Path) -> None:
    app = SupersheetApp(sheet, watch_seconds=0)
    with pytest.raises(ZeroDivisionError):
        async with app.run_test(size=SIZE) as pilot:
            await edit(pilot, "a", "6 GB")
            app.call_later(lambda: 1 / 0)      # a bug anywhere in the UI
            await pilot.pause()
    assert app.return_code == 1
    assert "a: 6 GB" in recovery.find(sheet).text


async def test_an_unsaved_edit_of_a_shared_import_is_recovered_too(library: Path, state: Path) -> None:
    """An edit of a shared instance's cell is an unsaved edit of the imported file, held in
    the session (editor/shared.py): a crash used to lose it, the recovery file kept only
    the open sheet's text. It keeps the imported file's text too, and "Save this sheet
    only" keeps it there instead of removing the recovery file."""
    sheet = library / "supernodes" / "6.5.3-tp16-nvlink-domain.yaml"
    latencies = (library / "hardware" / "latencies.yaml").resolve()
    sheet_text, latencies_text = sheet.read_text(encoding="utf-8"), latencies.read_text(encoding="utf-8")
    app = SupersheetApp(sheet, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await edit(pilot, "lat.nvlink_latency", "0.65 us")
        assert value(app, "tp8_step") == "4.839 ms" and app.document.text() == sheet_text
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.click("#answer-keep")          # the sheet is saved (unchanged); the import stays unsaved
        await pilot.pause()
        kept = recovery.find(sheet)
        assert kept is not None and kept.text == sheet_text and list(kept.imported) == [latencies]
        assert "0.65 us" in kept.imported[latencies].text and kept.imported[latencies].base == latencies_text
    assert latencies.read_text(encoding="utf-8") == latencies_text          # quit unsaved: nothing written
    app = SupersheetApp(sheet, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        message = str(app.screen.message)
        assert "and of latencies.yaml, imported and shared" in message and "0.65 us" in message
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert value(app, "tp8_step") == "4.839 ms" and app.document.dirty
        assert app.grid.texts("lat.nvlink_latency")[3].plain.startswith("latencies.yaml*: 0.65 us")
        assert latencies.read_text(encoding="utf-8") == latencies_text          # still only in the session
        await pilot.press("ctrl+z")                                             # one step takes it all back
        await pilot.pause()
        assert value(app, "tp8_step") == "5.147 ms" and not app.document.dirty
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert value(app, "tp8_step") == "4.839 ms" and app.document.dirty


def test_a_recovered_import_the_sheet_no_longer_shares_is_left_out(library: Path) -> None:
    from supersheet.editor.document import Document
    sheet = library / "supernodes" / "6.5.3-tp16-nvlink-domain.yaml"
    stray = (library / "hardware" / "h100-sxm.yaml").resolve()      # imported, but not a shared instance here
    document = Document(sheet)
    result = document.recover(document.text(), document.text(),
                              {stray: recovery.Edited(stray.read_text().replace("3350", "6700"), stray.read_text())})
    assert "left out the edits of h100-sxm.yaml" in result.note
    assert not document.shared.pending() and not document.dirty


def test_a_recovery_file_written_before_imports_were_kept_still_reads(sheet: Path, state: Path) -> None:
    import json
    recovery.write(sheet, SHEET.replace("a: 2 GB", "a: 5 GB"), SHEET)
    record = json.loads(recovery.file_for(sheet).read_text())
    del record["imported"]
    recovery.file_for(sheet).write_text(json.dumps(record))
    found = recovery.find(sheet)
    assert found is not None and "a: 5 GB" in found.text and found.imported == {}


# -- a real terminal, real signals --------------------------------------------------
class Editor:
    """`supersheet edit SHEET` on a pseudo-terminal, its output drained."""

    def __init__(self, sheet: Path, state: Path) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
        env = {**os.environ, "XDG_STATE_HOME": str(state), "TERM": "xterm-256color"}
        env.pop("NO_COLOR", None)
        self.process = subprocess.Popen([sys.executable, "-m", "supersheet.cli.main", "edit", str(sheet)],
                                        stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True,
                                        cwd=sheet.parent)
        os.close(slave)
        self.master, self.output = master, bytearray()
        self.reader = threading.Thread(target=self._drain, daemon=True)
        self.reader.start()

    def _drain(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self.master], [], [], 0.1)
                if ready:
                    chunk = os.read(self.master, 65536)
                    if not chunk:
                        return
                    self.output += chunk
            except OSError:
                return

    def wait_for(self, text: bytes, seconds: float = 60.0) -> None:
        deadline = time.monotonic() + seconds
        while text not in self.output:
            assert self.process.poll() is None, f"the editor exited: {bytes(self.output[-2000:])!r}"
            assert time.monotonic() < deadline, f"no {text!r} on the screen"
            time.sleep(0.05)

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)
        os.close(self.master)


@pytest.mark.parametrize("kill", [signal.SIGKILL, signal.SIGHUP, signal.SIGTERM])
def test_a_killed_editor_leaves_its_unsaved_edits_behind(sheet: Path, state: Path, kill) -> None:
    """SIGKILL after the recovery file was written; SIGHUP (the ssh session
    dropped) and SIGTERM at once after the edit, before RECOVER_AFTER."""
    editor = Editor(sheet, state)
    try:
        editor.wait_for(b"Enter or type")
        editor.type(b"9 GB\r")                  # typing on the first cell edits it
        editor.wait_for(b"unsaved")
        if kill == signal.SIGKILL:
            deadline = time.monotonic() + RECOVER_AFTER + 10
            while recovery.find(sheet) is None:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        else:
            assert recovery.find(sheet) is None
        editor.process.send_signal(kill)
        assert editor.process.wait(20) == -kill
    finally:
        editor.close()
    kept = recovery.find(sheet)
    assert kept is not None and "a: 9 GB    # the first cell" in kept.text
    assert sheet.read_text() == SHEET


def test_the_editor_stopped_by_an_internal_error_exits_70_not_0(capsys) -> None:
    """The issue saw exit status 0 after the samples widget crashed."""
    from supersheet.cli.main import _run_editor

    class Crashed:
        return_code = 1

        def run(self):
            return None
    assert _run_editor(Crashed()) == 70
    assert "internal error" in capsys.readouterr().err
