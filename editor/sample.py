"""The editor's Monte Carlo: an open sheet's random draws sampled as
`supersheet run` samples them (the sheet's `samples:` count and seed), for the
range beside each uncertain value, the histogram and the sensitivity ranking.

The editor's values stay the deterministic ones (every draw at its mean); the
samples are computed from the unsaved text after opening and after each
edit, off the UI thread. Pure engine: no UI imports.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import polars as pl

from supersheet.editor.baselines import workbook_from_text
from supersheet.editor.verdicts import Verdict, sample_verdicts
from supersheet.engine.present.present import digits_of, unit_factor
from supersheet.engine.present.report import uncertain_record
from supersheet.engine.scenarios.uncertainty import (
    Influence,
    Sampled,
    SamplingError,
    Summary,
    evaluate_samples,
    sensitivity,
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


@dataclass
class Samples:
    """A sheet evaluated over its samples, or why it could not be."""

    sampled: Sampled | None
    error: str = ""
    verdicts: list[Verdict] = field(default_factory=list)   # what fails over the samples (verdicts.py)

    def summary(self, key: str) -> Summary | None:
        return self.sampled.summaries.get(key) if self.sampled is not None else None

    def prepare(self) -> Samples:
        """Compute what the grid shows of every uncertain cell (its record, the
        share of samples where a condition holds), in the worker that sampled
        it: the UI thread then only reads them, and a repaint of the grid while
        the user types costs no statistics."""
        for key in self.uncertain:
            self.record(key)
            self.pass_rate(key)
        return self

    @cached_property
    def uncertain(self) -> frozenset[str]:
        """The cells that depend on random draws (none when sampling failed)."""
        return frozenset(self.sampled.workbook.checked.uncertain) if self.sampled is not None else frozenset()

    @cached_property
    def _records(self) -> dict[str, dict | None]:
        return {}

    @cached_property
    def _pass_rates(self) -> dict[str, float | None]:
        return {}

    def is_draw(self, key: str) -> bool:
        """Whether the cell itself holds a random draw (`uniform(...)`, ...)."""
        return self.sampled is not None and any(d.key == key for d in self.sampled.workbook.checked.distributions)

    def digits(self, key: str) -> int:
        """The significant digits the cell is shown with."""
        assert self.sampled is not None
        return digits_of(self.sampled.workbook.checked, key)

    def record(self, key: str) -> dict | None:
        """`uncertain_record` of an uncertain number: mean, p5, p50, p95, display text."""
        if key not in self._records:
            summary = self.summary(key)
            self._records[key] = None if summary is None or self.sampled is None \
                else uncertain_record(self.sampled.workbook, key, summary)
        return self._records[key]

    def column(self, key: str) -> pl.Series | None:
        """The cell's samples (base units), when it is one uncertain value per sample."""
        sampled = self.sampled
        if sampled is None or key not in sampled.workbook.checked.uncertain:
            return None
        source = sampled.program.sources.get(key)
        name = source.columns if source is not None else None
        if not isinstance(name, str) or name not in sampled.frame.columns:
            return None
        return sampled.frame[name]

    def reduced_text(self, key: str) -> str | None:
        """A reduction over the samples (p95, prob …, format 9.6) as shown: the
        editor's own values hold it only at the mean of every draw."""
        sampled = self.sampled
        if sampled is None or key not in sampled.workbook.checked.reduced:
            return None
        from supersheet.engine.present.present import show
        return show(sampled.workbook.checked, key, sampled.deterministic.values.get(key)).text

    def pass_rate(self, key: str) -> float | None:
        """The share of samples where an uncertain condition holds."""
        if key not in self._pass_rates:
            values = self.column(key)
            self._pass_rates[key] = None if values is None or values.dtype != pl.Boolean \
                or not len(values.drop_nulls()) else float(values.drop_nulls().mean())  # type: ignore[arg-type]
        return self._pass_rates[key]

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
        digits = digits_of(self.sampled.workbook.checked, key)   # type: ignore[union-attr]
        return Histogram([int(c) for c in counts], float(edges[0]), float(edges[-1]), unit, digits)

    def drivers(self, key: str) -> list[Influence]:
        """The draws `key` depends on, most influential first (Spearman's rho)."""
        if self.sampled is None or key not in self.sampled.summaries:
            return []
        return sensitivity(self.sampled, key)


def has_draws(workbook: Workbook) -> bool:
    return bool(workbook.checked.distributions)


def sample_sheet(path: Path, text: str) -> Samples | None:
    """The sheet `text` (at `path`) over its samples; None when it has no draws."""
    return sample_workbook(workbook_from_text(Path(path), text))


def sample_workbook(workbook: Workbook) -> Samples | None:
    """A checked sheet over its samples; None when it has no draws. The editor
    passes its document's workbook (immutable: an edit makes a new one), so a
    resample does not parse and check the text again while the user types."""
    if not has_draws(workbook):
        return None
    if not workbook.ok:
        return Samples(None, "the sheet has problems; no samples until they are fixed")
    try:
        sampled = evaluate_samples(workbook)
        return Samples(sampled, verdicts=sample_verdicts(sampled)).prepare()
    except SamplingError as e:
        return Samples(None, str(e))
    except Exception as e:  # noqa: BLE001 - a sheet that cannot be sampled is reported, never fatal
        return Samples(None, f"cannot sample: {type(e).__name__}: {e}")
