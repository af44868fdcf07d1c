"""The batch commands: `sweep`, `solve` and `choose`, over supersheet.sweeps and
supersheet.goals."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from supersheet.cli.progress import ProgressBar
from supersheet.cli.support import (
    EXIT_FINDING,
    EXIT_INVALID,
    EXIT_OK,
    UsageError,
    check_on,
    fixed_overrides,
    open_valid,
    print_diagnostics,
    sampling,
)
from supersheet.errors import Problem, bounded
from supersheet.loading import without_cycle_collection

if TYPE_CHECKING:
    from supersheet.sweeps import SweepPlan, SweepSetup


def axis_error(e: Problem) -> Exception:
    """A problem at a position in the sheet is printed as `check` prints it (main.py); one without, as a usage error."""
    return e if e.span is not None else UsageError(e.line())


class Built:
    """A sweep set up from the command line: its setup and its plan."""

    def __init__(self, setup: SweepSetup, plan: SweepPlan) -> None:
        self.setup, self.plan = setup, plan


@without_cycle_collection
def sweep_setup(args: argparse.Namespace, show: Callable[[SweepSetup], list[str]] | None = None) -> Built | None:
    """The sweep a command line asks for (SHEET [NAME] --set --vary --show --where), checked and
    planned; None when the sheet is invalid (its diagnostics printed). `show`: the cells to
    compute when the command line names none (a plot's cells), from the sheet.

    The command's start - importing NumPy, Polars and the engine, loading, checking, planning -
    runs with the cycle collector paused, as the engine's own phases do (engine/base/gcpause.py):
    it allocates hundreds of thousands of objects and frees almost none, so the collections it
    would trigger (~140 for a sweep of a small sheet, 12-15 ms of CPU; more where one happens to
    walk the whole heap) find nothing to free. The `supersheet` command then freezes what the
    start built; the rows are computed with collection on."""
    from supersheet.sweeps import AxisError, SweepSetup   # deferred: numpy, ruamel
    sheet = open_valid(args.sheet)
    if sheet is None:
        return None
    sheet = fixed_overrides(sheet, args.sets)
    try:
        setup = SweepSetup(sheet, args.name)
        if not args.name and not args.vary:
            raise UsageError("give a sweep NAME or at least one --vary AXIS=VALUES"
                             + (f" (sweeps in this sheet: {', '.join(setup.sweeps)})" if setup.sweeps else ""))
        for text in args.vary:
            axis = setup.parse_axis(text)
            if any(t.partition("=")[0].strip() == axis.name for t in args.sets):
                raise UsageError(f"{axis.name} is both --set and --vary: give one")
            if setup.explicit_rows:
                raise UsageError("--vary cannot be combined with a sweep of explicit rows")
            setup.vary(axis)
        if args.show:
            setup.show([s.strip() for s in args.show.split(",") if s.strip()])
        elif show is not None:
            setup.show(show(setup))
        if args.where:
            setup.where(args.where, "<--where>")
        if setup.rows > args.max_rows:
            raise UsageError(f"the sweep has {setup.rows:,} rows, more than --max-rows {args.max_rows:,}; "
                             f"raise the limit with --max-rows {setup.rows} if you mean it")
        return Built(setup, setup.plan(sampling(args)))
    except AxisError as e:
        raise axis_error(e) from None


def sweep(args: argparse.Namespace) -> int:
    check_on(args)
    built = sweep_setup(args)   # imports supersheet.sweeps, in the start's pause
    if built is None:
        return EXIT_INVALID
    from supersheet.sweeps import FORMATS, STREAMED, check_table_rows, check_writable, render_table   # deferred: numpy, ruamel (already imported by sweep_setup)
    plan = built.plan
    if args.on == "ray":
        return _sweep_on_ray(args, plan)
    fmt = args.format or (Path(args.output).suffix.lstrip(".") if args.output else "text")
    if fmt not in FORMATS:
        raise UsageError(f"cannot tell the format of {bounded(repr(args.output))}; add --format csv or --format parquet")
    if args.output:
        check_writable(Path(args.output), args.force)
    elif fmt == "parquet":
        raise UsageError("Parquet needs an output file: -o FILE.parquet")
    if fmt not in STREAMED:
        check_table_rows(plan.rows, args.max_table_rows)
    bar = ProgressBar(delay=1.0)   # from a second on: a quick sweep prints nothing extra
    progress = bar if bar.enabled else None
    if args.output:
        with bar:
            rows = plan.write(args.output, fmt, args.chunk_rows, progress, args.force, args.max_table_rows)
        print(f"{rows:,} rows written to {Path(args.output)}", file=sys.stderr)
        return EXIT_OK
    with bar:
        frame = plan.frame(args.chunk_rows, progress)
    if fmt == "csv":
        sys.stdout.write(frame.write_csv())
    else:
        print(render_table(frame, fmt))
    return EXIT_OK


def _sweep_on_ray(args: argparse.Namespace, plan: SweepPlan) -> int:
    """The sweep as Ray tasks, into a Parquet dataset directory (one file per row range)."""
    output = args.output or ""
    if not (output.endswith(("/", os.sep)) or os.path.isdir(output)) or args.format not in (None, "parquet"):
        raise UsageError("--on ray writes a Parquet dataset directory: give -o DIR/ (e.g. -o out/ or -o out.parquet/)")
    bar = ProgressBar()
    try:
        rows, parts = plan.write_dataset(output.rstrip("/" + os.sep) or ".", args.address, args.rows_per_task,
                                         args.chunk_rows, bar if bar.enabled else None)
    finally:
        bar.close()
    print(f"{rows:,} rows written to {output} ({parts} Parquet part{'s' if parts != 1 else ''})", file=sys.stderr)
    return EXIT_OK


def solve(args: argparse.Namespace) -> int:
    from supersheet.goals import AxisError, SolveError, solve_goal, solve_named, solve_names   # deferred: goals (slow to import)
    sheet = open_valid(args.sheet)
    if sheet is None:
        return EXIT_INVALID
    sheet = fixed_overrides(sheet, args.sets)
    try:
        if args.name:
            solved = solve_named(sheet, args.name)
        else:
            if not (args.vary and args.goal and args.between):
                solves = solve_names(sheet)
                raise UsageError("give a solve NAME, or --vary CELL --goal 'A == B' --between LO,HI"
                                 + (f" (solves in this sheet: {', '.join(solves)})" if solves
                                    else " (this sheet defines no solve)"))
            low, sep, high = args.between.partition(",")
            if not sep:
                raise UsageError("--between takes LO,HI, e.g. --between 1KiB,1GiB")
            solved = solve_goal(sheet, args.vary, args.goal, (low.strip(), high.strip()), "<--goal>")
    except AxisError as e:
        raise axis_error(e) from None
    except SolveError as e:
        if args.name:   # placed at the solve's name, as `supersheet check` reports it
            print_diagnostics([e.diagnostic])
        else:
            print(f"{args.sheet}: E-SOLVE: {bounded(e.message)}" + (f"\nhint: {bounded(e.hint)}" if e.hint else ""),
                  file=sys.stderr)
        return EXIT_FINDING
    print(solved.render(args.format))
    return EXIT_OK


def fit(args: argparse.Namespace) -> int:
    from supersheet.fits import AxisError, SolveError, fit_named, fit_names   # deferred: fits (slow to import)
    sheet = open_valid(args.sheet)
    if sheet is None:
        return EXIT_INVALID
    sheet = fixed_overrides(sheet, args.sets)
    name = args.name
    if name is None:
        names = fit_names(sheet)
        if len(names) != 1:
            raise UsageError("give a fit NAME" + (f" (fits in this sheet: {', '.join(names)})" if names
                                                 else " (this sheet defines no fit: a fit: block)"))
        name = names[0]
    try:
        fitted = fit_named(sheet, name)
    except AxisError as e:
        raise axis_error(e) from None
    except SolveError as e:
        print_diagnostics([e.diagnostic])
        return EXIT_FINDING
    print(fitted.render(args.format))
    for warning in fitted.warnings() if args.format != "text" else ():
        print(f"warning: {warning}", file=sys.stderr)
    return EXIT_OK


def choose(args: argparse.Namespace) -> int:
    from supersheet.goals import AxisError, rank_choice   # deferred: goals (slow to import)
    from supersheet.sweeps import render_table   # deferred: numpy, ruamel
    check_on(args)
    if args.top is not None and args.top < 1:
        raise UsageError("--top needs a number of rows of at least 1")
    sheet = open_valid(args.sheet)
    if sheet is None:
        return EXIT_INVALID
    sheet = fixed_overrides(sheet, args.sets)
    show = [c.strip() for c in args.show.split(",") if c.strip()] if args.show else None
    try:
        choice = rank_choice(sheet, args.name, args.top, show, args.on, args.address)
    except AxisError as e:
        raise axis_error(e) from None
    if args.format == "json":
        print(choice.to_json())
        return EXIT_OK if choice.answer else EXIT_FINDING
    import polars as pl   # deferred: polars
    fmt = "markdown" if args.format == "markdown" else "text"
    direction = "lowest" if choice.minimize else "highest"
    if choice.answer:
        described = ", ".join(f"{k} = {_short(v)}" for k, v in choice.answer.items())
        print(f"answer ({direction} {choice.objective}): {described}")
    else:
        print(f"no row is feasible for {bounded(repr(args.name))}")
    if choice.ranked:
        limited = choice.top is not None
        print(f"\nranked (the best {len(choice.ranked):,} of {choice.feasible:,} feasible rows):" if limited
              else "\nranked:")
        print(render_table(pl.DataFrame(choice.ranked), fmt))
    if choice.excluded:
        print("\nexcluded:")
        print(render_table(pl.DataFrame(choice.excluded), fmt))
    elif choice.reasons:
        print(f"\nexcluded: {sum(choice.reasons.values()):,} rows")
        for reason, count in choice.reasons.items():
            print(f"  {count:>12,}  {reason}")
    return EXIT_OK if choice.answer else EXIT_FINDING


def _short(value: object) -> str:
    from supersheet.units import format_number   # deferred: units (slow to import)
    if isinstance(value, float):
        return format_number(value)
    return str(value)
