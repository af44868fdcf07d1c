"""Everything wrong with the open sheet, as one list the editor counts in its
status line, steps through (F8) and shows in F4: its diagnostics (the sheet's
errors, expectations that cannot be checked, violated assumptions E-ASSUME,
failing expectations E-EXPECT) and, found from the values, the cells that hold
an error value (E-VALUE: `#DIV/0 in b`) and the checks that fail (E-CHECK).
Pure Python: no UI imports.
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Protocol

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.compile.evaluate import error_code

if TYPE_CHECKING:
    from supersheet.engine.compile.evaluate import Value
    from supersheet.engine.load.model import Cell


class Values(Protocol):
    """What the problems are found from: the open sheet's cells and values (editor/view.py's
    `SheetView` is one; it lists these problems, so this module cannot import it back)."""

    def keys(self) -> list[str]: ...
    def cell(self, key: str) -> Cell: ...
    def value(self, key: str) -> Value: ...
    def precedents(self, key: str) -> list[str]: ...
    def raw_text(self, key: str) -> str: ...

ERROR_VALUE, FAILED_CHECK = "E-VALUE", "E-CHECK"

# the kinds the status line counts, in its order: (what a diagnostic's code makes it, singular, plural)
KINDS = (("error", "error", "errors"), ("check", "failed check", "failed checks"),
         ("assumption", "violated assumption", "violated assumptions"),
         ("expectation", "failed expectation", "failed expectations"))


def value_problems(view: Values) -> list[Diagnostic]:
    """The cells holding an error value and the checks that fail, in the model's order.
    A cell whose error comes from a precedent's says which (`from b`), so the list
    leads to where the error starts."""
    found = []
    for key in view.keys():
        cell = view.cell(key)
        value = view.value(key)
        code = error_code(value)
        span = (cell.set_by or cell.spec).span
        if code is not None:
            origin = next((p for p in view.precedents(key) if error_code(view.value(p)) == code), None)
            found.append(Diagnostic(ERROR_VALUE, f"{code} in {key} (= {view.raw_text(key).removeprefix('=').strip()})",
                                    span, hint=f"from {origin}" if origin else None))
        elif cell.kind == "check" and value is False:
            found.append(Diagnostic(FAILED_CHECK, f"check {key} fails: {view.raw_text(key)}", span))
    return found


def kind_of(diagnostic: Diagnostic) -> str:
    """Which count a problem is in: a failed check, a violated assumption, a failed
    expectation, or an error (anything else: the sheet's errors, error values)."""
    return {FAILED_CHECK: "check", "E-ASSUME": "assumption", "E-EXPECT": "expectation"}.get(diagnostic.code, "error")


def summary(problems: list[Diagnostic]) -> str:
    """`3 problems: 1 error, 2 failed checks` (empty when there are none)."""
    if not problems:
        return ""
    counts = Counter(kind_of(d) for d in problems)
    parts = [f"{counts[kind]} {one if counts[kind] == 1 else many}" for kind, one, many in KINDS if counts[kind]]
    return f"{len(problems)} problem{'s' if len(problems) != 1 else ''}: " + ", ".join(parts)
