"""The entries of a sheet's `expect` mappings — the sheet's own (`expect:
{step: 5.15 ms, p95(step): 6 ms}`) and those of its sweeps and choices (a
solve's `expect` is one value, the solution, and names no cell) — found in
its text, and removed from it.

Removal works on the text, as the structural edits of cells (cells.py) do:
an entry in block style is its key's line and the lines under it (comment
lines among them stay); in a flow mapping (`{tp: 2, all_done: 119.1 ms}`)
it is the characters from its key to the next key (or from the comma before
it, for the last one). A mapping left empty goes with its `expect` key. Every
other byte of the file stays. The result is loaded again and must be the old
document without those entries; otherwise the removal is refused (a layout
this cannot read, written by hand) rather than guessed. Pure Python: no UI
imports.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ruamel.yaml.comments import CommentedMap

from supersheet.editor.cells import StructureError
from supersheet.editor.roundtrip import make_yaml

BLOCKS = ("sweeps", "choose")        # their entries may hold an `expect` mapping of cells
STATISTIC = re.compile(r"^[A-Za-z0-9_]+\((?P<cell>[^()]*)\)$")     # p95(step), mean(step)


@dataclass(frozen=True)
class ExpectEntry:
    """One entry of an `expect` mapping: `path` is where the mapping is (`("expect",)`,
    `("sweeps", "tp_scaling", "expect")`), `key` the entry's key as written, `line`
    and `col` where that key starts (1-based)."""

    path: tuple[str, ...]
    key: str
    line: int
    col: int
    flow: bool = False      # in a `{…}` mapping

    @property
    def cell(self) -> str:
        """The cell it is about: `step` for `step` and for `p95(step)`."""
        match = STATISTIC.match(self.key)
        return match["cell"].strip() if match else self.key

    @property
    def label(self) -> str:
        """How the editor names it: `expect: step (line 40)`, `sweeps: scaling: expect: step (line 12)`."""
        return f"{': '.join(self.path)}: {self.key} (line {self.line})"


def entries(text: str) -> list[ExpectEntry]:
    """Every entry of the sheet's `expect` mappings, in the order of the file."""
    document = _load(text)
    if not isinstance(document, CommentedMap):
        return []
    found = _mapping(("expect",), document.get("expect"))
    for block in BLOCKS:
        named = document.get(block)
        if isinstance(named, CommentedMap):
            for name, entry in named.items():
                if isinstance(entry, CommentedMap):
                    found += _mapping((block, str(name), "expect"), entry.get("expect"))
    return sorted(found, key=lambda e: (e.line, e.col))


def naming(text: str, cell: str) -> list[ExpectEntry]:
    """The entries about `cell` (`cell:`, `p95(cell):`)."""
    return [e for e in entries(text) if e.cell == cell]


def entry_at(text: str, line: int, col: int) -> ExpectEntry | None:
    """The entry a position (1-based, a diagnostic's) lies in: on its key or its value."""
    lines = text.split("\n")
    for entry in entries(text):
        if not entry.flow:
            start, end = _lines_of(lines, entry.line)
            if start < line <= end:
                return entry
        elif entry.line == line and entry.col <= col:
            following = [e for e in entries(text) if e.path == entry.path and (e.line, e.col) > (entry.line, entry.col)]
            if not following or (following[0].line, following[0].col) > (line, col):
                return entry
    return None


def remove(text: str, removed: list[ExpectEntry]) -> str:
    """`text` without the `removed` entries (a mapping left empty goes with its `expect` key).
    Raises StructureError when the result would not be the same sheet without them."""
    if not removed:
        return text
    document = _load(text)
    every = entries(text)
    wanted = {(e.path, e.key) for e in removed}
    cuts: list[tuple[int, int, int, int]] = []       # 0-based (line, col) to (line, col), end excluded
    lines = text.split("\n")
    for path in dict.fromkeys(e.path for e in removed):
        mapping = [e for e in every if e.path == path]
        if all((path, e.key) in wanted for e in mapping):
            cuts.append(_cut(lines, *_expect_key(document, path)))     # the whole `expect:` goes
        else:
            cuts += [_cut(lines, e, mapping) for e in mapping if (path, e.key) in wanted]
    new = _apply(lines, cuts)
    if _plain(_load(new)) != _without(_plain(document), wanted):
        raise StructureError("the expect entries are written in a way the editor cannot remove them from "
                             "without changing other lines; remove them in a text editor")
    return new


