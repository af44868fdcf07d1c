"""Structural edits of a sheet's own cells, as text: add a cell after another
(in its group), duplicate one, delete one. Pure functions from the sheet's
text to the new text; the document (edit.py) checks the result and records it
as one undo step. Pure Python: no UI imports.

They work on lines rather than on the round-trip document because ruamel
keeps a blank line or comment that opens the next group on the last value of
the group before it: inserting or deleting a key there would move or drop it.
A cell's block is its key's line and the lines indented under it; blank lines
and comments after it belong to what follows and are never touched.
"""
from __future__ import annotations

import io
import re

from ruamel.yaml import YAML

from supersheet.editor.roundtrip import make_yaml, scalar_for

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class StructureError(Exception):
    """The structural edit cannot be made (a bad name, a cell that is not the sheet's own)."""


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def is_filler(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def cell_block(lines: list[str], line: int) -> tuple[int, int]:
    """The 0-based [start, end) lines of the cell whose key is on 1-based `line`."""
    start = line - 1
    indent = indent_of(lines[start])
    last = start
    for j in range(start + 1, len(lines)):
        if is_filler(lines[j]):
            continue
        if indent_of(lines[j]) <= indent:
            break
        last = j
    return start, last + 1


def entry_lines(name: str, text: str, indent: int, yaml: YAML | None = None) -> list[str]:
    """`name: text` as YAML lines at `indent`, the value written as typed."""
    yaml = yaml or make_yaml(2, 0)
    out = io.StringIO()
    yaml.dump({name: scalar_for(text.strip(), None, yaml)}, out)
    return [" " * indent + line for line in out.getvalue().splitlines()]


def value_column(lines: list[str], value: str, where: tuple[int, int]) -> int | None:
    """The column at which the characters of the string `value`, loaded from 0-based
    (line, column) `where`, start on that line (after an opening quote); None when
    they do not map one to one (a block scalar, a folded or escaped value)."""
    line, col = where
    written = lines[line]
    if written[col:col + len(value)] == value:
        return col
    if written[col:col + 1] in "'\"" and written[col + 1:col + 1 + len(value)] == value:
        return col + 1
    return None


def check_name(name: str, taken) -> None:
    if not NAME.match(name):
        raise StructureError(f"{name!r} is not a cell name: letters, digits and _, not starting with a digit")
    if name in taken:
        raise StructureError(f"there is already a cell {name!r}")


def add_after(text: str, line: int, name: str, value: str) -> str:
    """A new cell `name: value` right after the cell on `line`, in its group."""
    lines = text.split("\n")
    start, end = cell_block(lines, line)
    new = entry_lines(name, value, indent_of(lines[start]))
    return "\n".join(lines[:end] + new + lines[end:])


def duplicate(text: str, line: int, old: str, new: str) -> str:
    """A copy of the cell on `line` (named `old`) as `new`, right after it."""
    lines = text.split("\n")
    start, end = cell_block(lines, line)
    first = lines[start]
    indent = indent_of(first)
    if not first[indent:].startswith(old):
        raise StructureError(f"cannot find {old!r} at line {line}")
    copy = [first[:indent] + new + first[indent + len(old):]] + lines[start + 1:end]
    return "\n".join(lines[:end] + copy + lines[end:])


def delete(text: str, line: int) -> str:
    """The text without the cell on `line` (comments and blank lines around it stay)."""
    lines = text.split("\n")
    start, end = cell_block(lines, line)
    return "\n".join(lines[:start] + [ln for ln in lines[start + 1:end] if ln.strip().startswith("#")]
                     + lines[end:])


def new_sheet(title: str) -> str:
    """The text of a new sheet: its title and one starter cell to edit."""
    yaml = make_yaml(2, 0)
    out = io.StringIO()
    yaml.dump({"title": title.strip() or "Untitled sheet"}, out)
    return out.getvalue() + "cells:\n  x: 1\n"
