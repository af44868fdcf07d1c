"""The exceptions of the Python API, and diagnostics rendered as the CLI prints them.

The exceptions of a sheet are the engine's own (engine/base/problems.py), re-exported
here as Polars re-exports its exceptions: the engine raises exactly what a notebook,
the command and the editor catch, each carrying `Diagnostic` objects, so a notebook
sees what `supersheet check`/`run`/`sweep` print, rendered the same way:

* `SheetError`: a sheet that does not load or check (every diagnostic);
* `Problem` (a SheetError of one diagnostic at its place): an `OverrideError`
  for an input that does not fit its cell (`assignment` says which), an
  `AxisError` for an axis, a goal or a `where` that does not fit the sheet, a
  `SolveError` for a goal with no answer, an `ExpectationError` for an
  expectation that cannot be compared; `UnknownCell` for a name the sheet lacks;
* `RequestError`: a request refused outside any sheet (no such file, an
  unknown cell, an output that cannot be written, Ray or git unavailable).
"""
from __future__ import annotations

from typing import Iterable

from supersheet.engine.base.diagnostics import Diagnostic, SourceCache, bounded, render
from supersheet.engine.base.problems import (
    AxisError,
    ExpectationError,
    OverrideError,
    Problem,
    SheetError,
    SolveError,
)
from supersheet.engine.base.span import Span

__all__ = ["AxisError", "Diagnostic", "ExpectationError", "OverrideError", "Problem", "RequestError", "SheetError",
           "SolveError", "SourceCache", "UnknownCell", "bounded", "render_diagnostic"]


class UnknownCell(Problem, KeyError):
    """A cell name the sheet does not have (E-NAME, with a did-you-mean hint): also a
    KeyError, as a Mapping's missing key is, so `sheet.get(name)` gives None."""


def problem(code: str, message: str, hint: str | None = None, span: Span | None = None) -> SheetError:
    """A SheetError of one diagnostic (a problem the API finds itself)."""
    return SheetError([Diagnostic(code, message, span, hint=hint)])


def from_engine(error: Problem, prefix: str = "") -> SheetError:
    """A `Problem` as a plain SheetError, at its place and its message prefixed (`sweep 'w': `)."""
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
