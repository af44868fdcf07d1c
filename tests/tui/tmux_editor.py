"""`supersheet edit` in a real terminal: a tmux server of the test's own (its own
socket, no user configuration), one window of a fixed size running the editor
installed in this environment. Keys go in as raw bytes (`send-keys -H`), so the
editor's terminal parser sees what a terminal sends — focus reports (`ESC [ O`,
`ESC [ I`), bracketed-paste markers, escape sequences of the arrows — and the
screen is read back as tmux drew it (`capture-pane`). Pilot delivers Textual
events and skips all of that.

Without tmux the tests that need it are skipped, saying so (`apt-get install tmux`).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ESC = b"\x1b"
FOCUS_OUT = ESC + b"[O"
FOCUS_IN = ESC + b"[I"
PASTE_START = ESC + b"[200~"
PASTE_END = ESC + b"[201~"
KEYS = {          # what xterm (and tmux's pane) sends for a few keys
    "enter": b"\r", "escape": ESC, "tab": b"\t", "backspace": b"\x7f",
    "up": ESC + b"[A", "down": ESC + b"[B", "right": ESC + b"[C", "left": ESC + b"[D",
    "home": ESC + b"[H", "end": ESC + b"[F", "f4": ESC + b"OS",
    "ctrl+s": b"\x13", "ctrl+q": b"\x11", "ctrl+z": b"\x1a", "ctrl+n": b"\x0e", "ctrl+d": b"\x04",
    "ctrl+o": b"\x0f", "ctrl+w": b"\x17", "ctrl+x": b"\x18", "ctrl+u": b"\x15", "ctrl+t": b"\x14",
    "delete": ESC + b"[3~", "shift+f8": ESC + b"[19;2~",
    "f3": ESC + b"OR", "f8": ESC + b"[19~",
}


def tmux_or_skip() -> str:
    tmux = shutil.which("tmux")
    if tmux is None:
        pytest.skip("tmux is not installed (apt-get install tmux): the real-terminal tests need it")
    return tmux


class TmuxEditor:
    """The editor on `sheet`, in a `width` x `height` tmux window, with `cwd` as working directory."""

    def __init__(self, sheet: Path, cwd: Path, width: int = 120, height: int = 36,
                 arguments: tuple[str, ...] = ()) -> None:
        self.tmux = tmux_or_skip()
        self.socket = f"supersheet-test-{uuid.uuid4().hex[:10]}"
        self.sheet, self.cwd = sheet, cwd
        supersheet = Path(sys.executable).with_name("supersheet")
        environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TMUX", "TMUX_PANE")}
        environment.update(TERM="xterm-256color", TEXTUAL_ANIMATIONS="none")
        command = [str(supersheet), "edit", *arguments, str(sheet)]
        self._run("-f", "/dev/null", "new-session", "-d", "-s", "edit", "-x", str(width), "-y", str(height),
                  "-c", str(cwd), *[f"-e{k}={v}" for k, v in environment.items()
                                    if k in ("TERM", "TEXTUAL_ANIMATIONS", "PATH", "HOME", "VIRTUAL_ENV",
                                             "XDG_STATE_HOME")],
                  " ".join(_quote(part) for part in command), env=environment)
        self._run("set-option", "-g", "focus-events", "on")
        self._run("set-option", "-g", "escape-time", "0")
        self._run("set-option", "-g", "remain-on-exit", "on")

    def _run(self, *arguments: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run([self.tmux, "-L", self.socket, *arguments], capture_output=True, text=True,
                              env=env, timeout=30)
        if done.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(arguments)}: {done.stderr.strip()}")
        return done.stdout

    def __enter__(self) -> TmuxEditor:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        subprocess.run([self.tmux, "-L", self.socket, "kill-server"], capture_output=True, timeout=30)

    # the terminal ------------------------------------------------------------------
    def send(self, data: bytes) -> None:
        """Bytes, as the terminal would write them to the program (one write)."""
        self._run("send-keys", "-t", "edit", "-H", *[f"{b:02x}" for b in data])

    def keys(self, *names: str) -> None:
        """Named keys (KEYS) or literal text, in order, in one write."""
        self.send(b"".join(KEYS[name] if name in KEYS else name.encode() for name in names))

    def screen(self) -> str:
        return self._run("capture-pane", "-p", "-t", "edit")

    def wait_for(self, *texts: str, timeout: float = 60.0, absent: tuple[str, ...] = ()) -> str:
        """The screen once it shows every one of `texts` (and none of `absent`)."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if all(t in screen for t in texts) and not any(t in screen for t in absent):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"the screen did not show {texts} (nor lacked {absent}) within {timeout} s:\n{screen}")

    def wait(self, holds, what: str, timeout: float = 60.0) -> str:
        """The screen once `holds(screen)` is true."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if holds(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"the screen did not show {what} within {timeout} s:\n{screen}")

    def line_with(self, text: str) -> str:
        """The first line of the screen that shows `text`."""
        return next((line for line in self.screen().splitlines() if text in line), "")


def _quote(part: str) -> str:
    return "'" + part.replace("'", "'\"'\"'") + "'"


def git_repository(folder: Path) -> None:
    """`folder` as a git work tree with everything in it committed (the sheet root, and `git diff`)."""
    environment = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                       GIT_COMMITTER_EMAIL="t@t")
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "sheets"]):
        subprocess.run(["git", *command], cwd=folder, check=True, env=environment, capture_output=True)


def git_diff(folder: Path) -> str:
    return subprocess.run(["git", "diff", "-U0"], cwd=folder, check=True, capture_output=True, text=True).stdout


def changed(diff: str) -> list[str]:
    """The -/+ lines of a `git diff -U0`, without its headers."""
    return [line for line in diff.splitlines()
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]
