"""Sweeps (spec §6): a grid of scenarios evaluated as columns.

A plan is the sheet compiled with the grid's axes as input columns; chunks of
the grid (grid.py) stream through it in bounded memory, filtered by `where`
and converted to display units. Partition axes (imports, array lengths) get a
plan per value.

Polars is imported where a plan is compiled or evaluated, not with this module:
`supersheet check` refuses what a sweep's plans would (`plans_for(...,
build=check_plan)`) without loading it.
"""
from __future__ import annotations

import math
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator

import numpy as np

from supersheet.engine.compile.evaluate import Program, Scenario, compile_program
from supersheet.engine.expect.assume import OUTSIDE_HEADER, outside_expression
from supersheet.engine.load.specs import SweepBlock
from supersheet.engine.present.headers import is_error_header, split_header
from supersheet.engine.scenarios.axes import Axis, AxisError, rebind
from supersheet.engine.scenarios.expression import Bound, bind_expression
from supersheet.engine.scenarios.factored import Factored, Factoring, evaluate_groups, factoring
from supersheet.engine.scenarios.kept import release
from supersheet.engine.scenarios.grid import Grid, build_grid
from supersheet.engine.scenarios.tiling import Tiling
from supersheet.engine.scenarios.sweep_columns import Column, column_units, output_columns, shown_axes, with_statistics
from supersheet.engine.workbook import Workbook
from supersheet.engine.base.diagnostics import did_you_mean
from supersheet.engine.base.span import Origin
import json

if TYPE_CHECKING:
    import polars as pl

    from supersheet.engine.compile.values import Source
    from supersheet.engine.formula import ast as A

DEFAULT_CHUNK = 1_000_000


@dataclass
class SweepSpec:
    name: str
    grid: Grid
    show: list[str] | None = None
    where: str | None = None
    where_origin: Any = None
    block: SweepBlock | None = None   # as written in the sheet (None for an ad hoc sweep)


@dataclass
class Plan:
    """One compiled (sub)sheet of a sweep: its program, filter and output columns."""

    workbook: Workbook
    program: Program
    filter: pl.Expr | None
    columns: list[Column]
    imports: dict[str, str] = field(default_factory=dict)   # import axis -> the sheet this plan uses
    draws: dict[str, np.ndarray] | None = None   # sample columns, when the sheet has random draws
    factorings: dict[int, Factoring | None] = field(default_factory=dict, repr=False)   # chunk rows -> `factor`'s

    @property
    def samples(self) -> int:
        return len(next(iter(self.draws.values()))) if self.draws else 1


def sweep_specs(workbook: Workbook) -> dict[str, SweepBlock]:
    return workbook.model.root.sweeps if workbook.model.root else {}


def sweep_block(workbook: Workbook, name: str) -> SweepBlock:
    block = sweep_specs(workbook).get(name)
    if block is None:
        raise AxisError("E-NAME", f"no sweep named {name!r}", did_you_mean(name, sweep_specs(workbook)))
    return block


def load_sweep(workbook: Workbook, name: str) -> SweepSpec:
    """The sheet's sweep `name`, its axes built (its first problem raised, at its place)."""
    spec, problems = checked_sweep(workbook, name)
    if problems:
        raise problems[0]
    assert spec is not None
    return spec


def checked_sweep(workbook: Workbook, name: str) -> tuple[SweepSpec | None, list[AxisError]]:
    """The sweep `name` with its axes built, or every problem found without running it,
    each at its own place: its shape, each axis, each unknown `show` cell."""
    block = sweep_block(workbook, name)
    if block.problems or block.vary is None:
        return None, [AxisError.of(d) for d in block.problems]
    grid, problems = build_grid(workbook, block.vary)
    for shown in block.show or ():
        if workbook.key_for(shown.value) is None:
            problems.append(AxisError.of(workbook.unknown_cell(shown.value, shown.span, by="'show'")))
    if problems or grid is None:
        return None, problems
    show = [w.value for w in block.show] if block.show is not None else None
    where = block.where
    return SweepSpec(name, grid, show, where.text if where else None, where.origin if where else None, block), []


