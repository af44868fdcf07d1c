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
    _sampling_options(run)

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
    _sampling_options(test)

    explain = command("explain", _explain, "why a cell has its value",
                      "Print CELL's formula, value and unit, and the tree of its precedents down to the inputs, "
                      "each with its value.")
    explain.add_argument("sheet", metavar="SHEET")
    explain.add_argument("cell", metavar="CELL", help="a cell name (alias.name for an imported cell)")
    explain.add_argument("--set", dest="sets", metavar="NAME=VALUE", action="append", default=[])
    explain.add_argument("--sensitivity", action="store_true",
                         help="rank the random draws CELL depends on by how strongly each moves it "
                              "(Spearman rank correlation over the samples)")
    _sampling_options(explain)

    sweep = command("sweep", _sweep, "evaluate a grid of scenarios (a sweep)",
                    "Run the sweep NAME of SHEET, or an ad hoc sweep from --vary axes (which add to or replace the "
                    "named sweep's axes). Axis values: a list 'tp=1,2,4,8'; a geometric range "
                    "'context=4096token..131072token*2'; a linear range 'message=10KiB..30KiB+10KiB'; a count "
                    "'message=1KiB..1GiB:50log' (or :50lin); an import axis 'model=a.yaml,b.yaml' swaps the sheet "
                    "an alias points to. Rows are the Cartesian product, first axis slowest (import axes slowest of "
                    "all). Columns are headed 'name [unit]' in display units. With -o the rows stream to a CSV or "
                    "Parquet file in chunks (bounded memory); otherwise a table goes to stdout.")
    sweep.add_argument("sheet", metavar="SHEET")
    sweep.add_argument("name", metavar="NAME", nargs="?", help="a sweep defined in the sheet")
    sweep.add_argument("--vary", metavar="AXIS=VALUES", action="append", default=[], help="an axis (repeatable)")
    sweep.add_argument("--show", metavar="CELLS", help="comma-separated cells to output (default: the sweep's "
                                                      "'show', else every cell of the sheet)")
    sweep.add_argument("--where", metavar="COND", help="keep only rows where this condition holds, e.g. 'fits'")
    sweep.add_argument("-o", "--output", metavar="FILE", help="write to FILE (.csv or .parquet)")
    sweep.add_argument("--format", choices=("csv", "parquet", "json", "text", "markdown"),
                       help="output format (default: from -o's extension, else text)")
    sweep.add_argument("--max-rows", type=int, default=10_000_000, metavar="N",
                       help="refuse grids larger than N rows (default 10,000,000)")
    sweep.add_argument("--chunk-rows", type=int, default=1_000_000, metavar="N", help=argparse.SUPPRESS)
    _sampling_options(sweep)

    solve = command("solve", _solve, "goal seek: find the input value that meets a goal",
                    "Run the solve NAME of SHEET, or an ad hoc one: --vary CELL --goal 'A == B' --between LO,HI. "
                    "Prints the solution and the value of every cell there; E-SOLVE with the difference at both "
                    "ends when the goal has no sign change in the bracket.")
    solve.add_argument("sheet", metavar="SHEET")
    solve.add_argument("name", metavar="NAME", nargs="?")
    solve.add_argument("--vary", metavar="CELL")
    solve.add_argument("--goal", metavar="'A == B'")
    solve.add_argument("--between", metavar="LO,HI")
    solve.add_argument("--format", choices=("text", "json"), default="text")

    choose = command("choose", _choose, "choose the best row under requirements",
                     "Run the choice NAME of SHEET: every row of its grid, the rows that fail a requirement "
                     "(with the requirement), and the feasible rows ranked by the objective, the answer first. "
                     "Exit 1 when no row is feasible.")
    choose.add_argument("sheet", metavar="SHEET")
    choose.add_argument("name", metavar="NAME")
    choose.add_argument("--format", choices=("text", "json", "markdown"), default="text")

    diff = command("diff", _diff, "compare scenarios: two sheets, git revisions, or a variant and its base",
                   "Compare two versions of a sheet: `diff OLD NEW` (paths or git specs REV:path, e.g. "
                   "HEAD~1:sheets/hardware/h100-sxm.yaml); `diff --rev [REV] [PATH...]` compares the working tree with "
                   "REV (default HEAD) over every changed sheet and every sheet that imports or extends one; "
                   "`diff --base VARIANT` compares a variant with the base it extends. Reports inputs changed, "
                   "formulas changed, cells added/removed/renamed, results changed (old -> new, delta, delta %, "
                   "largest first), checks flipped, expectations that now fail. Exit 0 no differences, 1 differences, "
                   "2 error.")
    diff.add_argument("sides", metavar="OLD NEW", nargs="*", help="two sheets (paths or REV:path)")
    diff.add_argument("--rev", metavar="REV", nargs="?", const="HEAD", help="compare the working tree with REV "
                                                                            "(default HEAD); PATHs limit the search")
    diff.add_argument("--base", metavar="VARIANT", help="compare VARIANT with the sheet it extends")
    diff.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    diff.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                      help="colour the text format (default: when stdout is a terminal)")

    textconv = command("textconv", _textconv, "a sheet as evaluated text, for git's diff driver",
                       "Print a sheet's YAML followed by its evaluated cells as comments. Used as git's textconv: "
                       "`git config diff.supersheet.textconv 'supersheet textconv'` with `*.yaml diff=supersheet` "
                       "in .gitattributes makes `git diff` show evaluated values.")
    textconv.add_argument("file", metavar="FILE")

    calc = command("calc", _calc, "evaluate one formula without a sheet",
                   'Evaluate one formula, e.g. supersheet calc "470.2 GB -> GiB" or '
                   'supersheet calc "2 * 94 * 4 * 128 * 2 B -> KiB".')
    calc.add_argument("expression", metavar="EXPR")

    edit = command("edit", _edit, "edit a sheet in the terminal UI",
                   "Open SHEET in an interactive editor: every cell with its value and formula, grouped as the "
                   "sheet groups them. Enter (or typing) edits a cell; only its dependents recompute and every "
                   "value that changed shows its old value and the change. Ctrl+S saves (comments and layout "
                   "kept), Ctrl+Z/Ctrl+Y undo/redo, ? shows every key. Without SHEET, opens the bundled running "
                   "example (sheets/supernodes/6.1.2-running-example.yaml).")
    edit.add_argument("sheet", metavar="SHEET", nargs="?", help="the sheet (a YAML file); default: the running example")
    return parser


