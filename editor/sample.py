"""The editor's Monte Carlo: an open sheet's random draws sampled as
`supersheet run` samples them (the sheet's `samples:` count and seed), for the
range beside each uncertain value, the histogram and the sensitivity ranking.

The editor's values stay the deterministic ones (every draw at its mean); the
samples are computed from the unsaved text after opening and after each
edit, off the UI thread: in the editor's resample process (sample_worker.py,
sample_process.py), which sends back a `SampleResult`, or in a thread when
that process is not there. Pure engine: no UI imports.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import polars as pl

from supersheet.editor.baselines import workbook_from_text
from supersheet.editor.verdicts import Verdict, sample_verdicts
from supersheet.engine.present.present import digits_of, show, unit_factor
from supersheet.engine.present.report import uncertain_record
from supersheet.engine.scenarios.uncertainty import (
    Influence,
    Sampled,
    SamplingError,
    Summary,
    evaluate_samples,
    rank_drivers,
)
from supersheet.engine.workbook import Workbook
from supersheet.units import format_number


@dataclass(frozen=True)
class Histogram:
    """Counts of a cell's samples in equal bins from its p1 to its p99 (the
    outer 2% left out, so a long tail does not squeeze the rest), in the
    display unit."""

    counts: list[int]
    lo: float
    hi: float
    unit: str
    digits: int

    def position(self, x: float) -> int:
        """The bin a value falls in."""
        if self.hi <= self.lo:
            return 0
        return min(len(self.counts) - 1, max(0, int((x - self.lo) / (self.hi - self.lo) * len(self.counts))))

    def label(self, x: float) -> str:
        return format_number(x, self.digits)


@dataclass(frozen=True)
class SampleResult:
    """What sampling a sheet found, in a form that can cross from the resample
    process (sample_worker.py) without its workbook or compiled program: the
    samples of the cells the editor reads (its uncertain numbers and its draws,
    base units) and what the grid shows of each, computed where it was sampled
    so that the UI thread only reads them while the user types."""

    samples: int                      # how many (the sheet's `samples:`)
    seed: int
    frame: pl.DataFrame               # one row per sample; a column per cell of `columns`
    columns: dict[str, str]           # cell key -> its column in `frame`
    summaries: dict[str, Summary]     # uncertain numbers: mean and percentiles
    shares: dict[str, float]          # uncertain conditions: the share of samples where they hold
    records: dict[str, dict]          # `uncertain_record` of each summary (the grid's range)
    reduced: dict[str, str]           # a reduction over the samples (p95, prob ...) as shown
    verdicts: list[Verdict]           # what fails over the samples (verdicts.py)
    uncertain: frozenset[str]         # the sheet's uncertain cells: the workbook it was sampled from


def sample_result(sampled: Sampled) -> SampleResult:
    """The editor's part of a sheet sampled (a `Sampled`)."""
    workbook, sources = sampled.workbook, sampled.program.sources
    checked = workbook.checked
    columns: dict[str, str] = {}
    for key in [*sampled.summaries, *(d.key for d in checked.distributions)]:
        column = sources[key].columns if key in sources else None
        if isinstance(column, str) and column in sampled.frame.columns:
            columns[key] = column
    return SampleResult(
        sampled.samples, sampled.seed, sampled.frame.select(sorted(set(columns.values()))), columns,
        dict(sampled.summaries), dict(sampled.shares),
        {key: uncertain_record(workbook, key, summary) for key, summary in sampled.summaries.items()},
        {key: show(checked, key, sampled.deterministic.values.get(key)).text for key in checked.reduced},
        sample_verdicts(sampled), frozenset(checked.uncertain))


