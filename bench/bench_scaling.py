"""How load + check + evaluate grows with a sheet (issue 14): chains (every
formula reads the one before) and fan-ins (one cell reads every input) of
1,000 to 20,000 cells (50,000 with --large), each size in a fresh process so
its peak memory is its own; sizes interleaved round by round.

Prints, per shape and size, min and median of wall and CPU time and the peak
RSS (import of the engine subtracted from the times: measured in the same
rounds), and per doubling of the sheet the growth of median CPU time (linear
work: 2.0) and of CPU time per cell (linear: 1.0; the target is <= 1.2 beyond
2,000 cells).

    .venv/bin/python bench/bench_scaling.py [--large] [--rounds N]
"""
from __future__ import annotations

import math
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import write_chain_sheet, write_fanin_sheet  # noqa: E402
from paired import Series, child, interleave, load_average  # noqa: E402

# One child: import, then load+check+evaluate; prints nothing. Its CPU minus
# the import-only child's is the work on the sheet. The baseline also builds the
# unit registry (Pint and NumPy imported, the definitions read from the disk
# cache): a cost of every process whatever its sheet, paid by the first unit.
# The load limits (docs/security.md) are raised as --max-file-size / --max-cells would: 50,000 cells are 1.8 MB.
IMPORT = ("from supersheet.engine.workbook import open_workbook\nfrom supersheet.engine.base.limits import set_limits\n"
          "from supersheet.units import registry\nregistry()\n"
          "set_limits(max_file_size=10**8, max_cells=10**6)\n")
WORK = IMPORT + "import sys\nw = open_workbook(sys.argv[1])\nassert w.ok, w.diagnostics[:1]\nw.evaluate()\n"


def main() -> None:
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
    sizes = [1000, 2000, 5000, 10000, 20000] + ([50000] if "--large" in sys.argv else [])
    folder = Path(tempfile.mkdtemp())
    python = sys.executable
    root = str(HERE.parent)
    sides = {"import only": lambda: child([python, "-c", IMPORT], cwd=root)}
    for shape, write in (("chain", write_chain_sheet), ("fan-in", write_fanin_sheet)):
        for n in sizes:
            path = write(folder, n)
            sides[f"{shape} {n}"] = (lambda p=path: child([python, "-c", WORK, str(p)], cwd=root))
    print(f"load + check + evaluate, fresh process per run, {rounds} rounds interleaved; {load_average()}")
    series = interleave(sides, rounds, warm=0)
    base_cpu = series["import only"].stat("cpu", statistics.median)
    base_wall = series["import only"].stat("wall", statistics.median)
    print(f"import of the engine and the unit registry alone: CPU median {base_cpu * 1e3:.0f} ms, wall {base_wall * 1e3:.0f} ms (subtracted below)")
    print(f"{'sheet':>14} {'wall min':>9} {'wall med':>9} {'CPU min':>9} {'CPU med':>9} {'peak MiB':>9} {'x CPU/doubling':>15} {'x per cell':>11}")
    for shape in ("chain", "fan-in"):
        previous: tuple[int, float] | None = None
        for n in sizes:
            s: Series = series[f"{shape} {n}"]
            cpu = s.stat("cpu", statistics.median) - base_cpu
            growth = ""
            if previous is not None:
                doublings = math.log2(n / previous[0])
                per_doubling = (cpu / previous[1]) ** (1 / doublings)
                growth = f"{per_doubling:15.2f} {per_doubling / 2:11.2f}"
            print(f"{shape + ' ' + str(n):>14} {(s.stat('wall', min) - base_wall) * 1e3:9.0f} "
                  f"{(s.stat('wall', statistics.median) - base_wall) * 1e3:9.0f} "
                  f"{(s.stat('cpu', min) - base_cpu) * 1e3:9.0f} {cpu * 1e3:9.0f} {s.stat('peak_mib', max):9.0f} {growth}")
            previous = (n, cpu)
    print(f"{load_average()} (at the end)")


if __name__ == "__main__":
    main()
