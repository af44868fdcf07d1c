"""A Monte Carlo summary's percentiles (engine/scenarios/percentiles.py) are
Polars' `quantile(q / 100, "linear")` to the bit, on samples of every shape:
wide and narrow magnitudes, ties, already sorted, one value, two values, and
split in chunks as an evaluated frame's columns are; a sample with an
infinite value keeps Polars' own answer."""
from __future__ import annotations

import math

import numpy as np
import polars as pl

from supersheet.engine.scenarios.percentiles import percentiles
from supersheet.engine.scenarios.uncertainty import PERCENTILES, summarize


def polars_quantiles(series: pl.Series, qs) -> dict[float, float]:
    return {q: float(series.quantile(q / 100, "linear")) for q in qs}


def samples(rng: np.random.Generator, trial: int) -> np.ndarray:
    n = int(rng.integers(1, 3000)) if trial % 40 else int(rng.integers(1, 200_000))
    shape = trial % 5
    if shape == 0:
        return rng.standard_normal(n) * 10 ** rng.uniform(-300, 300)
    values = rng.lognormal(0, 3, n)
    if shape == 2:
        return np.round(values)          # many ties
    if shape == 3:
        return np.sort(values)           # Polars takes its sorted path
    if shape == 4:
        return values[: int(rng.integers(1, 3))]
    return values


def test_percentiles_are_polars_linear_quantiles_to_the_bit():
    rng = np.random.default_rng(30)
    compared = 0
    for trial in range(1500):
        values = samples(rng, trial)
        qs = (*PERCENTILES, 0, 100, float(rng.uniform(0, 100)), int(rng.integers(0, 101)))
        expected = polars_quantiles(pl.Series(values), qs)
        got = percentiles(values.copy(), qs)
        for q in qs:
            assert got[q] == expected[q], (trial, len(values), q, got[q], expected[q])
            compared += 1
    assert compared == 1500 * 7


def test_summary_of_a_chunked_column_is_that_of_polars():
    rng = np.random.default_rng(31)
    compared = 0
    for trial in range(60):
        parts = [samples(rng, trial * 7 + i) for i in range(int(rng.integers(1, 6)))]
        series = pl.concat([pl.Series(p) for p in parts], rechunk=False)
        if trial % 3 == 0 and len(series) > 10:   # some error values (nulls) among the samples
            series = series.scatter(rng.integers(0, len(series), 5), None)
        summary = summarize(series)
        valid = series.drop_nulls().rechunk()
        assert summary.mean == float(valid.mean())
        assert summary.percentiles == polars_quantiles(valid, PERCENTILES)
        assert summary.errors == series.null_count() and summary.count == len(series)
        compared += 1
    assert compared == 60


def test_a_sample_with_an_infinite_value_keeps_polars_answer():
    values = pl.Series([1.0, 2.0, math.inf, 4.0, 5.0, 7.0])
    summary = summarize(values)
    assert summary.percentiles == polars_quantiles(values, PERCENTILES)
    assert summary.p95 == math.inf
    overflowing = pl.Series([1e308] * 10)   # finite values whose sum overflows: a finite mean
    assert math.isclose(summarize(overflowing).mean, 1e308) and summarize(overflowing).p50 == 1e308
