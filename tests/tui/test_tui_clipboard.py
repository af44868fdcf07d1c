"""Ctrl+C inside tmux: tmux drops OSC 52 by default, so the text also goes to
tmux's paste buffer through `tmux load-buffer` (tui/clipboard.py). A fake
tmux on PATH records how it was run and what it read."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from supersheet.tui.app import SupersheetApp

SIZE = (120, 36)
FAKE = """\
#!{python}
import json, sys
if sys.argv[1:] == ["-V"]:
    print({version!r})
    sys.exit(0)
data = sys.stdin.buffer.read().decode("utf-8")
with open({log!r}, "a") as log:
    log.write(json.dumps({{"argv": sys.argv[1:], "stdin": data}}) + "\\n")
if {fail!r}:
    sys.stderr.write({fail!r} + "\\n")
    sys.exit(1)
"""


def fake_tmux(folder: Path, monkeypatch: pytest.MonkeyPatch, version: str = "tmux 3.3a", fail: str = "") -> Path:
    """A `tmux` first on PATH that logs each run (its arguments, its standard input)."""
    import sys
    folder.mkdir()
    log = folder / "runs.jsonl"
    script = folder / "tmux"
    script.write_text(FAKE.format(python=sys.executable, version=version, log=str(log), fail=fail), encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return log


def runs(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []


async def copy(path: Path, key: str, keys: tuple[str, ...] = ("ctrl+c",)) -> str:
    """Press `keys` on `key`; the status line once the copy is done."""
    app = SupersheetApp(path, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to(key)
        await pilot.press(*keys)
        await app.workers.wait_for_complete()
        await pilot.pause()
        return str(app.query_one("#status").render())


async def test_inside_tmux_the_value_goes_to_its_paste_buffer_too(example: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    log = fake_tmux(tmp_path / "bin", monkeypatch)
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
    status = await copy(example, "context")
    assert runs(log) == [{"argv": ["load-buffer", "-w", "-"], "stdin": "8192 token"}]
    assert "copied context's value: 8192 token · in tmux's paste buffer (prefix ]) and the terminal's clipboard via tmux -w" in status


async def test_a_tmux_older_than_3_2_gets_no_w(example: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    log = fake_tmux(tmp_path / "bin", monkeypatch, version="tmux 3.0a")
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
    status = await copy(example, "kv_total", ("ctrl+p", *"copy formula", "enter"))
    assert runs(log) == [{"argv": ["load-buffer", "-"], "stdin": "= model.kv_per_token * context -> GB"}]
    assert "in tmux's paste buffer (prefix ]); this tmux (< 3.2) cannot reach the terminal's clipboard" in status


async def test_a_failing_tmux_is_reported_not_raised(example: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    log = fake_tmux(tmp_path / "bin", monkeypatch, fail="no server running on /tmp/tmux-0/default")
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
    status = await copy(example, "context")
    assert [r["argv"] for r in runs(log)] == [["load-buffer", "-w", "-"], ["load-buffer", "-"]]   # -w, then without
    assert "not in tmux's paste buffer: tmux load-buffer failed: no server running on /tmp/tmux-0/default" in status


async def test_outside_tmux_only_osc_52(example: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = fake_tmux(tmp_path / "bin", monkeypatch)
    monkeypatch.delenv("TMUX", raising=False)
    status = await copy(example, "context")
    assert runs(log) == []
    assert "sent to the terminal's clipboard (OSC 52" in status