# -- finding -------------------------------------------------------------------------
def _load(text: str) -> Any:
    try:
        return make_yaml(2, 0).load(text)
    except Exception:  # noqa: BLE001 - not YAML: the sheet's diagnostics say why; nothing to find
        return None


def _mapping(path: tuple[str, ...], node: Any) -> list[ExpectEntry]:
    if not isinstance(node, CommentedMap):
        return []
    flow = bool(node.fa.flow_style())
    return [ExpectEntry(path, str(key), node.lc.key(key)[0] + 1, node.lc.key(key)[1] + 1, flow) for key in node]


def _expect_key(document: CommentedMap, path: tuple[str, ...]) -> tuple[ExpectEntry, list[ExpectEntry]]:
    """The `expect` key itself, as an entry of the mapping that holds it, and that mapping's entries."""
    parent = document
    for part in path[:-1]:
        parent = parent[part]
    siblings = _mapping(path[:-1], parent)
    return next(s for s in siblings if s.key == path[-1]), siblings


# -- cutting -------------------------------------------------------------------------
def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _filler(line: str) -> bool:
    return not line.strip() or line.strip().startswith("#")


def _lines_of(lines: list[str], line: int) -> tuple[int, int]:
    """The 0-based [start, end) lines of the block-style entry whose key is on 1-based
    `line`: the lines indented under it, and a sequence written at its own indent."""
    start = last = line - 1
    indent = _indent(lines[start])
    for j in range(start + 1, len(lines)):
        if _filler(lines[j]):
            continue
        here, stripped = _indent(lines[j]), lines[j].strip()
        if here < indent or (here == indent and not (stripped.startswith("- ") or stripped == "-")):
            break
        last = j
    return start, last + 1


def _cut(lines: list[str], entry: ExpectEntry, mapping: list[ExpectEntry] | None = None
         ) -> tuple[int, int, int, int]:
    """The characters that make up `entry` (with the comma that joins it to its neighbour)."""
    if not entry.flow:
        start, end = _lines_of(lines, entry.line)
        return start, 0, end, 0
    mapping = mapping or [entry]
    line, col = entry.line - 1, entry.col - 1
    after = [e for e in mapping if (e.line, e.col) > (entry.line, entry.col)]
    if after:                                   # `tp: 2, ` up to the next key
        return line, col, after[0].line - 1, after[0].col - 1
    at = line                                   # the last one: from the comma before it
    before = lines[at][:col].rstrip()
    while not before and at > 0:                # (a flow mapping written over several lines)
        at -= 1
        before = lines[at].rstrip()
    close = lines[line].find("}", col)
    if not before.endswith(","):
        raise StructureError(f"line {entry.line}: cannot find where {entry.key} starts; remove it by hand")
    return at, len(before) - 1, line, close if close >= 0 else len(lines[line])


def _apply(lines: list[str], cuts: list[tuple[int, int, int, int]]) -> str:
    out = lines[:]
    for l1, c1, l2, c2 in sorted(set(cuts), reverse=True):
        if c1 == 0 and c2 == 0:                 # whole lines: the comment lines among them stay
            out[l1:l2] = [ln for ln in out[l1 + 1:l2] if ln.strip().startswith("#")]
        else:
            out[l1:l2 + 1] = [out[l1][:c1] + out[l2][c2:]]
    return "\n".join(out)


# -- checking ------------------------------------------------------------------------
def _plain(node: Any) -> Any:
    if isinstance(node, dict):
        return {str(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return node


def _without(document: Any, wanted: set[tuple[tuple[str, ...], str]]) -> Any:
    for path, key in wanted:
        parent = document
        for part in path[:-1]:
            parent = parent[part]
        mapping = parent[path[-1]]
        del mapping[key]
        if not mapping:
            del parent[path[-1]]
    return document
