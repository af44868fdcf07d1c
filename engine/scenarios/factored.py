"""A sweep's cells that vary with only some of its axes, evaluated once per
combination of those axes' values instead of once per row.

In a grid of tp x context x batch, `rounds = 2 * (tp - 1)` has four values,
whatever the number of rows; a cell of tp and batch has 400. Such a cell (its
axes few enough that their combinations are at most 1/SHARE of a chunk's rows)
is computed over those combinations — the same Polars expressions over fewer
rows, so the same doubles — and its column is built for a chunk's rows only
where a row-wise formula, the filter or an output column reads it: as tiles
that repeat (tiling.py: a cell of tp and batch is the same 100 values again
and again for a whole tp), each distinct tile a strided copy in NumPy (a gather
by index for anything but floats without nulls; one value repeated by Polars
where the tile holds one; a literal for an output that is the same in every
row, as an assumption that always holds). An output column of such cells alone
is computed in its display unit there too. A hand-written plan computes every
cell once per row.

A row copied into fresh memory costs about what six arithmetic passes over a
row cost in Polars (which reuses its memory), and a group's evaluation about a
pass over OVERHEAD rows: a group of axes is factored only where the operations
per row it saves pay for the rows its tiles copy and that (PAYS, OVERHEAD;
bench/bench_sweep.py).

Only the first pass of `evaluate_chunk` reads these (values: no error columns,
no mask); a chunk that holds an error is evaluated again row by row, as before.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from supersheet.engine.formula import ast as A
from supersheet.engine.scenarios.tiling import Tiling

if TYPE_CHECKING:
    import polars as pl

    from supersheet.engine.compile.evaluate import Program
    from supersheet.engine.scenarios.grid import Grid
    from supersheet.engine.scenarios.sweep_columns import Column

DISPLAY = "#factored "   # an output column computed in its group: DISPLAY + its header
SHARE = 8                # a group's combinations are at most 1/SHARE of a chunk's rows
PAYS = 6                 # operations saved per row of a tile copied, at least,
OVERHEAD = 250_000       # and for the group's own evaluation (~0.2 ms: a pass over this many rows)


@dataclass
class Group:
    """Axes (indices into the grid's value axes) and what is computed over their combinations."""
    axes: tuple[int, ...]
    exports: dict[str, pl.Expr] = field(default_factory=dict)   # a chunk's column -> its expression here
    saved: int = 0                                               # operations per row it saves


@dataclass
class Factoring:
    groups: list[Group]
    skipped: frozenset[str]      # cells not computed per row: their columns, where read, come from a group
    displays: dict[str, str]     # an output column's header -> the group's column holding it


@dataclass
class Expanded:
    """A group's columns over its combinations, shaped to broadcast over the grid's axes."""
    shape: tuple[int, ...]                 # 1 on the axes the group does not vary with
    arrays: dict[str, np.ndarray] = field(default_factory=dict)   # floats without nulls: copied by NumPy
    series: dict[str, pl.Series] = field(default_factory=dict)    # anything else: gathered by index
    constants: dict[str, Any] = field(default_factory=dict)       # an output the same in every row: a literal


@dataclass
class Factored:
    """A plan's factoring with its groups evaluated: what a sweep's chunks read. Evaluated
    once per sweep and plan, when the sweep starts (a plan is reused; its values are not)."""
    factoring: Factoring
    groups: list[Expanded]

    def columns(self, grid: Grid, start: int, stop: int, tiling: Tiling) -> dict[str, pl.Series]:
        """The groups' columns for grid rows [start, stop), as tiles that repeat: a group's
        column repeats as its axes do (tiling.py)."""
        full = tuple(a.size for a in grid.value_axes)
        columns: dict[str, pl.Series] = {}
        for group, axes in zip(self.groups, (g.axes for g in self.factoring.groups)):
            for name, values in group.arrays.items():
                columns[name] = tiling.column(name, axes, start, stop, functools.partial(rows_of, values, full))
            if group.series:
                index = np.arange(math.prod(group.shape), dtype=np.uint32).reshape(group.shape)
                for name, series in group.series.items():
                    columns[name] = tiling.column(name, axes, start, stop, functools.partial(_gathered, series, index, full))
        return columns

    def display(self, column: Column) -> pl.Expr:
        """An output column as the chunk's select reads it."""
        import polars as pl   # deferred: polars
        name = self.factoring.displays.get(column.header)
        if name is None:
            return column.display(True)
        for group in self.groups:
            if name in group.constants:
                return group.constants[name].alias(column.header)
        return pl.col(name).alias(column.header)


def factoring(program: Program, columns: list[Column], filter: pl.Expr | None, grid: Grid,
              rows: int) -> Factoring | None:
    """Which cells and output `columns` of a sweep's `program` (rows kept by `filter`) a chunk of
    `rows` rows takes from groups of its axes (None: a grid of explicit rows, one axis, nothing
    that pays). Not for a sheet with random draws (a row is many samples there)."""
    axes = grid.value_axes
    if grid.rows is not None or len(axes) < 2:
        return None
    position = {axis.key: i for i, axis in enumerate(axes)}
    every = frozenset(range(len(axes)))
    of_cell: dict[str, frozenset[int]] = {key: frozenset({position[key]}) for key in program.inputs if key in position}
    for layer in program.layers:
        for key in layer:
            of_cell[key] = frozenset().union(*(of_cell.get(d, frozenset()) for d in program.checked.cells[key].deps))

    def eligible(group: frozenset[int]) -> bool:
        return bool(group) and group != every and math.prod(axes[i].size for i in group) * SHARE <= rows

    candidates = {key for key, compiled in program.compiled.items()
                  if eligible(of_cell[key]) and [name for name, _ in compiled.columns] == [key]}
    tiling = Tiling.of(tuple(axis.size for axis in axes))

    def cost(group: Group) -> float:
        """A group's evaluation and its columns' copies, in operations per row of the chunk:
        PAYS for every row of the tiles its columns copy (tiling.py)."""
        copied = PAYS * len(group.exports) * tiling.copied_rows(group.axes, 0, rows)
        return (copied + OVERHEAD) / rows

    while candidates:
        found = _factoring(program, columns, filter, of_cell, frozenset(candidates), every, eligible)
        unpaid = [frozenset(group.axes) for group in found.groups if group.saved < cost(group)]
        if not unpaid:
            return found if found.groups else None
        candidates = {key for key in candidates if not any(of_cell[key] <= axes_of for axes_of in unpaid)}
    return None


def _factoring(program: Program, columns: list[Column], filter: pl.Expr | None, of_cell: dict[str, frozenset[int]],
               skipped: frozenset[str], every: frozenset[int], eligible: Callable[[frozenset[int]], bool]) -> Factoring:
    import polars as pl   # deferred: polars
    of_column: dict[str, frozenset[int]] = {name: frozenset() for name in program.divisors}
    for key, axes_of in of_cell.items():
        compiled = program.compiled.get(key)
        for name, _ in compiled.columns if compiled is not None else [(key, None)]:
            of_column[name] = axes_of
    groups: dict[frozenset[int], Group] = {}

    def group_of(axes_of: frozenset[int]) -> Group:
        return groups.setdefault(axes_of, Group(tuple(sorted(axes_of))))

    # what is read row by row: the cells not skipped, the filter, and the outputs that read none
    # of the skipped cells or could not be computed in a group (an axis, a cell of every axis)
    read = [expr for key, compiled in program.compiled.items() if key not in skipped for _, expr in compiled.columns]
    if filter is not None:
        read.append(filter)
    outputs = [(c.header, c.display(True)) for c in columns if not c.is_error and c.shown is None]
    in_groups = []
    for header, expr in outputs:
        roots = expr.meta.root_names()
        axes_of = frozenset().union(*(of_column.get(name, every) for name in roots))
        if eligible(axes_of) and any(name in skipped for name in roots):
            in_groups.append((header, expr, roots, axes_of))
        else:
            read.append(expr)
    exported = {name for expr in read for name in expr.meta.root_names() if name in skipped}
    displays: dict[str, str] = {}
    for header, expr, roots, axes_of in in_groups:
        if all(name in exported or name not in skipped for name in roots):
            exported.update(roots)   # its cells are copied anyway: converted row by row, one pass
            continue
        name = DISPLAY + header
        group_of(axes_of).exports[name] = expr.alias(name)
        group_of(axes_of).saved += not expr.meta.undo_aliases().meta.is_column()   # its conversion
        displays[header] = name
    for name in exported & skipped:
        group_of(of_cell[name]).exports[name] = pl.col(name)
    for group in groups.values():   # the operations the skipped cells it computes would cost per row
        needed = program.needed(n for e in group.exports.values() for n in e.meta.root_names())
        cells = program.checked.model.cells
        group.saved += sum(_operations(getattr(cells[key].formula, "expr", None)) for key in needed & skipped)
    return Factoring(list(groups.values()), skipped, displays)


def _operations(node: A.Node | None) -> int:
    count, stack = 0, [node] if node is not None else []
    while stack:
        current = stack.pop()
        count += isinstance(current, (A.Binary, A.Unary, A.Call))
        stack.extend(A.children(current))
    return count


def evaluate_groups(program: Program, grid: Grid, factoring: Factoring) -> list[Expanded]:
    """Each group's columns over its combinations of axis values (first axis slowest, as the grid)."""
    import polars as pl   # deferred: polars
    axes = grid.value_axes
    frames, shapes = [], []
    for group in factoring.groups:
        picked = [axes[i] for i in group.axes]
        columns = [m.ravel() for m in np.meshgrid(*(a.values for a in picked), indexing="ij")]
        if len(columns[0]) == 1:   # a one-row frame's columns are single values to Polars: see below
            columns = [np.repeat(c, 2) for c in columns]
        frame = program.frame({str(a.key): c for a, c in zip(picked, columns)}, len(columns[0]))
        needed = {name for expr in group.exports.values() for name in expr.meta.root_names()}
        frames.append(program.apply(frame, needed, errors=False, masked=False).select(group.exports.values()))
        shapes.append(tuple(a.size if i in group.axes else 1 for i, a in enumerate(axes)))
    out = []
    # Polars divides a column by a number as a product with its reciprocal, but a single value
    # by a number exactly (1 ulp apart): the streaming engine cuts a frame of a few rows into
    # one-row pieces, so the groups' frames go through the in-memory engine, two rows or more,
    # and convert to display units as a chunk's thousands of rows do.
    for result, shape in zip(pl.collect_all(frames, engine="in-memory"), shapes):   # (together: one dispatch)
        expanded = Expanded(shape)
        result = result.head(math.prod(shape))
        for name in result.columns:
            column = result[name]
            if name.startswith(DISPLAY) and _constant(column):
                expanded.constants[name] = pl.lit(column[0], dtype=column.dtype)
            elif column.dtype.is_float() and not column.null_count():
                expanded.arrays[name] = column.to_numpy().reshape(shape)
            else:
                expanded.series[name] = column
        out.append(expanded)
    return out


def _constant(column: pl.Series) -> bool:
    """The same value in every row, bit for bit (-0.0 is not 0.0), or null in every row."""
    if column.null_count():
        return column.null_count() == len(column)
    if column.dtype.is_float():
        bits = column.to_numpy().view(np.uint64)
        return bool((bits == bits[0]).all())
    return column.n_unique() == 1


def _gathered(series: pl.Series, index: np.ndarray, shape: tuple[int, ...], start: int, stop: int) -> pl.Series:
    return series.gather(rows_of(index, shape, start, stop))


def rows_of(values: np.ndarray, shape: tuple[int, ...], start: int, stop: int) -> np.ndarray:
    """Rows [start, stop) of `values` broadcast to the grid's `shape` and flattened (first axis
    slowest), building no more than about twice the rows asked for: the whole slabs of the
    first axis they reach at once where that is no more, else each slab's part on its own."""
    if len(shape) == 1:
        return np.broadcast_to(values, shape)[start:stop].copy()
    slab = math.prod(shape[1:])
    first, last = start // slab, (stop - 1) // slab
    if (last - first + 1) * slab <= 2 * (stop - start):
        block = np.broadcast_to(values, shape)[first:last + 1]
        out = np.empty(block.size, values.dtype)
        np.copyto(out.reshape(block.shape), block)
        return out[start - first * slab:stop - first * slab]
    pieces = [rows_of(values[i if values.shape[0] > 1 else 0], shape[1:],
                      max(start, i * slab) - i * slab, min(stop, (i + 1) * slab) - i * slab)
              for i in range(first, last + 1)]
    return pieces[0] if len(pieces) == 1 else np.concatenate(pieces)
