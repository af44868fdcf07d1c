"""Positions between the engine and the protocol. The engine counts 1-based
lines and characters; the Language Server Protocol counts 0-based lines and
UTF-16 code units (`μs` is one character and one unit, an emoji two units):
a column is converted through the line's text, never assumed equal."""
from __future__ import annotations

from lsprotocol import types as T

from supersheet.editor.language import Span

__all__ = ["Lines", "span_range"]


class Lines:
    """A text's lines, for converting columns."""

    def __init__(self, text: str) -> None:
        self.lines = text.replace("\r\n", "\n").split("\n")

    def line(self, number: int) -> str:
        """The 0-based line `number` ('' past the end)."""
        return self.lines[number] if 0 <= number < len(self.lines) else ""

    def utf16_col(self, line: int, char_col: int) -> int:
        """A 0-based character column as UTF-16 units."""
        return len(self.line(line)[:max(char_col, 0)].encode("utf-16-le")) // 2

    def char_col(self, line: int, utf16_col: int) -> int:
        """A 0-based UTF-16 column as characters."""
        units = 0
        for i, ch in enumerate(self.line(line)):
            if units >= utf16_col:
                return i
            units += 2 if ord(ch) > 0xFFFF else 1
        return len(self.line(line))

    def end_of(self, line: int) -> int:
        """The end of a 0-based line, in UTF-16 units."""
        return self.utf16_col(line, len(self.line(line)))

    def range(self, line: int, start: int, end: int) -> T.Range:
        """0-based line, character columns [start, end) as a protocol range."""
        return T.Range(T.Position(line, self.utf16_col(line, start)), T.Position(line, self.utf16_col(line, end)))


def span_range(lines: Lines, span: Span) -> T.Range:
    """An engine span (1-based line and characters, exclusive end) as a protocol range."""
    return lines.range(span.line - 1, span.col - 1, max(span.end_col, span.col + 1) - 1)
