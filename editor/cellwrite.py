"""Where a cell is written in a sheet's YAML document: the scalar an input's
value is (edited in place), and the structural writes of the editor — a
formula or value of this sheet's own cell, a check, or a `use: … set:`
override of an imported cell (copying an import entry inherited through
`extends` into this sheet when needed). Top-level blocks are created where
the format lists them. Pure Python: no UI imports.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap

from supersheet.engine.base.project import library_name
from supersheet.engine.base.vocabulary import TOP_LEVEL_KEYS, is_formula
from supersheet.editor.roundtrip import flow, scalar_for, string_like
from supersheet.engine.load.model import Cell, Merged


class Refused(Exception):
    """The document is not written in a way this edit can change."""


def scalar_path(doc: Any, root: Merged | None, cell: Cell) -> tuple | None:
    """Where in the sheet's document `cell`'s value is written as one scalar, if it is."""
    if root is None or not isinstance(doc, CommentedMap):
        return None
    if not cell.scope.prefix:
        block = {"check": "checks", "assume": "assume"}.get(cell.kind, "cells")
        own = {"check": root.file.checks, "assume": root.file.assume}.get(cell.kind, root.file.cells)
        if own.get(cell.name) is not cell.spec or not isinstance(doc.get(block), CommentedMap):
            return None
        node = doc[block].get(cell.name)
        if isinstance(node, CommentedMap):
            return (block, cell.name, "value" if "value" in node else "formula")
        return (block, cell.name)
    alias = cell.scope.prefix[:-1]
    if cell.set_by is None or alias not in root.file.use:
        return None
    entry = doc.get("use", {}).get(alias) if isinstance(doc.get("use"), CommentedMap) else None
    if isinstance(entry, CommentedMap) and isinstance(entry.get("set"), CommentedMap) and cell.name in entry["set"]:
        return ("use", alias, "set", cell.name)
    return None


def node_at(doc: Any, path: tuple) -> Any:
    node = doc
    for part in path:
        node = node[part]
    return node


def set_at(doc: Any, path: tuple, value: Any) -> None:
    node_at(doc, path[:-1])[path[-1]] = value


def write_cell(doc: Any, root: Merged | None, cell: Cell, text: str, yaml: YAML, path: Path) -> None:
    """Write `text` (a value, or a formula after '=') for `cell` into the
    document of the sheet at `path`: its own cell, a `checks:` entry, or a
    `use: … set:` override of an imported cell. Raises `Refused`."""
    assert isinstance(doc, CommentedMap) and root is not None
    formula = is_formula(text)
    body = text.lstrip()[1:].strip() if formula else text
    if not cell.scope.prefix:
        if cell.kind in ("check", "assume"):
            conditions = block(doc, "checks" if cell.kind == "check" else "assume")
            conditions[cell.name] = string_like(body, conditions.get(cell.name))
            return
        cells = block(doc, "cells")
        node = cells.get(cell.name) if root.file.cells.get(cell.name) is cell.spec else None
        if isinstance(node, CommentedMap):
            old_key = "value" if "value" in node else "formula"
            new_key = "formula" if formula else "value"
            value = (string_like(body, node[old_key]) if formula
                     else scalar_for(text, node[old_key], yaml))
            if old_key == new_key:
                node[new_key] = value
            else:
                rename(node, old_key, new_key, value)
            return
        if node is None and (cell.spec.unit or cell.spec.digits):
            long = CommentedMap()   # an override of an inherited cell keeps its display unit
            long["formula" if formula else "value"] = body if formula else scalar_for(text, None, yaml)
            for extra in ("unit", "digits"):
                if getattr(cell.spec, extra):
                    long[extra] = getattr(cell.spec, extra)
            cells[cell.name] = long
            return
        cells[cell.name] = scalar_for(text, node, yaml)
        return
    write_set(doc, root, cell.scope.prefix[:-1], cell.name, text, yaml, path)


def write_set(doc: Any, root: Merged, alias: str, name: str, text: str, yaml: YAML, path: Path) -> None:
    """Write `text` as the `set:` entry `name` of the import `alias` (a value, or a
    formula after '=') in the document of the sheet at `path`: `alias: path` becomes
    `alias: {sheet: path, set: {name: text}}` on its line; an import inherited
    through `extends` is copied into this sheet first. Raises `Refused`."""
    uses = block(doc, "use")
    entry = uses.get(alias) if alias in root.file.use else None
    if entry is None:
        entry = _inherited_use(root, alias, path)
    if isinstance(entry, str):
        entry = flow({"sheet": entry})
    if not isinstance(entry, CommentedMap) or not isinstance(entry.get("sheet"), str):
        raise Refused(f"the import {alias!r} is not written as a path or {{sheet: path}}")
    sets = entry.get("set")
    if sets is None:
        entry["set"] = sets = flow({})
    if not isinstance(sets, CommentedMap):
        raise Refused(f"'set' of import {alias!r} is not a mapping")
    sets[name] = scalar_for(text, sets.get(name), yaml)
    uses[alias] = entry


def remove_set(doc: Any, alias: str, name: str) -> None:
    """Take the `set:` entry `name` out of this sheet's import `alias`; a `set:` left
    empty goes, and `{sheet: path}` written on one line is `path` again (as it was
    before its first entry). Raises `Refused`."""
    uses = doc.get("use") if isinstance(doc, CommentedMap) else None
    entry = uses.get(alias) if isinstance(uses, CommentedMap) else None
    sets = entry.get("set") if isinstance(entry, CommentedMap) else None
    if not isinstance(sets, CommentedMap) or name not in sets:
        raise Refused(f"the import {alias!r} of this sheet has no set: entry {name!r}")
    del sets[name]
    if sets:
        return
    assert isinstance(entry, CommentedMap) and isinstance(uses, CommentedMap)
    del entry["set"]
    if list(entry) == ["sheet"] and isinstance(entry["sheet"], str) and entry.fa.flow_style():
        uses[alias] = entry["sheet"]

def _inherited_use(root: Merged, alias: str, path: Path) -> CommentedMap | None:
    """A copy, for the sheet at `path`, of an import entry it inherits through `extends`."""
    inherited = root.use.get(alias)
    if inherited is None or inherited.target is None:
        return None
    base_file = Path(inherited.span.file)
    if library_name(inherited.target) is not None:      # a library file is the same file from anywhere
        written = inherited.target
    else:
        written = Path(os.path.relpath(os.path.normpath(base_file.parent / inherited.target), path.parent)).as_posix()
    entry = flow({"sheet": written})
    if inherited.written_sets is not None:
        entry["set"] = flow(dict(inherited.written_sets))
    return entry


def block(doc: CommentedMap, name: str) -> CommentedMap:
    """The top-level mapping `name`, created where the format lists it if missing."""
    node = doc.get(name)
    if node is None:
        node = CommentedMap()
        earlier = TOP_LEVEL_KEYS[:TOP_LEVEL_KEYS.index(name)]
        keys = list(doc)
        position = max((i + 1 for i, k in enumerate(keys) if k in earlier), default=0)
        doc.insert(position, name, node)
    if not isinstance(node, CommentedMap):
        raise Refused(f"{name!r} is not a mapping")
    return node


def rename(node: CommentedMap, old: str, new: str, value: Any) -> None:
    """Replace key `old` by `new` at the same position, keeping its comment."""
    position = list(node).index(old)
    comment = node.ca.items.pop(old, None)
    del node[old]
    node.insert(position, new, value)
    if comment is not None:
        node.ca.items[new] = comment
