"""Source positions: where in which YAML file a cell, key or formula token sits.

A `Span` is 1-based (line, column) with an exclusive end column on the same line,
which is all a diagnostic needs to underline. `Origin` maps character offsets of
a formula string back to the file, so the parser can work on plain strings.
"""
from __future__ import annotations

from dataclasses import dataclass

from supersheet.engine.base.slots import install_init, slot_setters


@dataclass(frozen=True, slots=True)
class Span:
    """A place in a sheet file: line and columns (1-based), `end_col` exclusive."""
    file: str
    line: int
    col: int
    end_col: int

    def __str__(self) -> str:
        from supersheet.engine.base.project import shown_path    # deferred: engine.base.project (tempfile, importlib.resources) until a span is shown; a library file by its name (format 10.1)
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



# A large sheet makes several spans and origins a cell: they set their slots directly (slots.py).
_span_file, _span_line, _span_col, _span_end_col = slot_setters(Span, "file", "line", "col", "end_col")
_origin_file, _origin_line, _origin_col, _origin_exact = slot_setters(Origin, "file", "line", "col", "exact")


def _span_init(self: Span, file: str, line: int, col: int, end_col: int) -> None:
    _span_file(self, file)
    _span_line(self, line)
    _span_col(self, col)
    _span_end_col(self, end_col)


def _origin_init(self: Origin, file: str, line: int, col: int, exact: bool = True) -> None:
    _origin_file(self, file)
    _origin_line(self, line)
    _origin_col(self, col)
    _origin_exact(self, exact)


install_init(Span, _span_init)
install_init(Origin, _origin_init)
