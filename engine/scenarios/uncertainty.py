"""Monte Carlo over a sheet's random draws: N samples as N rows of one frame.

Every draw gets its own seeded stream (see distributions.Draw.rng), so a sheet
evaluates to the same samples on every run. Cells that depend on no draw are
exact: they stay constants of the compiled sheet. Uncertain cells are reported
as mean and percentiles; `sensitivity` ranks the draws by how strongly each
moves a result (Spearman's rank correlation, as Guesstimate does).
"""
from __future__ import annotations

import math

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

import numpy as np

from supersheet.engine.base.limits import MAX_SAMPLES
from supersheet.engine.compile.evaluate import (
    Program,
    Scenario,
    compile_program,
    error_code,
    evaluate_expression,
    read_value,
)
from supersheet.engine.formula import ast as A
from supersheet.engine.formula.distributions import CONTINUOUS, Draw, DrawError, sample_discrete, stream, variates
from supersheet.engine.scenarios.percentiles import percentiles
from supersheet.engine.workbook import Workbook
from supersheet.units import format_number

if TYPE_CHECKING:   # loaded where samples are evaluated: `check` validates sampling settings without it
    import polars as pl

    from supersheet.engine.check.checked import Checked

DEFAULT_SAMPLES = 10_000
DEFAULT_SEED = 0
PERCENTILES = (5, 50, 95)


@dataclass(frozen=True)
class Summary:
    """The distribution of one scalar cell over the samples (base units)."""

    mean: float
    percentiles: dict[float, float]
    errors: int            # samples where the cell holds an error value
    count: int

    @property
    def p5(self) -> float:
        return self.percentiles[5]

    @property
    def p50(self) -> float:
        return self.percentiles[50]

    @property
    def p95(self) -> float:
        return self.percentiles[95]


@dataclass
class Sampled:
    """A sheet evaluated over N samples: exact values, and summaries of uncertain cells."""

    workbook: Workbook
    deterministic: Scenario          # every draw at its mean
    frame: pl.DataFrame              # one row per sample: draws and uncertain cells, base units
    program: Program
    samples: int
    seed: int
    summaries: dict[str, Summary] = field(default_factory=dict)
    shares: dict[str, float] = field(default_factory=dict)   # boolean cells: share of samples where true (9.6)

    def percentile(self, key: str, q: float) -> float | None:
        column = self.program.sources[key].columns
        if not isinstance(column, str) or column not in self.frame.columns:
            return None
        values = self.frame[column].drop_nulls()
        return _quantile(values, q) if len(values) else None


class SamplingError(Exception):
    pass


def default_memory_limit() -> int | None:
    """Half of the machine's RAM: a run that needs more is refused before it allocates."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (ValueError, OSError, AttributeError):
        return None


def memory_needed(workbook: Workbook, count: int) -> tuple[int, int]:
    """(bytes, columns) a run of `count` samples holds at its peak: one float64 column per
    cell element, and each draw's samples twice (numpy's, then the frame's copy)."""
    checked = workbook.checked
    cells = sum((c.type.length or 1) if c.type is not None else 1 for c in checked.cells.values())
    draws = sum(checked.node_types[d.node].length or 1 for d in checked.distributions if d.node in
                checked.node_types)
    columns = cells + 2 * draws
    return count * columns * 8, columns


def check_memory(workbook: Workbook, count: int, limit: int | None) -> None:
    limit = default_memory_limit() if limit is None else limit
    needed, columns = memory_needed(workbook, count)
    if limit is not None and needed > limit:
        raise SamplingError(f"{count:,} samples of this sheet need about {_size(needed)} of memory "
                            f"({count:,} samples x {columns:,} columns x 8 bytes), more than the limit of "
                            f"{_size(limit)}; use fewer --samples, or raise the limit with --max-memory "
                            "(default: half of this machine's RAM)")


def _size(size: int) -> str:
    return f"{format_number(size / 1e9, 3)} GB" if size >= 1e9 else f"{format_number(size / 1e6, 3)} MB"


def sample_settings(workbook: Workbook, samples: int | None, seed: int | None,
                    max_memory: int | None = None) -> tuple[int, int]:
    """The sheet's `samples:` (a count, or {count, seed}), overridden from the command line;
    refused when the run would need more memory than `max_memory` bytes (default: half the RAM)."""
    written = workbook.model.root.samples if workbook.model.root else None
    count, default_seed = DEFAULT_SAMPLES, DEFAULT_SEED
    if written is not None:
        count = written.count if written.count is not None else count
        default_seed = written.seed if written.seed is not None else default_seed
    count = samples if samples is not None else count
    if not 1 <= count <= MAX_SAMPLES:
        raise SamplingError(f"samples must be between 1 and {MAX_SAMPLES:,}, got {count}")
    seed = seed if seed is not None else default_seed
    if not 0 <= seed < 2**63:
        raise SamplingError(f"the seed must be a whole number from 0 to 2^63-1, got {seed}")
    check_memory(workbook, count, max_memory)
    return count, seed


