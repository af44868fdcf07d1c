"""The `supersheet` command: parses arguments, calls the Python API (the `supersheet`
package: supersheet.reports, .sweeps, .goals, .compare, .calc), prints.

Exit codes: 0 fine; 1 a finding (an error value, a failed expectation, a
difference, no feasible row); 2 an invalid sheet or bad usage. No input ever
produces a traceback: internal errors are reported in one line (set
SUPERSHEET_DEBUG=1 to see the traceback).
"""
from __future__ import annotations

import argparse
import errno
import gc
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from supersheet.cli import batch as cli_batch, init as cli_init, parser as cli_parser, plot as cli_plot, versions as cli_compare
from supersheet.cli.support import (
    EXIT_FINDING,
    EXIT_INVALID,
    EXIT_OK,
    UsageError,
    check_on,
    configure_loading,
    override_usage,
    print_diagnostics,
    sampling,
    sheet_paths,
)
from supersheet.errors import OverrideError, RequestError, SheetError, SourceCache, bounded, render_diagnostic
from supersheet.loading import for_one_command, shown_path
from supersheet.loading import check_readable

if TYPE_CHECKING:
    from supersheet.reports import SensitivityReport


def main(argv: Sequence[str] | None = None) -> int:
    """Run a command line: `argv`, or (None) this process's own, as the program `supersheet`
    does (its process exits when the command returns); the exit code."""
    program = argv is None
    if program:
        _one_blas_thread()   # before anything imports NumPy
    caller_froze = gc.get_freeze_count() > 0   # a caller's own frozen heap (the editor's) stays frozen
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = cli_parser.build_parser(COMMANDS, argv[0] if argv else None)
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return EXIT_INVALID
    if program:   # the command's own process: a signal that stops it removes its temporary files first
        from supersheet.process import clean_up_on_signals   # deferred: process (slow to import)
        clean_up_on_signals()
    stdout = sys.stdout
    sys.stdout = _ClosedPipeTolerant(stdout)   # a reader that stops early (`| head`) does not change the code
    try:
        configure_loading(args)
        if program:   # this process ends with the command: what it loads lives until then
            for_one_command()
        code = args.handler(args)
        sys.stdout.flush()  # a full disk shows here, inside the handler below, not at interpreter exit
        return code
    except RequestError as e:    # a usage error, or a request the API refuses (with the sheet's problems behind it)
        print_diagnostics(e.diagnostics)
        print(f"supersheet: {bounded(str(e))}", file=sys.stderr)
        return EXIT_INVALID
    except SheetError as e:   # the sheet's problems (one at its place: a sweep's where, a goal), as `check` prints them
        print_diagnostics(e.diagnostics)
        return EXIT_INVALID
    except KeyboardInterrupt:
        print("supersheet: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_OK
    except Exception as e:  # noqa: BLE001 - the promise is: never a traceback for any input
        if isinstance(e, OSError) and e.errno in _OUTPUT_ERRORS:   # stdout on a full disk, a broken device
            _silence_stdout()
            print(f"supersheet: cannot write the output: {bounded(str(e.strerror or e))}", file=sys.stderr)
            return EXIT_INVALID
        if os.environ.get("SUPERSHEET_DEBUG"):
            raise
        print(f"supersheet: internal error: {type(e).__name__}: {bounded(str(e))}\n"
              "(this is a bug in supersheet; rerun with SUPERSHEET_DEBUG=1 for details)", file=sys.stderr)
        return 70
    finally:
        sys.stdout = stdout
        if program:
            # The process exits next, and Python's exit runs one full collection of the cycle
            # collector over the whole heap (Polars, NumPy, the engine, the sheet): ~50 ms of CPU
            # after a sweep, to free memory the exit returns anyway. Frozen, the heap is out of it;
            # files are closed and streams flushed by then (the exit flushes stdout and stderr).
            gc.freeze()
        elif not caller_froze:
            gc.unfreeze()   # the heap a batch command froze (support.open_valid), given back to the caller


def _one_blas_thread() -> None:
    """NumPy's OpenBLAS starts a thread for each further CPU as it loads, and each spins, waiting
    for work, for a while before it sleeps: ~35 ms of CPU on 2 CPUs in every process that imports
    NumPy (a sweep's, a hand-written script's; bench/bench_sweep.py), for matrix products no
    command computes (a fit's are a few columns wide). The command's process asks for no such
    thread before anything imports NumPy, unless the environment says otherwise (Ray's workers
    inherit it, as they get Ray's own OMP_NUM_THREADS=1)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


_OUTPUT_ERRORS = {errno.ENOSPC, errno.EIO, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)}


class _ClosedPipeTolerant:
    """stdout for a command: once its reader closes the pipe (`supersheet test … | head -1`),
    what is left to write goes to /dev/null and the command finishes with the exit code it
    would have had (a closed pipe turned a failure's 1 into 0 before)."""

    def __init__(self, stream) -> None:   # noqa: ANN001 - any text stream (a terminal, a pipe, pytest's capture)
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            _silence_stdout()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            _silence_stdout()

    def __getattr__(self, name: str):   # noqa: ANN204 - everything else is the stream's
        return getattr(self._stream, name)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that Python's final flush does not fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


# -- commands -----------------------------------------------------------------
def _run(args: argparse.Namespace) -> int:
    from supersheet import reports   # deferred: the checker and compiler, not for --help, calc, check
    check_on(args)
    try:
        report = reports.run(args.sheet, args.sets, args.format, sampling(args), args.fit)
    except OverrideError as e:   # a SheetError too: caught first
        raise override_usage(e) from None
    except SheetError as e:
        print_diagnostics(e.diagnostics)
        return EXIT_INVALID
    if args.on == "ray" and not report.random_draws:
        print("supersheet: the sheet has no random draws: it is evaluated here, not on Ray", file=sys.stderr)
    print(report.text)
    print_diagnostics(report.outside)
    return EXIT_FINDING if report.has_findings else EXIT_OK


def _check(args: argparse.Namespace) -> int:
    from supersheet.reports import check   # deferred: ruamel
    sources = SourceCache()
    invalid = 0
    paths = sheet_paths(args.paths)
    for path in paths:
        problems = check(path)
        if problems:
            invalid += 1
            print_diagnostics(problems, sources)
    print(f"{len(paths)} sheet{'s' if len(paths) != 1 else ''} checked, {invalid} invalid")
    return EXIT_INVALID if invalid else EXIT_OK


def _test(args: argparse.Namespace) -> int:
    from supersheet import reports   # deferred: the checker and compiler, not for --help, calc, check
    sources = SourceCache()
    passed = failed = invalid = 0
    for path in sheet_paths(args.paths):
        report = reports.test(path, sampling(args))
        shown = shown_path(path)     # a library file by its name (supersheet:…)
        if report.problems:
            invalid += 1
            print(f"{shown}: INVALID")
            print_diagnostics(report.problems, sources)
        for outside in report.outside:
            print(f"FAIL  {shown}:{outside.span.line if outside.span else 0}  {outside.message}")
            print(render_diagnostic(outside, sources))
        for verdict in report.verdicts:
            if verdict.passed and args.quiet:
                continue
            status = "pass" if verdict.passed else "FAIL"
            print(f"{status}  {shown}:{verdict.line}  {verdict.target} = {verdict.actual}  (expected {verdict.expected})")
            if not verdict.passed:
                print(render_diagnostic(verdict.diagnostic, sources))
        passed += report.passed
        failed += report.failed
    print(f"{passed} passed, {failed + invalid} failed")
    if invalid:
        return EXIT_INVALID
    return EXIT_FINDING if failed else EXIT_OK


def _explain(args: argparse.Namespace) -> int:
    from supersheet import reports   # deferred: the checker and compiler, not for --help, calc, check
    try:
        if args.sensitivity:
            return _sensitivity(reports.sensitivity(args.sheet, args.cell, args.sets, sampling(args)))
        text = reports.explain(args.sheet, args.cell, args.sets, sampling(args))
    except OverrideError as e:   # a SheetError too: caught first
        raise override_usage(e) from None
    except SheetError as e:
        print_diagnostics(e.diagnostics)
        return EXIT_INVALID
    print(text)
    return EXIT_OK


def _sensitivity(report: SensitivityReport) -> int:
    print(f"{report.cell} = {report.display}   ({report.samples} samples, seed {report.seed})")
    print()
    print(f"{'uncertain input':<32} {'rank correlation':>16} {'share (rho^2)':>14}")
    for influence in report.influences:
        print(f"{influence.draw:<32} {influence.rank_correlation:>+16.3f} {influence.share:>14.1%}")
    return EXIT_OK


LIBRARY_NAME = re.compile(r"[a-z][a-z0-9_-]+:")     # `supersheet:hardware/h100-sxm.yaml` (format 10.1)


def _edit(args: argparse.Namespace) -> int:
    from supersheet.editor.document import running_example   # deferred: ruamel
    if args.sheet and LIBRARY_NAME.match(args.sheet) and not Path(args.sheet).exists():
        raise UsageError(f"{args.sheet} is a file of a library, shared by every sheet that imports it: "
                         "edit a copy in your project (supersheet init, then copy it there), not the library")
    if args.sheet:
        path = Path(args.sheet)
        if path.is_dir():
            raise UsageError(f"{args.sheet} is a directory, not a sheet")
        if not path.exists() and path.suffix in (".yaml", ".yml") and path.parent.is_dir():
            return _edit_new(path)
        if not path.exists():       # a device or a FIFO is named for what it is, below
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
    check_readable(path)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("edit needs a terminal (stdin and stdout must be a TTY)")
    try:
        from supersheet.tui.app import SupersheetApp  # deferred: textual, for this command only
    except ImportError as e:
        raise UsageError(f"the terminal UI is not available: {e}") from None
    return _run_editor(SupersheetApp(path))


def _run_editor(app) -> int:
    """The editor's exit status: 70 when it stopped on an internal error
    (Textual prints the traceback; the unsaved text is in a recovery file)."""
    value = app.run()
    if app.return_code:
        print("supersheet: the editor stopped on an internal error (a bug in supersheet); your unsaved edits "
              "are kept and offered when you open the sheet again", file=sys.stderr)
        return 70
    return value or EXIT_OK


def _lsp(args: argparse.Namespace) -> int:
    try:
        from supersheet.lsp.server import serve   # deferred: pygls, for this command only
    except ImportError as e:
        raise UsageError(f"the language server is not available: {e}") from None
    from importlib.metadata import PackageNotFoundError, version   # deferred: importlib.metadata (slow to import)
    try:
        own = version("supersheet")
    except PackageNotFoundError:
        own = "0"
    return serve(own)


def _edit_new(path: Path) -> int:
    """`edit NEW.yaml`: the editor asks for a title and creates the sheet with one starter cell."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("edit needs a terminal (stdin and stdout must be a TTY)")
    try:
        from supersheet.tui.app import SupersheetApp   # deferred: polars, numpy, textual
    except ImportError as e:
        raise UsageError(f"the terminal UI is not available: {e}") from None
    return _run_editor(SupersheetApp(path, new=True))


def _calc(args: argparse.Namespace) -> int:
    from supersheet.calc import calc   # deferred: ruamel
    result = calc(args.expression)
    if result.text is None:
        print_diagnostics(result.diagnostics, result.sources)
        return EXIT_INVALID
    print(result.text)
    return EXIT_FINDING if result.has_errors else EXIT_OK


# name -> (handler, help, description, its options), in the order `--help` lists them
COMMANDS: dict[str, cli_parser.Command] = {
    "run": (_run, "evaluate a sheet and print every cell",
        "Evaluate SHEET and print every cell with its value, unit and formula, and every check with "
        "pass/fail. Exit 0, 1 when a cell holds an error value (#DIV/0, #NUM), 2 for an invalid sheet.",
        cli_parser.run_options),
    "check": (_check, "report every diagnostic of sheets",
        "Load and check sheets without evaluating them: every diagnostic (file:line:col: CODE: message, "
        "the line, a hint). Directories are searched recursively for *.yaml. Exit 2 when any sheet is invalid.",
        cli_parser.check_options),
    "test": (_test, "check every expectation of sheets",
        "Evaluate sheets and check every `expect` (top level, and inside sweeps, solves and choices), "
        "each reported pass/fail with the computed value and the tolerance used. Ends with "
        "'N passed, M failed'. Exit 1 when any expectation fails, 2 when a sheet is invalid.",
        cli_parser.test_options),
    "explain": (_explain, "why a cell has its value",
        "Print CELL's formula, value and unit, and the tree of its precedents down to the inputs, "
        "each with its value.",
        cli_parser.explain_options),
    "sweep": (cli_batch.sweep, "evaluate a grid of scenarios (a sweep)",
        "Run the sweep NAME of SHEET, or an ad hoc sweep from --vary axes (which add to or replace the "
        "named sweep's axes). Axis values: a list 'tp=1,2,4,8'; a geometric range "
        "'context=4096token..131072token*2'; a linear range 'message=10KiB..30KiB+10KiB'; a count "
        "'message=1KiB..1GiB:50log' (or :50lin); an import axis 'model=a.yaml,b.yaml' swaps the sheet "
        "an alias points to. Rows are the Cartesian product, first axis slowest (import axes slowest of "
        "all). Columns are headed 'name [unit]' in display units. With -o the rows stream to a CSV or "
        "Parquet file in chunks (bounded memory); otherwise a table goes to stdout.",
        cli_parser.sweep_options),
    "solve": (cli_batch.solve, "goal seek: find the input value that meets a goal",
        "Run the solve NAME of SHEET, or an ad hoc one: --vary CELL --goal 'A == B' --between LO,HI. "
        "Prints the solution and the value of every cell there; E-SOLVE with the difference at both "
        "ends when the goal has no sign change in the bracket.",
        cli_parser.solve_options),
    "fit": (cli_batch.fit, "fit cells to a table of measurements (least squares)",
        "Run the fit NAME of SHEET (a fit: block): the values of its varied cells that make the sheet "
        "match the table's rows, with standard errors, the model beside every row, the RMS and worst "
        "error, and a warning for a value on its bound. E-SOLVE when no target depends on a varied cell. "
        "`run SHEET --fit NAME` evaluates the sheet there; `test` checks the block's expect.",
        cli_parser.fit_options),
    "choose": (cli_batch.choose, "choose the best row under requirements",
        "Run the choice NAME of SHEET: every row of its grid, the rows that fail a requirement "
        "(with the requirement), and the feasible rows ranked by the objective, the answer first. "
        "Exit 1 when no row is feasible.",
        cli_parser.choose_options),
    "diff": (cli_compare.diff, "compare scenarios: two sheets, git revisions, or a variant and its base",
        "Compare two versions of a sheet: `diff OLD NEW` (paths or git specs REV:path, e.g. "
        "HEAD~1:sheets/hardware/h100-sxm.yaml); `diff --rev [REV] [PATH...]` compares the working tree with "
        "REV (default HEAD) over every changed sheet and every sheet that imports or extends one; "
        "`diff --base VARIANT` compares a variant with the base it extends. Reports inputs changed, "
        "formulas changed, cells added/removed/renamed, results changed (old -> new, delta, delta %, "
        "largest first), checks flipped, expectations that now fail. Exit 0 no differences, 1 differences, "
        "2 error.",
        cli_parser.diff_options),
    "textconv": (cli_compare.textconv, "a sheet as evaluated text, for git's diff driver",
        "Print a sheet's YAML followed by its evaluated cells as comments. Used as git's textconv: "
        "`git config diff.supersheet.textconv 'supersheet textconv --'` with `*.yaml diff=supersheet` "
        "in .gitattributes makes `git diff` show evaluated values.",
        cli_parser.textconv_options),
    "calc": (_calc, "evaluate one formula without a sheet",
        'Evaluate one formula, e.g. supersheet calc "470.2 GB -> GiB" or '
        'supersheet calc "2 * 94 * 4 * 128 * 2 B -> KiB".',
        cli_parser.calc_options),
    "plot": (cli_plot.plot, "a chart of a sweep: SVG, PNG or HTML",
        "Chart a sweep: --y cells against the --x axis, a line per value of --color and a panel per value "
        "of --facet, with the units on the axes; error values and rows outside the assumptions are gaps, "
        "marked in red, and rows where a check fails carry a red cross. A sweep NAME whose block has "
        "plot: gives the defaults. More rows than a chart shows are binned (the chart says so). "
        "-o FILE.svg|.png|.html (HTML: the SVG inline, no script needed).",
        cli_plot.plot_options),
    "report": (cli_plot.report, "one self-contained HTML page of a sheet (or of its change)",
        "Write one HTML file: the sheet's title and doc, every cell with value, unit, formula, doc and source, "
        "checks and assumptions with their verdicts, expectations, each named sweep as a chart and a table; "
        "with --rev REV, the diff against that git revision and each sweep's chart before and after. Scripts, "
        "styles and charts are inline (SVG): no network, no JavaScript needed; it prints.",
        cli_plot.report_options),
    "edit": (_edit, "edit a sheet in the terminal UI",
        "Open SHEET in an interactive editor: every cell with its value and formula, grouped as the "
        "sheet groups them. Enter (or typing) edits a cell; only its dependents recompute and every "
        "value that changed shows its old value and the change. Ctrl+S saves (comments and layout "
        "kept), Ctrl+Z/Ctrl+Y undo/redo, ? shows every key. Without SHEET, opens the bundled running "
        "example (sheets/supernodes/6.1.2-running-example.yaml).",
        cli_parser.edit_options),
    "init": (cli_init.init, "make a folder a project: supersheet.toml and git's diff drivers",
        "Write DIR/supersheet.toml (the project root: its sheets import each other across folders; "
        "[libraries] names more libraries beside supersheet:), add '*.yaml diff=supersheet' to "
        "DIR/.gitattributes and, inside a git repository, configure its textconv and difftool drivers with "
        "the absolute path of this supersheet, so `git diff` shows values without the virtual environment "
        "on PATH (`git difftool -t supersheet` compares with `supersheet diff`). An existing file is kept. "
        "--print shows what would be written and changes nothing.",
        cli_init.init_options),
    "lsp": (_lsp, "a language server for editors (LSP over stdio)",
        "Serve the Language Server Protocol on stdin/stdout for VS Code, Neovim, Helix, Zed, Emacs: "
        "diagnostics as you type, each cell's value at the end of its line, hover, go to definition, "
        "references, rename, completion and quick fixes. Set-up for each editor: docs/editors.md.",
        cli_parser.lsp_options),
}


if __name__ == "__main__":
    sys.exit(main())
