"""The version-control commands: `diff` and `textconv` (git's diff driver), over
supersheet.compare."""
from __future__ import annotations

import argparse
import os
import sys

from supersheet.cli.support import EXIT_FINDING, EXIT_INVALID, EXIT_OK, UsageError


def diff(args: argparse.Namespace) -> int:
    from supersheet.compare import diff_files, diff_revision, diff_variant, render_diffs
    if args.base:
        if args.sides or args.rev:
            raise UsageError("--base takes one VARIANT and no other sheets")
        diffs = diff_variant(args.base)
    elif args.rev is not None:
        diffs = diff_revision(args.rev, args.sides)
    elif len(args.sides) == 2:
        diffs = diff_files(args.sides[0], args.sides[1])
    else:
        raise UsageError("give OLD NEW, --rev [REV] [PATH...], or --base VARIANT")
    color = args.format == "text" and (args.color == "always" or (args.color == "auto" and sys.stdout.isatty()
                                                                  and not os.environ.get("NO_COLOR")))
    sys.stdout.write(render_diffs(diffs, args.format, color))
    if any(d.invalid for d in diffs):
        return EXIT_INVALID   # a version that does not check is an error, not a difference
    return EXIT_FINDING if any(d.differs for d in diffs) else EXIT_OK


def textconv(args: argparse.Namespace) -> int:
    from supersheet.compare import textconv
    sys.stdout.write(textconv(args.file))
    return EXIT_OK
