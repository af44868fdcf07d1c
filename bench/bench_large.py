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
import select
import statistics
import struct
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import write_chain_sheet  # noqa: E402
from paired import child, interleave, load_average, table  # noqa: E402

ROOT = HERE.parent


def open_in_editor(command: list[str], marker: bytes, timeout: float = 120.0) -> tuple[float, float, float]:
    """Wall seconds from spawning `command` in a 120x36 pty to a screen showing the footer
    and `marker`; the child's CPU seconds and peak RSS (MiB) until it is stopped right after."""
    import fcntl
    import pty
    import termios
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        os.environ.pop("NO_COLOR", None)
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.chdir(ROOT)
        os.execv(command[0], command)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
    start = time.perf_counter()
    seen, done = b"", None
    while time.perf_counter() - start < timeout:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        seen = (seen + chunk)[-200_000:]
        if b"palette" in seen and marker in seen:
            done = time.perf_counter() - start
            break
    os.kill(pid, 9)   # its CPU and memory up to the first screen: stopped at once, not asked to quit
    _, _, usage = os.wait4(pid, 0)
    os.close(fd)
    if done is None:
        raise RuntimeError(f"the editor did not draw its first screen within {timeout:.0f} s")
    return done, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


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
        opens = [open_in_editor([supersheet, "edit", path, *limits], b"in0") for _ in range(args.opens)]
        walls, cpus, peaks = zip(*opens)
        print(f"\nsupersheet edit -> first full screen ({args.opens} runs, pty 120x36): wall min {min(walls):.2f} s, "
              f"median {statistics.median(walls):.2f} s; CPU median {statistics.median(cpus):.2f} s; "
              f"peak RSS {max(peaks):.0f} MiB; {load_average()}")


if __name__ == "__main__":
    main()
