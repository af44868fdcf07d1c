"""Golden files as plain-text syrupy snapshots: one readable `.txt` per case in
__snapshots__/<test file>/, so a changed output reads as a diff in review.
Update them deliberately with `pytest tests/golden --snapshot-update`."""
from __future__ import annotations

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode


class TextSnapshot(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    _file_extension = "txt"


@pytest.fixture
def snapshot_txt(snapshot):
    return snapshot.use_extension(TextSnapshot)
