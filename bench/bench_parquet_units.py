"""The cost of writing a sweep's Parquet file with its units (issue 29): supersheet's
`write_parquet` (pyarrow's ParquetWriter, one row group per chunk, the units in the
schema's and each field's metadata) against Polars writing the same frame with no
metadata at all (`DataFrame.write_parquet`), the strongest alternative a user would
write, on the same 14-column chunks of bench/tp-step.yaml's sweep, interleaved A B A B.

    .venv/bin/python bench/bench_parquet_units.py [--rows N] [--rounds N]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import polars as pl  # noqa: E402
from paired import in_process, interleave, load_average, table  # noqa: E402

from supersheet.engine.scenarios.axes import cli_axis  # noqa: E402
from supersheet.engine.scenarios.grid import Grid  # noqa: E402
from supersheet.engine.scenarios.output import write_parquet  # noqa: E402
from supersheet.engine.scenarios.sweep import iterate_chunks, plans_for, units_metadata  # noqa: E402
from supersheet.engine.workbook import open_workbook  # noqa: E402

SHOW = ["kv", "read_per_card", "local", "message", "rounds", "allreduce", "step", "tokens_per_s", "comm_share",
        "per_card", "fits"]   # bench_sweep.py's columns


def main() -> None:
    options = argparse.ArgumentParser()
    options.add_argument("--rows", type=int, default=1_000_000)
    options.add_argument("--rounds", type=int, default=9)
    args = options.parse_args()
    workbook = open_workbook(HERE / "tp-step.yaml")
    contexts = max(1, args.rows // 400)   # tp x batch x context, as bench_sweep.py's grid
    grid = Grid([cli_axis(workbook, "tp=1,2,4,8"), cli_axis(workbook, f"context=1024token..131072token:{contexts}"),
                 cli_axis(workbook, "batch=1..100")])
    plans = plans_for(workbook, grid, SHOW, None, None)
    chunks = list(iterate_chunks(plans, grid, 250_000))
    frame = pl.concat(chunks)
    metadata = units_metadata(plans)
    folder = Path(tempfile.mkdtemp(prefix="bench-parquet-"))
    sides = {
        "Polars write_parquet, no units": lambda: in_process(lambda: frame.write_parquet(folder / "plain.parquet")),
        "supersheet write_parquet, units": lambda: in_process(
            lambda: write_parquet(iter(chunks), None, folder / "units.parquet", metadata)),
    }
    print(f"{frame.height:,} rows x {frame.width} columns in {len(chunks)} chunks; {load_average()}")
    series = interleave(sides, args.rounds)
    print(table(series, baseline="Polars write_parquet, no units"))
    print(load_average())
    assert pl.read_parquet(folder / "units.parquet").equals(pl.read_parquet(folder / "plain.parquet"))


if __name__ == "__main__":
    main()