def make_plan(workbook: Workbook, grid: Grid, show: list[str] | None, where: str | None, where_origin: Any,
              units: dict[str, str | None] | None = None, picks: dict[str, int] | None = None,
              sampling: tuple[int | None, ...] | None = (None, None)) -> Plan:
    """Compile the sheet with the grid's axes as input columns (and, for a sheet
    with random draws, its sample columns: each row is evaluated over every sample;
    with `sampling=None` every draw is its mean)."""
    units = units if units is not None else {}
    baseline, draws, mapping, bound = _prepared(workbook, grid, show, where, where_origin, units, sampling)
    inputs = {axis.cell_key: axis_source(axis) for axis in grid.value_axes}
    program = compile_program(workbook.checked, inputs=inputs, baseline=baseline, samples=mapping,
                              sample_group="__row" if mapping else None)   # reductions: per row, over its samples
    filter_expr = None
    if bound is not None:
        val, _ = program.compiler(bound.checked).compile_expression(bound.formula.expr)
        filter_expr = val.scalar_expr().fill_null(False)   # `where` is a scalar condition (_prepared)
    columns = output_columns(workbook, program, grid, show, units, baseline, picks or {})
    if draws:
        columns = with_statistics(workbook, columns)
    outside = outside_expression(workbook, program.sources)
    if outside is not None:
        columns.append(Column(OUTSIDE_HEADER, OUTSIDE_HEADER, 1.0, value=outside, is_outside=True,
                              over_samples=outside_expression(workbook, program.sources, over_samples=True)))
    return Plan(workbook, program, filter_expr, columns, draws=draws)


def check_plan(workbook: Workbook, grid: Grid, show: list[str] | None, where: str | None, where_origin: Any,
               units: dict[str, str | None] | None = None, picks: dict[str, int] | None = None,
               sampling: tuple[int | None, ...] | None = (None, None)) -> Workbook:
    """What `make_plan` would refuse, refused the same way, without compiling anything
    (`supersheet check` never loads Polars); the sheet the plan is of."""
    _prepared(workbook, grid, show, where, where_origin, units if units is not None else {}, sampling)
    return workbook


def _prepared(workbook: Workbook, grid: Grid, show: list[str] | None, where: str | None, where_origin: Any,
              units: dict[str, str | None], sampling: tuple[int | None, ...] | None
              ) -> tuple[Scenario, dict[str, np.ndarray] | None, dict[A.Node, str | list[str]] | None, Bound | None]:
    """A plan's parts that need no Polars, each problem raised: the sheet's own scenario, the
    sample columns, `where` bound and typed, and each column's display unit."""
    baseline = workbook.evaluate()
    draws, mapping = None, None
    if workbook.checked.distributions and sampling is not None:
        from supersheet.engine.scenarios.uncertainty import SamplingError, draw_columns, sample_settings   # deferred: engine.scenarios.uncertainty (slow to import)
        try:
            count, seed = sample_settings(workbook, *sampling)
            draws, mapping = draw_columns(workbook, baseline, count, seed)
        except SamplingError as e:
            raise AxisError("E-TYPE", str(e)) from None
    bound: Bound | None = None
    if where:
        found = bind_expression(workbook, where, where_origin or Origin("<--where>", 1, 1))
        if not isinstance(found, Bound):
            raise AxisError.of(found)
        bound = found
        if not bound.type.is_bool or bound.type.is_array:
            raise AxisError("E-TYPE", f"'where' must be a condition, not {bound.type.describe()}",
                            span=bound.origin.span(0, len(bound.text)))
        if draws and any(d in workbook.checked.uncertain for d in bound.deps):
            raise AxisError("E-TYPE", "'where' cannot depend on random draws: it selects rows, not samples")
    column_units(workbook, grid, show, units, baseline)
    return baseline, draws, mapping, bound


def axis_source(axis: Axis) -> Source:
    """An axis as the compiler reads it: a column, with what its values are known to be."""
    from supersheet.engine.compile.values import Source   # deferred: polars
    finite, nonzero = axis.finite_nonzero()
    return Source(axis.cell_key, False, finite=finite, nonzero=nonzero, bounds=axis.bounds())


