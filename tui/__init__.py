"""The terminal UI (`supersheet edit`), on Textual.

Textual paints the screen on a fixed grid of frame ticks (TEXTUAL_FPS, 60 by
default: textual/constants.py): a key typed into the editor is drawn at the
next tick, up to 16.7 ms after the work of echoing it is done. That wait was
most of a keystroke's echo while a resample ran (median 19-22 ms on a
300-cell sheet for 5 ms of the UI thread's CPU; bench/bench_tui.py
--only-echo). Ticks of 4.2 ms cut it to 8-14 ms; a tick costs nothing when
nothing changed (the timer is paused between updates) and keys that arrive
together are still drawn in one update (Textual paints when its queue is
idle). Set before Textual is imported, which reads it once; a user's own
TEXTUAL_FPS wins.
"""
from __future__ import annotations

import os

os.environ.setdefault("TEXTUAL_FPS", "240")
