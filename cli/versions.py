"""The version-control commands: `diff` and `textconv` (git's diff driver)."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from supersheet.cli.support import EXIT_FINDING, EXIT_INVALID, EXIT_OK, UsageError


def diff(args: argparse.Namespace) -> int:
    from supersheet.engine.diff.compare import diff_against_revision, diff_pair, diff_variant
    from supersheet.engine.diff.diffview import render_json, render_markdown, render_text
    from supersheet.engine.diff.gitrev import GitError
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
    if any(d.invalid for d in diffs):
        return EXIT_INVALID   # a version that does not check is an error, not a difference
    return EXIT_FINDING if any(d.differs for d in diffs) else EXIT_OK


def textconv(args: argparse.Namespace) -> int:
    from supersheet.engine.diff.compare import textconv
    if not Path(args.file).exists():
        raise UsageError(f"no such file: {args.file}")
    if Path(args.file).is_dir():
        raise UsageError(f"{args.file} is a directory, not a sheet")
    try:
        sys.stdout.write(textconv(args.file, Path.cwd()))
    except ValueError as e:        # not a regular file, too large, not text (sheetroot.UnreadableSheet)
        raise UsageError(str(e)) from None
    return EXIT_OK