def plans_for(workbook: Workbook, grid: Grid, show: list[str] | None, where: str | None,
              where_origin: Any = None, sampling: tuple[int | None, ...] | None = (None, None),
              units: dict[str, str | None] | None = None, build: Callable[..., Any] = make_plan) -> list[Any]:
    """One plan per combination of partition-axis values (one plan without them).
    `units` collects the display unit of each column (the first plan chooses).
    `build=check_plan` refuses what the plans would, compiling nothing: the sheets they are of."""
    units = {} if units is None else units
    if not grid.partition_axes:
        return [build(workbook, grid, show, where, where_origin, units, sampling=sampling)]
    if grid.rows is not None:
        raise AxisError("E-TYPE", "explicit rows cannot vary imports or array lengths", "use a mapping of axes")
    return [partition_plan(workbook, grid, picks, show, where, where_origin, sampling, units, build=build)
            for picks in grid.partitions()]


def partition_plan(workbook: Workbook, grid: Grid, picks: dict[str, int], show: list[str] | None,
                   where: str | None, where_origin: Any, sampling: tuple[int | None, ...] | None,
                   units: dict[str, str | None], locate: Callable[[str], str] = str,
                   build: Callable[..., Any] = make_plan) -> Any:
    """The plan of one combination of partition-axis values. `locate` maps an
    import axis's path to where the file is read from (a worker's copy)."""
    imports = {a.name: a.paths[picks[a.name]] for a in grid.import_axes}  # type: ignore[index]  # import axes have paths
    cells = {a.name: a.labels[picks[a.name]] for a in grid.partition_axes if not a.is_import}
    variant = workbook.variant({k: locate(v) for k, v in imports.items()}, cells)
    picked = ", ".join(f"{name}={value}" for name, value in {**imports, **cells}.items())
    if not variant.ok:
        d = variant.diagnostics[0]
        raise AxisError(d.code, f"with {picked}: {d.headline()}", d.hint)
    sub = Grid([rebind(variant, a) if not a.structural else a for a in grid.axes], None)
    try:
        plan = build(variant, sub, show, where, where_origin, units, picks, sampling)
    except AxisError as e:
        raise AxisError(e.code, f"with {picked}: {e.message}", e.hint, e.diagnostic.span) from None
    if isinstance(plan, Plan):
        plan.imports = imports
    return plan


def evaluate_chunk(plan: Plan, grid: Grid, start: int, stop: int, display: bool = True,
                   factored: Factored | None = None) -> pl.DataFrame:
    """Rows [start, stop) of the grid, evaluated, filtered and in display units;
    `factored` (the sweep's, for this plan: factored.py) gives the cells that vary
    with only some of the axes, computed once per combination of their values.

    Error codes are strings, costly to build for every row of every nullable
    cell, and almost always null: the first pass computes values only, and a
    chunk is evaluated again with its error columns only when a value is null.
    With random draws each row is evaluated once per sample (axes repeated,
    sample columns tiled) and reduced to the mean and percentiles."""
    import polars as pl   # deferred: polars
    if plan.draws:
        return _evaluate_sampled_chunk(plan, grid, start, stop, display)
    also = shown_axes(plan.columns) if display else None
    factored = factored if display else None
    tiles = None
    if grid.rows is None:   # the columns as tiles that repeat (tiling.py)
        tiling = Tiling.of(tuple(a.size for a in grid.value_axes))
        columns: dict[str, Any] = grid.tiled(tiling, start, stop, also)
        if factored is not None:
            columns.update(factored.columns(grid, start, stop, tiling))
        tiles = tiling.lengths(start, stop)
    else:   # explicit rows (never factored: factored.py)
        columns = grid.chunk(start, stop, also)
    axes = plan.program.frame(columns, stop - start, tiles)
    imports = [pl.lit(value).alias(name) for name, value in plan.imports.items()]
    values = [c for c in plan.columns if not c.is_error]
    # a #NUM cell's column holds its inf or NaN here (not masked: a pass saved per cell); the rows
    # shown are checked instead, and a chunk with one is evaluated again, masked and with its errors
    # (every cell row by row: the factored columns are computed over)
    frame = plan.program.apply(axes, errors=False, masked=False,
                               given=factored.factoring.skipped if factored is not None else frozenset())
    if plan.filter is not None:
        frame = frame.filter(plan.filter)
    shown = [factored.display(c) if factored is not None else c.display(display) for c in values]
    result = frame.select(imports + shown).collect()
    error_columns = [c for c in plan.columns if c.is_error]
    if not error_columns:
        return result
    # only a cell with an error column can hold one (an axis, a condition, a cell proven finite cannot)
    fallible = {name for c in error_columns for name in c.of}
    if not any(_has_error(result[c.header]) for c in values if c.source in fallible and not c.is_outside):
        return result.with_columns(pl.lit(None, pl.String).alias(c.header) for c in error_columns).select(
            [*plan.imports, *(c.header for c in plan.columns)])
    frame = plan.program.apply(axes, errors=True)
    if plan.filter is not None:
        frame = frame.filter(plan.filter)
    return frame.select(imports + [c.display(display) for c in plan.columns]).collect()


