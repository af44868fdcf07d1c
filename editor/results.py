"""What an edit of the document reports: whether it was applied, the values
it changed (old and new, with their direction and ratio) and the diagnostics
that refused it. Pure Python: no UI imports.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Mapping, TypeGuard

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.base.vocabulary import is_formula
from supersheet.engine.compile.evaluate import Value


@dataclass(frozen=True)
class Change:
    """A value that an edit changed (base-unit magnitudes, as in `Scenario`)."""

    key: str
    old: Value
    new: Value

    @property
    def ratio(self) -> float | None:
        """(new - old) / |old| for numbers; None when there is no such ratio."""
        old, new = self.old, self.new
        if is_number(old) and is_number(new) and old != 0 and math.isfinite(old) and math.isfinite(new):
            return (new - old) / abs(old)
        return None

    @property
    def direction(self) -> int:
        """+1 up, -1 down, 0 for a change that is not a number."""
        if is_number(self.old) and is_number(self.new):
            return (self.new > self.old) - (self.new < self.old)
        return 0


@dataclass
class EditResult:
    ok: bool
    key: str
    text: str
    changes: dict[str, Change] = field(default_factory=dict)
    recomputed: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    rendered: str = ""            # the diagnostics as the CLI prints them
    message: str = ""             # a one-line reason when the edit is refused outright
    note: str = ""                # what was understood beyond the text as typed (a unit kept)
    label: str = ""               # an undone or redone structural step, in words ("added foo"), not a cell's text


def assignment(key: str, text: str) -> str:
    """`key = text` as a status line says it: a formula's own `=` is the sign
    (`kv_proj = model.layers * …`, never `kv_proj = = model.layers * …`)."""
    return f"{key} {text.lstrip()}" if is_formula(text) else f"{key} = {text}"


def changes(old: Mapping[str, Value], new: Mapping[str, Value], among: Iterable[str] | None = None) -> dict[str, Change]:
    """The values that differ between two evaluations, keyed by cell; with `among`, only
    those cells are compared (the ones recomputed: an edit's cost is that of the cells it
    changes, not of the sheet)."""
    if among is None:
        return {k: Change(k, old.get(k), v) for k, v in new.items() if not same(old.get(k), v)}
    return {k: Change(k, old.get(k), new[k]) for k in among if k in new and not same(old.get(k), new[k])}


def same(a: Value, b: Value) -> bool:
    """Equal values (NaN equals NaN: an error that stays an error is no change)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def is_number(value: object) -> TypeGuard[float]:
    return isinstance(value, float) and not isinstance(value, bool)
