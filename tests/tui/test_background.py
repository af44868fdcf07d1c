"""The editor's work off the UI thread (tui/background.py): Textual thread workers, one
exclusive group per kind of work. A result is shown only if no newer run of its group
started before it arrived; the runs of a group compute one at a time, and one cancelled
while it waited for its turn never computes."""
from __future__ import annotations

import threading
from pathlib import Path

from test_tui_app import SIZE, edit, settled, table_column
from textual.app import App
from textual.worker import WorkerState

from supersheet.tui.app import SupersheetApp
from supersheet.tui.background import Background


class Bare(App[None]):
    """An app with nothing on it but its workers."""


async def test_a_slow_stale_result_never_overwrites_a_newer_one() -> None:
    app = Bare()
    async with app.run_test() as pilot:
        background = Background(app)
        gate, computed, shown, running, most = threading.Event(), [], [], [0], [0]
        lock = threading.Lock()

        def compute(name: str, slow: bool = False):
            def run() -> str:
                with lock:
                    running[0] += 1
                    most[0] = max(most[0], running[0])
                if slow:
                    assert gate.wait(10), "the slow run was never released"
                computed.append(name)
                with lock:
                    running[0] -= 1
                return name
            return run
        first = background.run("g", compute("first", slow=True), shown.append)
        for _ in range(500):          # (bounded: a run that never starts fails, never hangs)
            if running[0]:
                break
            await pilot.pause(0.01)
        assert running[0] == 1, "the first run never started computing"
        second = background.run("g", compute("second"), shown.append)   # cancels the first
        third = background.run("g", compute("third"), shown.append)     # cancels the second, still waiting
        other = background.run("h", compute("other"), shown.append)     # another group: not cancelled
        assert first.is_cancelled and second.is_cancelled and not third.is_cancelled and not other.is_cancelled
        await other.wait()
        await pilot.pause()
        assert shown == ["other"], "another group's result does not wait for this one's"
        gate.set()                    # the stale result arrives now, after the newer runs started
        await third.wait()
        await pilot.pause()
        assert computed == ["other", "first", "third"], "the run cancelled while waiting its turn never computed"
        assert shown == ["other", "third"], "the first run's result, late, was never shown"
        assert most[0] == 2, "one run of a group computes at a time (the other group beside it)"
        assert first.state == WorkerState.CANCELLED and third.state == WorkerState.SUCCESS
        assert not list(app.workers), "every run ended, the cancelled ones too"


async def test_a_sweep_held_past_a_newer_edit_shows_the_newer_rows(example: Path, monkeypatch) -> None:
    """In the editor: the sweep of an edit still running when the next edit comes is
    cancelled; when it ends, its rows are dropped and the table shows the newer edit's."""
    from supersheet.editor import sweep as editsweep
    run, gate, runs = editsweep.run_sweep, threading.Event(), []

    def held(*arguments):
        runs.append(arguments)
        if len(runs) == 1:
            assert gate.wait(10)
        return run(*arguments)
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.sweeping.show("experiment_6_1a")
        await settled(pilot)
        assert table_column(app, "max_sessions") == ["95", "47", "23"]
        monkeypatch.setattr(editsweep, "run_sweep", held)
        shown = []
        show = app.sweep.show
        monkeypatch.setattr(app.sweep, "show", lambda result: (shown.append(result), show(result))[1])
        await edit(pilot, "workspace", "3 GiB")         # its sweep is held
        for _ in range(500):
            if runs:
                break
            await pilot.pause(0.01)
        assert runs, "the first edit's sweep never started"
        await edit(pilot, "workspace", "10 GiB")        # a newer edit: the held sweep is cancelled
        await pilot.pause()
        assert app.sweep.stale
        gate.set()
        await settled(pilot)
        await pilot.pause()
        assert len(runs) == 2 and len(shown) == 1, "the held sweep's rows were dropped, the newer shown once"
        assert table_column(app, "max_sessions") == ["52", "26", "13"] and not app.sweep.stale
