"""Keep the cycle collector's full passes away from keystrokes.

An open editor holds a large heap that lives as long as it does: Textual, Rich,
Pint's registry, the sheet's checked model. A full (generation 2) collection
walks all of it — 100-220 ms with a 234-cell library sheet open (gc callbacks
around bench/bench_tui.py) — and it starts whenever allocation counts say so,
on whichever thread allocated: in the middle of an edit or a keystroke's echo.

So after a sheet is loaded and after each edit the heap is frozen
(`gc.freeze`): what exists then is out of the collector's view, and what later
work allocates is still collected as usual. Reference counting frees almost
everything; only cycles that became garbage while frozen wait, until the editor
has been idle for a few seconds: then the heap is thawed, collected once and
frozen again, when no key is waiting for it.
"""
from __future__ import annotations

import gc
import time

IDLE_SECONDS = 5.0


class QuietHeap:
    def __init__(self) -> None:
        self.last_input = time.monotonic()
        self.swept = True     # no garbage frozen since the last full collection

    def freeze(self) -> None:
        """After a load or an edit: today's heap out of the collector's walks."""
        gc.freeze()
        self.swept = False

    def touched(self) -> None:
        """A key, a paste or a click: the user is there; no full collection now."""
        self.last_input = time.monotonic()

    def sweep_if_idle(self) -> bool:
        """Collect the cycles frozen as garbage, once the user has been idle a while."""
        if self.swept or time.monotonic() - self.last_input < IDLE_SECONDS:
            return False
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.swept = True
        return True
