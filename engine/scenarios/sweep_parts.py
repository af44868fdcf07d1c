"""A sweep cut into parts that run anywhere: each part is a row range of one
plan, compiled from the sheet's text (a SheetBundle) and written as one
Parquet file of a dataset directory.

Nothing here imports Ray: on_ray.py submits these functions as Ray tasks, and
they run the same in this process. A part is evaluated by the local path's own
code (plans_for / evaluate_chunk / write_parquet), chunk by chunk, so its rows
are bit-identical to the same rows of a local sweep and its memory is that of
one chunk whatever the grid's size. Files appear only by rename: a part is
written to a temp file beside it, and the dataset to a staging directory that
replaces the target when every part is done.
"""
from __future__ import annotations

import os
import re
import resource
import shutil
import socket
import stat
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import polars as pl

from supersheet.engine.base import scratch
from supersheet.engine.base.targets import kind, shown
from supersheet.engine.scenarios.grid import Grid
from supersheet.engine.scenarios.sheetbundle import Materialized, SheetBundle
from supersheet.engine.scenarios.kept import release
from supersheet.engine.scenarios.sweep import Plan, evaluate_chunk, factor, make_plan, partition_plan
from supersheet.engine.scenarios.axes import AxisError
from supersheet.engine.scenarios.output import write_parquet

PART_GLOB = "part-*.parquet"


class PartError(Exception):
    """A part cannot be computed or written (reported once, as the run's error)."""


@dataclass(frozen=True)
class SweepJob:
    """Everything a worker needs to compile the sweep, as plain data."""

    bundle: SheetBundle
    grid: Grid
    show: list[str] | None
    where: str | None
    where_origin: Any
    sampling: tuple[int | None, int | None] | None
    units: dict[str, str | None]      # display units chosen by the driver (the first plan chooses, as locally)
    schema: dict[str, pl.DataType]    # the local path's Parquet schema (from the first row)
    metadata: dict[str, str]          # Parquet key-value metadata of every part (units)
    chunk_rows: int
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    fault: Callable[[int, int], None] | None = None   # (part, chunk) after each chunk: tests inject a crash here


@dataclass(frozen=True)
class Part:
    index: int
    plan: int
    start: int
    stop: int

    @property
    def rows(self) -> int:
        return self.stop - self.start

    def name(self, count: int) -> str:
        return f"part-{self.index:0{max(5, len(str(count - 1)))}d}.parquet"


@dataclass(frozen=True)
class PartDone:
    index: int
    rows: int          # rows written (after `where`)
    seconds: float
    cpu: float         # CPU seconds of the worker process for this part
    peak_rss: int      # bytes: the worker process's peak resident memory so far
    host: str


def split(plans: int, value_rows: int, rows_per_part: int) -> list[Part]:
    """Row ranges in the grid's order: plan by plan (partition axes vary slowest), then rows."""
    parts: list[Part] = []
    for plan in range(plans):
        for start in range(0, value_rows, rows_per_part):
            parts.append(Part(len(parts), plan, start, min(start + rows_per_part, value_rows)))
    return parts


# A worker process keeps the plan it compiled last: its next part of the same
# sweep starts evaluating at once.
_compiled: dict[tuple[str, int], Plan] = {}


def compiled_plan(job: SweepJob, index: int) -> Plan:
    key = (job.token, index)
    if key not in _compiled:
        with Materialized(job.bundle) as sheet:
            workbook = sheet.open()
            if not workbook.ok:
                raise PartError(f"the sheet does not compile on {socket.gethostname()}: "
                                f"{workbook.diagnostics[0].headline()}")
            units = dict(job.units)
            try:
                if job.grid.partition_axes:
                    picks = job.grid.partitions()[index]
                    plan = partition_plan(workbook, job.grid, picks, job.show, job.where, job.where_origin,
                                          job.sampling, units, locate=lambda p: str(sheet.locate(p)))
                else:
                    plan = make_plan(workbook, job.grid, job.show, job.where, job.where_origin, units,
                                     sampling=job.sampling)
            except AxisError as e:
                raise PartError(f"{e.code}: {e.message}") from None
        _compiled.clear()
        _compiled[key] = plan
    return _compiled[key]


