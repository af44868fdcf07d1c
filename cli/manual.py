"""Shell completion and the man page, both generated from the command's own parser (the
parser of every command: `parser.build_parser(COMMANDS)`), so they cannot drift from it:
`supersheet --print-completion bash|zsh|tcsh|fish|powershell` (shtab) and `supersheet --print-manpage`
(argparse-manpage, roff for `man -l -`)."""
from __future__ import annotations

import argparse
import sys

class _PrintManpage(argparse.Action):
    def __init__(self, option_strings, dest, **kwargs) -> None:   # noqa: ANN001 - argparse's signature
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:   # noqa: ANN001
        sys.stdout.write(manpage(parser))
        parser.exit(0)


def add_manual_options(parser: argparse.ArgumentParser) -> None:
    """`--print-completion SHELL` and `--print-manpage` on the root parser."""
    import shtab
    shtab.add_argument_to(parser, ["--print-completion"], help="print a shell completion script for SHELL")
    parser.add_argument("--print-manpage", action=_PrintManpage, help="print the man page (roff): supersheet.1")


def manpage(parser: argparse.ArgumentParser) -> str:
    from argparse_manpage.manpage import Manpage
    return str(Manpage(parser, _data={"project_name": "supersheet"}))
