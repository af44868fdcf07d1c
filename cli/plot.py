"""`supersheet plot` (a chart of a sweep: SVG, PNG or HTML, supersheet.plots) and `supersheet
report` (one self-contained HTML page of a sheet or of its change, supersheet.report)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from supersheet.cli.batch import sweep_setup
from supersheet.cli.support import EXIT_INVALID, EXIT_OK, UsageError, sampling_options
from supersheet.errors import bounded
from supersheet.loading import MAX_ROWS
from supersheet.cli.support import sheet_argument
from supersheet.cli.support import fixed_overrides, open_valid
from supersheet.cli.batch import axis_error
from supersheet.cli.support import EXIT_FINDING, fixed_overrides, open_valid, print_diagnostics


def plot(args: argparse.Namespace) -> int:
    from supersheet.plots import FORMATS, PlotError, PlotRequest, chart, save   # deferred: plots (slow to import)

    from supersheet.sweeps import check_writable   # deferred: numpy, ruamel
    output = Path(args.output)
    if output.suffix.lstrip(".").lower() not in FORMATS:
        raise UsageError(f"cannot tell the format of {bounded(repr(args.output))}: name it .svg, .png or .html")
    check_writable(output, args.force)      # a device, FIFO, folder or read-only file: refused before the work
    if args.fit:
        return _plot_fit(args, output)
    given = [y.strip() for y in args.y.split(",") if y.strip()] if args.y else []

    def cells(setup) -> list[str]:     # computed: the cells charted, and the checks marked where they fail
        defaults = setup.plot_defaults
        return list(dict.fromkeys([*(given or (defaults.y if defaults else [])), *setup.checks]))
    built = sweep_setup(args, show=cells)
    if built is None:
        return EXIT_INVALID
    defaults = built.setup.plot_defaults
    x = args.x or (defaults.x if defaults else None)
    ys = given or list(defaults.y if defaults else [])
    if not x or not ys:
        raise UsageError("give --x AXIS and --y CELL[,CELL…] (or a sweep whose block has a plot:)")
    request = PlotRequest(
        x=x, y=tuple(ys), color=args.color or (defaults.color if defaults and not args.x else None),
        facet=args.facet or (defaults.facet if defaults and not args.x else None),
        log_x=args.log_x or bool(defaults and not args.x and defaults.log_x),
        log_y=args.log_y or bool(defaults and not args.x and defaults.log_y),
        title=args.title or (defaults.title if defaults else "") or built.setup.title,
        checks=tuple(built.setup.checks))
    frame = built.plan.frame()
    try:
        save(chart(frame, request), output, args.force)
    except PlotError as e:
        raise UsageError(str(e)) from None
    print(f"{frame.height:,} rows plotted to {output}", file=sys.stderr)
    return EXIT_OK


def _plot_fit(args: argparse.Namespace, output: Path) -> int:
    """A fit's data against its model: each target column and the cell that should equal it,
    against the fit's (first) input column, from the rows `supersheet fit` prints."""
    from supersheet.fits import AxisError, SolveError, fit_named   # deferred: fits (slow to import)
    from supersheet.plots import PlotError, PlotRequest, chart, numeric_range, save   # deferred: plots (slow to import)
    if args.name or args.vary or args.where:
        raise UsageError("--fit NAME plots a fit: give no SWEEP, --vary or --where with it")
    sheet = open_valid(args.sheet)
    if sheet is None:
        return EXIT_INVALID
    sheet = fixed_overrides(sheet, args.sets)
    try:
        fitted = fit_named(sheet, args.fit)
    except AxisError as e:
        raise axis_error(e) from None
    except SolveError as e:
        print_diagnostics([e.diagnostic])
        return EXIT_FINDING
    spec = fitted.result.spec
    if not spec.inputs:
        raise UsageError(f"fit {args.fit} sets no cell from a column: there is no x axis to plot against")
    frame = fitted.residuals()
    x = args.x or spec.inputs[0][0]
    column, cell = spec.targets[0]
    ys = [y.strip() for y in args.y.split(",")] if args.y else [column, cell]
    header = next((h for h in frame.columns if h.split(" [")[0] == x), None)
    span = numeric_range(frame[header]) if header is not None else None
    spans_decades = span is not None and span[0] > 0 and span[1] / span[0] > 100
    request = PlotRequest(x=x, y=tuple(ys), log_x=args.log_x or spans_decades, log_y=args.log_y or spans_decades,
                          title=args.title or f"fit {args.fit}: {column} (data) and {cell} (model) against {x}")
    try:
        save(chart(frame, request), output, args.force)
    except PlotError as e:
        raise UsageError(str(e)) from None
    print(f"{frame.height:,} rows of fit {args.fit} plotted to {output}", file=sys.stderr)
    return EXIT_OK


