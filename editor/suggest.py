"""What may come next at the cursor of a sheet being typed in another editor: the
completion of `supersheet lsp`. At the start of a top-level line it offers the
format's top-level keys; in a cell's value or formula it offers what the
terminal editor's cell editor offers (editor/completion.py: names with their
values, an import's cells after `alias.`, units after a number, functions with
their signatures) — one completion for both editors.

Every item only completes the word under the cursor (its `replace` is that
word's length): nothing typed before it is ever replaced. Pure Python.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from supersheet.editor.completion import complete
from supersheet.editor.view import SheetView
from supersheet.engine.base.vocabulary import TOP_LEVEL_KEYS

__all__ = ["Suggestion", "suggestions"]

_CELL_LINE = re.compile(r"^\s+(?P<name>[A-Za-z_][A-Za-z0-9_.]*)\s*:\s?(?P<text>.*)$")
_KINDS = {"unit": "unit", "import": "alias"}


@dataclass(frozen=True)
class Suggestion:
    label: str
    kind: str            # "cell" | "alias" | "function" | "unit" | "key"
    detail: str          # a cell's value, a function's signature, a unit
    insert: str          # the text that replaces the word typed so far
    replace: int         # how many characters before the cursor it replaces (that word)


def suggestions(sheet: SheetView, before: str) -> list[Suggestion]:
    """What may complete the word that ends `before` (the line up to the cursor)."""
    if not before[:1].isspace() and ":" not in before:
        typed = before.strip()
        return [Suggestion(key, "key", "a top-level key of the sheet format", f"{key}:", len(before))
                for key in TOP_LEVEL_KEYS if key.startswith(typed)]
    line = _CELL_LINE.match(before)
    if line is None:
        return []
    name, text = line.group("name"), line.group("text")
    key = name if sheet.has_cell(name) else ""
    found = complete(sheet, key, text, len(text), listed=10_000)
    if found is None:
        return []
    return [Suggestion(o.text, _kind(o.text, o.detail), o.detail, o.text, len(found.word)) for o in found.offers]


def _kind(text: str, detail: str) -> str:
    if detail in _KINDS:
        return _KINDS[detail]
    return "function" if text.endswith("(") else "cell"
