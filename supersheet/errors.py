"""The one exception of the Python API: the diagnostics the CLI would print.

The engine reports problems as `Diagnostic` lists, or raises a `Problem`
(override, axis, expectation and solve errors) that carries one.
`SheetError` carries `Diagnostic` objects in every case, so a notebook sees
exactly what `supersheet check`/`run`/`sweep` print, rendered the same way.
"""
from __future__ import annotations

from typing import Iterable

from supersheet.engine.base.diagnostics import Diagnostic, Problem, SourceCache, render
from supersheet.engine.base.span import Span


class SheetError(Exception):
    """A sheet that does not load or check, an input or axis that does not fit,
    a goal with no solution, or a cell holding an error value.

    `diagnostics` are the engine's `Diagnostic` objects (code, message, span
    with file/line/column, hint); `str()` renders them as the CLI does."""

    def __init__(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)
        super().__init__(self.render())

    @property
    def code(self) -> str:
        """The code of the first diagnostic, e.g. ``E-UNIT``."""
        return self.diagnostics[0].code if self.diagnostics else "E-SHEET"

    def render(self) -> str:
        sources = SourceCache()
        return "\n\n".join(render(d, sources) for d in self.diagnostics)

    def __str__(self) -> str:
        return self.render()


def problem(code: str, message: str, hint: str | None = None, span: Span | None = None) -> SheetError:
    """A SheetError of one diagnostic (a problem the API finds itself)."""
    return SheetError([Diagnostic(code, message, span, hint=hint)])


def from_engine(error: Problem, prefix: str = "") -> SheetError:
    """An engine `Problem` (`OverrideError`, `AxisError`, `SolveError` …) as a SheetError, its span kept."""
    return SheetError([error.at(None, prefix)])
