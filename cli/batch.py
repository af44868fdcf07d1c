"""The batch commands: `sweep`, `solve` and `choose`."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from supersheet.cli.progress import ProgressBar
from supersheet.cli.support import (
    EXIT_FINDING,
    EXIT_INVALID,
    EXIT_OK,
    UsageError,
    open_valid,
    print_diagnostics,
    with_sets,
)


def axis_error(e) -> Exception:
    """A problem at a position in the sheet is printed as `check` prints it (main.py); one without, as a usage error."""
    return e if e.span is not None else UsageError(e.line())


def sweep(args: argparse.Namespace) -> int:
    from supersheet.engine.scenarios.axes import AxisError, cli_axis
    from supersheet.engine.scenarios.output import (
        OutputError,
        check_writable,
        render_table,
        whole_numbers,
        write_csv,
        write_parquet,
        write_text,
    )
    from supersheet.engine.scenarios.sweep import (
        Grid,
        SweepSpec,
        drop_clean_error_columns,
        iterate_chunks,
        load_sweep,
        plans_for,
        units_metadata,
    )
    if args.address and args.on != "ray":
        raise UsageError("--address is the Ray cluster to use: it needs --on ray")
    workbook = open_valid(args.sheet)
    if workbook is None:
        return EXIT_INVALID
    workbook = with_sets(workbook, args.sets)
    try:
        spec = load_sweep(workbook, args.name) if args.name else SweepSpec("ad hoc", Grid([]))
        if not args.name and not args.vary:
            raise UsageError("give a sweep NAME or at least one --vary AXIS=VALUES"
                             + (f" (sweeps in this sheet: {', '.join(workbook.model.root.sweeps)})"
                                if workbook.model.root and workbook.model.root.sweeps else ""))
        for text in args.vary:
            axis = cli_axis(workbook, text)
            if any(t.partition("=")[0].strip() == axis.name for t in args.sets):
                raise UsageError(f"{axis.name} is both --set and --vary: give one")
            if spec.grid.rows is not None:
                raise UsageError("--vary cannot be combined with a sweep of explicit rows")
            spec.grid.axes = [a for a in spec.grid.axes if a.name != axis.name] + [axis]
        if args.show:
            spec.show = [s.strip() for s in args.show.split(",") if s.strip()]
        if args.where:
            from supersheet.engine.base.span import Origin
            spec.where, spec.where_origin = args.where, Origin("<--where>", 1, 1)
        size = spec.grid.size()
        if size > args.max_rows:
            raise UsageError(f"the sweep has {size:,} rows, more than --max-rows {args.max_rows:,}; "
                             f"raise the limit with --max-rows {size} if you mean it")
        units: dict = {}
        plans = plans_for(workbook, spec.grid, spec.show, spec.where, spec.where_origin, (args.samples, args.seed,
                          args.max_memory), units)
    except AxisError as e:
        raise axis_error(e) from None
    if args.on == "ray":
        return _sweep_on_ray(args, spec, plans, units)
    fmt = args.format or (Path(args.output).suffix.lstrip(".") if args.output else "text")
    if fmt not in ("csv", "parquet", "json", "text", "markdown"):
        raise UsageError(f"cannot tell the format of {args.output!r}; add --format csv or --format parquet")
    if args.output:
        try:
            check_writable(Path(args.output))
        except OutputError as e:
            raise UsageError(str(e)) from None
    bar = ProgressBar(delay=1.0)   # from a second on: a quick sweep prints nothing extra
    chunks = iterate_chunks(plans, spec.grid, max(1, args.chunk_rows), bar if bar.enabled else None)
    if args.output:
        path = Path(args.output)
        with bar:
            if fmt == "parquet":
                rows = write_parquet(chunks, None, path, units_metadata(plans))
            elif fmt == "csv":
                rows = write_csv(chunks, path)
            else:
                import polars as pl
                frame = whole_numbers(drop_clean_error_columns(pl.concat(list(chunks), how="diagonal_relaxed")))
                write_text(path, render_table(frame, fmt) + "\n")
                rows = frame.height
        print(f"{rows:,} rows written to {path}", file=sys.stderr)
        return EXIT_OK
    import polars as pl
    with bar:
        frames = list(chunks)
    frame = whole_numbers(drop_clean_error_columns(pl.concat(frames, how="diagonal_relaxed"))) if frames \
        else pl.DataFrame()
    if fmt == "csv":
        sys.stdout.write(frame.write_csv())
    elif fmt == "parquet":
        raise UsageError("Parquet needs an output file: -o FILE.parquet")
    else:
        print(render_table(frame, fmt))
    return EXIT_OK


def _sweep_on_ray(args: argparse.Namespace, spec, plans, units: dict) -> int:
    """The sweep as Ray tasks, into a Parquet dataset directory (one file per row range)."""
    import os

    from supersheet.engine.scenarios.on_ray import RayUnavailable, TaskFailed, session
    from supersheet.engine.scenarios.sweep_parts import PartError
    from supersheet.engine.scenarios.sweep_ray import sweep_to_dataset
    output = args.output or ""
    if not (output.endswith(("/", os.sep)) or os.path.isdir(output)) or args.format not in (None, "parquet"):
        raise UsageError("--on ray writes a Parquet dataset directory: give -o DIR/ (e.g. -o out/ or -o out.parquet/)")
    bar = ProgressBar()
    try:
        with session(args.address):
            written = sweep_to_dataset(plans, spec.grid, spec.show, spec.where, spec.where_origin,
                                       (args.samples, args.seed), units, output.rstrip("/" + os.sep) or ".",
                                       address=args.address, part_rows=args.rows_per_task,
                                       chunk_rows=max(1, args.chunk_rows),
                                       progress=bar if bar.enabled else None)
    except (RayUnavailable, TaskFailed, PartError) as e:
        raise UsageError(str(e)) from None
    finally:
        bar.close()
    parts = len(written.parts)
    print(f"{written.rows:,} rows written to {output} ({parts} Parquet part{'s' if parts != 1 else ''})",
          file=sys.stderr)
    return EXIT_OK


def solve(args: argparse.Namespace) -> int:
    import json

    from supersheet.engine.present.present import show
    from supersheet.engine.present.report import ordered_cells, render_run
    from supersheet.engine.scenarios.axes import AxisError
    from supersheet.engine.scenarios.solve import SolveError, solve, solve_entry
    workbook = open_valid(args.sheet)
    if workbook is None:
        return EXIT_INVALID
    workbook = with_sets(workbook, args.sets)
    try:
        if args.name:
            solution, _ = solve_entry(workbook, args.name)
        else:
            if not (args.vary and args.goal and args.between):
                solves = list(workbook.model.root.solve) if workbook.model.root else []
                raise UsageError("give a solve NAME, or --vary CELL --goal 'A == B' --between LO,HI"
                                 + (f" (solves in this sheet: {', '.join(solves)})" if solves
                                    else " (this sheet defines no solve)"))
            low, sep, high = args.between.partition(",")
            if not sep:
                raise UsageError("--between takes LO,HI, e.g. --between 1KiB,1GiB")
            from supersheet.engine.base.span import Origin
            solution = solve(workbook, args.vary, args.goal, (low.strip(), high.strip()), Origin("<--goal>", 1, 1))
    except AxisError as e:
        raise axis_error(e) from None
    except SolveError as e:
        entry = workbook.model.root.solve.get(args.name) if args.name and workbook.model.root else None
        if entry is not None:  # at the solve's name, as `supersheet check` reports it
            print_diagnostics([e.at(entry.span)])
        else:
            print(f"{args.sheet}: E-SOLVE: {e.message}" + (f"\nhint: {e.hint}" if e.hint else ""), file=sys.stderr)
        return EXIT_FINDING
    shown = show(workbook.checked, solution.key, solution.value)
    if args.format == "json":
        from supersheet.engine.present.report import cell_record
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


def choose(args: argparse.Namespace) -> int:
    import json

    import polars as pl

    from supersheet.engine.scenarios.axes import AxisError
    from supersheet.engine.scenarios.output import render_table
    from supersheet.engine.scenarios.solve import choice_entry
    if args.address and args.on != "ray":
        raise UsageError("--address is the Ray cluster to use: it needs --on ray")
    if args.top is not None and args.top < 1:
        raise UsageError("--top needs a number of rows of at least 1")
    workbook = open_valid(args.sheet)
    if workbook is None:
        return EXIT_INVALID
    workbook = with_sets(workbook, args.sets)
    try:
        if args.on == "ray":
            from supersheet.engine.scenarios.choice_ray import DEFAULT_TOP, choose_on_ray
            from supersheet.engine.scenarios.on_ray import RayUnavailable, TaskFailed, session
            try:
                with session(args.address):
                    choice = choose_on_ray(workbook, args.name, args.top or DEFAULT_TOP, address=args.address)
            except (RayUnavailable, TaskFailed) as e:
                raise UsageError(str(e)) from None
        else:
            show = [c.strip() for c in args.show.split(",") if c.strip()] if args.show else None
            choice, _ = choice_entry(workbook, args.name, args.top, show=show)
    except AxisError as e:
        raise axis_error(e) from None

    def public(rows):
        return [r.values for r in rows]

    if args.format == "json":
        document = {"choice": args.name, "objective": choice.objective,
                    "direction": "minimize" if choice.minimize else "maximize",
                    "answer": public([choice.answer])[0] if choice.answer else None,
                    "ranked": public(choice.ranked), "excluded": public(choice.excluded)}
        if choice.top is not None:
            document.update({"top": choice.top, "feasible": choice.feasible, "excluded_by_reason": choice.reasons})
        print(json.dumps(document, indent=2, ensure_ascii=False, default=str))
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
        limited = choice.top is not None
        print(f"\nranked (the best {len(choice.ranked):,} of {choice.feasible:,} feasible rows):" if limited
              else "\nranked:")
        print(render_table(pl.DataFrame(public(choice.ranked)), fmt))
    if choice.excluded:
        print("\nexcluded:")
        print(render_table(pl.DataFrame(public(choice.excluded)), fmt))
    elif choice.reasons:
        print(f"\nexcluded: {sum(choice.reasons.values()):,} rows")
        for reason, count in choice.reasons.items():
            print(f"  {count:>12,}  {reason}")
    return EXIT_OK if choice.answer else EXIT_FINDING


def _short(value) -> str:
    from supersheet.units import format_number
    if isinstance(value, float):
        return format_number(value)
    return str(value)
