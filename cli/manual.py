"""Shell completion and the man page, both generated from the command's own parser (the
parser of every command, built only when asked), so they cannot drift from it:
`supersheet --print-completion bash|zsh|tcsh` (shtab) and `supersheet --print-manpage`
(argparse-manpage, roff for `man -l -`). Neither library is imported unless asked."""
from __future__ import annotations

import argparse
import sys
from typing import Callable

SHELLS = ("bash", "zsh", "tcsh")
Parser = Callable[[], argparse.ArgumentParser]


class _Print(argparse.Action):
    """Print what `render(parser of every command, value)` gives, and exit 0."""

    def __init__(self, option_strings, dest, every: Parser, render, **kwargs) -> None:   # noqa: ANN001
        super().__init__(option_strings, dest, default=argparse.SUPPRESS, **kwargs)
        self.every, self.render = every, render

    def __call__(self, parser, namespace, values, option_string=None) -> None:   # noqa: ANN001
        sys.stdout.write(self.render(self.every(), values))
        parser.exit(0)


def add_manual_options(parser: argparse.ArgumentParser, every: Parser) -> None:
    """`--print-completion SHELL` and `--print-manpage` on the root parser; `every()` builds the
    parser of every command they describe."""
    parser.add_argument("--print-completion", metavar="SHELL", choices=SHELLS, action=_Print, every=every,
                        render=completion, help="print a shell completion script for SHELL (bash, zsh, tcsh)")
    parser.add_argument("--print-manpage", nargs=0, action=_Print, every=every, render=lambda p, _: manpage(p),
                        help="print the man page (roff): supersheet.1")


def completion(parser: argparse.ArgumentParser, shell: str) -> str:
    import shtab   # deferred: shtab
    return shtab.complete(parser, shell=shell)


def manpage(parser: argparse.ArgumentParser) -> str:
    from argparse_manpage.manpage import Manpage   # deferred: argparse_manpage
    return str(Manpage(parser, _data={"project_name": "supersheet"}))
