"""Fixtures for the editor's tests: colour on (snapshots are compared in
colour, and Textual reads NO_COLOR when an App is created), the repository as
working directory (paths in snapshots are relative and stable). The copies of
the library to edit (`library`, `example`) are tests/conftest.py's, shared with tests/editor/."""
from __future__ import annotations

import asyncio
import gc
import inspect
from pathlib import Path
from typing import Iterator

import pytest
from repo_paths import REPO



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
