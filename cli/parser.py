"""The command line's grammar: the `supersheet` parser and each command's options
(the commands themselves, their handlers and help, are main.py's table)."""
from __future__ import annotations

import argparse
from typing import Callable, Mapping, NoReturn

from supersheet.cli.support import loading_options, sampling_options, sheet_argument
from supersheet.cli.manual import add_manual_options
from supersheet.errors import bounded
from supersheet.loading import MAX_ROWS, MAX_TABLE_ROWS

Handler = Callable[[argparse.Namespace], int]
Options = Callable[[argparse.ArgumentParser], None]
Command = tuple[Handler, str, str, Options]   # handler, help, description, options


class Parser(argparse.ArgumentParser):
    """argparse's parser, with what its errors quote (an unknown command, a bad value) cut to size."""

    def error(self, message: str) -> NoReturn:
        super().error(bounded(message))


def build_parser(commands: Mapping[str, Command], command: str | None = None) -> argparse.ArgumentParser:
    """The command's parser. Given the COMMAND the command line starts with, only that command's
    subparser is built: argparse looks each of its messages up through gettext, ~0.5 ms of CPU a
    subcommand, ~5 ms of every start for all of them; the command's help and errors are the same.
    Anything else (`--help`, a misspelt command) builds them all."""
    parser = Parser(
        prog="supersheet",
        # The root's own options are whole words: a command's option is never read as a prefix of
        # one (`init --print` is init's, not an ambiguous --print-completion/--print-manpage).
        allow_abbrev=False,
        description="Declarative spreadsheet-style scenarios with real units: sheets are YAML files of named "
                    "cells (inputs and formulas), checked for dimensions and evaluated with Polars.",
        epilog="Exit codes: 0 ok, 1 a finding (error value, failed expectation, difference, nothing feasible), "
               "2 invalid sheet or usage, 70 a bug in supersheet, 130 interrupted. See README.md and docs/format.md.")
    parser.add_argument("--version", action=VersionAction)
    add_manual_options(parser, lambda: build_parser(commands))   # completion and the man page, of every command
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name in [command] if command is not None and command in commands else list(commands):
        handler, help, description, options = commands[name]
        p = sub.add_parser(name, help=help, description=description)
        p.set_defaults(handler=handler)
        if name not in ("calc", "init"):
            loading_options(p)
        options(p)
    return parser


