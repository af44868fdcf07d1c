"""Renaming one of a sheet's cells, as text: the cell's key and every reference
to it in this sheet (formulas, `expect`, `checks`, `assume`, an import's `set:`,
sweeps/solves/choices: vary keys, show lists, goals, require, minimize).

References are found with the formula lexer (names have spans), never by
plain text replace: `lib.alpha` (an imported sheet's cell) and `alphabet`
are left alone. Each change is made at its own line and column, so only the
lines that name the cell change; comments and layout stay. A reference in a
value whose characters do not map onto its line (a block scalar, an escape)
is refused rather than guessed.

The same walk renames the references of a sheet that imports the renamed
cell's sheet (`lib.alpha` in its formulas and keys, `alpha` among its `set:`
for that import) or extends it (bare `alpha`, an override of it in `cells:`):
importers.py finds those sheets. Pure Python: no UI imports.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from supersheet.editor.cells import StructureError, value_column
from supersheet.editor.roundtrip import make_yaml
from supersheet.engine.base.vocabulary import is_formula
from supersheet.engine.formula.lexer import LexError, Token, tokenize
from supersheet.engine.formula.parser import formula_body

# Sections whose strings are formulas or names in this sheet's scope.
FORMULA_SECTIONS = {"expect", "checks", "assume", "sweeps", "solve", "solves", "choose", "choices"}
# Keys whose values are prose or paths, never references.
PROSE_KEYS = {"doc", "note", "notes", "source", "title", "description", "why", "hint", "sheet", "path"}
# Sections whose first-level keys name the section's own entries (a sweep, an assumption), not cells.
NAMED_ENTRIES = {"checks", "assume", "sweeps", "solve", "solves", "choose", "choices"}

Edit = tuple[int, int, int]     # 0-based line, column, length of the text to replace


@dataclass(frozen=True)
class Target:
    """The cell to rename as a sheet names it: bare (`alpha`, in its own sheet
    or one that extends it) or through an import's alias (`lib.alpha`; through
    two imports `b.lib.alpha`, as sweep and `expect` keys may)."""

    old: str
    alias: str | None = None

    def key_offset(self, key: Any) -> int | None:
        """Where the cell's name starts in a key that names it (`alpha:`, `lib.alpha:`)."""
        if self.alias is None:
            return 0 if key == self.old else None
        return len(self.alias) + 1 if key == f"{self.alias}.{self.old}" else None

    def hits(self, tokens: list[Token]) -> list[Token]:
        """The name tokens that are this cell."""
        def dot(i: int) -> bool:
            return i >= 0 and tokens[i].kind == "OP" and tokens[i].text == "."
        path = self.alias.split(".") if self.alias else []
        found = []
        for i, t in enumerate(tokens):
            if t.kind != "NAME" or t.text != self.old:
                continue
            j = i       # walk back over `alias.` (or `b.hgx.`), part by part
            for part in reversed(path):
                if not (dot(j - 1) and j >= 2 and tokens[j - 2].kind == "NAME" and tokens[j - 2].text == part):
                    break
                j -= 2
            else:
                if not dot(j - 1):
                    found.append(t)
        return found


def rename(text: str, old: str, new: str) -> str:
    """`text` with the cell `old` renamed `new` everywhere this sheet names it."""
    return rename_references(text, Target(old), new, own=True)


def rename_references(text: str, target: Target, new: str, own: bool = False, document: Any = None) -> str:
    """`text` with every reference to `target` renamed `new`. `own`: the cell is
    this sheet's (it must be in `cells:`); else this sheet extends the cell's
    sheet (bare names; an override in `cells:` is renamed too) or imports it
    (`target.alias`: `alias.old` in formulas and keys, `old` among the alias's `set:`).
    `document`: `text` already loaded (with positions), to spare loading it again."""
    out = text.split("\n")
    for line, col, length in sorted(set(reference_edits(text, target, own, document)), reverse=True):
        out[line] = out[line][:col] + new + out[line][col + length:]
    return "\n".join(out)


def reference_edits(text: str, target: Target, own: bool = False, document: Any = None) -> list[Edit]:
    """Where `text` names `target` (as `rename_references` reads it): each place's 0-based
    line, column and length — what a rename replaces, what "find references" lists."""
    if document is None:
        document = make_yaml(2, 0).load(text)
    lines = text.split("\n")
    edits: list[Edit] = []
    cells = document.get("cells") if isinstance(document, CommentedMap) else None
    if own and (not isinstance(cells, CommentedMap) or target.old not in cells):
        raise StructureError(f"{target.old!r} is not a cell of this sheet's cells:")
    if not isinstance(document, CommentedMap):
        return edits
    for key, value in document.items():
        if key == "cells" and isinstance(value, CommentedMap):
            edits += _cells(lines, value, target)
        elif key in FORMULA_SECTIONS:
            edits += _section(lines, value, target, keys=key not in NAMED_ENTRIES)
        elif key == "use":
            edits += _imports(lines, value, target)
    return sorted(set(edits))


