"""The `supersheet` command: parses arguments, calls the engine, prints.

Exit codes: 0 fine; 1 a finding (an error value, a failed expectation, a
difference, no feasible row); 2 an invalid sheet or bad usage. No input ever
produces a traceback: internal errors are reported in one line (set
SUPERSHEET_DEBUG=1 to see the traceback).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Callable, Sequence

from .diagnostics import Diagnostic, SourceCache, render

EXIT_OK, EXIT_FINDING, EXIT_INVALID = 0, 1, 2


class UsageError(Exception):
    pass


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return EXIT_INVALID
    try:
        return args.handler(args)
    except UsageError as e:
        print(f"supersheet: {e}", file=sys.stderr)
        return EXIT_INVALID
    except KeyboardInterrupt:
        print("supersheet: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as e:  # noqa: BLE001 - the promise is: never a traceback for any input
        if os.environ.get("SUPERSHEET_DEBUG"):
            raise
        print(f"supersheet: internal error: {type(e).__name__}: {e}\n"
              "(this is a bug in supersheet; rerun with SUPERSHEET_DEBUG=1 for details)", file=sys.stderr)
        return 70


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="supersheet",
        description="Declarative spreadsheet-style scenarios with real units: sheets are YAML files of named "
                    "cells (inputs and formulas), checked for dimensions and evaluated with Polars.",
        epilog="Exit codes: 0 ok, 1 a finding (error value, failed expectation, difference, nothing feasible), "
               "2 invalid sheet or usage. See README.md and docs/format.md.")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    def command(name: str, handler: Callable[[argparse.Namespace], int], help: str, description: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=description)
        p.set_defaults(handler=handler)
        return p

    run = command("run", _run, "evaluate a sheet and print every cell",
                  "Evaluate SHEET and print every cell with its value, unit and formula, and every check with "
                  "pass/fail. Exit 0, 1 when a cell holds an error value (#DIV/0, #NUM), 2 for an invalid sheet.")
    run.add_argument("sheet", metavar="SHEET", help="the sheet (a YAML file)")
    run.add_argument("--set", dest="sets", metavar="NAME=VALUE", action="append", default=[],
                     help="override a cell for this run, e.g. --set context=32768token or --set gpu.hbm_capacity=141GB "
                          "(repeatable)")
    run.add_argument("--format", choices=("text", "json", "csv", "markdown"), default="text",
                     help="output format (default: text)")

    check = command("check", _check, "report every diagnostic of sheets",
                    "Load and check sheets without evaluating them: every diagnostic (file:line:col: CODE: message, "
                    "the line, a hint). Directories are searched recursively for *.yaml. Exit 2 when any sheet is invalid.")
    check.add_argument("paths", metavar="PATH", nargs="+", help="sheet files or directories")

    test = command("test", _test, "check every expectation of sheets",
                   "Evaluate sheets and check every `expect` (top level, and inside sweeps, solves and choices), "
                   "each reported pass/fail with the computed value and the tolerance used. Ends with "
                   "'N passed, M failed'. Exit 1 when any expectation fails, 2 when a sheet is invalid.")
    test.add_argument("paths", metavar="PATH", nargs="+", help="sheet files or directories")
    test.add_argument("-q", "--quiet", action="store_true", help="print only failures and the summary")

    explain = command("explain", _explain, "why a cell has its value",
                      "Print CELL's formula, value and unit, and the tree of its precedents down to the inputs, "
                      "each with its value.")
    explain.add_argument("sheet", metavar="SHEET")
    explain.add_argument("cell", metavar="CELL", help="a cell name (alias.name for an imported cell)")
    explain.add_argument("--set", dest="sets", metavar="NAME=VALUE", action="append", default=[])

    calc = command("calc", _calc, "evaluate one formula without a sheet",
                   'Evaluate one formula, e.g. supersheet calc "470.2 GB -> GiB" or '
                   'supersheet calc "2 * 94 * 4 * 128 * 2 B -> KiB".')
    calc.add_argument("expression", metavar="EXPR")
    return parser


# -- helpers ------------------------------------------------------------------
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


def fixed_overrides(workbook, sets: list[str]) -> dict:
    from .workbook import OverrideError, parse_assignment
    fixed = {}
    for text in sets:
        try:
            key, node = parse_assignment(workbook, text)
        except OverrideError as e:
            raise UsageError(f"--set {text}: {e.code}: {e.message}" + (f" ({e.hint})" if e.hint else "")) from None
        fixed[key] = node
    return fixed


# -- commands -----------------------------------------------------------------
def _run(args: argparse.Namespace) -> int:
    from .report import render_run
    workbook = open_valid(args.sheet)
    if workbook is None:
        return EXIT_INVALID
    scenario = workbook.evaluate(fixed_overrides(workbook, args.sets))
    print(render_run(workbook, scenario, args.format))
    return EXIT_FINDING if scenario.has_errors() else EXIT_OK


def _check(args: argparse.Namespace) -> int:
    from .workbook import open_workbook
    sources = SourceCache()
    invalid = 0
    paths = sheet_paths(args.paths)
    for path in paths:
        workbook = open_workbook(path)
        problems = [d for d in workbook.diagnostics if d.code != "E-EXPECT"]
        if problems:
            invalid += 1
            print_diagnostics(problems, sources)
    print(f"{len(paths)} sheet{'s' if len(paths) != 1 else ''} checked, {invalid} invalid")
    return EXIT_INVALID if invalid else EXIT_OK


def _test(args: argparse.Namespace) -> int:
    from .testing import test_workbook
    from .workbook import open_workbook
    sources = SourceCache()
    passed = failed = invalid = 0
    for path in sheet_paths(args.paths):
        workbook = open_workbook(path)
        report = test_workbook(workbook)
        broken = [d for d in report.diagnostics if d.code != "E-EXPECT"]
        if broken:
            invalid += 1
            print(f"{path}: INVALID")
            print_diagnostics(broken, sources)
        for outcome in report.outcomes:
            if outcome.passed and args.quiet:
                continue
            status = "pass" if outcome.passed else "FAIL"
            print(f"{status}  {path}:{outcome.expectation.span.line}  {outcome.target} = {outcome.actual}"
                  f"  (expected {outcome.expectation.text}, {outcome.expectation.describe_tolerance()})")
            if not outcome.passed:
                print(render(outcome.diagnostic(), sources))
        passed += report.passed
        failed += sum(not o.passed for o in report.outcomes)
    print(f"{passed} passed, {failed + invalid} failed")
    if invalid:
        return EXIT_INVALID
    return EXIT_FINDING if failed else EXIT_OK


def _explain(args: argparse.Namespace) -> int:
    from .report import render_explain
    workbook = open_valid(args.sheet)
    if workbook is None:
        return EXIT_INVALID
    key = workbook.key_for(args.cell)
    if key is None:
        hint = workbook.name_hint(args.cell)
        raise UsageError(f"unknown cell {args.cell!r}" + (f"; {hint}" if hint else ""))
    scenario = workbook.evaluate(fixed_overrides(workbook, args.sets))
    print(render_explain(workbook, scenario, key))
    return EXIT_OK


def _calc(args: argparse.Namespace) -> int:
    from .calc import CALC_FILE, calc_workbook
    from .present import show
    sources = SourceCache({CALC_FILE: [args.expression]})
    workbook, diagnostics = calc_workbook(args.expression)
    if workbook is None or diagnostics:
        print_diagnostics(diagnostics, sources)
        return EXIT_INVALID
    scenario = workbook.evaluate()
    shown = show(workbook.checked, "result", scenario.values["result"])
    print(shown.text)
    return EXIT_FINDING if scenario.has_errors() else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