class VersionAction(argparse.Action):
    """`--version`, as argparse's own action prints it, but the installed version is read only when
    asked: importlib.metadata (with the email package it parses METADATA with) and the search of the
    installed distributions took ~25 ms of CPU from every command's start."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str = "show program's version number and exit") -> None:
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(f"supersheet {installed_version()}")
        parser.exit()


def installed_version() -> str:
    """The version of the installed distribution (`supersheet --version`)."""
    from importlib.metadata import PackageNotFoundError, version   # deferred: importlib.metadata (slow to import)
    try:
        return version("supersheet")
    except PackageNotFoundError:      # run from a checkout that was never installed
        return "(not installed)"


def run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("sheet", metavar="SHEET", type=sheet_argument, help="the sheet (a YAML file)")
    p.add_argument("--set", dest="sets", metavar="NAME=VALUE", action="append", default=[],
                   help="override a cell for this run, e.g. --set context=32768token or --set gpu.hbm_capacity=141GB "
                        "(repeatable)")
    p.add_argument("--format", choices=("text", "json", "csv", "markdown"), default="text",
                   help="output format (default: text)")
    p.add_argument("--fit", metavar="NAME", help="evaluate at the values the sheet's fit NAME finds (each cell it "
                                                "varies is shown 'set by fit NAME')")
    sampling_options(p)
    on_options(p, "the samples of a sheet with random draws are split over Ray tasks (the same samples "
                  "and percentiles as locally)")


def check_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", metavar="PATH", nargs="+", type=sheet_argument, help="sheet files or directories")


def test_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", metavar="PATH", nargs="+", type=sheet_argument, help="sheet files or directories")
    p.add_argument("-q", "--quiet", action="store_true", help="print only failures and the summary")
    sampling_options(p)


def explain_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("sheet", metavar="SHEET", type=sheet_argument)
    p.add_argument("cell", metavar="CELL", help="a cell name (alias.name for an imported cell)")
    p.add_argument("--set", dest="sets", metavar="NAME=VALUE", action="append", default=[])
    p.add_argument("--sensitivity", action="store_true",
                   help="rank the random draws CELL depends on by how strongly each moves it "
                        "(Spearman rank correlation over the samples)")
    sampling_options(p)


def sweep_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("sheet", metavar="SHEET", type=sheet_argument)
    p.add_argument("name", metavar="NAME", nargs="?", help="a sweep defined in the sheet")
    p.add_argument("--set", dest="sets", metavar="NAME=VALUE", action="append", default=[],
                   help="fix a cell of this sheet to VALUE under the varied axes (repeatable)")
    p.add_argument("--vary", metavar="AXIS=VALUES", action="append", default=[], help="an axis (repeatable)")
    p.add_argument("--show", metavar="CELLS", help="comma-separated cells to output (default: the sweep's "
                                                  "'show', else every cell of the sheet)")
    p.add_argument("--where", metavar="COND", help="keep only rows where this condition holds, e.g. 'fits'")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (.csv or .parquet): a new file or a regular "
                                                       "file to replace, never a device, FIFO or folder")
    p.add_argument("--force", action="store_true", help="replace a read-only FILE (its mode is kept)")
    p.add_argument("--format", choices=("csv", "parquet", "json", "text", "markdown"),
                   help="output format (default: from -o's extension, else text)")
    p.add_argument("--max-rows", type=int, default=MAX_ROWS, metavar="N",
                   help=f"refuse grids larger than N rows (default {MAX_ROWS:,})")
    p.add_argument("--max-table-rows", type=int, default=MAX_TABLE_ROWS, metavar="N",
                   help="refuse text, JSON and Markdown tables of more than N rows, which are built in memory "
                        f"(default {MAX_TABLE_ROWS:,}; CSV and Parquet stream any number)")
    p.add_argument("--chunk-rows", type=int, default=1_000_000, metavar="N", help=argparse.SUPPRESS)
    on_options(p, "row ranges of the grid run as Ray tasks, each writing one file of the Parquet dataset "
                  "directory -o DIR/")
    p.add_argument("--rows-per-task", type=int, metavar="N", help=argparse.SUPPRESS)
    sampling_options(p)


def solve_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("sheet", metavar="SHEET", type=sheet_argument)
    p.add_argument("name", metavar="NAME", nargs="?")
    p.add_argument("--set", dest="sets", metavar="NAME=VALUE", action="append", default=[],
                   help="fix a cell of this sheet to VALUE under the varied axes (repeatable)")
    p.add_argument("--vary", metavar="CELL")
    p.add_argument("--goal", metavar="'A == B'")
    p.add_argument("--between", metavar="LO,HI")
    p.add_argument("--format", choices=("text", "json"), default="text")


def fit_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("sheet", metavar="SHEET", type=sheet_argument)
    p.add_argument("name", metavar="NAME", nargs="?", help="the fit (default: the sheet's only fit)")
    p.add_argument("--set", dest="sets", metavar="NAME=VALUE", action="append", default=[],
                   help="fix a cell of this sheet to VALUE while fitting (repeatable)")
    p.add_argument("--format", choices=("text", "json", "csv"), default="text",
                   help="text: the values and the first rows; json: everything; csv: every row")


def choose_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("sheet", metavar="SHEET", type=sheet_argument)
    p.add_argument("name", metavar="NAME")
    p.add_argument("--set", dest="sets", metavar="NAME=VALUE", action="append", default=[],
                   help="fix a cell of this sheet to VALUE under the varied axes (repeatable)")
    p.add_argument("--show", metavar="CELLS", help="comma-separated cells to show beside each row (the values "
                                                  "behind the ranking)")
    p.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    p.add_argument("--top", type=int, metavar="N",
                   help="rank only the N best feasible rows and count the excluded rows per reason "
                        "(for large grids; default: every row, or 10 with --on ray)")
    on_options(p, "row ranges of the grid are reduced by Ray tasks; only the N best rows of each travel back")


def diff_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("sides", metavar="OLD NEW", nargs="*", help="two sheets (paths or REV:path)")
    p.add_argument("--rev", metavar="REV", nargs="?", const="HEAD", help="compare the working tree with REV "
                                                                         "(default HEAD); PATHs limit the search")
    p.add_argument("--base", metavar="VARIANT", help="compare VARIANT with the sheet it extends")
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    p.add_argument("--plots", metavar="DIR", help="with --format markdown: write each changed sweep's chart before "
                                                  "and after to DIR (SVG) and show them in the Markdown")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the text format (default: when stdout is a terminal)")


def textconv_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE")


def calc_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("expression", metavar="EXPR")


def edit_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("sheet", metavar="SHEET", nargs="?", help="the sheet (a YAML file); default: the running example")


def lsp_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default and only transport; "
                   "accepted because editors pass it)")


def on_options(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--on", choices=("local", "ray"), default="local",
                   help=f"where to evaluate: this process (local, the default) or Ray: {what}")
    p.add_argument("--address", metavar="ray://HOST:PORT|auto",
                   help="with --on ray: the Ray cluster to use (default: start a local Ray runtime)")
    p.add_argument("--connect-timeout", type=float, default=10.0, metavar="SECONDS",
                   help="with --address: give up when the cluster does not answer within SECONDS (default 10)")
