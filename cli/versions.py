"""The version-control commands: `diff` and `textconv` (git's diff driver), over
supersheet.compare."""
from __future__ import annotations

import argparse
import os
import sys

from supersheet.cli.support import EXIT_FINDING, EXIT_INVALID, EXIT_OK, UsageError
from pathlib import Path


def diff(args: argparse.Namespace) -> int:
    from supersheet.compare import diff_files, diff_revision, diff_variant, render_diffs   # deferred: ruamel
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
    if args.plots and args.format != "markdown":
        raise UsageError("--plots goes with --format markdown (the charts are linked from the Markdown)")
    sys.stdout.write(render_diffs(diffs, args.format, color))
    if args.plots:
        sys.stdout.write(_plots(args, diffs))
    if any(d.invalid for d in diffs):
        return EXIT_INVALID   # a version that does not check is an error, not a difference
    return EXIT_FINDING if any(d.differs for d in diffs) else EXIT_OK


def _plots(args: argparse.Namespace, diffs) -> str:
    """Each compared sheet's sweeps whose chart changed, before and after, as SVG files in
    --plots DIR, and the Markdown that shows them (paths relative to the working directory)."""

    from supersheet.plots import save   # deferred: plots (slow to import)
    from supersheet.report import changed_charts   # deferred: numpy, ruamel
    folder = Path(args.plots)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--plots {args.plots}: not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for d in diffs:
        if args.rev is not None:
            path, old = Path(d.result.name), None
        elif len(args.sides) == 2 and ":" not in args.sides[0]:
            path, old = Path(args.sides[1]), Path(args.sides[0])
        else:
            continue        # a REV:path pair or a variant: its charts are in `supersheet report --rev`
        for sweep, before, after in changed_charts(path, old, args.rev):
            stem = f"{path.stem}-{sweep}"
            cells = []
            for side, spec in (("before", before), ("after", after)):
                if spec is not None:
                    target = save(spec, folder / f"{stem}-{side}.svg")
                    cells.append(f"![{sweep} {side}]({target.as_posix()})")
                else:
                    cells.append(f"({sweep} has no chart {side})")
            lines += [f"\n#### {path.name}: sweep `{sweep}`\n", "| before | after |", "|---|---|",
                      f"| {cells[0]} | {cells[1]} |"]
    return "\n".join(lines) + ("\n" if lines else "")


def textconv(args: argparse.Namespace) -> int:
    from supersheet.compare import textconv   # deferred: ruamel
    sys.stdout.write(textconv(args.file))
    return EXIT_OK