def plot_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("sheet", metavar="SHEET", type=sheet_argument)
    p.add_argument("name", metavar="SWEEP", nargs="?", help="a sweep defined in the sheet (its plot: gives defaults)")
    p.add_argument("--set", dest="sets", metavar="NAME=VALUE", action="append", default=[],
                   help="fix a cell of this sheet to VALUE under the varied axes (repeatable)")
    p.add_argument("--vary", metavar="AXIS=VALUES", action="append", default=[], help="an axis (repeatable)")
    p.add_argument("--where", metavar="COND", help="keep only rows where this condition holds")
    p.add_argument("--fit", metavar="NAME", help="plot the sheet's fit NAME: its data against its model, row by row "
                                                "(x: its input column; y: its target column and the model's cell)")
    p.add_argument("--x", metavar="AXIS", help="the axis along the x axis")
    p.add_argument("--y", metavar="CELLS", help="comma-separated cells on the y axis (one unit)")
    p.add_argument("--color", metavar="AXIS", help="one line per value of this axis")
    p.add_argument("--facet", metavar="AXIS", help="one panel per value of this axis")
    p.add_argument("--log-x", action="store_true", help="a logarithmic x axis")
    p.add_argument("--log-y", action="store_true", help="a logarithmic y axis")
    p.add_argument("--title", metavar="TEXT", help="the chart's title (default: the sweep's, else the sheet's)")
    p.add_argument("-o", "--output", metavar="FILE", required=True, help="FILE.svg, FILE.png or FILE.html")
    p.add_argument("--force", action="store_true", help="replace a read-only FILE (its mode is kept)")
    p.add_argument("--max-rows", type=int, default=MAX_ROWS, metavar="N",
                   help=f"refuse grids larger than N rows (default {MAX_ROWS:,})")
    p.set_defaults(show=None)
    sampling_options(p)


def report(args: argparse.Namespace) -> int:
    from supersheet.report import write_report   # deferred: numpy, ruamel

    from supersheet.sweeps import check_writable   # deferred: numpy, ruamel
    if not args.output.lower().endswith((".html", ".htm")):
        raise UsageError(f"a report is an HTML page: name it .html, not {bounded(repr(args.output))}")
    check_writable(Path(args.output), args.force)
    sheet = open_valid(args.sheet)
    if sheet is None:
        return EXIT_INVALID
    sheet = fixed_overrides(sheet, args.sets)
    written = write_report(sheet, args.output, args.rev, args.force)
    print(f"report of {args.sheet} written to {written}", file=sys.stderr)
    return EXIT_OK


def report_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("sheet", metavar="SHEET", type=sheet_argument)
    p.add_argument("--rev", metavar="REV", help="add the change since this git revision (the diff, and each "
                                                "sweep's chart before and after)")
    p.add_argument("--set", dest="sets", metavar="NAME=VALUE", action="append", default=[],
                   help="report the sheet with this cell set (repeatable)")
    p.add_argument("-o", "--output", metavar="FILE.html", required=True, help="the page to write")
    p.add_argument("--force", action="store_true", help="replace a read-only FILE.html (its mode is kept)")
