"""Source positions: where in which YAML file a cell, key or formula token sits.

A `Span` is 1-based (line, column) with an exclusive end column on the same line,
which is all a diagnostic needs to underline. `Origin` maps character offsets of
a formula string back to the file, so the parser can work on plain strings.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    """A place in a sheet file: line and columns (1-based), `end_col` exclusive."""
    file: str
    line: int
    col: int
    end_col: int

    def __str__(self) -> str:
        from supersheet.engine.base.project import shown_path    # a library file by its name (format 10.1)
        return f"{shown_path(self.file)}:{self.line}:{self.col}"


@dataclass(frozen=True, slots=True)
class Origin:
    """Where character 0 of a formula string sits in its file.

    `exact` is False when the string came from a YAML form whose characters do
    not map one-to-one onto the line (block scalars, escapes): spans then fall
    back to the start of the value rather than pointing at the wrong column.
    """

    file: str
    line: int
    col: int
    exact: bool = True

    def span(self, start: int, end: int) -> Span:
        if not self.exact:
            return Span(self.file, self.line, self.col, self.col + 1)
        return Span(self.file, self.line, self.col + start, self.col + max(end, start + 1))