def chunks_of(job: SweepJob, plan: Plan, part: Part) -> Iterator[pl.DataFrame]:
    rows = max(1, job.chunk_rows // plan.samples)   # as iterate_chunks: a row with draws is `samples` frame rows
    groups = factor(plan, job.grid, min(rows, job.grid.value_size()))   # the same rows as the local path's
    try:
        for number, start in enumerate(range(part.start, part.stop, rows)):
            yield evaluate_chunk(plan, job.grid, start, min(start + rows, part.stop), factored=groups)
            if job.fault is not None:
                job.fault(part.index, number)
    finally:
        release()   # the arrays kept for the next chunk (kept.py)


def write_part(job: SweepJob, part: Part, staging: str, count: int) -> PartDone:
    """Evaluate one part and write it into the staging directory (temp file, then rename)."""
    started, cpu = time.perf_counter(), time.process_time()
    if not os.path.isdir(staging):
        raise PartError(f"the output directory {os.path.dirname(staging)} is not visible on "
                        f"{socket.gethostname()}: -o must be on a file system every node mounts")
    plan = compiled_plan(job, part.plan)
    rows = write_parquet(chunks_of(job, plan, part), pl.Schema(job.schema), Path(staging) / part.name(count),
                         job.metadata)
    return PartDone(part.index, rows, time.perf_counter() - started, time.process_time() - cpu, peak_rss(),
                    socket.gethostname())


def peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024   # Linux reports KiB


# -- the dataset directory --------------------------------------------------
def staging_pattern(target: str) -> re.Pattern[str]:
    """The names of the staging folders (and replaced datasets) of `target`."""
    return re.compile(re.escape(f".{os.path.basename(target)}.") + scratch.TAG + r"\.[A-Za-z0-9_]{8}\.(?:partial|old)")


def prepare(target: str, owner: str | None = None) -> str:
    """A staging directory beside the target, named for the driver `owner` (HOST-PID); refuse a
    target that is not ours to replace. Stale staging folders of killed runs go first."""
    check_target(target)
    parent = os.path.dirname(target) or "."
    if not os.path.isdir(parent):
        raise PartError(f"no such directory: {parent}")
    scratch.remove_stale(parent, staging_pattern(target))
    staging = scratch.temp_dir(parent, f".{os.path.basename(target)}.", ".partial", owner=owner or scratch.owner_tag())
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(staging, 0o777 & ~umask)   # mkdtemp's 0700 is for the name's secrecy; the dataset is shared as usual
    return staging


def check_target(target: str) -> None:
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return
    except OSError as e:
        raise PartError(f"cannot write {shown(target)}: {e.strerror or e}") from None
    if not stat.S_ISDIR(st.st_mode) and not stat.S_ISREG(st.st_mode):
        raise PartError(f"cannot write {shown(target)}: it is {kind(st.st_mode)}; a Parquet dataset is a directory")
    if os.path.isfile(target):
        raise PartError(f"{target} is a file; a Parquet dataset is a directory (remove it or choose another -o)")
    if os.path.isdir(target) and any(not Path(target, name).match(PART_GLOB) for name in os.listdir(target)):
        raise PartError(f"{target} holds files that are not parts of a supersheet dataset; "
                        "choose an empty or new directory")


def commit(staging: str, target: str) -> None:
    """Replace the target by the finished staging directory; stale temp files of killed attempts go first."""
    for name in os.listdir(staging):
        if name.startswith("."):
            os.unlink(os.path.join(staging, name))
    check_target(target)
    old = None
    if os.path.isdir(target):
        old = scratch.temp_dir(os.path.dirname(target), f".{os.path.basename(target)}.", ".old",
                               owner=_owner_of(staging))
        os.replace(target, os.path.join(old, "dataset"))
    os.replace(staging, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def abort(staging: str) -> None:
    shutil.rmtree(staging, ignore_errors=True)


def _owner_of(staging: str) -> str | None:
    match = re.search(scratch.TAG, os.path.basename(staging))
    return match.group(0) if match else None