def _has_error(column: pl.Series) -> bool:
    """Whether a column of the unmasked first pass holds an error: a null, or a number that
    is not finite. (A finite sum has every term finite: one pass, no mask; only a sum that
    overflows needs the exact look.)"""
    import polars as pl   # deferred: polars
    if column.null_count():
        return True
    if column.dtype != pl.Float64 or math.isfinite(column.sum()):
        return False
    return not column.is_finite().all()


def _evaluate_sampled_chunk(plan: Plan, grid: Grid, start: int, stop: int, display: bool) -> pl.DataFrame:
    import polars as pl   # deferred: polars
    assert plan.draws is not None
    rows, samples = stop - start, plan.samples
    columns: dict[str, np.ndarray] = {k: np.repeat(v, samples) for k, v in
                                      grid.chunk(start, stop, shown_axes(plan.columns) if display else None).items()}
    columns.update({k: np.tile(v, rows) for k, v in plan.draws.items()})
    columns["__row"] = np.repeat(np.arange(rows), samples)
    frame = plan.program.apply(plan.program.frame(columns, rows * samples), errors=False)
    if plan.filter is not None:
        frame = frame.filter(plan.filter)
    aggregations = [pl.lit(value).alias(name) for name, value in plan.imports.items()]
    for column in plan.columns:
        if column.is_error:
            aggregations.append(_error_samples(column.of).alias(column.header))
            continue
        value = column.display(display)
        if column.is_outside:   # outside the model where any sample is
            aggregations.append(column.over_samples.alias(column.header))  # type: ignore[union-attr]  # set with is_outside (make_plan)
        elif column.statistic is None:
            aggregations.append(value.first())
        elif column.statistic == "mean":   # of the finite samples: finite, even where their sum overflows
            mean = value.mean()
            aggregations.append(pl.when(mean.is_finite() | mean.is_null()).then(mean)
                                .otherwise((value / value.count()).sum()))
        elif column.statistic == "share":
            aggregations.append(value.cast(pl.Float64).mean() * 100)
        else:
            aggregations.append(value.quantile(int(column.statistic[1:]) / 100, "linear"))
    return frame.group_by("__row", maintain_order=True).agg(aggregations).drop("__row").collect()


def _error_samples(values: tuple[str, ...]) -> pl.Expr:
    """A sampled cell's error column: how many of a row's samples hold an error value (a null
    in one of its value columns), in the words `run` uses; null when none do. The row's mean
    and percentiles are over the other samples: never shown as if every sample had a value."""
    import polars as pl   # deferred: polars
    errors, count = pl.any_horizontal([pl.col(c).is_null() for c in values]).sum(), pl.len()
    text = pl.format("{} of {} samples are error values", errors, count)
    return pl.when(errors > 0).then(text).otherwise(pl.lit(None, pl.String))


def factor(plan: Plan, grid: Grid, rows: int) -> Factored | None:
    """`plan`'s cells of only some axes for chunks of `rows` rows of `grid`, evaluated once per
    combination of their axes' values (factored.py): the grouping is decided once per plan, the
    groups evaluated once per sweep. None where nothing is (a sheet with random draws among them)."""
    if plan.draws:
        return None
    if rows not in plan.factorings:
        plan.factorings[rows] = factoring(plan.program, plan.columns, plan.filter, grid, rows)
    found = plan.factorings[rows]
    return Factored(found, evaluate_groups(plan.program, grid, found)) if found is not None else None


