"""What every `supersheet` command shares: exit codes, usage errors, printing
diagnostics, finding sheets, --set overrides and sampling options."""
from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path
from typing import Sequence

from supersheet.engine.base.diagnostics import Diagnostic, SourceCache, render

EXIT_OK, EXIT_FINDING, EXIT_INVALID = 0, 1, 2


class UsageError(Exception):
    pass


def sampling_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--samples", type=int, metavar="N",
                   help="samples for sheets with random draws (default: the sheet's `samples:`, else 10000)")
    p.add_argument("--seed", type=int, metavar="S", help="random seed (default: the sheet's, else 0)")
    p.add_argument("--max-memory", type=memory_size, metavar="SIZE",
                   help="refuse a Monte Carlo run whose estimated memory (samples x columns x 8 bytes) exceeds "
                        "SIZE, e.g. 4GB or 512MiB (default: half of this machine's RAM)")


def memory_size(text: str) -> int:
    """`4GB`, `512 MiB`, `1e9` (bytes) -> bytes, for --max-memory."""
    from supersheet.units import UnitError, parse_unit
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z]*)\s*", text)
    try:
        if match is None:
            raise ValueError
        unit = parse_unit(match.group(2)) if match.group(2) else None
        if unit is not None and unit.dimensions != parse_unit("B").dimensions:
            raise ValueError
        size = float(match.group(1)) * (unit.factor if unit else 1.0)
        if not math.isfinite(size):
            raise ValueError
    except (ValueError, UnitError):
        raise argparse.ArgumentTypeError(f"expected a size like 4GB or 512MiB, got {text!r}") from None
    return int(size)


LIMIT_HELP = {
    "max_file_size": "bytes of one sheet file",
    "max_line_length": "characters of one line",
    "max_yaml_nodes": "YAML nodes after expanding aliases",
    "max_depth": "nesting depth of YAML collections",
    "max_cells": "cells after imports are expanded",
    "max_import_depth": "sheets importing sheets, deep",
    "max_array_length": "elements of one array (a literal or range)",
    "max_array_elements": "array elements in all the sheet's arrays together",
}


def loading_options(p: argparse.ArgumentParser) -> None:
    """The sheet root and the load limits: every command that reads sheets takes them."""
    from supersheet.engine.base.limits import Limits
    p.add_argument("--allow-path", dest="allow_paths", metavar="DIR", action="append", default=[],
                   help="also let imports read sheets under DIR (outside the sheet root: the git work tree of "
                        "the sheet, or its folder, and the bundled library); repeatable")
    group = p.add_argument_group("limits (see docs/security.md)")
    defaults = Limits()
    for name, text in LIMIT_HELP.items():
        group.add_argument("--" + name.replace("_", "-"), dest=name, type=_positive, metavar="N",
                           help=f"refuse more than N {text} (default {getattr(defaults, name):,})")


def configure_loading(args: argparse.Namespace) -> None:
    from supersheet.engine.base.limits import set_limits
    from supersheet.engine.base.sheetroot import allow_paths
    allow_paths(getattr(args, "allow_paths", []))
    set_limits(**{name: getattr(args, name, None) for name in LIMIT_HELP})


def _positive(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def print_diagnostics(diagnostics: list[Diagnostic], sources: SourceCache | None = None) -> None:
    sources = sources or SourceCache()
    for d in diagnostics:
        print(render(d, sources), file=sys.stderr)
        print(file=sys.stderr)


def sheet_paths(paths: Sequence[str]) -> list[Path]:
    """The sheets named: files as given, directories searched for *.yaml (not
    hidden ones, and not links that lead out of the folder's sheet root)."""
    from supersheet.engine.base.sheetroot import root_for
    found: list[Path] = []
    for text in paths:
        path = Path(text)
        if path.is_dir():
            root = root_for(path / "_")
            inside = sorted(p for p in path.rglob("*.yaml")
                            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts)
                            and root.allows(p))
            if not inside:
                what = "a directory, not a sheet" if path.suffix in (".yaml", ".yml") else "a directory with no *.yaml sheets"
                raise UsageError(f"{text} is {what}")
            found.extend(inside)
        elif path.exists():
            found.append(path)
        else:
            raise UsageError(f"no such file or directory: {text}")
    return found


