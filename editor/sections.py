"""How the editor groups a sheet's cells: runs of own cells split where the
file has a blank line or a comment (the comment is the group's title), the
checks, then each import under its alias; and which cell a diagnostic points
into. Pure Python: no UI imports.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from supersheet.engine.base.span import Span
from supersheet.engine.load.model import CONDITIONS, Model


@dataclass
class Section:
    """A group of rows in the grid: a titled run of cells, the checks, or an import."""

    id: str
    title: str
    keys: list[str]
    kind: str                     # "cells" | "checks" | "import"
    alias: str = ""


def sections(model: Model, lines_of: Callable[[str], list[str]], file: str) -> list[Section]:
    """The grid's groups: own cells split where the file has a blank line or
    comment between them (the comment is the title), the checks, then each
    import under its alias. `lines_of(file)` gives a file's lines; `file` is
    the open sheet's."""
    sections: list[Section] = []
    current: Section | None = None
    seen: dict[str, list[str]] = {}
    last_file = None
    for cell in model.cells.values():
        if cell.scope.prefix or cell.kind in CONDITIONS:
            continue
        span = cell.spec.span
        lines = seen.get(span.file)
        if lines is None:
            lines = seen[span.file] = lines_of(span.file)
        brk, title = group_break(lines, span.line)
        if current is None or brk or span.file != last_file:
            current = Section(f"cells-{len(sections)}", title or ("" if sections else "cells"), [], "cells")
            if span.file != str(file) and not title:
                current.title = f"from {Path(span.file).name}"
            sections.append(current)
        current.keys.append(cell.key)
        last_file = span.file
    for section in sections:
        section.title = section.title or "cells"
    checks = [c.key for c in model.cells.values() if not c.scope.prefix and c.kind == "check"]
    if checks:
        sections.append(Section("checks", "checks", checks, "checks"))
    assumptions = [c.key for c in model.cells.values() if not c.scope.prefix and c.kind == "assume"]
    if assumptions:
        sections.append(Section("assumptions", "assumptions", assumptions, "checks"))
    imports: dict[str, Section] = {}
    for cell in model.cells.values():
        if not cell.scope.prefix:
            continue
        alias = cell.scope.prefix[:-1]
        group = imports.get(alias)
        if group is None:
            path = cell.scope.path
            sheet = model.files.get(path.resolve()) if path else None
            title = f"{alias} · {sheet.title}" if sheet is not None and sheet.title else alias
            group = imports[alias] = Section(f"import-{alias}", title, [], "import", alias)
            sections.append(group)
        group.keys.append(cell.key)
    return sections


def cell_at(model: Model, lines_of: Callable[[str], list[str]], span: Span | None) -> str | None:
    """The cell a diagnostic points into (the nearest cell defined above it)."""
    if span is None:
        return None
    best: tuple[int, int, str] | None = None
    for cell in model.cells.values():
        for spec in (cell.set_by, cell.spec):
            if spec is None or spec.span.file != span.file or spec.span.line > span.line:
                continue
            rank = (spec.span.line, -cell.key.count("."), cell.key)
            if best is None or rank[:2] > best[:2]:
                best = rank
    if best is None:
        return None
    # not past the end of the cell's block (a problem in `sweeps:` is no cell's)
    lines = lines_of(span.file)
    for line in lines[best[0]:span.line - 1]:
        if line[:1] not in ("", " ", "\t", "#", "-"):
            return None
    return best[2]


def group_break(lines: list[str], line: int) -> tuple[bool, str]:
    """Whether a blank line or comment precedes the cell on 1-based `line`, and
    the comment's text (a section title) if there is one."""
    i = line - 2
    comments: list[str] = []
    blank = False
    while i >= 0:
        stripped = lines[i].strip()
        if stripped.startswith("#"):
            comments.append(stripped.lstrip("#").strip())
        elif not stripped:
            blank = True
            if comments:
                break
        else:
            break
        i -= 1
    title = comments[-1] if comments else ""
    return bool(comments) or blank, title