def draw_columns(workbook: Workbook, deterministic: Scenario, count: int, seed: int, start: int = 0,
                 stop: int | None = None) -> tuple[dict[str, np.ndarray], dict[A.Node, str | list[str]]]:
    """Sample columns for every draw (samples [start, stop) of `count`), and the map the compiler reads them through."""
    checked = workbook.checked
    stop = count if stop is None else stop
    columns: dict[str, np.ndarray] = {}
    mapping: dict[A.Node, str | list[str]] = {}
    for draw in checked.distributions:
        node = draw.node
        if draw.name in CONTINUOUS:
            kind, length = CONTINUOUS[draw.name], checked.node_types[node].length
            names = [draw.column(i) for i in range(length or 1)]
            values = stream(draw, seed, count, start, stop,
                            lambda n, rng: np.column_stack([variates(kind, n, rng) for _ in names]))
            for i, name in enumerate(names):
                columns[name] = np.ascontiguousarray(values[:, i])
            mapping[node] = names if length else names[0]
            continue
        params = _parameters(workbook, deterministic, draw)
        try:
            values = stream(draw, seed, count, start, stop,
                            lambda n, rng: sample_discrete(draw.name, params, n, rng, total=count))
        except DrawError as e:
            raise SamplingError(f"{draw.key}: {e}") from None
        if values.ndim == 2:
            names = [draw.column(i) for i in range(values.shape[1])]
            for i, name in enumerate(names):
                columns[name] = np.ascontiguousarray(values[:, i])
            mapping[node] = names
        else:
            columns[draw.column()] = values
            mapping[node] = draw.column()
    return columns, mapping


def _parameters(workbook: Workbook, deterministic: Scenario, draw: Draw) -> list[float]:
    """The values of a discrete draw's parameters (they depend on no draw)."""
    values = [evaluate_expression(deterministic, arg) for arg in draw.node.args]
    if any(error_code(v) is not None or not isinstance(v, (float, int)) for v in values):
        raise SamplingError(f"{draw.key}: a parameter of {draw.name}() is an error value")
    return [float(v) for v in values]  # type: ignore[arg-type]  # numbers: checked above


def evaluate_samples(workbook: Workbook, samples: int | None = None, seed: int | None = None,
                     fixed: dict | None = None, max_memory: int | None = None,
                     elsewhere: Callable[[int, int], pl.DataFrame] | None = None) -> Sampled:
    """The sheet over its samples. `elsewhere(count, seed)`, when given, returns the evaluated
    samples instead (Ray tasks computing ranges of them with `sample_frame`), in order."""
    import polars as pl   # deferred: polars
    count, seed = sample_settings(workbook, samples, seed, max_memory)
    if elsewhere is not None and workbook.checked.reduced:
        raise SamplingError("this sheet reduces over its samples (" + ", ".join(sorted(workbook.checked.reduced))
                            + " use p5/p95/percentile/expected/prob), which needs every sample in one place: "
                            "run it without --on ray")
    program, frame, deterministic = sample_frame(workbook, count, seed, fixed, 0, 0 if elsewhere else count)
    if elsewhere is not None:
        frame = elsewhere(count, seed)
    uncertain = [k for k in workbook.checked.order if k in workbook.checked.uncertain and k in program.compiled]
    sampled = Sampled(workbook, deterministic, frame, program, count, seed)
    # The schema once: `frame.schema` builds a new Schema of every column on each call, which
    # per cell was O(cells^2) Python holding the interpreter (87 of 300 ms sampling a
    # 300-cell sheet), while the editor's UI thread waits for it to echo a key.
    schema = frame.schema
    for key in uncertain:
        source = program.sources[key]
        if isinstance(source.columns, str) and schema[source.columns] == pl.Float64:
            sampled.summaries[key] = summarize(frame[source.columns])
        elif isinstance(source.columns, str) and schema[source.columns] == pl.Boolean:
            holds = frame[source.columns].drop_nulls()
            sampled.shares[key] = series_mean(holds) if len(holds) else float("nan")
    # A reduction over samples (p95, prob ...) is one value, the same in every sample: it replaces
    # the value at the mean that the deterministic scenario holds (format 9.6).
    # A new scenario: `deterministic` may be the one the workbook remembers (Workbook.evaluate), which
    # sweeps, solves and choices start from with every draw at its mean.
    first = frame.row(0, named=True) if frame.height else {}
    reductions = {key: read_value(program, key, first) for key in workbook.checked.reduced
                  if key in program.compiled and first}
    if reductions:
        sampled.deterministic = Scenario(deterministic.checked, {**deterministic.values, **reductions},
                                         deterministic.fixed)
    return sampled


