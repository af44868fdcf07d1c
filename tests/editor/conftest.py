"""The editor's document model, without the UI: run from the repository (the running
example is the default sheet), with recovery files in each test's own folder."""
from __future__ import annotations

from pathlib import Path

import pytest
from repo_paths import REPO


@pytest.fixture(autouse=True)
def _in_the_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
