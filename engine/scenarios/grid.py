"""A sweep's grid: the Cartesian product of its axes (first axis slowest) or
explicit rows, generated chunk by chunk from row indices so that memory stays
that of one chunk. Axes that need a sheet compiled per value (imports, array
lengths) are partitions: they vary slowest."""
from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from supersheet.engine.base.span import Span
from supersheet.engine.formula import ast as A
from supersheet.engine.load.literals import Literal, listed_value, of_node, plain_number
from supersheet.engine.load.positions import scalar_text
from supersheet.engine.load.sheetfile import CellSpec
from supersheet.engine.load.specs import RowValue, VarySpec
from supersheet.engine.scenarios.axes import Axis, AxisError, located, spec_axis, value_axis
from supersheet.engine.scenarios.kept import kept_array
from supersheet.engine.scenarios.tiling import Tiling
from supersheet.engine.workbook import Workbook

if TYPE_CHECKING:
    import polars as pl


@dataclass
class Grid:
    """Axes of a Cartesian product, or explicit rows (each a mapping)."""

    axes: list[Axis]
    rows: list[dict[str, int]] | None = None   # explicit rows: axis name -> index into that axis's values

    @property
    def value_axes(self) -> list[Axis]:
        """Axes that are columns of one compiled sheet."""
        return [a for a in self.axes if not a.structural]

    @property
    def import_axes(self) -> list[Axis]:
        return [a for a in self.axes if a.is_import]

    @property
    def partition_axes(self) -> list[Axis]:
        """Axes that need a compiled sheet per value (imports, array lengths): they vary slowest."""
        return [a for a in self.axes if a.structural]

    def size(self) -> int:
        if self.rows is not None:
            return len(self.rows)
        return int(np.prod([a.size for a in self.axes], dtype=object)) if self.axes else 1

    def value_size(self) -> int:
        if self.rows is not None:
            return len(self.rows)
        return int(np.prod([a.size for a in self.value_axes], dtype=object)) if self.value_axes else 1

    def chunk(self, start: int, stop: int, also: dict[str, tuple[str, np.ndarray]] | None = None
              ) -> dict[str, np.ndarray]:
        """Axis columns (by cell key) for value-grid rows [start, stop). `also` maps an axis's
        key to another column of the same rows (its name, and what it holds for each of the
        axis's values): an axis's values in their display unit, computed once per value."""
        also = also or {}
        if self.rows is not None:
            columns: dict[str, np.ndarray] = {}
            for axis in self.value_axes:
                picks = np.array([row[axis.name] for row in self.rows[start:stop]])
                columns[axis.cell_key] = axis.values[picks]
                if axis.key in also:
                    columns[also[axis.key][0]] = also[axis.key][1][picks]
            return columns
        # Each axis column repeats each value `stride` times, then starts over.
        # Built per chunk from the blocks it overlaps: memory stays that of the chunk.
        columns = {}
        stride = 1
        for axis in reversed(self.value_axes):
            columns[axis.cell_key] = _axis_chunk(axis.values, stride, start, stop)
            if axis.key in also:
                columns[also[axis.key][0]] = _axis_chunk(also[axis.key][1], stride, start, stop)
            stride *= axis.size
        return columns

    def tiled(self, tiling: Tiling, start: int, stop: int, also: dict[str, tuple[str, np.ndarray]] | None = None
              ) -> dict[str, pl.Series]:
        """`chunk`'s columns (a grid of axes, not of explicit rows) as series of tiles that
        repeat (tiling.py): a tile holding the same values as one before is that one again."""
        also = also or {}
        columns = {}
        stride = 1
        for index in reversed(range(len(self.value_axes))):
            axis = self.value_axes[index]
            built = [(axis.cell_key, axis.values)] + ([also[axis.key]] if axis.key in also else [])
            for name, values in built:
                columns[name] = tiling.column(name, (index,), start, stop, functools.partial(
                    _axis_chunk, values, stride, kept=False))
            stride *= axis.size
        return columns

    def partitions(self) -> list[dict[str, int]]:
        """Every combination of partition-axis values, as axis name -> value index."""
        axes = self.partition_axes
        return [dict(zip((a.name for a in axes), combo)) for combo in itertools.product(*(range(a.size) for a in axes))]


