"""Monte Carlo speed (issue 30): 10^6 samples of bench_uncertainty.py's 50-cell
sheet (5 draws: uniform, lognormal, normal, triangular, poisson; 43 formulas
over them), mean and 5th/50th/95th percentiles of every uncertain cell, in
process: `evaluate_samples` against the same model written by hand in NumPy
(one generator, the five draws, the 43 cells as array expressions,
`np.mean` and `np.percentile`), interleaved (A B B A …), each sample after a
collection. The two use different random streams (supersheet gives each draw
its own, seeded by its name: adding a draw never changes another's samples),
so the outputs are checked equal in distribution: every mean and percentile
within 1 % of the other's.

    .venv/bin/python bench/bench_monte_carlo.py [--rounds N] [--samples N] [--load N]
"""
from __future__ import annotations

import gc
import math
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
from bench_uncertainty import uncertain_sheet  # noqa: E402
from paired import busy_load, in_process, interleave, load_average, table  # noqa: E402

from supersheet.engine.scenarios.uncertainty import evaluate_samples  # noqa: E402
from supersheet.engine.workbook import open_workbook  # noqa: E402

Z_95 = 1.6448536269514722   # the lognormal's 5th..95th percentile span, as the sheet's lognormal(lo, hi) reads it


def hand_written(n: int) -> dict[str, tuple[float, float, float, float]]:
    """The sheet by hand: base units (bytes, seconds), every cell an array; mean, p5, p50, p95 of each."""
    rng = np.random.default_rng(0)
    eff = rng.uniform(0.7, 0.9, n)
    lo, hi = 10e-6, 50e-6
    ar = np.exp((math.log(lo) + math.log(hi)) / 2 + (math.log(hi) - math.log(lo)) / (2 * Z_95) * rng.standard_normal(n))
    peak = rng.normal(3350e9, 100e9, n)
    ctx = rng.triangular(4096.0, 8192.0, 32768.0, n)
    tokens = rng.poisson(64, n).astype(float)
    cells = {"eff": eff, "ar": ar, "peak": peak, "ctx": ctx, "tokens": tokens}
    prev, kvpt = 65.52e9, 262144.0
    for i in range(43):
        if i % 3 == 0:
            value = prev + kvpt * ctx
        elif i % 3 == 1:
            value = prev / (peak * eff) + 128 * ar
        else:
            value = cells[f"c{i - 2}"] * (1 + tokens / 1000)
        cells[f"c{i}"] = value
        prev = cells[f"c{i - (i % 3)}"]
    return {key: (float(np.mean(v)), *map(float, np.percentile(v, [5, 50, 95]))) for key, v in cells.items()}


def ours(workbook, n: int) -> dict[str, tuple[float, float, float, float]]:
    sampled = evaluate_samples(workbook, samples=n)
    return {key: (s.mean, s.p5, s.p50, s.p95) for key, s in sampled.summaries.items()}


def collected(fn):
    gc.collect()
    return in_process(fn)


def main() -> None:
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 9
    n = int(sys.argv[sys.argv.index("--samples") + 1]) if "--samples" in sys.argv else 1_000_000
    load = int(sys.argv[sys.argv.index("--load") + 1]) if "--load" in sys.argv else 0
    path = Path(tempfile.mkdtemp()) / "uncertain-50.yaml"
    path.write_text(uncertain_sheet(), encoding="utf-8")
    workbook = open_workbook(path)
    assert workbook.ok, workbook.diagnostics[:1]
    a, b = ours(workbook, n), hand_written(n)
    assert set(a) == set(b), set(a) ^ set(b)
    compared = 0
    for key in a:
        for x, y in zip(a[key], b[key]):
            assert math.isclose(x, y, rel_tol=0.01), (key, a[key], b[key])
            compared += 1
    assert compared == 4 * 48, compared
    print(f"Monte Carlo, {n:,} samples of a 50-cell sheet (5 draws), mean and 3 percentiles of {len(a)} cells, "
          f"{compared} figures within 1 % of the hand-written ones; {rounds} rounds interleaved; {load_average()}")
    with busy_load(load) as busy:
        series = interleave({"hand-written NumPy": lambda: collected(lambda: hand_written(n)),
                             "supersheet evaluate_samples": lambda: collected(lambda: ours(workbook, n))}, rounds)
        print(busy.said())
    print(table(series, baseline="hand-written NumPy"))
    print(f"[target: supersheet <= 1.0x hand-written NumPy, CPU median]; {load_average()} (at the end)")


if __name__ == "__main__":
    main()
