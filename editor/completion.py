"""What the cell editor offers to complete at its cursor: a cell's name (with
its value and unit), after `alias.` that import's cells, a unit after a number,
a function with its signature. Only the word being typed is ever completed,
and only when asked (Tab): the editor shows the offers, it never replaces text
by itself. Pure Python: no UI imports.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from supersheet.engine.base.vocabulary import is_formula
from supersheet.engine.compile.evaluate import error_code
from supersheet.engine.formula.functions import FUNCTIONS

if TYPE_CHECKING:
    from supersheet.editor.view import SheetView

LISTED = 8          # offers at most; the rest are counted
# the units a planner types most, offered after a number beside those the sheet writes
COMMON_UNITS = ("token", "B", "kB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "GB/s", "TB/s", "Gbit/s",
                "s", "ms", "us", "ns", "FLOP", "GFLOP", "TFLOP", "TFLOP/s", "PFLOP/s", "W", "kW", "Hz", "GHz")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*\Z")
_UNIT_AFTER_NUMBER = re.compile(r"(?:^|[\s(*/+=,-])\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?\s*(?P<unit>[A-Za-z][A-Za-z/]*)?\Z")
_WRITTEN_UNIT = re.compile(r"^\s*-?\d[\d_.eE+-]*\s+([A-Za-z][A-Za-z0-9/^*]*)\s*$")
_ARROW_UNIT = re.compile(r"->\s*([A-Za-z][A-Za-z0-9/^*]*)")


@dataclass(frozen=True)
class Offer:
    text: str          # what the word becomes
    detail: str        # its value and unit, a function's signature, "unit"


@dataclass(frozen=True)
class Completions:
    start: int                 # where the word being completed starts in the text
    word: str                  # the word as typed so far
    offers: tuple[Offer, ...]
    more: int = 0              # offers not listed

    def accept(self, text: str, cursor: int, index: int = 0) -> tuple[str, int]:
        """The text with the word at the cursor replaced by offer `index`, and the new cursor."""
        chosen = self.offers[index].text
        return text[:self.start] + chosen + text[cursor:], self.start + len(chosen)


def complete(view: SheetView, key: str, text: str, cursor: int, listed: int = LISTED) -> Completions | None:
    """The offers for the word before `cursor` in the text of cell `key` (None: nothing to offer);
    at most `listed` of them, the rest counted (a language server's client lists them all)."""
    before = text[:cursor]
    unit = _UNIT_AFTER_NUMBER.search(before)
    if unit is not None and (unit["unit"] or before.endswith(" ")):
        word = unit["unit"] or ""
        names = sorted(set(sheet_units(view)) | set(COMMON_UNITS), key=lambda u: (u.lower() != word.lower(), len(u), u))
        return _offers(cursor - len(word), word, [Offer(u, "unit") for u in names if u.startswith(word) and u != word],
                       listed)
    if not is_formula(text):
        return None       # a value: only its unit is completed
    match = _NAME.search(before)
    if match is None:
        return None
    word = match.group()
    start = cursor - len(word)
    prefix = view.cell(key).scope.prefix if view.has_cell(key) else ""
    offers: list[Offer] = []
    if "." in word:
        alias = word.rsplit(".", 1)[0]
        for candidate in view.keys():
            local = candidate[len(prefix):] if candidate.startswith(prefix) else None
            if local and local.startswith(word) and local != word and local.count(".") == word.count("."):
                offers.append(Offer(local, candidate))
        if not offers and not any(k.startswith(f"{prefix}{alias}.") for k in view.keys()):
            return None
    else:
        aliases: set[str] = set()
        for candidate in view.keys():
            if not candidate.startswith(prefix):
                continue
            local = candidate[len(prefix):]
            if "." in local:
                aliases.add(local.split(".")[0])
            elif local.startswith(word) and local != key[len(prefix):]:
                offers.append(Offer(local, candidate))
        offers += [Offer(a + ".", "import") for a in sorted(aliases) if a.startswith(word)]
        offers += [Offer(f.name + "(", f.signature) for f in FUNCTIONS.values() if f.name.startswith(word)]
        offers = [o for o in offers if o.text != word]
    offers.sort(key=lambda o: (not o.text.startswith(word), len(o.text), o.text))
    # a cell's offer carries its key until here: only the listed ones are shown with their values
    shown = [Offer(o.text, value_detail(view, o.detail)) if view.has_cell(o.detail) else o
             for o in offers[:listed]]
    return _offers(start, word, shown + offers[listed:], listed)


def complete_new_cell(view: SheetView, line: str, cursor: int, listed: int = LISTED) -> Completions | None:
    """The offers for the word before `cursor` in a new cell's line `name: text` (the editor's
    Ctrl+N), as in a cell's text: after the colon, the text is completed as the new cell's."""
    name, colon, text = line.partition(":")
    start = len(name) + len(colon)
    if not colon or cursor < start:
        return None       # the name: a new one, nothing to offer
    found = complete(view, name.strip(), text, cursor - start, listed)
    return None if found is None else replace(found, start=found.start + start)


def value_detail(view: SheetView, key: str) -> str:
    """A cell's value as the grid shows it (`1.577 GB`), or its error code."""
    value = view.value(key)
    code = error_code(value)
    if code is not None:
        return code
    try:
        return view.shown(key, value).text
    except Exception:     # a cell that does not check has no value to show: offered by its name only
        return ""


def sheet_units(view: SheetView) -> list[str]:
    """The units the sheet (and its imports) write: `80 GB`, `-> GB/s`."""
    found: set[str] = set()
    for key in view.keys():
        raw = view.raw_text(key)
        written = _WRITTEN_UNIT.match(raw)
        if written is not None:
            found.add(written.group(1))
        found.update(_ARROW_UNIT.findall(raw))
    return sorted(found)


def _offers(start: int, word: str, offers: list[Offer], listed: int = LISTED) -> Completions | None:
    if not offers:
        return None
    return Completions(start, word, tuple(offers[:listed]), max(len(offers) - listed, 0))
