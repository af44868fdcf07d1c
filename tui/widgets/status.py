"""The status line: what the last action did, or what the keys do now.

Drawn again only when its text changes. After an edit it says what the edit
did in the frame after the one that shows the new values (`say_after_frame`):
in that frame it would cost about as much as the new values, and Textual draws
again every widget in the box from the first changed row down to it; the frame
after is the one where the grid takes the focus back, which repaints the editor
bar above it anyway. Anything said meanwhile wins over what was waiting.
"""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class StatusLine(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self._shown: object = None      # what it says (not drawn again when the same)
        self._due: str | Text | None = None

    def say(self, text: str | Text) -> None:
        self._due = None
        shown = (text.plain, text.style, tuple(text.spans)) if isinstance(text, Text) else text
        if shown == self._shown:
            return      # the same text (most edits' "edited x: n values changed"): not drawn again
        self._shown = shown
        self.update(text, layout=False)

    def say_after_frame(self, text: str | Text) -> None:
        """Say `text` once the next frame is drawn, unless something is said before."""
        self._due = text
        self.app.call_after_refresh(self._say_due, text)   # (in the app's queue: not waking the line's)

    def _say_due(self, text: str | Text) -> None:
        if self._due is text:
            self.say(text)