def _axis_chunk(values: np.ndarray, stride: int, start: int, stop: int, kept: bool = True) -> np.ndarray:
    """Rows [start, stop) of the column values[(row // stride) % len(values)] (`kept`: in
    an array kept for the next chunk, kept.py)."""
    period = len(values) * stride
    first_period, last_period = start // period, (stop - 1) // period
    periods = last_period - first_period + 1
    if periods * period <= 2 * (stop - start):
        # whole periods as one broadcast view (periods x values x stride), copied once, as
        # np.meshgrid(...).ravel() does; tile(repeat(...)) copied twice
        offset = start - first_period * period
        block = np.broadcast_to(values[None, :, None], (periods, len(values), stride))
        whole = kept_array(block.size) if kept and values.dtype == np.float64 else np.empty(block.size, values.dtype)
        np.copyto(whole.reshape(block.shape), block)
        return whole[offset:offset + stop - start]
    first, last = start // stride, (stop - 1) // stride   # a few long blocks: each value repeated
    blocks = np.arange(first, last + 1, dtype=np.int64)
    lengths = np.full(len(blocks), stride, dtype=np.int64)
    lengths[0] = min((first + 1) * stride, stop) - start
    if len(blocks) > 1:
        lengths[-1] = stop - last * stride
    return np.repeat(values[blocks % len(values)], lengths)


def parse_vary(workbook: Workbook, vary: VarySpec) -> Grid:
    """A `vary:` (load/specs.py): a mapping of axes, or a list of explicit rows."""
    grid, problems = build_grid(workbook, vary)
    if problems:
        raise problems[0]
    assert grid is not None
    return grid


def build_grid(workbook: Workbook, vary: VarySpec) -> tuple[Grid | None, list[AxisError]]:
    """The grid of a `vary:`, or every problem of it, each at its own place (each axis is
    built once; a range's values are only counted)."""
    if vary.problem is not None:
        return None, [AxisError.of(vary.problem)]
    if vary.rows is not None:
        try:
            return _rows_grid(workbook, vary), []
        except AxisError as e:
            return None, [e]
    axes, problems = [], []
    for spec in vary.axes:
        try:
            axes.append(spec_axis(workbook, spec))
        except AxisError as e:
            problems.append(e)
    return (None, problems) if problems else (Grid(axes), [])


def _as_written(spec: CellSpec) -> Literal:
    """A row that leaves a cell as it is: its input as the sheet wrote it (parsed when it loaded)."""
    formula = spec.formula
    if spec.kind == "input" and formula is not None and not isinstance(formula.expr, A.Array) \
            and plain_number(spec.text) is None:
        return of_node(spec.text, formula.expr)
    return listed_value(spec.text)   # a plain number, or what is no value here (a formula, an array): as listed


def _rows_grid(workbook: Workbook, vary: VarySpec) -> Grid:
    assert vary.rows is not None
    named: dict[str, RowValue] = {}   # each axis's first value, where a problem of the axis is shown
    for row in vary.rows:
        for cell in row:
            named.setdefault(cell.name, cell)
    values: dict[str, list[Literal]] = {n: [] for n in named}
    spans: dict[str, list[Span]] = {n: [] for n in named}
    rows: list[dict[str, int]] = []
    for row in vary.rows:
        given = {cell.name: cell for cell in row}
        picks: dict[str, int] = {}
        for name in named:
            if name in given:
                written = given[name].value
                value, span = written.literal or listed_value(scalar_text(written.value)), written.span
            else:
                key = workbook.key_for(name)
                if key is None:
                    raise AxisError.of(workbook.unknown_cell(name, named[name].span))
                value, span = _as_written(workbook.model.cells[key].spec), named[name].span
            picks[name] = len(values[name])
            values[name].append(value)
            spans[name].append(span)
        rows.append(picks)
    axes = []
    for name in named:
        try:
            axes.append(value_axis(workbook, name, values[name], spans[name]))
        except AxisError as e:
            raise located(e, named[name].span) from None
    return Grid(axes, rows)


