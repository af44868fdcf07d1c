"""What every `supersheet` command shares: exit codes, usage errors, printing
diagnostics, finding sheets, --set overrides and sampling options."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from .diagnostics import Diagnostic, SourceCache, render

EXIT_OK, EXIT_FINDING, EXIT_INVALID = 0, 1, 2


class UsageError(Exception):
    pass


def sampling_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--samples", type=int, metavar="N",
                   help="samples for sheets with random draws (default: the sheet's `samples:`, else 10000)")
    p.add_argument("--seed", type=int, metavar="S", help="random seed (default: the sheet's, else 0)")


def print_diagnostics(diagnostics: list[Diagnostic], sources: SourceCache | None = None) -> None:
    sources = sources or SourceCache()
    for d in diagnostics:
        print(render(d, sources), file=sys.stderr)
        print(file=sys.stderr)


def sheet_paths(paths: Sequence[str]) -> list[Path]:
    found: list[Path] = []
    for text in paths:
        path = Path(text)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.yaml")
                                if not any(part.startswith(".") for part in p.relative_to(path).parts)))
        elif path.exists():
            found.append(path)
        else:
            raise UsageError(f"no such file or directory: {text}")
    return found


def open_valid(path: str):
    from .workbook import open_workbook
    if not Path(path).exists():
        raise UsageError(f"no such sheet: {path}")
    workbook = open_workbook(path)
    if not workbook.ok:
        print_diagnostics(workbook.diagnostics)
        return None
    return workbook


def fixed_overrides(workbook, sets: list[str]) -> tuple:
    """The workbook to evaluate with every `--set` and the values fixed in it."""
    from .workbook import OverrideError, apply_assignments
    try:
        return apply_assignments(workbook, sets)
    except OverrideError as e:
        shown = f"--set {e.assignment}" if e.assignment else "--set"
        raise UsageError(f"{shown}: {e.code}: {e.message}" + (f" ({e.hint})" if e.hint else "")) from None


def sample(workbook, args: argparse.Namespace, fixed: dict | None = None):
    """Monte Carlo results for a sheet with random draws (None for a deterministic sheet)."""
    if not workbook.checked.distributions:
        return None
    from .uncertainty import SamplingError, evaluate_samples
    try:
        return evaluate_samples(workbook, getattr(args, "samples", None), getattr(args, "seed", None), fixed)
    except SamplingError as e:
        raise UsageError(str(e)) from None