def _sampling_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--samples", type=int, metavar="N",
                   help="samples for sheets with random draws (default: the sheet's `samples:`, else 10000)")
    p.add_argument("--seed", type=int, metavar="S", help="random seed (default: the sheet's, else 0)")


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
    fixed = fixed_overrides(workbook, args.sets)
    sampled = _sample(workbook, args, fixed)
    scenario = sampled.deterministic if sampled is not None else workbook.evaluate(fixed)
    print(render_run(workbook, scenario, args.format, sampled))
    errors = scenario.has_errors() or (sampled is not None and any(s.errors for s in sampled.summaries.values()))
    return EXIT_FINDING if errors else EXIT_OK


def _sample(workbook, args: argparse.Namespace, fixed: dict | None = None):
    """Monte Carlo results for a sheet with random draws (None for a deterministic sheet)."""
    if not workbook.checked.distributions:
        return None
    from .uncertainty import SamplingError, evaluate_samples
    try:
        return evaluate_samples(workbook, getattr(args, "samples", None), getattr(args, "seed", None), fixed)
    except SamplingError as e:
        raise UsageError(str(e)) from None


def _check(args: argparse.Namespace) -> int:
    from .workbook import open_workbook
    sources = SourceCache()
    invalid = 0
    paths = sheet_paths(args.paths)
    for path in paths:
        workbook = open_workbook(path)
        problems = [d for d in workbook.diagnostics if d.code != "E-EXPECT"]
        if not problems:
            from .blocks import validate_blocks
            problems = validate_blocks(workbook)
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
        report = test_workbook(workbook, getattr(args, "samples", None), getattr(args, "seed", None))
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
    fixed = fixed_overrides(workbook, args.sets)
    if args.sensitivity:
        return _sensitivity(workbook, args, fixed, key)
    scenario = workbook.evaluate(fixed)
    print(render_explain(workbook, scenario, key))
    return EXIT_OK


def _sensitivity(workbook, args: argparse.Namespace, fixed: dict, key: str) -> int:
    from .uncertainty import sensitivity
    sampled = _sample(workbook, args, fixed)
    if sampled is None or key not in sampled.summaries:
        raise UsageError(f"{key} depends on no random draw: there is nothing to rank")
    from .report import uncertain_record
    record = uncertain_record(workbook, key, sampled.summaries[key])
    print(f"{key} = {record['display']}   ({sampled.samples} samples, seed {sampled.seed})")
    print()
    print(f"{'uncertain input':<32} {'rank correlation':>16} {'share (rho^2)':>14}")
    for influence in sensitivity(sampled, key):
        print(f"{influence.draw:<32} {influence.rank_correlation:>+16.3f} {influence.share:>14.1%}")
    return EXIT_OK


def _axis_error(e) -> UsageError:
    return UsageError(f"{e.code}: {e.message}" + (f" (hint: {e.hint})" if e.hint else ""))


