"""A 50,000-cell sheet (issue 14's "done when"): the chain of bench/generate.py
(every formula reads the one before), in fresh processes, interleaved:

1. the CLI: `supersheet check`, `supersheet run` (every value printed) and
   `supersheet run --format json`, each timed beside `python -c "import polars,
   pint"` (what any process that evaluates a sheet pays at least);
2. the editor: `supersheet edit` in a 120x36 pseudo-terminal, from spawning it to
   the first full screen (grid and footer drawn), and the peak memory of that process.

Min and median of wall and CPU time (user + system of the child), peak RSS, the
load average printed. The load limits are raised on the command line
(`--max-cells`, `--max-yaml-nodes`, `--max-file-size`), as a user of such a
sheet does: the defaults refuse sheets over 10,000 cells (docs/security.md).

    .venv/bin/python bench/bench_large.py [--cells 50000] [--rounds 3] [--opens 3]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import write_chain_sheet  # noqa: E402
from paired import child, interleave, load_average, table  # noqa: E402
from pty_screen import first_screen  # noqa: E402

ROOT = HERE.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--opens", type=int, default=3)
    args = parser.parse_args()
    python = sys.executable
    supersheet = str(Path(python).parent / "supersheet")
    limits = ["--max-cells", str(args.cells * 2), "--max-yaml-nodes", str(args.cells * 10),
              "--max-file-size", str(10**8)]
    with tempfile.TemporaryDirectory() as folder:
        path = str(write_chain_sheet(Path(folder), args.cells))
        size = os.path.getsize(path)
        print(f"{args.cells:,}-cell chain ({size / 1e6:.1f} MB), fresh process per run, {args.rounds} rounds "
              f"interleaved; {load_average()}")
        sides = {
            "python -c 'import polars, pint'": lambda: child([python, "-c", "import polars, pint"]),
            "supersheet check": lambda: child([supersheet, "check", path, *limits]),
            "supersheet run": lambda: child([supersheet, "run", path, *limits]),
            "supersheet run --format json": lambda: child([supersheet, "run", path, "--format", "json", *limits]),
        }
        print(table(interleave(sides, args.rounds), memory=True))
        print(f"{load_average()} (at the end)")
        opens = [first_screen([supersheet, "edit", path, *limits], (b"in0",), ROOT) for _ in range(args.opens)]
        walls, cpus, peaks = zip(*opens)
        print(f"\nsupersheet edit -> first full screen ({args.opens} runs, pty 120x36): wall min {min(walls):.2f} s, "
              f"median {statistics.median(walls):.2f} s; CPU median {statistics.median(cpus):.2f} s; "
              f"peak RSS {max(peaks):.0f} MiB; {load_average()}")


if __name__ == "__main__":
    main()
