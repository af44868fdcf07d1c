"""The sheet format's vocabulary (docs/format.md), written once: the loader reads a sheet
with it, the editor writes one with it, the language server completes it.

Imports nothing: every stage and every client may use it."""
from __future__ import annotations

import re

# The top-level keys, in the order the format lists them (and the editor inserts a missing one).
TOP_LEVEL_KEYS = ("title", "doc", "extends", "use", "cells", "checks", "assume", "sweeps", "solve", "choose", "expect",
                  "samples", "tables", "fit")

# The keys of a cell written long-form (`name: {value: …, unit: …}`).
CELL_KEYS = ("value", "formula", "unit", "digits", "doc", "source")

# A cell's name, and the words a formula reserves (never a cell's name).
NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
RESERVED = frozenset({"and", "or", "not", "true", "false"})


def is_formula(text: object) -> bool:
    """Whether a value as written is a formula: text whose first non-blank character is `=`
    (`= a * b`); anything else is a value (`80 GB`, `[1, 2]`, a number)."""
    return isinstance(text, str) and text.lstrip().startswith("=")
