"""Resource limits on loading a sheet, each checked before the work it bounds.

A hostile (or accidental) sheet must be refused within a second and a bounded
amount of memory, with a diagnostic that names the limit and the flag that
raises it, instead of running for minutes. The defaults are far above what a
real sheet needs (the library's largest is 12 KB with 256-character lines)
and are documented in docs/security.md.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Iterator, Mapping


@dataclass(frozen=True)
class Limits:
    """The load limits in force (`set_limits`; the command's --max-* flags)."""
    max_file_size: int = 1_000_000       # bytes of one sheet file
    max_line_length: int = 10_000        # characters of one line (the YAML scanner slows on long lines)
    max_yaml_nodes: int = 100_000        # YAML nodes after expanding aliases (`*x`)
    max_depth: int = 64                  # nesting of YAML collections
    max_cells: int = 10_000              # cells after imports are expanded (each import of a file is a copy)
    max_import_depth: int = 100          # sheets importing sheets importing ...
    max_array_length: int = 10_000       # elements of one array (a literal or range())
    max_array_elements: int = 100_000    # elements of all the sheet's arrays together
    max_data_rows: int = 1_000_000       # rows of one table of `tables:`
    max_data_size: int = 200_000_000     # bytes of one file of `tables:`


# The limits no flag changes, each far above what a real sheet needs and each named in the
# refusal it causes (docs/security.md). They live here with `Limits`, so every bound on the
# work a sheet or a command line can ask for is in one place.

# A formula (engine/formula/parser.py): bounded so that no input exhausts Python's stack or
# slows Polars' expression engine (which slows sharply on very long runs of one operator).
FORMULA_NESTING = 60          # brackets and unary operators nested while parsing
FORMULA_DEPTH = 300           # depth of the finished tree
FORMULA_OPERATORS = 1000      # operators of one formula

MAX_SAMPLES = 10_000_000      # draws of a Monte Carlo run (`samples:`, --samples, samples=)
MAX_AXIS_VALUES = 10_000_000  # values of one axis (a range counted before it is built)
MAX_ROWS = 10_000_000         # rows of a sweep unless raised (--max-rows, Sheet.sweep(max_rows=))
MAX_TABLE_ROWS = 100_000      # rows of a sweep's text, JSON or Markdown table, built in memory (--max-table-rows)


_lock = threading.Lock()
_current = Limits()
_explicit: frozenset[str] = frozenset()      # the limits set_limits was given (flags win over a project's defaults)
_project: ContextVar[Mapping[str, int]] = ContextVar("project_limits", default={})


def current_limits() -> Limits:
    project = _project.get()
    if not project:
        return _current
    return replace(_current, **{k: v for k, v in project.items() if k not in _explicit})


@contextmanager
def project_limits(defaults: Mapping[str, int]) -> Iterator[None]:
    """Within: `defaults` (a project's supersheet.toml) in place of the built-in defaults
    of the limits no flag set."""
    token = _project.set(defaults)
    try:
        yield
    finally:
        _project.reset(token)


def set_limits(**changes: int | None) -> Limits:
    """The limits for the whole process: the defaults with `changes` (the CLI's
    --max-* flags; None keeps a default)."""
    global _current, _explicit
    given = {k: v for k, v in changes.items() if v is not None}
    with _lock:
        _current = replace(Limits(), **given)
        _explicit = frozenset(given)
    return _current
