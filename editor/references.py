"""Every place a cell is named, across the sheets of its project: its own
sheet (its key, formulas, `expect`, sweeps …) and every sheet that imports or
extends that sheet — found as the editor's rename finds them (rename.py,
importers.py), so "find references" lists exactly what a rename changes.

Open buffers are read instead of their files: a place is where it is in the
text the user sees. Pure Python: no UI or protocol imports.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from supersheet.editor.cells import StructureError
from supersheet.editor.importers import namings
from supersheet.editor.rename import Edit, Target, reference_edits
from supersheet.editor.roundtrip import make_yaml
from supersheet.engine.base.sheetroot import read_sheet_text

__all__ = ["Place", "RenameRefused", "places", "renamed"]

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class RenameRefused(Exception):
    """A rename that cannot be made exactly (said why)."""


@dataclass(frozen=True)
class Place:
    """One place that names the cell: a file and an edit span (0-based line and column, length)."""
    path: Path
    edit: Edit


def places(home: Path, name: str, open_texts: Mapping[Path, str] | None = None) -> list[Place]:
    """Every place naming cell `name` of the sheet at `home`, its own key first."""
    texts = {Path(p).resolve(): t for p, t in (open_texts or {}).items()}
    home = home.resolve()
    found = [Place(home, e) for e in reference_edits(_text(home, texts), Target(name), own=True)]
    for naming in namings(home, name):
        text = texts.get(naming.path, naming.text)
        document = naming.document if text == naming.text else None
        edits = {e for target in naming.targets for e in reference_edits(text, target, document=document)}
        found += [Place(naming.path, e) for e in sorted(edits)]
    return found


def renamed(home: Path, name: str, new: str, open_texts: Mapping[Path, str] | None = None) -> dict[Path, list[Edit]]:
    """The edits that rename cell `name` of the sheet at `home` to `new` in every sheet
    that names it; raises RenameRefused when the new name is not a name or is taken."""
    if not NAME.fullmatch(new):
        raise RenameRefused(f"{new!r} is not a cell name (letters, digits and _, not starting with a digit)")
    if new == name:
        return {}
    texts = {Path(p).resolve(): t for p, t in (open_texts or {}).items()}
    cells = _cells(_text(home.resolve(), texts))
    if new in cells:
        raise RenameRefused(f"the sheet already has a cell named {new}")
    try:
        found = places(home, name, open_texts)
    except StructureError as e:
        raise RenameRefused(str(e)) from None
    edits: dict[Path, list[Edit]] = {}
    for place in found:
        edits.setdefault(place.path, []).append(place.edit)
    return edits


def _text(path: Path, texts: Mapping[Path, str]) -> str:
    return texts[path] if path in texts else read_sheet_text(path).removeprefix("\ufeff").replace("\r\n", "\n")


def _cells(text: str) -> Mapping:
    """The `cells:` mapping of a sheet's text (empty when it has none or does not load)."""
    try:
        document = make_yaml(2, 0).load(text)
    except Exception:  # noqa: BLE001 - a text that does not load has no cells to collide with
        return {}
    cells = document.get("cells") if isinstance(document, Mapping) else None
    return cells if isinstance(cells, Mapping) else {}
