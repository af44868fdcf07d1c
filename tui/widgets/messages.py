"""What the widgets tell the app about a cell of the sheet."""
from __future__ import annotations

from textual.message import Message


class CellMessage(Message):
    """A message about one cell, by key (None: no cell, e.g. a section header)."""

    def __init__(self, key: str | None) -> None:
        super().__init__()
        self.key = key