def _sweep(args: argparse.Namespace) -> int:
    from .axes import AxisError, cli_axis
    from .output import render_table, write_csv, write_parquet
    from .sweep import (Grid, SweepSpec, drop_clean_error_columns, iterate_chunks, load_sweep, plans_for,
                        units_metadata)
    workbook = open_valid(args.sheet)
    if workbook is None:
        return EXIT_INVALID
    try:
        spec = load_sweep(workbook, args.name) if args.name else SweepSpec("ad hoc", Grid([]))
        if not args.name and not args.vary:
            raise UsageError("give a sweep NAME or at least one --vary AXIS=VALUES"
                             + (f" (sweeps in this sheet: {', '.join(workbook.model.root.sweeps)})"
                                if workbook.model.root and workbook.model.root.sweeps else ""))
        for text in args.vary:
            axis = cli_axis(workbook, text)
            if spec.grid.rows is not None:
                raise UsageError("--vary cannot be combined with a sweep of explicit rows")
            spec.grid.axes = [a for a in spec.grid.axes if a.name != axis.name] + [axis]
        if args.show:
            spec.show = [s.strip() for s in args.show.split(",") if s.strip()]
        if args.where:
            from .span import Origin
            spec.where, spec.where_origin = args.where, Origin("<--where>", 1, 1)
        size = spec.grid.size()
        if size > args.max_rows:
            raise UsageError(f"the sweep has {size:,} rows, more than --max-rows {args.max_rows:,}; "
                             f"raise the limit with --max-rows {size} if you mean it")
        plans = plans_for(workbook, spec.grid, spec.show, spec.where, spec.where_origin, (args.samples, args.seed))
    except AxisError as e:
        raise _axis_error(e) from None
    fmt = args.format or (Path(args.output).suffix.lstrip(".") if args.output else "text")
    if fmt not in ("csv", "parquet", "json", "text", "markdown"):
        raise UsageError(f"cannot tell the format of {args.output!r}; add --format csv or --format parquet")
    progress = sys.stderr.isatty()
    chunks = iterate_chunks(plans, spec.grid, max(1, args.chunk_rows), progress)
    if args.output:
        path = Path(args.output)
        if fmt == "parquet":
            first = next(iterate_chunks(plans, spec.grid, 1))
            rows = write_parquet(chunks, first.schema, path, units_metadata(plans))
        elif fmt == "csv":
            rows = write_csv(chunks, path)
        else:
            import polars as pl
            frame = drop_clean_error_columns(pl.concat(list(chunks), how="diagonal_relaxed"))
            path.write_text(render_table(frame, fmt) + "\n", encoding="utf-8")
            rows = frame.height
        print(f"{rows:,} rows written to {path}", file=sys.stderr)
        return EXIT_OK
    import polars as pl
    frames = list(chunks)
    frame = drop_clean_error_columns(pl.concat(frames, how="diagonal_relaxed")) if frames else pl.DataFrame()
    if fmt == "csv":
        sys.stdout.write(frame.write_csv())
    elif fmt == "parquet":
        raise UsageError("Parquet needs an output file: -o FILE.parquet")
    else:
        print(render_table(frame, fmt))
    return EXIT_OK


def _solve(args: argparse.Namespace) -> int:
    import json
    from .axes import AxisError
    from .present import show
    from .report import ordered_cells, render_run
    from .solve import SolveError, solve, solve_entry
    workbook = open_valid(args.sheet)
    if workbook is None:
        return EXIT_INVALID
    try:
        if args.name:
            solution, _ = solve_entry(workbook, args.name)
        else:
            if not (args.vary and args.goal and args.between):
                raise UsageError("give a solve NAME, or --vary CELL --goal 'A == B' --between LO,HI")
            low, sep, high = args.between.partition(",")
            if not sep:
                raise UsageError("--between takes LO,HI, e.g. --between 1KiB,1GiB")
            from .span import Origin
            solution = solve(workbook, args.vary, args.goal, (low.strip(), high.strip()), Origin("<--goal>", 1, 1))
    except AxisError as e:
        raise _axis_error(e) from None
    except SolveError as e:
        entry = workbook.model.root.solve.get(args.name) if args.name and workbook.model.root else None
        if entry is not None:  # at the solve's name, as `supersheet check` reports it
            print_diagnostics([Diagnostic("E-SOLVE", e.message, entry.span, hint=e.hint)])
        else:
            print(f"{args.sheet}: E-SOLVE: {e.message}" + (f"\nhint: {e.hint}" if e.hint else ""), file=sys.stderr)
        return EXIT_FINDING
    shown = show(workbook.checked, solution.key, solution.value)
    if args.format == "json":
        from .report import cell_record
        print(json.dumps({"solve": args.name, "goal": solution.goal, "vary": solution.key,
                          "solution": {"name": solution.key, "value": shown.value, "unit": shown.unit,
                                       "display": shown.text},
                          "cells": [cell_record(workbook, solution.scenario, c) for c in ordered_cells(workbook)]},
                         indent=2, ensure_ascii=False))
        return EXIT_OK
    print(f"{solution.goal}  when  {solution.key} = {shown.text}")
    print()
    print(render_run(workbook, solution.scenario, "text"))
    return EXIT_OK


