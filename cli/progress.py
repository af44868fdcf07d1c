"""The progress bar of a long sweep, drawn on stderr by the CLI.

The engine only reports progress (`progress(done, total)` after each chunk, or
each Ray part); drawing it is the client's business. The bar appears once a
sweep has run for `delay` seconds, so quick sweeps print nothing extra, and
only on a terminal.
"""
from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 30


class ProgressBar:
    """`bar(done, total)` redraws `[#####.....] done/total rows` on one line; `close()` ends the
    line if the bar was drawn. Use as a context manager so the line ends on errors too."""

    def __init__(self, delay: float = 0.0, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty()   # a file or a pipe gets no bar
        self.delay = delay
        self.started = time.monotonic()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or time.monotonic() - self.started <= self.delay:
            return
        filled = int(WIDTH * done / max(total, 1))
        self.stream.write(f"\r[{'#' * filled}{'.' * (WIDTH - filled)}] {done:,}/{total:,} rows")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.shown = False

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

