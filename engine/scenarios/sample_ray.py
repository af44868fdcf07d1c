"""Monte Carlo samples split over Ray tasks (`supersheet run --on ray`).

Each task compiles the sheet from its text and evaluates a range of whole
stream blocks (distributions.STREAM_BLOCK samples each, every block from its
own generator): the samples, and so the percentiles, are the local path's
whatever the number of tasks. The driver puts the ranges back in order and
summarizes them as the local path does.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import polars as pl

from supersheet.engine.formula.distributions import STREAM_BLOCK
from supersheet.engine.scenarios.sheetbundle import Materialized, SheetBundle
from supersheet.engine.scenarios.uncertainty import Sampled, evaluate_samples, sample_frame
from supersheet.engine.workbook import Workbook, apply_assignments
from supersheet.engine.scenarios import on_ray

PARTS_PER_CPU = 4


@dataclass(frozen=True)
class SampleJob:
    bundle: SheetBundle
    sets: list[str]      # --set overrides as written (parsed again by each task)
    count: int
    seed: int


def sample_range(job: SampleJob, span: tuple[int, int]) -> pl.DataFrame:
    """Samples [start, stop) of the job, evaluated (a Ray task)."""
    from supersheet.engine.scenarios.sweep_parts import PartError   # deferred: engine.scenarios.sweep_parts (slow to import)
    with Materialized(job.bundle) as sheet:   # open while --set may read the sheet again
        workbook = sheet.open()
        if not workbook.ok:
            raise PartError(f"the sheet does not compile on a worker: {workbook.diagnostics[0].headline()}")
        workbook, fixed = apply_assignments(workbook, job.sets)
        return sample_frame(workbook, job.count, job.seed, fixed, *span)[1]


def spans(count: int, tasks: int) -> list[tuple[int, int]]:
    """`count` samples as at most `tasks` contiguous ranges of whole blocks."""
    blocks = math.ceil(count / STREAM_BLOCK)
    per_task = math.ceil(blocks / max(1, min(tasks, blocks)))
    return [(start * STREAM_BLOCK, min((start + per_task) * STREAM_BLOCK, count))
            for start in range(0, blocks, per_task)]


def sample_on_ray(workbook: Workbook, samples: int | None, seed: int | None, fixed: dict, sets: list[str], *,
                  address: str | None = None, tasks: int | None = None, max_memory: int | None = None) -> Sampled:
    """evaluate_samples, with the samples evaluated by Ray tasks. The driver checks the sheet
    and the draws' parameters first (a SamplingError is raised before any task starts)."""

    def elsewhere(count: int, seed_: int) -> pl.DataFrame:
        on_ray.connect(address)
        job = SampleJob(SheetBundle.of([workbook]), list(sets), count, seed_)
        frames = on_ray.run(sample_range, job, spans(count, tasks or PARTS_PER_CPU * on_ray.cluster_cpus()))
        return pl.concat(frames, rechunk=True)   # one chunk, as locally: sums (means) add in the same order

    return evaluate_samples(workbook, samples, seed, fixed, max_memory, elsewhere)
