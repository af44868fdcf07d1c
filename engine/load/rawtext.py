"""Values exactly as written in the file: `61.50` keeps its trailing zero,
which sets an expectation's implied tolerance."""
from __future__ import annotations

from typing import Any

from ruamel.yaml.comments import CommentedSeq

from supersheet.engine.base.span import Span
from supersheet.engine.load.sheet import SheetFile, _Reader, _scalar_text


def raw_text(sheet: SheetFile, container: Any, key: Any) -> tuple[str, Span]:
    """The value at container[key] exactly as written (trailing zeros kept:
    `61.50` stays `61.50`, which sets an expectation's tolerance)."""
    reader = _Reader(sheet, sheet.text.splitlines())
    line, col = reader.value_pos(container, key)
    lines = reader.lines
    raw = lines[line] if line < len(lines) else ""
    value = container[key]
    fallback = _scalar_text(value) or ""
    if col < len(raw) and raw[col] in "'\"":
        end = raw.find(raw[col], col + 1)
        text = raw[col + 1:end] if end > col else fallback
        return text, Span(sheet.file, line + 1, col + 2, col + 2 + len(text))
    end = len(raw)
    for stop in (" #", ",", "]", "}"):
        found = raw.find(stop, col)
        if found >= 0 and (stop == " #" or isinstance(container, CommentedSeq) or raw[col - 1:col] in ("[", "{", " ")):
            if stop != " #" and not _in_flow(raw, col):
                continue
            end = min(end, found)
    text = raw[col:end].strip()
    if not text or _scalar_text(value) is None or not _same_scalar(text, value):
        text = fallback
    return text, Span(sheet.file, line + 1, col + 1, col + 1 + max(len(text), 1))


def _in_flow(raw: str, col: int) -> bool:
    return raw.rfind("[", 0, col) > raw.rfind("]", 0, col) or raw.rfind("{", 0, col) > raw.rfind("}", 0, col)


def _same_scalar(text: str, value: Any) -> bool:
    if isinstance(value, bool):
        return text in ("true", "false", "True", "False")
    if isinstance(value, (int, float)):
        try:
            return float(text.replace("_", "")) == float(value)
        except ValueError:
            return False
    return text == str(value)