def references(text: str, name: str) -> list[tuple[str, int]]:
    """Where this sheet names its cell `name` outside formulas and conditions, which are
    cells themselves (their dependents): `expect`, sweeps, solves, choices, an import's
    `set:`, as (the top-level key, 1-based line), in order. Found as a rename finds them."""
    document = make_yaml(2, 0).load(text)
    if not isinstance(document, CommentedMap):
        return []
    lines, target, found = text.split("\n"), Target(name), []
    for key, value in document.items():
        try:
            if key == "use":
                edits = _imports(lines, value, target)
            elif key in FORMULA_SECTIONS and key not in ("checks", "assume"):
                edits = _section(lines, value, target, keys=key not in NAMED_ENTRIES)
            else:
                continue
        except StructureError:      # named where a rename could not say the column: the key's line will do
            edits = [(document.lc.key(key)[0], 0, 0)]
        found += sorted({(key, line + 1) for line, _, _ in edits}, key=lambda f: f[1])
    return found


def _key_edit(lines: list[str], node: CommentedMap, key: str, target: Target) -> Edit:
    line, col = node.lc.key(key)
    if lines[line][col:col + len(key)] != key:
        raise StructureError(f"line {line + 1}: cannot find the key {key!r} as written; rename it by hand")
    offset = target.key_offset(key) or 0
    return line, col + offset, len(target.old)


def _cells(lines: list[str], cells: CommentedMap, target: Target) -> list[Edit]:
    """The cell's key (its own, or an override in a sheet that extends it) and every formula."""
    edits = [_key_edit(lines, cells, target.old, target)] if target.alias is None and target.old in cells else []
    for key, value in cells.items():
        if is_formula(value):
            edits += _formula(lines, value, cells.lc.value(key), target)
        elif isinstance(value, CommentedMap):
            for part in ("formula", "value"):
                if isinstance(value.get(part), str):
                    edits += _formula(lines, value[part], value.lc.value(part), target)
    return edits


def _section(lines: list[str], node: Any, target: Target, keys: bool) -> list[Edit]:
    """Every string under a formula section; keys too once below named entries."""
    edits: list[Edit] = []
    if isinstance(node, CommentedMap):
        for key, value in node.items():
            if key in PROSE_KEYS:
                continue
            if keys and target.key_offset(key) is not None:
                edits.append(_key_edit(lines, node, key, target))
            edits += _value(lines, node.lc.value(key), value, target)
    elif isinstance(node, CommentedSeq):
        for i, value in enumerate(node):
            edits += _value(lines, node.lc.item(i), value, target)
    return edits


def _value(lines: list[str], where: tuple[int, int], value: Any, target: Target) -> list[Edit]:
    if isinstance(value, str):
        return [] if value.endswith((".yaml", ".yml")) else _formula(lines, value, where, target)
    return _section(lines, value, target, keys=True)


def _imports(lines: list[str], use: Any, target: Target) -> list[Edit]:
    """An import's `set:` values are formulas in this sheet's scope; its keys are the
    import's cells (renamed when the import is the renamed cell's sheet)."""
    edits: list[Edit] = []
    if isinstance(use, CommentedMap):
        for alias, value in use.items():
            given = value.get("set") if isinstance(value, CommentedMap) else None
            if isinstance(given, CommentedMap):
                for key, formula in given.items():
                    if alias == target.alias and key == target.old:
                        edits.append(_key_edit(lines, given, key, Target(target.old)))
                    if isinstance(formula, str):
                        edits += _formula(lines, formula, given.lc.value(key), target)
    return edits


def _formula(lines: list[str], value: str, where: tuple[int, int], target: Target) -> list[Edit]:
    """The spans of the target in the formula `value` written at `where`."""
    old = target.old
    body, skip = formula_body(value)
    try:
        tokens = tokenize(body)
    except LexError:
        return []       # not a formula (a note, an error value like '#DIV/0'): nothing to rename
    hits = target.hits(tokens)
    if not hits:
        return []
    base = value_column(lines, value, where)
    if base is None:
        raise StructureError(f"line {where[0] + 1}: {old} is named in a value written over several lines "
                             "or with escapes; rename it by hand")
    return [(where[0], base + skip + t.start, len(old)) for t in hits]
