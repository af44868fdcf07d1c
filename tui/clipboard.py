"""Copying inside tmux. The editor copies with OSC 52 (Textual's
`copy_to_clipboard`), which the terminal turns into its clipboard; but tmux,
with its default `set-clipboard external`, drops OSC 52 sent by the programs
inside it, so there a copy would silently go nowhere. Inside tmux ($TMUX set)
the text is therefore also handed to tmux itself: `tmux load-buffer -w -`,
the text on standard input (no shell, no argument made of it), which makes it
tmux's newest paste buffer and, with `-w` (tmux 3.2 and later), has tmux pass
it on to the outer terminal's clipboard as tmux's own OSC 52. This runs off
the UI thread, with a timeout; what happened is said, never raised.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from functools import lru_cache

from rich.text import Text

TIMEOUT = 2.0          # seconds: tmux answers in milliseconds; a hung server must not hang a worker for long
WRITES_CLIPBOARD = (3, 2)     # the first tmux whose load-buffer has -w


def in_tmux() -> bool:
    return bool(os.environ.get("TMUX"))


@lru_cache(maxsize=4)
def has_w_flag(tmux: str) -> bool:
    """Whether this tmux's load-buffer takes -w (from `tmux -V`: "tmux 3.3a", "tmux next-3.4";
    a version it cannot read is tried with -w, and without it if that fails)."""
    try:
        out = subprocess.run([tmux, "-V"], capture_output=True, text=True, timeout=TIMEOUT, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return True
    found = re.search(r"(\d+)\.(\d+)", out)
    return found is None or (int(found[1]), int(found[2])) >= WRITES_CLIPBOARD


def to_tmux(text: str) -> Text:
    """Put `text` in tmux's paste buffer; what happened, for the status line."""
    tmux = shutil.which("tmux")
    if tmux is None:
        return Text("not in tmux's paste buffer: no tmux on PATH (inside tmux, OSC 52 needs "
                    "`set -g set-clipboard on`)", style="yellow")
    flags = [["-w"], []] if has_w_flag(tmux) else [[]]
    problem = ""
    for flag in flags:
        try:
            done = subprocess.run([tmux, "load-buffer", *flag, "-"], input=text.encode("utf-8"),
                                  capture_output=True, timeout=TIMEOUT, check=False)
        except subprocess.TimeoutExpired:
            return Text(f"not in tmux's paste buffer: tmux did not answer within {TIMEOUT:g} s", style="yellow")
        except OSError as e:
            return Text(f"not in tmux's paste buffer: cannot run {tmux}: {e.strerror or e}", style="yellow")
        if done.returncode == 0:
            if flag:
                return Text("in tmux's paste buffer (prefix ]) and the terminal's clipboard via tmux -w")
            return Text("in tmux's paste buffer (prefix ]); this tmux (< 3.2) cannot reach the terminal's clipboard")
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        problem = said[0] if said else f"exit status {done.returncode}"
    return Text(f"not in tmux's paste buffer: tmux load-buffer failed: {problem}", style="yellow")
