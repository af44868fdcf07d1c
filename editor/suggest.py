"""What may come next at the cursor of a sheet being typed: the completion of
`supersheet lsp`. From the text of the line before the cursor it tells which
kind of word is being typed, and offers only words of that kind:

* at the start of a top-level line: the format's top-level keys;
* after `alias.` (or `b.hgx.`): that import's cells, with value and unit;
* after a number: units (`80 G` offers `GB`, `GiB`, `Gbit` …);
* otherwise, in a value: this sheet's cells, its aliases, and the functions
  with their signatures.

Every item only completes the word under the cursor (its `replace` is that
word's length): nothing typed before it is ever replaced. Pure Python.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from supersheet.engine.formula.functions import FUNCTIONS
from supersheet.engine.load.sheet_reader import TOP_LEVEL_KEYS
from supersheet.units import describe, parse_unit
from supersheet.units.parse import UnitError

__all__ = ["COMMON_UNITS", "Suggestion", "suggestions"]

# The units of this domain, offered after a number (any other unit Pint knows still works when typed).
COMMON_UNITS = (
    "B", "kB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB", "bit", "kbit", "Mbit", "Gbit", "Tbit",
    "GB/s", "TB/s", "GiB/s", "Gbit/s", "Tbit/s",
    "s", "ms", "us", "μs", "ns", "min", "h", "day",
    "FLOP", "GFLOP", "TFLOP", "PFLOP", "TFLOP/s", "PFLOP/s", "FLOP/B",
    "W", "kW", "MW", "J", "kWh", "Hz", "GHz",
    "token", "ktoken", "Kitoken", "token/s", "request", "request/s", "session", "GPU", "GPU*s", "GPU*h",
    "USD", "USD/h", "USD/GPU/h", "%", "m", "km",
)

_NUMBER_THEN_UNIT = re.compile(r"(?:^|[^\w.])\d(?:[\d_]*)(?:\.\d*)?(?:[eE][+-]?\d+)?( ?)([A-Za-zμ%/*^0-9_]*)$")
_ALIAS_DOT = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\.(\w*)$")
_WORD = re.compile(r"([A-Za-z_]\w*)$")


class Completing(Protocol):
    """What completion reads of an open sheet (editor/language.py's Snapshot)."""

    @property
    def local_names(self) -> dict[str, str]: ...
    def alias_cells(self, alias: str) -> dict[str, str]: ...
    def aliases(self) -> list[str]: ...
    def label_of(self, key: str) -> str: ...


@dataclass(frozen=True)
class Suggestion:
    label: str
    kind: str            # "cell" | "alias" | "function" | "unit" | "key"
    detail: str          # a cell's value, a function's signature, a unit's dimension
    insert: str          # the text that completes the word
    replace: int         # how many characters before the cursor it replaces (the word typed so far)


def suggestions(sheet: Completing, before: str) -> list[Suggestion]:
    """What may complete the word that ends `before` (the line up to the cursor)."""
    if not before[:1].isspace() and ":" not in before:
        return _top_level_keys(before)
    value = before.split(":", 1)[1] if ":" in before else before
    if (unit := _NUMBER_THEN_UNIT.search(value)) is not None:     # still typing the number: nothing yet
        return _units(unit.group(2)) if unit.group(1) or unit.group(2) else []
    if (dotted := _ALIAS_DOT.search(value)) is not None:
        alias, typed = dotted.group(1), dotted.group(2)
        cells = sheet.alias_cells(alias)
        if cells:
            return [Suggestion(name, "cell", sheet.label_of(key), name, len(typed))
                    for name, key in sorted(cells.items()) if name.startswith(typed) and "." not in name]
        return []
    typed_match = _WORD.search(value)
    typed = typed_match.group(1) if typed_match else ""
    if typed_match is None and not value.rstrip().startswith("=") and value.strip():
        return []
    out = [Suggestion(name, "cell", sheet.label_of(key), name, len(typed))
           for name, key in sorted(sheet.local_names.items()) if name.startswith(typed)]
    out += [Suggestion(alias, "alias", "an import", alias, len(typed))
            for alias in sorted(sheet.aliases()) if alias.startswith(typed)]
    out += [Suggestion(f.name, "function", f"{f.signature}: {f.summary}", f.name, len(typed))
            for f in FUNCTIONS.values() if f.name.startswith(typed)]
    return out


def _top_level_keys(before: str) -> list[Suggestion]:
    typed = before.strip()
    return [Suggestion(key, "key", "a top-level key of the sheet format", f"{key}:", len(before))
            for key in TOP_LEVEL_KEYS if key.startswith(typed)]


def _units(typed: str) -> list[Suggestion]:
    out = []
    for unit in COMMON_UNITS:
        if unit.startswith(typed):
            try:
                detail = describe(parse_unit(unit).dimensions) or "a plain number"
            except UnitError:
                continue
            out.append(Suggestion(unit, "unit", detail, unit, len(typed)))
    return out