def iterate_chunks(plans: list[Plan], grid: Grid, chunk_rows: int = DEFAULT_CHUNK,
                   progress: Callable[[int, int], None] | None = None) -> Iterator[pl.DataFrame]:
    """The sweep's rows, chunk by chunk, in grid order. `progress(done, total)` hears of the
    rows done after each chunk; the engine draws nothing (the CLI draws a bar with it)."""
    total = grid.value_size() * len(plans)
    done = 0
    try:
        for plan in plans:
            rows = max(1, chunk_rows // plan.samples)   # a row of a sheet with draws is `samples` rows of the frame
            groups = factor(plan, grid, min(rows, grid.value_size()))
            for start in range(0, grid.value_size(), rows):
                stop = min(start + rows, grid.value_size())
                yield evaluate_chunk(plan, grid, start, stop, factored=groups)
                done += stop - start
                if progress is not None:
                    progress(done, total)
    finally:
        release()   # the arrays kept for the next chunk (kept.py)


def run_in_memory(workbook: Workbook, spec: SweepSpec) -> pl.DataFrame:
    import polars as pl   # deferred: polars
    frames = list(iterate_chunks(compiled_plans(workbook, spec), spec.grid))
    return drop_clean_error_columns(pl.concat(frames, how="diagonal_relaxed")) if frames else pl.DataFrame()


# The plans of the sweeps run last, by what they are compiled from: the same sweep run again
# (an editor's sweep after an edit elsewhere, a notebook's cell run twice) evaluates at once.
# A Workbook is never changed (an edit makes a new one): it is known by its identity, and
# held weakly, so a plan never outlives its sheet. Values are never kept: only compiled plans.
_compiled: OrderedDict[tuple, tuple[weakref.ref[Workbook], list[Plan]]] = OrderedDict()
_compiled_lock = threading.Lock()
PLANS_KEPT = 8


def compiled_plans(workbook: Workbook, spec: SweepSpec) -> list[Plan]:
    """`plans_for` the sweep `spec`, compiled once for a workbook and the same axes, shown
    cells and filter (an import axis's sheets are read anew each time: never kept)."""
    if spec.grid.import_axes:
        return plans_for(workbook, spec.grid, spec.show, spec.where, spec.where_origin)
    key = (id(workbook), grid_key(spec.grid), tuple(spec.show) if spec.show is not None else None, spec.where)
    with _compiled_lock:   # (the editor sweeps in worker threads)
        kept = _compiled.get(key)
        if kept is not None and kept[0]() is workbook:
            _compiled.move_to_end(key)
            return kept[1]
    plans = plans_for(workbook, spec.grid, spec.show, spec.where, spec.where_origin)
    with _compiled_lock:
        _compiled[key] = (weakref.ref(workbook), plans)
        while len(_compiled) > PLANS_KEPT:
            _compiled.popitem(last=False)
    return plans


def grid_key(grid: Grid) -> tuple:
    """What a grid's plans are compiled from: each axis's cell and values (a range by its
    ends and count, listed values as written and read), the explicit rows."""
    axes = tuple((a.name, a.key, a.shapes, tuple(a.paths) if a.paths is not None else None, a.spaced,
                  None if a.explicit is None else (a.explicit.dtype.str, a.explicit.tobytes()),
                  tuple(a.texts) if a.texts is not None else None) for a in grid.axes)
    rows = tuple(tuple(row.items()) for row in grid.rows) if grid.rows is not None else None
    return axes, rows


def drop_clean_error_columns(frame: pl.DataFrame) -> pl.DataFrame:
    """In-memory tables show an error column only where some row has an error."""
    clean = [c for c in frame.columns if is_error_header(c) and frame[c].null_count() == frame.height]
    return frame.drop(clean) if clean else frame   # (drop goes through a lazy plan: ~1 ms even for nothing)


def units_metadata(plans: list[Plan]) -> dict[str, str]:
    """Per-column units for Parquet metadata: {"supersheet.units": json}."""
    units = {}
    for column in plans[0].columns if plans else []:
        unit = split_header(column.header)[1]
        if unit and not column.is_error and not column.is_outside:
            units[column.header] = unit
    metadata = {"supersheet.units": json.dumps(units, ensure_ascii=False)}
    # A swept formula cell holds the axis values, not what its formula computes: say so.
    replaced = {c.header: c.replaces for c in (plans[0].columns if plans else []) if c.replaces is not None}
    if replaced:
        metadata["supersheet.overrides"] = json.dumps(replaced, ensure_ascii=False)
    return metadata
