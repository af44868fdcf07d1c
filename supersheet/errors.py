"""The exceptions of the Python API, and diagnostics rendered as the CLI prints them.

The engine reports problems as `Diagnostic` lists, or raises its own `Problem`
(override, axis, expectation and solve errors) that carries one. The API
raises only the exceptions of this module, each carrying `Diagnostic` objects,
so a notebook sees exactly what `supersheet check`/`run`/`sweep` print,
rendered the same way:

* `SheetError`: a sheet that does not load or check (every diagnostic);
* `Problem` (a SheetError of one diagnostic at its place): an `OverrideError`
  for an input that does not fit its cell (`assignment` says which), an
  `AxisError` for an axis, a goal or a `where` that does not fit the sheet, a
  `SolveError` for a goal with no answer;
* `RequestError`: a request refused outside any sheet (no such file, an
  unknown cell, an output that cannot be written, Ray or git unavailable).

The command-level entry points (`supersheet.reports`, `.inputs`, `.sweeps`,
`.goals`) turn the engine's problems into these at their boundary
(`engine_problems`), so the `supersheet` command catches nothing of the engine.
"""
from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterable, Iterator

from supersheet.engine.base.diagnostics import Diagnostic, SourceCache, bounded, render
from supersheet.engine.base.diagnostics import Problem as EngineProblem
from supersheet.engine.base.span import Span

__all__ = ["AxisError", "Diagnostic", "OverrideError", "Problem", "RequestError", "SheetError", "SolveError",
           "SourceCache", "UnknownCell", "bounded", "render_diagnostic"]


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


class Problem(SheetError):
    """One problem at its place in a sheet (or in a command-line text such as `<--where>`):
    one `diagnostic`, with `code`, `message`, `hint` and `span` (None when it has no place)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        self.diagnostics = (diagnostic,)
        Exception.__init__(self, diagnostic.message)   # str() renders it with its source line

    @property
    def diagnostic(self) -> Diagnostic:
        return self.diagnostics[0]

    @property
    def message(self) -> str:
        return self.diagnostic.message

    @property
    def hint(self) -> str | None:
        return self.diagnostic.hint

    @property
    def span(self) -> Span | None:
        return self.diagnostic.span

    def line(self) -> str:
        """On one line (a usage error, a status bar): `[file:line:col: ]CODE: message (hint: …)`."""
        return self.diagnostic.headline() + (f" (hint: {self.hint})" if self.hint else "")


class UnknownCell(Problem, KeyError):
    """A cell name the sheet does not have (E-NAME, with a did-you-mean hint): also a
    KeyError, as a Mapping's missing key is, so `sheet.get(name)` gives None."""


class OverrideError(Problem):
    """A `NAME=VALUE` input (`--set`) that does not fit its cell; `assignment` is that text
    when known."""

    def __init__(self, diagnostic: Diagnostic, assignment: str | None = None) -> None:
        super().__init__(diagnostic)
        self.assignment = assignment


class AxisError(Problem):
    """An axis, a grid, a goal or a `where` of a sweep, solve or choice that does not fit the sheet."""


class SolveError(Problem):
    """A goal seek that found no answer (E-SOLVE)."""


# The engine's problem classes, by the module defining them, and the API's for each. They are
# looked up among the modules already imported: a problem of a class whose module is not loaded
# cannot have been raised, and importing them here would load the checker for `--help`.
_KINDS: tuple[tuple[str, str, type[Problem]], ...] = (
    ("supersheet.engine.workbook", "OverrideError", OverrideError),
    ("supersheet.engine.scenarios.axes", "AxisError", AxisError),
    ("supersheet.engine.scenarios.solve", "SolveError", SolveError),
)


def api_problem(error: EngineProblem) -> Problem:
    """An engine problem as the API's: the same diagnostic, the API's class of its kind."""
    for module, name, kind in _KINDS:
        engine_class = getattr(sys.modules.get(module), name, None)
        if engine_class is not None and isinstance(error, engine_class):
            if kind is OverrideError:
                return OverrideError(error.diagnostic, getattr(error, "assignment", None))
            return kind(error.diagnostic)
    return Problem(error.diagnostic)


@contextmanager
def engine_problems() -> Iterator[None]:
    """Around an entry point (`with` or as a decorator): an engine `Problem` raised inside
    leaves as the API's (`api_problem`)."""
    try:
        yield
    except EngineProblem as e:
        raise api_problem(e) from None


def problem(code: str, message: str, hint: str | None = None, span: Span | None = None) -> SheetError:
    """A SheetError of one diagnostic (a problem the API finds itself)."""
    return SheetError([Diagnostic(code, message, span, hint=hint)])


def from_engine(error: EngineProblem, prefix: str = "") -> SheetError:
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
