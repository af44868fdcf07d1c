"""`supersheet sweep … --on ray`: the driver's side of a sweep on Ray.

The driver has already compiled every plan (so a sheet error is reported once,
before any task starts); it ships the sheet's text, the grid and the display
units it chose, cuts the grid into parts and commits the dataset directory
when every part is written. Only each part's row count and timing travel
back, never rows.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Callable

from supersheet.engine.base import scratch
from supersheet.engine.scenarios import on_ray
from supersheet.engine.scenarios.grid import Grid
from supersheet.engine.scenarios.sheetbundle import SheetBundle
from supersheet.engine.scenarios.sweep import Plan, iterate_chunks, units_metadata
from supersheet.engine.scenarios.sweep_parts import (
    PartDone,
    SweepJob,
    abort,
    commit,
    prepare,
    split,
    write_part,
)

MIN_PART_ROWS = 100_000        # below this a task's overhead (ms) outweighs its work
MAX_PART_ROWS = 2_000_000      # a part file stays about 100 MB, a retry cheap, a worker's memory that of a small part
PARTS_PER_CPU = 4              # enough parts that a slow worker does not hold up the end


@dataclass
class DatasetWritten:
    path: str
    rows: int
    parts: list[PartDone]
    startup: float             # seconds to start (or attach to) Ray


def rows_per_part(value_rows: int, plans: int, samples: int, cpus: int) -> int:
    """Frame rows (grid rows x samples) per part: a few parts per CPU, within [MIN, MAX]."""
    ideal = math.ceil(value_rows * plans * samples / (PARTS_PER_CPU * cpus))
    frame_rows = min(MAX_PART_ROWS, max(MIN_PART_ROWS, ideal))
    return max(1, min(value_rows, frame_rows // samples))


def sweep_to_dataset(plans: list[Plan], grid: Grid, show: list[str] | None, where: str | None, where_origin: Any,
                     sampling: tuple[int | None, int | None] | None, units: dict[str, str | None], target: str, *,
                     address: str | None = None, num_cpus: int | None = None, part_rows: int | None = None,
                     chunk_rows: int = 1_000_000, progress: Callable[[int, int], None] | None = None,
                     fault: Callable[[int, int], None] | None = None) -> DatasetWritten:
    """Evaluate the sweep as Ray tasks into the Parquet dataset directory `target`."""
    first = next(iterate_chunks(plans, grid, 1))
    job = SweepJob(SheetBundle.of([p.workbook for p in plans]), grid, show, where, where_origin, sampling,
                   dict(units), dict(first.schema), units_metadata(plans), chunk_rows, fault=fault)
    startup = on_ray.connect(address, num_cpus)
    value_rows = grid.value_size()
    per_part = part_rows or rows_per_part(value_rows, len(plans), plans[0].samples, on_ray.cluster_cpus())
    parts = split(len(plans), value_rows, per_part)
    target = os.path.abspath(target)
    staging = on_ray.call(prepare, target, scratch.owner_tag())
    if os.path.isdir(staging):   # this machine sees it (a local runtime, a shared file system): a signal removes it
        scratch.adopt(staging)
    total, done = value_rows * len(plans), 0

    def completed(result: PartDone) -> None:
        nonlocal done
        done += parts[result.index].rows
        if progress is not None:
            progress(done, total)

    try:
        results = on_ray.run(write_part, job, parts, staging, len(parts), progress=completed)
        on_ray.call(commit, staging, target)
        scratch.release(staging)
    except BaseException:
        try:
            on_ray.call(abort, staging, timeout=10)
        except BaseException:  # noqa: BLE001 - a task that cannot run now (the runtime stopping), a 2nd Ctrl+C
            pass
        scratch.discard(staging)   # where the driver sees the folder too (a local runtime, a shared file system)
        raise
    return DatasetWritten(target, sum(r.rows for r in results), results, startup)
