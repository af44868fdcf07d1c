"""The handlers that run when SIGINT, SIGTERM or SIGHUP stops the process (scratch.py
registers the removal of its temporaries), apart from scratch itself: the `supersheet`
command installs them at start, and a command that writes no temporary (`run`, `check`)
then never imports scratch's machinery (hashlib, socket, fcntl: 3.5 ms of start, issue 30)."""
from __future__ import annotations

import os
import signal
import threading
from typing import Callable

_STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_on_stop: list[Callable[[], None]] = []


def on_stop(action: Callable[[], None]) -> None:
    """Run `action` when one of the signals stops the process (after clean_up_on_signals)."""
    _on_stop.append(action)


def clean_up_on_signals() -> None:
    """Run the registered actions when SIGINT, SIGTERM or SIGHUP stops the process. SIGINT then
    goes on as KeyboardInterrupt (the command says it was interrupted); the others end the
    process by the signal, as they would have. Only from the main thread (Python's rule)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for number in _STOPPING:
        if signal.getsignal(number) in (signal.SIG_DFL, signal.default_int_handler):
            signal.signal(number, _stopped)


def _stopped(number: int, frame: object) -> None:
    for action in list(_on_stop):
        action()
    if number == signal.SIGINT:
        raise KeyboardInterrupt
    signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)