@dataclass
class Samples:
    """A sheet's samples as the editor shows them (`sampled`, around `workbook`:
    the editor's own, sampled here or in the resample process from the same
    text), or why there are none."""

    sampled: SampleResult | None
    error: str = ""
    workbook: Workbook | None = None
    note: str = ""      # how they were sampled, when the user should know (resampler.py)

    @property
    def verdicts(self) -> list[Verdict]:
        return self.sampled.verdicts if self.sampled is not None else []

    def summary(self, key: str) -> Summary | None:
        return self.sampled.summaries.get(key) if self.sampled is not None else None

    @cached_property
    def uncertain(self) -> frozenset[str]:
        """The cells that depend on random draws (none when sampling failed)."""
        return self.sampled.uncertain if self.sampled is not None else frozenset()

    def is_draw(self, key: str) -> bool:
        """Whether the cell itself holds a random draw (`uniform(...)`, ...)."""
        return self.workbook is not None and any(d.key == key for d in self.workbook.checked.distributions)

    def digits(self, key: str) -> int:
        """The significant digits the cell is shown with."""
        assert self.workbook is not None
        return digits_of(self.workbook.checked, key)

    def record(self, key: str) -> dict | None:
        """`uncertain_record` of an uncertain number: mean, p5, p50, p95, display text."""
        return self.sampled.records.get(key) if self.sampled is not None else None

    def column(self, key: str) -> pl.Series | None:
        """The cell's samples (base units), when it is one uncertain number per sample or a draw."""
        sampled = self.sampled
        name = sampled.columns.get(key) if sampled is not None else None
        return sampled.frame[name] if sampled is not None and name is not None else None

    def reduced_text(self, key: str) -> str | None:
        """A reduction over the samples (p95, prob …, format 9.6) as shown: the
        editor's own values hold it only at the mean of every draw."""
        return self.sampled.reduced.get(key) if self.sampled is not None else None

    def pass_rate(self, key: str) -> float | None:
        """The share of samples where an uncertain condition holds (None: no sample has a value)."""
        share = self.sampled.shares.get(key) if self.sampled is not None else None
        return None if share is None or share != share else share

    def histogram(self, key: str, bins: int) -> Histogram | None:
        record = self.record(key)
        values = self.column(key)
        if record is None or values is None:
            return None
        unit = record["unit"] or ""
        numbers = values.drop_nulls().to_numpy() / unit_factor(unit or None)
        numbers = numbers[np.isfinite(numbers)]
        if not len(numbers):
            return None
        lo, hi = (float(x) for x in np.percentile(numbers, [1, 99]))
        if hi <= lo:
            lo, hi = float(numbers.min()), float(numbers.max())
        counts, edges = np.histogram(numbers, bins=bins, range=(lo, hi) if hi > lo else None)
        return Histogram([int(c) for c in counts], float(edges[0]), float(edges[-1]), unit, self.digits(key))

    def drivers(self, key: str) -> list[Influence]:
        """The draws `key` depends on, most influential first (Spearman's rho)."""
        sampled = self.sampled
        if sampled is None or self.workbook is None or key not in sampled.summaries:
            return []
        return rank_drivers(self.workbook.checked, sampled.frame, sampled.columns.get, key)


def has_draws(workbook: Workbook) -> bool:
    return bool(workbook.checked.distributions)


def sample_sheet(path: Path, text: str) -> Samples | None:
    """The sheet `text` (at `path`) over its samples; None when it has no draws."""
    return sample_workbook(workbook_from_text(Path(path), text))


def sample_workbook(workbook: Workbook) -> Samples | None:
    """A checked sheet over its samples; None when it has no draws. The editor's
    fallback when its resample process is not there passes its document's
    workbook (immutable: an edit makes a new one), so a resample does not parse
    and check the text again."""
    found = sampling(workbook)
    return None if found is None else Samples(*found, workbook=workbook)


def sampling(workbook: Workbook) -> tuple[SampleResult | None, str] | None:
    """What sampling a checked sheet finds: its result, or why there is none;
    None when it has no draws (for the thread here and the resample process)."""
    if not has_draws(workbook):
        return None
    if not workbook.ok:
        return None, "the sheet has problems; no samples until they are fixed"
    try:
        return sample_result(evaluate_samples(workbook)), ""
    except SamplingError as e:
        return None, str(e)
    except Exception as e:  # noqa: BLE001 - a sheet that cannot be sampled is reported, never fatal
        return None, f"cannot sample: {type(e).__name__}: {e}"
