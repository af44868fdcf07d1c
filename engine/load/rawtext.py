"""Values exactly as written in the file: `61.50` keeps its trailing zero,
which sets an expectation's implied tolerance."""
from __future__ import annotations

from typing import Any

from supersheet.engine.base.span import Span
from supersheet.engine.load.positions import Positions
from supersheet.engine.load.sheet import SheetFile


def raw_text(sheet: SheetFile, container: Any, key: Any) -> tuple[str, Span]:
    """The value at container[key] exactly as written (trailing zeros kept:
    `61.50` stays `61.50`, which sets an expectation's tolerance)."""
    return Positions(sheet.file, sheet.text.splitlines()).written(container, key)
