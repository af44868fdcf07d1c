"""The editor's work off the UI thread (a sweep, the samples, the blocks' checks, a diff,
a search of the sheet root, an export), as Textual thread workers, one group per kind
of work.

A run of a group is started with `exclusive=True`: starting it cancels the group's
older runs, on the UI thread, before it starts. Its result is shown on the UI thread
only if the run was not cancelled by then, so a slow result of an older text never
lands after a newer edit's (a newer run that starts after it was shown shows its own).
A thread cannot be stopped, so the runs of a group also take turns: one computes at a
time, and one cancelled while it waited for its turn does nothing (quick edits do not
pile up work). (Started with `run_worker`, not the `@work` decorator, which wraps the
methods of a DOM node: the controllers that start them are plain classes.)"""
from __future__ import annotations

import threading
from typing import Any, Callable, TypeVar

from textual.app import App
from textual.worker import Worker, get_current_worker

T = TypeVar("T")


class Background:
    """The app's runs off the UI thread, by group (`sweep`, `samples`, `blocks`, `diff`, …)."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.turns: dict[str, threading.Lock] = {}    # per group: the run computing now

    def run(self, group: str, compute: Callable[[], T], show: Callable[[T], object]) -> Worker[None]:
        """Run `compute` in a thread, then `show` its result on the UI thread unless a
        newer run of the group started meanwhile."""
        turn = self.turns.setdefault(group, threading.Lock())
        app = self.app

        def work() -> None:
            worker = get_current_worker()
            with turn:
                if worker.is_cancelled:     # a newer run started while this one waited: skipped
                    return
                result = compute()

            def deliver() -> None:
                # on the UI thread, where newer runs cancel this one as they start
                if not worker.is_cancelled:
                    show(result)
            try:
                app.call_from_thread(deliver)
            except RuntimeError:   # the app has exited meanwhile
                pass
        return app.run_worker(work, name=group, group=group, thread=True, exclusive=True, exit_on_error=False)