def open_valid(path: str):
    from supersheet.engine.workbook import open_workbook
    if not Path(path).exists():
        raise UsageError(f"no such sheet: {path}")
    if Path(path).is_dir():
        raise UsageError(f"{path} is a directory, not a sheet")
    workbook = open_workbook(path)
    if not workbook.ok:
        print_diagnostics(workbook.diagnostics)
        return None
    return workbook


def fixed_overrides(workbook, sets: list[str]) -> tuple:
    """The workbook to evaluate with every `--set` and the values fixed in it."""
    from supersheet.engine.workbook import OverrideError, apply_assignments
    try:
        return apply_assignments(workbook, sets)
    except OverrideError as e:
        shown = f"--set {e.assignment}" if e.assignment else "--set"
        raise UsageError(f"{shown}: {e.code}: {e.message}" + (f" ({e.hint})" if e.hint else "")) from None


def shown_overrides(workbook, sets: list[str]) -> dict:
    """The `--set` assignments to show as overrides (report.SetOverride by key); a
    bad assignment is left to `fixed_overrides`, which reports it."""
    from supersheet.engine.present.report import set_overrides
    from supersheet.engine.workbook import OverrideError
    try:
        return set_overrides(workbook, sets)
    except OverrideError:
        return {}
def with_sets(workbook, sets: list[str]):
    """The workbook with every `--set NAME=VALUE` made an input of that value, for the batch
    commands (sweep, solve, choose): the set cells stay fixed under the varied axes."""
    if not sets:
        return workbook
    fixed_overrides(workbook, sets)   # each value checked against its cell, as `run --set` does
    values: dict[str, str] = {}
    for text in sets:
        name, _, value = text.partition("=")
        name = name.strip()
        if workbook.key_for(name) is not None and workbook.model.cells[workbook.key_for(name)].scope.prefix:
            raise UsageError(f"--set {text}: sweep, solve and choose set cells of this sheet; "
                             f"to fix an imported cell, vary it over one value: --vary {name}={value.strip()}")
        values[name] = value.strip()
    from supersheet.engine.workbook import open_workbook
    variant = open_workbook(workbook.model.path, cell_overrides=values)
    if not variant.ok:
        print_diagnostics(variant.diagnostics)
        raise UsageError("the sheet does not check with " + " ".join(f"--set {t}" for t in sets))
    return variant


def sample(workbook, args: argparse.Namespace, fixed: dict | None = None):
    """Monte Carlo results for a sheet with random draws (None for a deterministic sheet)."""
    if not workbook.checked.distributions:
        if getattr(args, "on", "local") == "ray":
            print("supersheet: the sheet has no random draws: it is evaluated here, not on Ray", file=sys.stderr)
        return None
    from supersheet.engine.scenarios.uncertainty import SamplingError, evaluate_samples
    samples, seed = getattr(args, "samples", None), getattr(args, "seed", None)
    try:
        if getattr(args, "on", "local") == "ray":
            from supersheet.engine.scenarios.on_ray import RayUnavailable, TaskFailed, session
            from supersheet.engine.scenarios.sample_ray import sample_on_ray
            try:
                with session(args.address):
                    return sample_on_ray(workbook, samples, seed, fixed or {}, getattr(args, "sets", []),
                                         address=args.address, max_memory=getattr(args, "max_memory", None))
            except (RayUnavailable, TaskFailed) as e:
                raise UsageError(str(e)) from None
        return evaluate_samples(workbook, samples, seed, fixed, getattr(args, "max_memory", None))
    except SamplingError as e:
        raise UsageError(str(e)) from None