def _choose(args: argparse.Namespace) -> int:
    import json
    from .axes import AxisError
    from .output import render_table
    from .solve import choice_entry
    import polars as pl
    workbook = open_valid(args.sheet)
    if workbook is None:
        return EXIT_INVALID
    try:
        choice, _ = choice_entry(workbook, args.name)
    except AxisError as e:
        raise _axis_error(e) from None

    def public(rows):
        return [{k: v for k, v in r.items() if not k.startswith("__")} for r in rows]

    if args.format == "json":
        print(json.dumps({"choice": args.name, "objective": choice.objective,
                          "direction": "minimize" if choice.minimize else "maximize",
                          "answer": public([choice.answer])[0] if choice.answer else None,
                          "ranked": public(choice.ranked), "excluded": public(choice.excluded)},
                         indent=2, ensure_ascii=False, default=str))
        return EXIT_OK if choice.answer else EXIT_FINDING
    fmt = "markdown" if args.format == "markdown" else "text"
    direction = "lowest" if choice.minimize else "highest"
    if choice.answer:
        answer = public([choice.answer])[0]
        described = ", ".join(f"{k} = {_short(v)}" for k, v in answer.items())
        print(f"answer ({direction} {choice.objective}): {described}")
    else:
        print(f"no row is feasible for {args.name!r}")
    if choice.ranked:
        print("\nranked:")
        print(render_table(pl.DataFrame(public(choice.ranked)), fmt))
    if choice.excluded:
        print("\nexcluded:")
        print(render_table(pl.DataFrame(public(choice.excluded)), fmt))
    return EXIT_OK if choice.answer else EXIT_FINDING


def _short(value) -> str:
    from units import format_number
    if isinstance(value, float):
        return format_number(value)
    return str(value)


def _edit(args: argparse.Namespace) -> int:
    from .edit import running_example
    if args.sheet:
        path = Path(args.sheet)
        if not path.is_file():
            raise UsageError(f"no such sheet: {args.sheet}")
    else:
        try:
            path = running_example()
        except FileNotFoundError as e:
            raise UsageError(str(e)) from None
        try:
            path = path.relative_to(Path.cwd())
        except ValueError:
            pass
    try:
        path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"cannot read {path}: {e}") from None
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("edit needs a terminal (stdin and stdout must be a TTY)")
    try:
        from tui.app import SupersheetApp  # imported here: the engine never imports textual
    except ImportError as e:
        raise UsageError(f"the terminal UI is not available: {e}") from None
    return SupersheetApp(path).run() or EXIT_OK


def _diff(args: argparse.Namespace) -> int:
    from .compare import diff_against_revision, diff_pair, diff_variant
    from .diffview import render_json, render_markdown, render_text
    from .gitrev import GitError
    cwd = Path.cwd()
    try:
        if args.base:
            if args.sides or args.rev:
                raise UsageError("--base takes one VARIANT and no other sheets")
            diffs = diff_variant(args.base)
        elif args.rev is not None:
            diffs = diff_against_revision(args.rev, args.sides, cwd)
        elif len(args.sides) == 2:
            diffs = diff_pair(args.sides[0], args.sides[1], cwd)
        else:
            raise UsageError("give OLD NEW, --rev [REV] [PATH...], or --base VARIANT")
    except GitError as e:
        raise UsageError(f"git: {e}") from None
    except FileNotFoundError as e:
        raise UsageError(f"no such sheet: {e.args[0] if e.args else e}") from None
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.format == "json":
        sys.stdout.write(render_json(diffs))
    elif args.format == "markdown":
        sys.stdout.write(render_markdown(diffs))
    else:
        color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty()
                                           and not os.environ.get("NO_COLOR"))
        sys.stdout.write(render_text(diffs, color))
    return EXIT_FINDING if any(d.differs for d in diffs) else EXIT_OK


def _textconv(args: argparse.Namespace) -> int:
    from .compare import textconv
    if not Path(args.file).exists():
        raise UsageError(f"no such file: {args.file}")
    sys.stdout.write(textconv(args.file, Path.cwd()))
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
