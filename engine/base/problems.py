"""The one exception hierarchy of supersheet: the engine raises it and the Python API
re-exports it (`supersheet.errors`), as Polars re-exports its exceptions, so a notebook, the
command and the editor catch the same classes.

* `SheetError`: a sheet that does not load or check, or anything else wrong with a sheet;
  it carries every `Diagnostic` and renders them as `supersheet check` prints them.
* `Problem`: a SheetError of one diagnostic, raised by a stage that stops at the first
  (an axis, a `--set` value, an expectation, a goal seek), at the position of the text it
  is about when the raiser knows it. Its kinds: `OverrideError`, `AxisError`,
  `SolveError`, `ExpectationError`.

Stages that collect problems return `Diagnostic` lists instead (engine/base/diagnostics.py).
Light on purpose (nothing but the diagnostics): the command's `--help` imports it."""
from __future__ import annotations

from dataclasses import replace
from typing import Iterable, TypeVar

from supersheet.engine.base.diagnostics import Diagnostic, Label, SourceCache, render
from supersheet.engine.base.span import Span

P = TypeVar("P", bound="Problem")


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

    def __reduce__(self):   # crosses a process (a Ray worker) with its diagnostics, whatever its __init__ takes
        return _rebuilt, (type(self), self.diagnostics, self.__dict__)


def _rebuilt(kind: type[SheetError], diagnostics: tuple[Diagnostic, ...], state: dict) -> SheetError:
    error = kind.__new__(kind)
    Exception.__init__(error, diagnostics[0].message if diagnostics else "")
    error.__dict__.update(state)
    error.diagnostics = diagnostics
    return error


class Problem(SheetError):
    """One problem at its place in a sheet (or in a command-line text such as `<--where>`):
    one `diagnostic`, with `code`, `message`, `hint` and `span` (None when it has no place).
    Every client prints it as it prints any other diagnostic (file:line:col, hint)."""

    def __init__(self, code: str, message: str, hint: str | None = None, span: Span | None = None,
                 labels: tuple[Label, ...] = ()) -> None:
        self.diagnostics = (Diagnostic(code, message, span, labels, hint),)
        Exception.__init__(self, message)   # not rendered here: str() reads the source line when asked

    @classmethod
    def of(cls: type[P], diagnostic: Diagnostic) -> P:
        """A diagnostic found by a stage that returns them, raised as this problem (its span kept)."""
        problem = cls.__new__(cls)
        Exception.__init__(problem, diagnostic.message)
        problem.diagnostics = (diagnostic,)
        return problem

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

    def at(self, span: Span | None, prefix: str = "") -> Diagnostic:
        """The diagnostic for a caller that knows where the block it ran is written:
        at the problem's own position when it has one, else at `span`; `prefix`
        names the block (`sweep 'wide': `)."""
        return replace(self.diagnostic, message=prefix + self.message, span=self.span or span)

    def line(self) -> str:
        """On one line (a usage error, a status bar): `[file:line:col: ]CODE: message (hint: …)`."""
        return self.diagnostic.headline() + (f" (hint: {self.hint})" if self.hint else "")


class OverrideError(Problem):
    """A `NAME=VALUE` input (`--set`, `Sheet.with_inputs`, an edit's literal) that does not fit
    its cell; `assignment` is that text when known."""

    assignment: str | None = None

    def naming_its_assignment(self) -> OverrideError:
        """The same problem, its message starting with the `NAME=VALUE` it is about when that
        is known (`context=3 GB: context is token, …`), as the Python API reports it."""
        if not self.assignment:
            return self
        error = OverrideError.of(self.at(None, f"{self.assignment}: "))
        error.assignment = self.assignment
        return error


class AxisError(Problem):
    """An axis, a grid, a goal or a `where` of a sweep, solve or choice that does not fit the sheet."""


class SolveError(Problem):
    """A goal seek that found no answer (E-SOLVE): reported at the solve's name."""

    def __init__(self, message: str, hint: str | None = None, span: Span | None = None) -> None:
        super().__init__("E-SOLVE", message, hint, span)


class ExpectationError(Problem):
    """An expectation written so that it cannot be compared (not a value, the wrong unit or shape)."""
