"""How load + check + evaluate grows with a sheet (issues 14, 30): chains
(every formula reads the one before), fan-ins (one cell reads every input)
and random DAGs (each formula reads three earlier cells picked at random, in
mixed units: bench/generate.py) of 1,000 to 20,000 cells (50,000 with
--large), each size in a fresh process so its peak memory is its own; sizes
interleaved round by round.

Prints, per shape and size, min and median of wall and CPU time and the peak
RSS (import of the engine subtracted from the times and the memory: measured
in the same rounds), the memory per cell, and per doubling of the sheet the
growth of median CPU time (linear work: 2.0) and of CPU time per cell (linear:
1.0; issue 30's target is <= 1.1 per doubling, memory <= 5 KiB per cell).
"Per doubling" compounds: a step of k doublings (20,000 -> 50,000 cells is
log2(2.5) = 1.32) whose CPU per cell grows r times shows r ** (1 / k). Where the
median minus the import is not positive (the smallest sheets: their work is within
the noise of the start subtracted) there is no ratio: "-".

The process's CPU includes Python's exit, which walks the heap still held (the
child keeps its workbook to the end, as a script does) with several full
collections of the cycle collector, and frees it: a cost of the objects the
sheet keeps, paid per object, growing faster than the sheet where the heap
outgrows the caches (`supersheet` itself freezes the heap before it exits,
cli/main.py). So the child also reports the CPU of its work, load + check +
evaluate and the collections they start, read inside the process: the last
columns, the same per cell and per doubling.

With `--run N`, then the whole command, `supersheet run` of an N-cell random
DAG (fresh processes, as a user runs it), against `python -c "import polars,
pint"`, interleaved (issue 30's target: <= 1.0 s CPU, <= 2x the import).

    .venv/bin/python bench/bench_scaling.py [--large] [--rounds N] [--shapes chain,fan-in,dag] [--run 20000]
"""
from __future__ import annotations

import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import write_chain_sheet, write_fanin_sheet, write_random_dag_sheet  # noqa: E402
from paired import CHILD_ENV, Sample, Series, child, interleave, load_average, table  # noqa: E402

# One child: import, then load+check+evaluate; prints nothing. Its CPU minus
# the import-only child's is the work on the sheet. The baseline also builds the
# unit registry (Pint and NumPy imported, the definitions read from the disk
# cache): a cost of every process whatever its sheet, paid by the first unit.
# The load limits (docs/security.md) are raised as --max-file-size / --max-cells / --max-yaml-nodes would:
# 50,000 cells are 1.8 MB and more YAML nodes than the default allows.
IMPORT = ("from supersheet.engine.workbook import open_workbook\nfrom supersheet.engine.base.limits import set_limits\n"
          "from supersheet.units import registry\nregistry()\n"
          "set_limits(max_file_size=10**8, max_cells=10**6, max_yaml_nodes=10**7)\n")
WORK = IMPORT + ("import sys, time\nstart = time.process_time()\nw = open_workbook(sys.argv[1])\n"
                 "assert w.ok, w.diagnostics[:1]\nw.evaluate()\nprint(time.process_time() - start)\n")


@dataclass
class Timed(Sample):
    work: float = 0.0   # CPU of load + check + evaluate, read inside the child


def timed_child(cmd: list[str], cwd: str) -> Timed:
    """`paired.child`, and the CPU the child reports of its work (its last line)."""
    start = time.perf_counter()
    process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=CHILD_ENV)
    out, err = process.stdout.read(), process.stderr.read()  # type: ignore[union-attr]  # both piped (above)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.stdout.close(), process.stderr.close()  # type: ignore[union-attr]  # both piped (above)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{cmd} failed: {err.decode()[-2000:]}")
    return Timed(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, float(out.decode().split()[-1]))