def sample_frame(workbook: Workbook, count: int, seed: int, fixed: dict | None, start: int,
                 stop: int) -> tuple[Program, pl.DataFrame, Scenario]:
    """Samples [start, stop) of `count` evaluated: one row each (draws and the cells they reach)."""
    deterministic = workbook.evaluate(fixed)
    columns, mapping = draw_columns(workbook, deterministic, count, seed, start, stop)
    program = compile_program(workbook.checked, fixed=fixed, baseline=deterministic, samples=mapping)
    return program, program.apply(program.frame(columns, stop - start)).collect(), deterministic


def summarize(values: pl.Series) -> Summary:
    import polars as pl   # deferred: polars
    valid = values.drop_nulls()
    if not len(valid):
        return Summary(float("nan"), {q: float("nan") for q in PERCENTILES}, len(values), len(values))
    # One contiguous copy, which the percentiles reorder once the mean is read: the mean sums
    # one chunk, in an order that does not depend on how the frame was built (by how many
    # threads, or from how many Ray tasks).
    array = valid.to_numpy(writable=True)
    contiguous = pl.Series(array)   # no copy
    mean = series_mean(contiguous)
    if math.isfinite(mean):   # every value finite: a non-finite one makes the sum inf or NaN
        return Summary(mean, percentiles(array, PERCENTILES), len(values) - len(valid), len(values))
    return Summary(finite_mean(contiguous), {q: _quantile(contiguous, q) for q in PERCENTILES},
                   len(values) - len(valid), len(values))


def _quantile(values: pl.Series, q: float) -> float:
    """The q-th percentile (0-100) of a series without nulls that holds a value (Polars gives None for none)."""
    found = values.quantile(q / 100, "linear")
    assert found is not None
    return float(found)


def series_mean(values: pl.Series) -> float:
    """The mean of a non-empty series of numbers or booleans without nulls (Polars types
    `Series.mean()` as any Python literal or None, for any dtype)."""
    mean = values.mean()
    assert isinstance(mean, (int, float)), f"the mean of {values.dtype} values is {mean!r}"
    return float(mean)


def finite_mean(values: pl.Series) -> float:
    """The mean of finite numbers, which is finite: where their sum overflows (1,000
    samples near 1e306), the sum of each divided by their count."""
    mean = series_mean(values)
    return mean if math.isfinite(mean) else float((values / len(values)).sum())


@dataclass(frozen=True)
class Influence:
    draw: str               # the cell holding the draw
    rank_correlation: float

    @property
    def share(self) -> float:
        return self.rank_correlation ** 2


def sensitivity(sampled: Sampled, key: str) -> list[Influence]:
    """Which uncertain inputs drive `key` most: Spearman's rho of each draw's cell with it."""
    if key not in sampled.summaries:
        return []
    sources = sampled.program.sources
    return rank_drivers(sampled.workbook.checked, sampled.frame,
                        lambda k: sources[k].columns if k in sources else None, key)


def rank_drivers(checked: Checked, frame: pl.DataFrame, column_of: Callable[[str], object], key: str) -> list[Influence]:
    """`sensitivity` over a frame of samples whose cells' columns `column_of` names
    (a frame that crossed from another process has no compiled program)."""
    import polars as pl   # deferred: polars
    target = column_of(key)
    if not isinstance(target, str):
        return []
    upstream = _precedents(checked, key)
    drivers = sorted({d.key for d in checked.distributions if d.key in upstream or d.key == key})
    out = []
    for driver in drivers:
        column = column_of(driver)
        if not isinstance(column, str) or driver == key:
            continue
        both = frame.select(pl.col(column).alias("x"), pl.col(target).alias("y")).drop_nulls()
        if both.height < 3:
            continue
        rho = both.select(pl.corr("x", "y", method="spearman")).item()
        out.append(Influence(driver, float(rho) if rho == rho else 0.0))
    return sorted(out, key=lambda i: -abs(i.rank_correlation))


def _precedents(checked: Checked, key: str) -> set[str]:
    seen: set[str] = set()
    stack = list(checked.cells[key].deps)
    while stack:
        k = stack.pop()
        if k not in seen:
            seen.add(k)
            stack.extend(checked.cells[k].deps)
    return seen
