"""supersheet from Python: load a sheet, read its values with units, set inputs,
sweep to a Polars DataFrame, solve, choose, compare.

    import supersheet as ss
    sheet = ss.load("sheets/supernodes/6.1.2-running-example.yaml")
    sheet["max_sessions"]                          # a value in its display unit
    s2 = sheet.with_inputs(context="32768 token")  # a new Sheet; `sheet` is unchanged
    df = sheet.sweep(tp=[1, 2, 4, 8], context=ss.range("4096 token", "131072 token", times=2))
    ss.diff(sheet, s2)

This is a facade over the engine the CLI runs (engine/): the same loading,
checking, evaluation, sweeps and diagnostics. Every problem raises
`SheetError`, which carries the CLI's `Diagnostic` objects. Importing this
package loads neither Polars nor Pint; a sweep or a quantity does. See
docs/python.md.

The `supersheet` command is written over this API: the entry points it calls are the
modules supersheet.loading, .inputs, .reports, .calc, .sweeps, .goals and .compare
(docs/python.md, "For tools"), imported by name, not through this package's namespace.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .compare import Diff, diff
    from .errors import RequestError, SheetError
    from .quantities import Share, Spread
    from .results import Rows, SweepResult
    from .scenarios import Choice, Range
    from .sheet import Sheet, Solution, load, range
    from .units import registry

# Imported on first use (PEP 562): `supersheet` is also the package of the command
# (supersheet.cli), whose `calc` and `check` should not pay for this API's imports (NumPy among them).
_HOME = {"Diff": "compare", "diff": "compare", "SheetError": "errors", "RequestError": "errors", "Choice": "scenarios", "Range": "scenarios",
         "Solution": "sheet", "Sheet": "sheet", "load": "sheet", "range": "sheet", "Share": "quantities",
         "Spread": "quantities", "Rows": "results", "SweepResult": "results", "registry": "units"}

__all__ = ["Choice", "Diff", "Range", "RequestError", "Rows", "Share", "Sheet", "SheetError", "Solution", "Spread", "SweepResult", "diff", "load",
           "range", "registry"]


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'supersheet' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
