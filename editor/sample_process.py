"""The editor's side of its resample process (sample_worker.py): started on the
first request (a sheet with random draws), kept for the next ones, stopped
when the editor exits.

Why a process: a resample in a thread of the editor holds the interpreter
lock for most of its run, and on a busy machine its thread is descheduled
while holding it, so a key typed meanwhile waits for it (bench/bench_tui.py
--only-echo). In its own process it takes a core, not the lock.

The process is started with `subprocess` (fork and exec at once: nothing of
this process's threads is copied), `-P` so that nothing in the working
directory can be imported in place of our modules, its stderr kept in a
temporary file to say why it stopped. It stops when its stdin closes: when
`close` is called, when this process exits (atexit) and when this process
dies (the kernel closes the pipe). Pure: no UI imports.
"""
from __future__ import annotations

import atexit
import signal
import subprocess
import sys
import tempfile
import threading
import weakref
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import IO

from supersheet.editor.sample import SampleResult
from supersheet.editor.sample_wire import Reply, Request, WireClosed, digest, read_message, write_message
from supersheet.engine.base.limits import current_limits

COMMAND = [sys.executable, "-P", "-m", "supersheet.editor.sample_worker"]


class WorkerFailed(Exception):
    """The resample process could not start, or stopped: the message says why."""


class WorkerClosed(Exception):
    """The editor closed its resample process (it is exiting): nothing to sample."""


class SampleProcess:
    """One resample process, used by one thread at a time."""

    def __init__(self, command: list[str] | None = None) -> None:
        self.command = command or COMMAND
        self.process: subprocess.Popen | None = None
        self.stderr: IO[bytes] | None = None
        self.failure: str | None = None     # why it stopped (then it is not started again)
        self.closed = False
        self.requests = 0
        self._lock = threading.Lock()
        _LIVE.add(self)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def sample(self, path: Path, text: str,
               imported: Mapping[str, str] | None = None) -> tuple[SampleResult | None, str] | None:
        """What sampling the sheet `text` at `path` finds (sample.sampling's answer),
        computed in the resample process from these texts (`imported`: any of its
        imports, read from them instead of their files) under this process's load
        limits; raises WorkerFailed when it cannot be."""
        with self._lock:
            if self.closed:
                raise WorkerClosed()
            if self.failure is not None:
                raise WorkerFailed(self.failure)
            process = self._started()
            self.requests += 1
            request = Request(self.requests, str(path), text, dict(imported or {}), asdict(current_limits()))
            try:
                assert process.stdin is not None and process.stdout is not None, "started with both pipes"
                write_message(process.stdin, request.encode())
                reply = Reply.decode(read_message(process.stdout, 2))
            except Exception as e:  # noqa: BLE001 - whatever went wrong, the process is not used again
                if self.closed:
                    raise WorkerClosed() from None
                if isinstance(e, (WireClosed, OSError)):
                    raise self._failed(f"the resample process stopped ({self._why_stopped(process, e)})") from None
                raise self._failed(f"the resample process sent a reply that cannot be read ({e})") from None
            if reply.number != request.number or reply.digest != digest(request.path, request.text, request.imported):
                raise self._failed("the resample process answered another request")
            return reply.found

    def _started(self) -> subprocess.Popen:
        if self.process is None:
            self.stderr = tempfile.TemporaryFile()
            try:
                self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                stderr=self.stderr, close_fds=True)
            except OSError as e:
                raise self._failed(f"the resample process cannot start: {e}") from None
        return self.process

    def _why_stopped(self, process: subprocess.Popen, error: Exception) -> str:
        try:
            code = process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return str(error) or type(error).__name__
        said = ""
        if self.stderr is not None:
            self.stderr.seek(0)
            lines = [line for line in self.stderr.read().decode(errors="replace").splitlines() if line.strip()]
            said = f": {lines[-1].strip()}" if lines else ""
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}{said}"
            except ValueError:
                return f"killed by signal {-code}{said}"
        return f"exit status {code}{said}"

    def _failed(self, why: str) -> WorkerFailed:
        self.failure = why
        self._stop()
        return WorkerFailed(why)

    def close(self) -> None:
        """Stop the process (the editor exits); a thread waiting for a reply gets WorkerClosed."""
        self.closed = True
        self._stop()

    def _stop(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            if process.poll() is None:
                process.kill()     # it holds nothing worth saving; a long resample need not finish
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            # (after the kill: a thread reading stdout holds its lock until the pipe closes)
            for pipe in filter(None, (process.stdin, process.stdout)):
                try:
                    pipe.close()
                except (OSError, ValueError):
                    pass
        if self.stderr is not None:
            self.stderr.close()
            self.stderr = None


_LIVE: weakref.WeakSet[SampleProcess] = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    """No resample process outlives the editor, however it ends."""
    for worker in list(_LIVE):
        worker.close()
