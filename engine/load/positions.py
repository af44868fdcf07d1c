"""Where a YAML value is in its file, and its text exactly as written.

ruamel.yaml records the line and column of every key and value; these helpers
turn them into the `Span`s and `Origin`s diagnostics point at, and recover a
scalar's spelling (`61.50` keeps its trailing zero, which sets an
expectation's tolerance). Used while a sheet is loaded (sheet.py, specs.py):
no later stage reads YAML nodes.
"""
from __future__ import annotations

from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from supersheet.engine.base.span import Origin, Span


def scalar_text(value: Any) -> str | None:
    """A YAML scalar as text (`true`, `8`, `1e-05`), None for a mapping or list."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value) if not isinstance(value, float) else repr(value).replace("e+", "e")
    return None


class Positions:
    """The positions of one file's keys and values."""

    def __init__(self, file: str, lines: list[str]) -> None:
        self.file = file
        self.lines = lines

    # lc.data[key] is [key line, key column, value line, value column] (ruamel's LineCol.key and
    # .value, read without their two calls: a large sheet reads it for every cell)
    # (`where`: the mapping's lc.data, when the caller read it once for all its keys)
    def key_span(self, mapping: CommentedMap, key: Any, where: dict | None = None) -> Span:
        at = (mapping.lc.data if where is None else where)[key]
        col = at[1] + 1
        return Span(self.file, at[0] + 1, col, col + len(str(key)))

    def value_pos(self, container: Any, key: Any, where: dict | None = None) -> tuple[int, int]:
        """The 0-based line and column of container[key] (a mapping's value or a list's item)."""
        if type(container) is not CommentedMap and isinstance(container, CommentedSeq):   # (an ABC: ~0.3 µs a test)
            return container.lc.item(key)
        at = (container.lc.data if where is None else where)[key]
        return at[2], at[3]

    def line(self, number: int) -> str:
        return self.lines[number] if number < len(self.lines) else ""

    def text_origin(self, container: Any, key: Any, text: str, where: dict | None = None, shift: int = 0) -> Origin:
        """Where `text` (the value's string) starts in the file, or `shift` characters into it
        (a formula's body, after its `=`: one Origin a cell, not one and then a moved copy)."""
        line, col = self.value_pos(container, key, where)
        raw = self.line(line)
        if raw.startswith(text, col):
            return Origin(self.file, line + 1, col + 1 + shift)
        if col < len(raw) and raw[col] in "'\"" and raw.startswith(text, col + 1):
            return Origin(self.file, line + 1, col + 2 + shift)
        found = raw.find(text, col)
        if found >= 0:
            return Origin(self.file, line + 1, found + 1 + shift)
        return Origin(self.file, line + 1, col + 1 + shift, exact=False)

    def written(self, container: Any, key: Any) -> tuple[str, Span]:
        """The scalar at container[key] exactly as written, and its span (trailing zeros
        kept: `61.50` stays `61.50`)."""
        line, col = self.value_pos(container, key)
        raw = self.line(line)
        value = container[key]
        fallback = scalar_text(value) or ""
        if col < len(raw) and raw[col] in "'\"":
            end = raw.find(raw[col], col + 1)
            text = raw[col + 1:end] if end > col else fallback
            return text, Span(self.file, line + 1, col + 2, col + 2 + len(text))
        end = len(raw)
        for stop in (" #", ",", "]", "}"):
            found = raw.find(stop, col)
            if found >= 0 and (stop == " #" or isinstance(container, CommentedSeq) or raw[col - 1:col] in ("[", "{", " ")):
                if stop != " #" and not _in_flow(raw, col):
                    continue
                end = min(end, found)
        text = raw[col:end].strip()
        if not text or scalar_text(value) is None or not _same_scalar(text, value):
            text = fallback
        return text, Span(self.file, line + 1, col + 1, col + 1 + max(len(text), 1))


def _in_flow(raw: str, col: int) -> bool:
    return raw.rfind("[", 0, col) > raw.rfind("]", 0, col) or raw.rfind("{", 0, col) > raw.rfind("}", 0, col)


def _same_scalar(text: str, value: Any) -> bool:
    if isinstance(value, bool):
        return text in ("true", "false", "True", "False")
    if isinstance(value, (int, float)):
        try:
            if isinstance(value, int):   # exactly: a 310-digit integer has no float to compare with
                return int(text.replace("_", ""), 0 if text.lower().startswith(("0x", "0o")) else 10) == value
            return float(text.replace("_", "")) == value
        except (ValueError, OverflowError):
            return False
    return text == str(value)
