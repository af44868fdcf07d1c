"""What the widgets tell the app about a cell of the sheet."""
from __future__ import annotations

from textual.message import Message

from supersheet.editor.document import Place


class CellMessage(Message):
    """A message about one cell, by key (None: no cell, e.g. a section header)."""

    def __init__(self, key: str | None) -> None:
        super().__init__()
        self.key = key


class PlaceMessage(Message):
    """Go to a place (a diagnostic's or a diff row's): a cell, a group row, a sweep, or its lines."""

    def __init__(self, place: Place) -> None:
        super().__init__()
        self.place = place
