"""A result table's column header, `name [unit]`: built and read back here only.

Sweeps, solves and choices name their columns this way (`step [ms]`, `tp` for a
plain number, `step [error]` for the column that holds a cell's error code), and
CSV, JSON, Parquet metadata, the TUI's plot and the Python API read the unit back
from the header. Keeping both directions in one module keeps them in step.
"""
from __future__ import annotations

ERROR_UNIT = "error"    # the "unit" of a cell's error column: `step [error]`
EXCLUDED_HEADER = "excluded because"   # the column of a choice's excluded rows that says why


def header(name: str, unit: str | None = None) -> str:
    """`("step", "ms")` -> `step [ms]`; `("tp", None)` -> `tp`."""
    return f"{name} [{unit}]" if unit else name


def split_header(text: str) -> tuple[str, str | None]:
    """`step [ms]` -> ("step", "ms"); `tp` -> ("tp", None); `x[0] [ms]` -> ("x[0]", "ms")."""
    if text.endswith("]") and " [" in text:
        name, _, unit = text[:-1].rpartition(" [")
        return name, unit
    return text, None


def error_header(name: str) -> str:
    """The header of the column that holds `name`'s error code in the rows where it has one."""
    return header(name, ERROR_UNIT)


def is_error_header(text: str) -> bool:
    return split_header(text)[1] == ERROR_UNIT
