"""Fit speed (issue 35): the AllReduce alpha-beta model fitted to a table of N rows (default
10^5: sizes log-uniform from 1 KiB to 1 GiB, times from alpha = 4 us and busbw = 370 GB/s
with 2 % noise), relative error, two varied cells, in process: `Sheet.fit` (the sheet
loaded with its CSV table, compiled once, one Polars frame of the N rows per residual
evaluation, scipy's least_squares) against the same fit by hand (the CSV read by Polars, the
residual in NumPy, the same least_squares call), interleaved (A B B A …). Both answers
are checked equal to 1e-6 relative.

    .venv/bin/python bench/bench_fit.py [--rounds N] [--rows N] [--load N]

The whole command, once, with its load: `time supersheet fit FILE` on the sheet written
to the temporary folder this prints.
"""
from __future__ import annotations

import gc
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
from paired import busy_load, in_process, interleave, load_average, table  # noqa: E402

import supersheet as ss  # noqa: E402

SHEET = """
tables:
  nccl: allreduce.csv
cells:
  n: 8
  size: 1 MiB
  alpha: 5 us
  busbw: 300 GB/s
  predicted: = 2 * (n - 1) * alpha + 2 * (n - 1) / n * size / busbw -> us
fit:
  allreduce:
    table: nccl
    inputs: {size: size}
    targets: {time: predicted}
    vary: {alpha: [0 us, 1 ms], busbw: [1 GB/s, 5000 GB/s]}
"""


def write(folder: Path, rows: int) -> Path:
    rng = np.random.default_rng(35)
    sizes = np.exp(rng.uniform(np.log(1024), np.log(2 ** 30), rows))
    times = (2 * 7 * 4e-6 + 2 * 7 / 8 * sizes / 370e9) * (1 + 0.02 * rng.standard_normal(rows))
    lines = "".join(f"{s!r},{t * 1e6!r}\n" for s, t in zip(sizes.tolist(), times.tolist()))
    (folder / "allreduce.csv").write_text("size [B],time [us]\n" + lines)
    sheet = folder / "fit.yaml"
    sheet.write_text(SHEET)
    return sheet


def ours(sheet: Path) -> tuple[float, float]:
    fitted = ss.load(sheet).fit("allreduce")
    values = fitted.result.values
    return values["alpha"], values["busbw"]


def hand_written(folder: Path) -> tuple[float, float]:
    """What a competent user writes: Polars reads the CSV, NumPy the model, the same least_squares."""
    import polars as pl
    from scipy.optimize import least_squares
    frame = pl.read_csv(folder / "allreduce.csv")
    size = frame["size [B]"].to_numpy()
    time = frame["time [us]"].to_numpy() * 1e-6
    scale = np.array([5e-6, 300e9])

    def residuals(q: np.ndarray) -> np.ndarray:
        alpha, busbw = q * scale
        return (2 * 7 * alpha + 2 * 7 / 8 * size / busbw) / time - 1

    answer = least_squares(residuals, np.ones(2), bounds=(np.array([0, 1e9]) / scale, np.array([1e-3, 5e12]) / scale),
                           method="trf", ftol=1e-14, xtol=1e-14, gtol=1e-14)
    return tuple(answer.x * scale)   # type: ignore[return-value]


def collected(fn):
    gc.collect()
    return in_process(fn)


def main() -> None:
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 7
    rows = int(sys.argv[sys.argv.index("--rows") + 1]) if "--rows" in sys.argv else 100_000
    load = int(sys.argv[sys.argv.index("--load") + 1]) if "--load" in sys.argv else 0
    folder = Path(tempfile.mkdtemp())
    sheet = write(folder, rows)
    a, b = ours(sheet), hand_written(folder)
    assert all(abs(x / y - 1) < 1e-6 for x, y in zip(a, b)), (a, b)
    print(f"fit of alpha and busbw to {rows:,} rows (sheet and table in {folder}); alpha {a[0] * 1e6:.4f} us, "
          f"busbw {a[1] / 1e9:.3f} GB/s, equal to the hand-written fit within 1e-6; {rounds} rounds interleaved; "
          f"{load_average()}")
    with busy_load(load) as busy:
        series = interleave({"hand-written Polars + NumPy + least_squares": lambda: collected(lambda: hand_written(folder)),
                             "supersheet Sheet.fit (load, check, compile, fit)": lambda: collected(lambda: ours(sheet))},
                            rounds)
        print(busy.said())
    print(table(series, baseline="hand-written Polars + NumPy + least_squares"))
    print(f"[target: a 10^5-row table fits in seconds]; {load_average()} (at the end)")


if __name__ == "__main__":
    main()