def main() -> None:
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
    sizes = [1000, 2000, 5000, 10000, 20000] + ([50000] if "--large" in sys.argv else [])
    folder = Path(tempfile.mkdtemp())
    python = sys.executable
    root = str(HERE.parent)
    sides = {"import only": lambda: child([python, "-c", IMPORT], cwd=root)}
    shapes = sys.argv[sys.argv.index("--shapes") + 1].split(",") if "--shapes" in sys.argv else list(SHAPES)
    for shape in shapes:
        write = SHAPES[shape]
        for n in sizes:
            path = write(folder, n)
            sides[f"{shape} {n}"] = (lambda p=path: timed_child([python, "-c", WORK, str(p)], cwd=root))
    print(f"load + check + evaluate, fresh process per run, {rounds} rounds interleaved; {load_average()}")
    series = interleave(sides, rounds, warm=0)
    base_cpu = series["import only"].stat("cpu", statistics.median)
    base_wall = series["import only"].stat("wall", statistics.median)
    base_mib = series["import only"].stat("peak_mib", max)
    print(f"import of the engine and the unit registry alone: CPU median {base_cpu * 1e3:.0f} ms, wall {base_wall * 1e3:.0f} ms (subtracted below)")
    print(f"{'sheet':>14} {'wall min':>9} {'wall med':>9} {'CPU min':>9} {'CPU med':>9} {'peak MiB':>9} "
          f"{'KiB/cell':>9} {'x CPU/doubling':>15} {'x per cell':>11} {'work med':>9} {'x per cell':>11}")
    for shape in shapes:
        previous: tuple[int, float, float] | None = None
        for n in sizes:
            s: Series = series[f"{shape} {n}"]
            cpu = s.stat("cpu", statistics.median) - base_cpu
            work = s.stat("work", statistics.median)
            growth = work_growth = ""
            if previous is not None:
                doublings = math.log2(n / previous[0])
                per_doubling = per_step(cpu, previous[1], doublings)
                growth = f"{per_doubling:15.2f} {per_doubling / 2:11.2f}" if per_doubling else f"{'-':>15} {'-':>11}"
                work_growth = f"{per_step(work, previous[2], doublings) / 2:11.2f}"
            else:
                growth = f"{'':15} {'':11}"
            print(f"{shape + ' ' + str(n):>14} {(s.stat('wall', min) - base_wall) * 1e3:9.0f} "
                  f"{(s.stat('wall', statistics.median) - base_wall) * 1e3:9.0f} "
                  f"{(s.stat('cpu', min) - base_cpu) * 1e3:9.0f} {cpu * 1e3:9.0f} {s.stat('peak_mib', max):9.0f} "
                  f"{(s.stat('peak_mib', max) - base_mib) * 1024 / n:9.2f} {growth} {work * 1e3:9.0f} {work_growth}")
            previous = (n, cpu, work)
    print(f"{load_average()} (at the end)")
    if "--run" in sys.argv:
        n = int(sys.argv[sys.argv.index("--run") + 1])
        path = write_random_dag_sheet(folder, n)
        supersheet = str(Path(python).parent / "supersheet")
        limits = ["--max-cells", str(10 * n), "--max-file-size", str(10**8), "--max-yaml-nodes", str(10**7)]
        print(f"\nsupersheet run of a {n:,}-cell random DAG, fresh processes, {rounds} rounds interleaved; {load_average()}")
        run = interleave({"python -c 'import polars, pint'": lambda: child([python, "-c", "import polars, pint"]),
                          f"supersheet run dag-{n}.yaml": lambda: child([supersheet, "run", str(path), *limits])},
                         rounds)
        print(table(run, baseline="python -c 'import polars, pint'", memory=True))
        print(f"[target: <= 1.0 s CPU, <= 2x the import]; {load_average()} (at the end)")


def per_step(now: float, before: float, doublings: float) -> float:
    """The growth of a CPU time per doubling over a step of `doublings` (compounded); 0.0
    when either time is not positive (within the noise of the start subtracted)."""
    return (now / before) ** (1 / doublings) if now > 0 and before > 0 else 0.0


SHAPES = {"chain": write_chain_sheet, "fan-in": write_fanin_sheet, "dag": write_random_dag_sheet}


if __name__ == "__main__":
    main()
