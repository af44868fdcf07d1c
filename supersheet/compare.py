"""`supersheet.diff(old, new)`: two sheets compared as `supersheet diff OLD NEW` compares them."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from supersheet.engine.diff.diff import SheetDiff

    from .sheet import Sheet


@dataclass(frozen=True)
class Diff:
    """What changed from `old` to `new`: `sections` maps a section (results, checks,
    inputs, formulas, ...) to its changes (`supersheet.engine.diff.diff.Change`: name, old, new,
    delta, relative), the largest first. `str()` is the CLI's text."""

    result: SheetDiff

    @property
    def differs(self) -> bool:
        return self.result.differs

    @property
    def sections(self) -> dict[str, list]:
        from supersheet.engine.diff.diffview import SECTIONS
        return {key: list(getattr(self.result, key)) for key, _ in SECTIONS if getattr(self.result, key)}

    def __str__(self) -> str:
        from supersheet.engine.diff.diffview import render_text
        return render_text([self.result])

    def to_markdown(self) -> str:
        from supersheet.engine.diff.diffview import render_markdown
        return render_markdown([self.result])

    def _repr_html_(self) -> str:
        from .html import diff_html
        return diff_html(self)


def diff(old: Sheet, new: Sheet) -> Diff:
    """Compare two sheets (each with the inputs set on it) as `supersheet diff` does."""
    from supersheet.engine.diff.diff import diff_workbooks

    from .sheet import scenario_workbook
    name = str(new.path)
    return Diff(diff_workbooks(name, scenario_workbook(old), scenario_workbook(new),
                               _label(old), _label(new)))


def _label(sheet: Sheet) -> str:
    inputs = ", ".join(f"{k}={v}" for k, v in sheet.inputs.items())
    return f"{sheet.path}" + (f" ({inputs})" if inputs else "")
