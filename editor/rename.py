"""Renaming one of a sheet's cells, as text: the cell's key and every reference
to it in this sheet (formulas, `expect`, `checks`, `assume`, an import's `set:`,
sweeps/solves/choices: vary keys, show lists, goals, require, minimize).

References are found with the formula lexer (names have spans), never by
plain text replace: `lib.alpha` (an imported sheet's cell) and `alphabet`
are left alone. Each change is made at its own line and column, so only the
lines that name the cell change; comments and layout stay. A reference in a
value whose characters do not map onto its line (a block scalar, an escape)
is refused rather than guessed. Pure Python: no UI imports.
"""
from __future__ import annotations

from typing import Any, Iterator

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from supersheet.editor.cells import StructureError
from supersheet.editor.roundtrip import make_yaml
from supersheet.engine.formula.lexer import LexError, tokenize
from supersheet.engine.formula.parser import formula_body

# Sections whose strings are formulas or names in this sheet's scope.
FORMULA_SECTIONS = {"expect", "checks", "assume", "sweeps", "solve", "solves", "choose", "choices"}
# Keys whose values are prose or paths, never references.
PROSE_KEYS = {"doc", "note", "notes", "source", "title", "description", "why", "hint", "sheet", "path"}
# Sections whose first-level keys name the section's own entries (a sweep, an assumption), not cells.
NAMED_ENTRIES = {"checks", "assume", "sweeps", "solve", "solves", "choose", "choices"}

Edit = tuple[int, int, int]     # 0-based line, column, length of the text to replace


def rename(text: str, old: str, new: str) -> str:
    """`text` with the cell `old` renamed `new` everywhere this sheet names it."""
    document = make_yaml(2, 0).load(text)
    lines = text.split("\n")
    edits: list[Edit] = []
    cells = document.get("cells") if isinstance(document, CommentedMap) else None
    if not isinstance(cells, CommentedMap) or old not in cells:
        raise StructureError(f"{old!r} is not a cell of this sheet's cells:")
    for key, value, (line, col) in _entries(document):
        if key == "cells":
            edits += _cells(lines, value, old)
        elif key in FORMULA_SECTIONS:
            edits += _section(lines, value, old, keys=key not in NAMED_ENTRIES, depth=1)
        elif key == "use":
            edits += _imports(lines, value, old)
    out = lines[:]
    for line, col, length in sorted(set(edits), reverse=True):
        out[line] = out[line][:col] + new + out[line][col + length:]
    return "\n".join(out)


def _entries(node: CommentedMap) -> Iterator[tuple[Any, Any, tuple[int, int]]]:
    for key, value in node.items():
        yield key, value, node.lc.value(key)


def _key_edit(lines: list[str], node: CommentedMap, key: str) -> Edit:
    line, col = node.lc.key(key)
    if lines[line][col:col + len(key)] != key:
        raise StructureError(f"line {line + 1}: cannot find the key {key!r} as written; rename it by hand")
    return line, col, len(key)


def _cells(lines: list[str], cells: CommentedMap, old: str) -> list[Edit]:
    edits = [_key_edit(lines, cells, old)]
    for key, value in cells.items():
        if isinstance(value, str) and value.lstrip().startswith("="):
            edits += _formula(lines, value, cells.lc.value(key), old)
        elif isinstance(value, CommentedMap):
            for part in ("formula", "value"):
                if isinstance(value.get(part), str):
                    edits += _formula(lines, value[part], value.lc.value(part), old)
    return edits


def _section(lines: list[str], node: Any, old: str, keys: bool, depth: int) -> list[Edit]:
    """Every string under a formula section; keys too once below named entries."""
    edits: list[Edit] = []
    if isinstance(node, CommentedMap):
        for key, value in node.items():
            if key in PROSE_KEYS:
                continue
            if keys and key == old:
                edits.append(_key_edit(lines, node, key))
            edits += _value(lines, node, key, node.lc.value(key), value, old, depth)
    elif isinstance(node, CommentedSeq):
        for i, value in enumerate(node):
            edits += _value(lines, node, i, node.lc.item(i), value, old, depth)
    return edits


def _value(lines: list[str], parent: Any, key: Any, where: tuple[int, int], value: Any,
           old: str, depth: int) -> list[Edit]:
    if isinstance(value, str):
        return [] if value.endswith((".yaml", ".yml")) else _formula(lines, value, where, old)
    return _section(lines, value, old, keys=True, depth=depth + 1)


def _imports(lines: list[str], use: Any, old: str) -> list[Edit]:
    """An import's `set:` values are formulas in this sheet's scope (its keys are the import's cells)."""
    edits: list[Edit] = []
    if isinstance(use, CommentedMap):
        for value in use.values():
            given = value.get("set") if isinstance(value, CommentedMap) else None
            if isinstance(given, CommentedMap):
                for key, formula in given.items():
                    if isinstance(formula, str):
                        edits += _formula(lines, formula, given.lc.value(key), old)
    return edits


def _formula(lines: list[str], value: str, where: tuple[int, int], old: str) -> list[Edit]:
    """The spans of `old` as a name of this sheet in the formula `value` written at `where`."""
    body, skip = formula_body(value)
    try:
        tokens = tokenize(body)
    except LexError:
        return []       # not a formula (a note, an error value like '#DIV/0'): nothing to rename
    hits = [t for i, t in enumerate(tokens) if t.kind == "NAME" and t.text == old
            and not (i and tokens[i - 1].kind == "OP" and tokens[i - 1].text == ".")]
    if not hits:
        return []
    line, col = where
    written = lines[line]
    if written[col:col + len(value)] == value:
        base = col
    elif written[col:col + 1] in "'\"" and written[col + 1:col + 1 + len(value)] == value:
        base = col + 1
    else:
        raise StructureError(f"line {line + 1}: {old} is named in a value written over several lines "
                             "or with escapes; rename it by hand")
    return [(line, base + skip + t.start, len(old)) for t in hits]
