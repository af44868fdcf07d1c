"""What the entry points below `Sheet` take of one: `SheetHandle`.

`Sheet` (supersheet/sheet.py) is the top of the API: its notebook methods (`sweep`,
`solve`, `choose`, `plot`, `report`, `_repr_html_`) call the modules below it. Those
modules take a sheet too (the command hands them the one `open_checked` gives), and
name what they use of it with this protocol instead of importing `Sheet` back, so the
API's modules stack without a cycle (pyproject.toml's contracts). Only sheet.py builds
a Sheet: a module below asks the one it was given for another (`opened`)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Protocol, Self, TypeVar

if TYPE_CHECKING:
    from supersheet.engine.workbook import Workbook

    from .results import SweepResult


H = TypeVar("H", bound="SheetHandle")     # a function that returns the sheet it was given, or another of its class


class SheetHandle(Protocol):
    """A loaded, checked sheet with the inputs set on it (a `Sheet`)."""

    @property
    def inputs(self) -> Mapping[str, str]: ...

    @property
    def path(self) -> Path: ...

    @property
    def title(self) -> str: ...

    @property
    def written_workbook(self) -> Workbook: ...

    def records(self) -> list[dict[str, Any]]: ...

    def display(self, name: str) -> str: ...

    def opened(self, workbook: Workbook) -> Self:
        """A sheet of the same class around another checked workbook, evaluated when read."""

    def sweep(self, name: str | None = None, *, show: list[str] | None = None, where: str | None = None,
              on: str = "local", address: str | None = None, **axes: Any) -> SweepResult: ...
