"""How long `supersheet edit` takes to draw its first screen, in a real 120x36
pseudo-terminal: the one measurement of the editor's start-up, shared by
bench_tui.py (the running example) and bench_large.py (a 50,000-cell sheet).
The child runs from byte code, as an installed program does."""
from __future__ import annotations

import os
import select
import struct
import time
from pathlib import Path


def first_screen(command: list[str], markers: tuple[bytes, ...], cwd: Path,
                 timeout: float = 120.0) -> tuple[float, float, float]:
    """Wall seconds from spawning `command` to a screen showing the footer and every one
    of `markers`; the child's CPU seconds and peak RSS (MiB) up to then (it is killed at
    once: its cost up to the first screen, not that of quitting)."""
    import fcntl
    import pty
    import termios
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        os.environ.pop("NO_COLOR", None)
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.chdir(cwd)
        os.execv(command[0], command)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
    start = time.perf_counter()
    seen, done = b"", None
    while time.perf_counter() - start < timeout:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        seen = (seen + chunk)[-200_000:]
        if b"palette" in seen and all(marker in seen for marker in markers):
            done = time.perf_counter() - start
            break
    os.kill(pid, 9)
    _, _, usage = os.wait4(pid, 0)
    os.close(fd)
    if done is None:
        raise RuntimeError(f"the editor did not draw its first screen within {timeout:.0f} s")
    return done, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024
