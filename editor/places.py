"""Where a diagnostic or a changed line of the diff is, so that choosing it in
the editor always goes somewhere: a cell, an import's group row, one of the
sheet's sweeps, or else the file and line (the editor shows the source lines
there). Pure Python: no UI imports.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.base.span import Span
from supersheet.engine.load.model import Model

# the blocks of a sheet whose entries are named, as the YAML spells them
BLOCKS = ("use", "sweeps", "solve", "choose", "expect")


@dataclass(frozen=True)
class Place:
    """A place to go. `cell`: a cell of the grid; `section`: a group row of the
    grid (an import's alias); `sweep`: one of the sheet's sweeps (the sweep view
    opens on it); otherwise `span` with `text` (the diagnostic as the CLI
    prints it, the source line marked) is shown as it is."""

    title: str                       # what it is, for the status line: "sweep 'scaling' (sheet.yaml:31:5)"
    text: str = ""
    span: Span | None = None
    cell: str | None = None
    section: str | None = None
    sweep: str | None = None


@dataclass(frozen=True)
class Entry:
    """A named entry of one of the sheet's blocks (`sweeps: {scaling: …}`)."""

    block: str
    name: str
    span: Span


def entries(model: Model) -> list[Entry]:
    """The named entries of the open sheet's blocks, in the order of the file."""
    root = model.root
    if root is None:
        return []
    own = root.file
    found = [Entry(block, str(name), item.span) for block in BLOCKS
             for name, item in getattr(root, block).items() if item.span is not None and item.span.file == own.file]
    if own.extends is not None:
        found.append(Entry("extends", str(own.extends.target or own.extends.name), own.extends.span))
    return sorted(found, key=lambda e: (e.span.line, e.span.col))


def entry_at(model: Model, lines: list[str], span: Span | None) -> Entry | None:
    """The block entry a position lies in: the last entry written at or above
    it, when no top-level key of the sheet comes between them."""
    root = model.root
    if span is None or root is None or span.file != root.file.file:
        return None
    above = [e for e in entries(model) if e.span.line <= span.line]
    if not above:
        return None
    entry = above[-1]
    for line in lines[entry.span.line:span.line - 1]:
        if line[:1] not in ("", " ", "\t", "#", "-"):
            return None      # a later top-level key: the position is not in the block
    return entry


def place_of(diagnostic: Diagnostic, cell: str | None, model: Model, lines: list[str],
             rendered: Callable[[Diagnostic], str]) -> Place:
    """Where `diagnostic` is: its cell (`cell`, found by the document), else the
    block entry it is in, else its file and line."""
    span = diagnostic.span
    where = f"{span.file.rsplit('/', 1)[-1]}:{span.line}:{span.col}" if span is not None else "the sheet as a whole"
    text = rendered(diagnostic)
    if cell is not None:
        return Place(f"{cell} ({where})", text, span, cell=cell)
    entry = entry_at(model, lines, span)
    if entry is not None:
        title = f"{entry.block}: {entry.name} ({where})"
        if entry.block == "sweeps":
            return Place(title, text, span, sweep=entry.name)
        if entry.block == "use":
            return Place(title, text, span, section=f"import-{entry.name}")
        if entry.block == "expect" and entry.name in model.cells:
            return Place(title, text, span, cell=entry.name)
        return Place(title, text, span)
    return Place(where, text, span)


def change_place(attr: str, name: str, old: str | None, new: str | None, label: str,
                 is_cell: Callable[[str], bool], is_import: Callable[[str], bool]) -> Place:
    """Where a changed row of the diff is (`attr`: its part, "inputs", "imports",
    "removed" …; `name` as the diff writes it, "a -> b" for a rename, "x[2]" for
    an element): the cell, the import's group row, or, for what is not in the
    sheet now (a removed cell, an alias that went away), what it was."""
    key = name.split(" -> ")[-1].split("[")[0]
    if attr == "imports" and is_import(key):
        return Place(f"import {key}", section=f"import-{key}")
    if attr != "imports" and is_cell(key):
        return Place(key, cell=key)
    was = f"was {old} ({label})" if old is not None else f"not in the {label}"
    now = f"now {new}" if new is not None else "not in the sheet now"
    what = "import" if attr == "imports" else "cell" if attr in ("removed", "added", "renamed") else "row"
    return Place(f"{name}: no {what} of the sheet to go to", f"{name}: {was}; {now}")
