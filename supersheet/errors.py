"""The exceptions of the Python API, and diagnostics rendered as the CLI prints them.

The engine reports problems as `Diagnostic` lists, or raises a `Problem`
(override, axis, expectation and solve errors) that carries one.
`SheetError` carries `Diagnostic` objects in every case, so a notebook sees
exactly what `supersheet check`/`run`/`sweep` print, rendered the same way.

The command-level entry points (`supersheet.reports`, `supersheet.sweeps`,
`supersheet.goals`, `supersheet.compare`), which the `supersheet` command is
written over, raise three kinds: `SheetError` for a sheet that does not load
or check, a `Problem` for one problem at its place (an input that does not fit
its cell is an `OverrideError`; an axis, a goal and a `where` are Problems too),
and `RequestError` for a request refused outside any sheet (no such file, an
unknown cell, an output that cannot be written, Ray or git unavailable).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from supersheet.engine.base.diagnostics import Diagnostic, Problem, SourceCache, render
from supersheet.engine.base.span import Span

if TYPE_CHECKING:
    from supersheet.engine.workbook import OverrideError

__all__ = ["Diagnostic", "OverrideError", "Problem", "RequestError", "SheetError", "SourceCache",
           "render_diagnostic"]


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


def __getattr__(name: str) -> Any:
    """`OverrideError` is defined beside the workbook, whose imports (the checker, the compiler)
    load on first use: the command's `--help` imports this module and needs none of them."""
    if name == "OverrideError":
        from supersheet.engine.workbook import OverrideError
        return OverrideError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def problem(code: str, message: str, hint: str | None = None, span: Span | None = None) -> SheetError:
    """A SheetError of one diagnostic (a problem the API finds itself)."""
    return SheetError([Diagnostic(code, message, span, hint=hint)])


def from_engine(error: Problem, prefix: str = "") -> SheetError:
    """An engine `Problem` (`OverrideError`, `AxisError`, `SolveError` …) as a SheetError, its span kept."""
    return SheetError([error.at(None, prefix)])


class RequestError(Exception):
    """A request refused outside any sheet: a path that is no sheet, an unknown cell, a sweep
    too large, an output file that cannot be written, too much memory for the samples, Ray
    or git unavailable. `str()` says what and how to fix it; `diagnostics` are the sheet's
    problems behind it when there are any (a `--set` the sheet does not check with)."""

    def __init__(self, message: str, diagnostics: Iterable[Diagnostic] = ()) -> None:
        super().__init__(message)
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)


def render_diagnostic(diagnostic: Diagnostic, sources: SourceCache | None = None) -> str:
    """One diagnostic as `supersheet check` prints it: `file:line:col: CODE: message`, the
    source line with the column marked, the hint. `sources` caches the files' lines (give
    one `SourceCache` to many calls; a `SourceCache({name: lines})` renders text not on disk)."""
    return render(diagnostic, sources or SourceCache())
