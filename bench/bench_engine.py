"""Engine speed (issue 2): warm load+check+compile+evaluate of a generated
300-cell sheet, re-evaluation after one input changes, and the cold start of
`supersheet run` against `python -c "import polars, pint"` in the same run.

    .venv/bin/python bench/bench_engine.py
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import write_chain_sheet  # noqa: E402

from engine.evaluate import reevaluate  # noqa: E402
from engine.workbook import open_workbook, parse_literal_for  # noqa: E402


def best_of(fn, runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main() -> None:
    folder = Path(tempfile.mkdtemp())
    sheet300 = write_chain_sheet(folder, 300)
    sheet100 = write_chain_sheet(folder, 100)

    def full() -> None:
        workbook = open_workbook(sheet300)
        assert workbook.ok, workbook.diagnostics[:1]
        workbook.evaluate()

    full()  # warm: registry, imports, caches
    best, median = best_of(full, 20)
    print(f"300-cell sheet, load+check+compile+evaluate (warm): best {best * 1e3:.1f} ms, median {median * 1e3:.1f} ms"
          f"   [target <= 100 ms]")

    workbook = open_workbook(sheet300)
    scenario = workbook.evaluate()
    values = iter(range(10_000))

    def edit() -> None:
        node = parse_literal_for(workbook, "in0", f"{next(values) + 2}.5 GB")
        reevaluate(scenario, {"in0": node})

    edit()
    best, median = best_of(edit, 50)
    _, recomputed = reevaluate(scenario, {"in0": parse_literal_for(workbook, "in0", "3 GB")})
    print(f"re-evaluate after one input changes ({len(recomputed)} dependents): best {best * 1e3:.2f} ms, "
          f"median {median * 1e3:.2f} ms   [target <= 10 ms]")

    python = sys.executable
    supersheet = str(Path(python).parent / "supersheet")

    def cold(cmd: list[str]) -> float:
        times = []
        for _ in range(7):
            start = time.perf_counter()
            subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    baseline = cold([python, "-c", "import polars, pint"])
    run = cold([supersheet, "run", str(sheet100)])
    print(f"cold `python -c 'import polars, pint'`: {baseline * 1e3:.0f} ms (median of 7)")
    print(f"cold `supersheet run` 100-cell sheet: {run * 1e3:.0f} ms (median of 7); "
          f"{(run - baseline) * 1e3:+.0f} ms over the baseline   [target <= +150 ms]")


if __name__ == "__main__":
    main()
