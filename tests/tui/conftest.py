"""Fixtures for the editor's tests: colour on (snapshots are compared in
colour, and Textual reads NO_COLOR when an App is created), the repository as
working directory (paths in snapshots are relative and stable), and copies of
the library to edit."""
from __future__ import annotations

import asyncio
import gc
import inspect
import shutil
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[2]
SHEETS = REPO / "sheets"
RUNNING_EXAMPLE = Path("sheets") / "supernodes" / "6.1.2-running-example.yaml"


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run `async def` tests (Pilot) in a fresh event loop; no plugin needed."""
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    asyncio.run(pyfuncitem.obj(**arguments))
    return True


@pytest.fixture(autouse=True)
def _thaw_the_heap() -> Iterator[None]:
    """The app freezes the heap (tui/heap.py); the test process lives on: thaw it after each test."""
    yield
    gc.unfreeze()


@pytest.fixture(autouse=True)
def _colour_and_cwd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    monkeypatch.chdir(REPO)


@pytest.fixture(autouse=True)
def _own_state_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's recovery files (tui/recover.py) in a folder of its own: an edit a
    test leaves unsaved must not be offered to the next test that opens the sheet
    (the library's sheets are opened in place), nor land in the user's state folder."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


@pytest.fixture
def library(tmp_path: Path, allow_path) -> Path:
    """A writable copy of sheets/ (imports resolve inside it: its folder is
    allowed, as `--allow-path` does, since tmp_path is no git work tree)."""
    target = tmp_path / "sheets"
    shutil.copytree(SHEETS, target)
    allow_path(target)
    return target


@pytest.fixture
def example(library: Path) -> Path:
    """A writable copy of the running example, with its imports beside it."""
    return library / "supernodes" / "6.1.2-running-example.yaml"


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    """(old, new) line pairs that differ, for same-length texts."""
    a, b = before.splitlines(), after.splitlines()
    assert len(a) == len(b), "the number of lines changed"
    return [(x, y) for x, y in zip(a, b) if x != y]


@pytest.fixture
def line_diff():
    return changed_lines
