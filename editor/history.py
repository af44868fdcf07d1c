"""Undo and redo for the editor: each applied edit is a `Step` that can be
replayed either way — a scalar replaced in place in the YAML document (the
fast path), or the whole document's text before and after (a structural
edit), with the other sheets it wrote (a rename's importers), which undo and
redo write back. The history also knows which step was saved, so the document is dirty
exactly when the current step differs from it. Pure Python: no UI imports.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_ids = itertools.count()


@dataclass(frozen=True)
class FileEdit:
    """Another sheet written as part of a step (an importer updated by a rename):
    its text before and after, so that undo and redo can write it back."""

    path: Path
    before: str
    after: str


@dataclass
class Step:
    key: str
    before: str                   # the cell's raw text before and after
    after: str
    path: tuple | None = None     # a scalar replaced in place ...
    old_node: Any = None
    new_node: Any = None
    text_before: str | None = None  # ... or the whole document before and after
    text_after: str | None = None
    files: tuple[FileEdit, ...] = ()   # other sheets it wrote on disk (rename.py's importers)
    imported: tuple[FileEdit, ...] = ()   # imported files it edited in the session (shared.py), saved on Ctrl+S
    label: str = ""               # what a structural step did, in words ("added foo"): undo and redo say it
    id: int = field(default_factory=_ids.__next__)


class History:
    def __init__(self) -> None:
        self.undo_stack: list[Step] = []
        self.redo_stack: list[Step] = []
        self._saved: int | None = None

    def clear(self) -> None:
        self.undo_stack.clear()
        self.redo_stack.clear()
        self._saved = None

    def push(self, step: Step) -> None:
        """A new edit: it can be undone, and nothing undone can be redone any more."""
        self.undo_stack.append(step)
        self.redo_stack.clear()

    def back(self) -> Step | None:
        """The step to undo (moved to the redo stack), None when there is none."""
        if not self.undo_stack:
            return None
        step = self.undo_stack.pop()
        self.redo_stack.append(step)
        return step

    def forward(self) -> Step | None:
        """The step to redo (moved back to the undo stack), None when there is none."""
        if not self.redo_stack:
            return None
        step = self.redo_stack.pop()
        self.undo_stack.append(step)
        return step

    def mark_saved(self) -> None:
        self._saved = self._current()

    @property
    def dirty(self) -> bool:
        return self._current() != self._saved

    def _current(self) -> int | None:
        return self.undo_stack[-1].id if self.undo_stack else None
