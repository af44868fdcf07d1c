"""What every `supersheet` command shares: exit codes, usage errors, printing
diagnostics, finding sheets, --set overrides and sampling options."""
from __future__ import annotations

import argparse
import gc
import math
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from supersheet.errors import Diagnostic, OverrideError, RequestError, SheetError, SourceCache, render_diagnostic
from supersheet.loading import Limits
from supersheet.loading import configure
from supersheet.loading import library_path
from supersheet.loading import find_sheets

if TYPE_CHECKING:
    from supersheet.inputs import Sampling
    from supersheet.sheet import Sheet

EXIT_OK, EXIT_FINDING, EXIT_INVALID = 0, 1, 2


class UsageError(RequestError):
    """A command line the command refuses (printed as `supersheet: message`, exit 2); the
    API's `RequestError` is printed the same way."""


def sampling_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--samples", type=int, metavar="N",
                   help="samples for sheets with random draws (default: the sheet's `samples:`, else 10000)")
    p.add_argument("--seed", type=int, metavar="S", help="random seed (default: the sheet's, else 0)")
    p.add_argument("--max-memory", type=memory_size, metavar="SIZE",
                   help="refuse a Monte Carlo run whose estimated memory (samples x columns x 8 bytes) exceeds "
                        "SIZE, e.g. 4GB or 512MiB (default: half of this machine's RAM)")


def memory_size(text: str) -> int:
    """`4GB`, `512 MiB`, `1e9` (bytes) -> bytes, for --max-memory."""
    from supersheet.units import UnitError, parse_unit   # deferred: units (slow to import)
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
    "max_data_rows": "rows of one table of tables:",
    "max_data_size": "bytes of one file of tables:",
}


def loading_options(p: argparse.ArgumentParser) -> None:
    """The sheet root and the load limits: every command that reads sheets takes them."""
    p.add_argument("--allow-path", dest="allow_paths", metavar="DIR", action="append", default=[],
                   help="also let imports read sheets under DIR (outside the sheet root: the sheet's project - "
                        "the folder of its supersheet.toml, else its git work tree, else the current folder if "
                        "it holds the sheet, else the sheet's folder - and its libraries); repeatable")
    group = p.add_argument_group("limits (see docs/security.md)")
    defaults = Limits()
    for name, text in LIMIT_HELP.items():
        group.add_argument("--" + name.replace("_", "-"), dest=name, type=_positive, metavar="N",
                           help=f"refuse more than N {text} (default {getattr(defaults, name):,})")


def configure_loading(args: argparse.Namespace) -> None:
    configure(getattr(args, "allow_paths", []), **{name: getattr(args, name, None) for name in LIMIT_HELP})


def _positive(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def sheet_argument(text: str) -> str:
    """A sheet or folder named on the command line; `supersheet:PATH` (a library name,
    format 10.1) is that file of the library, wherever the command runs."""
    try:
        return library_path(text)
    except RequestError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def print_diagnostics(diagnostics: Sequence[Diagnostic], sources: SourceCache | None = None) -> None:
    sources = sources or SourceCache()
    for d in diagnostics:
        print(render_diagnostic(d, sources), file=sys.stderr)
        print(file=sys.stderr)


def sheet_paths(paths: Sequence[str]) -> list[Path]:
    """The sheets named: files as given, directories searched for *.yaml."""
    return find_sheets(paths)


def open_valid(path: str) -> Sheet | None:
    """The sheet loaded and checked (not evaluated), or None after printing why it does not check.

    The batch commands call this once their modules are imported (Polars, NumPy, the
    engine), so the heap is frozen first: a command's process ends with the command,
    those objects live until then, and a full collection of the cycle collector, which
    the allocations of loading trigger, would only walk them all again and free none
    (18 ms of CPU on a quiet machine, 60-90 ms under load, per `sweep` of a small sheet;
    bench/bench_sweep.py). What the command allocates from here on is collected as usual."""
    from supersheet.sheet import open_checked   # deferred: the checker and compiler (not for --help, calc)
    gc.freeze()
    try:
        return open_checked(path)
    except SheetError as e:
        print_diagnostics(list(e.diagnostics))
        return None


def override_usage(e: OverrideError) -> UsageError:
    """A `--set` that does not fit its cell, as a usage error naming the assignment."""
    shown = f"--set {e.assignment}" if e.assignment else "--set"
    return UsageError(f"{shown}: {e.code}: {e.message}" + (f" ({e.hint})" if e.hint else ""))


def fixed_overrides(sheet: Sheet, sets: list[str]) -> Sheet:
    """The sheet with every `--set NAME=VALUE` made an input of that value, for the batch
    commands (sweep, solve, choose): the set cells stay fixed under the varied axes."""
    from supersheet.inputs import fixed_inputs   # deferred: ruamel
    try:
        return fixed_inputs(sheet, sets)
    except OverrideError as e:
        raise override_usage(e) from None


def check_on(args: argparse.Namespace) -> None:
    """--on and --address, checked before any work: --address needs --on ray, and the cluster
    must answer within --connect-timeout (Ray itself would retry for minutes)."""
    address = getattr(args, "address", None)
    if address is not None and getattr(args, "on", "local") != "ray":
        raise UsageError("--address is the Ray cluster to use: it needs --on ray")
    if getattr(args, "on", "local") == "ray":
        from supersheet.inputs import check_ray_address   # deferred: ruamel
        check_ray_address(address, args.connect_timeout)


def sampling(args: argparse.Namespace) -> Sampling:
    """The sampling options of a command (--samples, --seed, --max-memory, --on, --address)."""
    from supersheet.inputs import Sampling   # deferred: ruamel
    return Sampling(getattr(args, "samples", None), getattr(args, "seed", None), getattr(args, "max_memory", None),
                    getattr(args, "on", "local"), getattr(args, "address", None))
