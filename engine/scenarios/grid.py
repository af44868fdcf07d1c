"""A sweep's grid: the Cartesian product of its axes (first axis slowest) or
explicit rows, generated chunk by chunk from row indices so that memory stays
that of one chunk. Axes that need a sheet compiled per value (imports, array
lengths) are partitions: they vary slowest."""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from supersheet.engine.load.positions import scalar_text
from supersheet.engine.scenarios.axes import Axis, AxisError, value_axis, yaml_axis
from supersheet.engine.workbook import Workbook


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

    def chunk(self, start: int, stop: int) -> dict[str, np.ndarray]:
        """Axis columns (by cell key) for value-grid rows [start, stop)."""
        if self.rows is not None:
            columns: dict[str, np.ndarray] = {}
            for axis in self.value_axes:
                picks = np.array([row[axis.name] for row in self.rows[start:stop]])
                columns[axis.key] = axis.values[picks]  # type: ignore[index]
            return columns
        # Each axis column repeats each value `stride` times, then starts over.
        # Built per chunk from the blocks it overlaps: memory stays that of the chunk.
        columns = {}
        stride = 1
        for axis in reversed(self.value_axes):
            columns[axis.key] = _axis_chunk(axis.values, stride, start, stop)  # type: ignore[index,arg-type]
            stride *= axis.size
        return columns

    def partitions(self) -> list[dict[str, int]]:
        """Every combination of partition-axis values, as axis name -> value index."""
        axes = self.partition_axes
        return [dict(zip((a.name for a in axes), combo)) for combo in itertools.product(*(range(a.size) for a in axes))]


def _axis_chunk(values: np.ndarray, stride: int, start: int, stop: int) -> np.ndarray:
    """Rows [start, stop) of the column values[(row // stride) % len(values)]."""
    period = len(values) * stride
    if period <= stop - start:   # a short period: tile it (a memory copy)
        offset = start % period
        reps = -(-(offset + stop - start) // period)
        return np.tile(np.repeat(values, stride), reps)[offset:offset + stop - start]
    first, last = start // stride, (stop - 1) // stride
    blocks = np.arange(first, last + 1, dtype=np.int64)
    lengths = np.full(len(blocks), stride, dtype=np.int64)
    lengths[0] = min((first + 1) * stride, stop) - start
    if len(blocks) > 1:
        lengths[-1] = stop - last * stride
    return np.repeat(values[blocks % len(values)], lengths)


def parse_vary(workbook: Workbook, vary: Any) -> Grid:
    """A `vary:` value from YAML: a mapping of axes, or a list of explicit rows."""
    if isinstance(vary, CommentedMap):
        return Grid([yaml_axis(workbook, str(name), vary[name]) for name in vary])
    if isinstance(vary, CommentedSeq) and all(isinstance(r, CommentedMap) for r in vary) and vary:
        names: list[str] = []
        for row in vary:
            names.extend(str(k) for k in row if str(k) not in names)
        texts: dict[str, list[str]] = {n: [] for n in names}
        rows: list[dict[str, int]] = []
        baseline = None
        for row in vary:
            picks: dict[str, int] = {}
            for name in names:
                if name in row:
                    text = scalar_text(row[name])
                    if text is None:
                        raise AxisError("E-SHEET", f"row value of {name} must be a number or quantity")
                else:
                    baseline = baseline or workbook.evaluate()
                    key = workbook.key_for(name)
                    if key is None:
                        raise AxisError("E-NAME", f"unknown cell {name!r}", workbook.name_hint(name))
                    text = workbook.model.cells[key].spec.text
                picks[name] = len(texts[name])
                texts[name].append(text)
            rows.append(picks)
        return Grid([value_axis(workbook, n, texts[n]) for n in names], rows)
    raise AxisError("E-SHEET", "'vary' must be a mapping of axes or a list of rows")
