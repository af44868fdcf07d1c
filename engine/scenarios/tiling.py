"""A sweep chunk's columns built as tiles that repeat, not as whole columns.

A grid's columns are periodic: in tp x context x batch (first axis slowest),
`batch` repeats its 100 values all along, `tp` holds one value for 250,000
rows at a time, and a cell of tp and batch alone repeats its 100 values of one
tp for as long. So a chunk's rows are cut into tiles at the multiples of one
tile length, and a tile that holds the same values as one built before for
the same column is that one again: the column is a Polars series of chunks
that share memory, and Polars reads one block from the cache again and again
where a whole column cost a page fault and a cleared page per 4 KiB (~2 ms
per 10^6 floats, as much as several arithmetic passes: kept.py) and a pass of
memory. Which tiles are the same is known from the axes alone (`tile_key`):
two tiles of a column of some axes hold the same values exactly when, on
each of those axes, their rows walk the same values in the same order.

The tile length is chosen from the grid's shape (`tile_length`): a multiple of
the rows of the axes that vary faster than some axis and a divisor of that
axis's period, so each faster axis repeats whole in every tile, each slower
one is the same value for the whole tile, and only that axis's tiles differ.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable

from supersheet.engine.compile.evaluate import morsel_rows

if TYPE_CHECKING:
    import polars as pl


@dataclass(frozen=True)
class Tiling:
    """How the columns of a grid's chunks are cut: tiles of `length` rows at its multiples."""
    shape: tuple[int, ...]   # the value axes' sizes, first slowest
    length: int

    @classmethod
    def of(cls, shape: tuple[int, ...]) -> Tiling:
        return cls(shape, tile_length(shape, morsel_rows()))

    def pieces(self, start: int, stop: int) -> list[tuple[int, int]]:
        """Rows [start, stop) cut at the multiples of the tile length: (first row, rows) each,
        a piece of a row or two at either end included. (Polars picks its kernel by the frame's
        length, not a piece's: a piece of one row in a longer column is computed as its
        neighbours are; the sweep's divisions are exact anyway: test_tiling.py, chunks of 1-3 rows.)"""
        cuts = [start, *range((start // self.length + 1) * self.length, stop, self.length), stop]
        return [(a, b - a) for a, b in zip(cuts, cuts[1:])]

    def lengths(self, start: int, stop: int) -> list[int]:
        return [rows for _, rows in self.pieces(start, stop)]

    def tile_key(self, axes: tuple[int, ...], first: int, rows: int) -> tuple:
        """What the values of a column of `axes` (grid axis indices) over rows
        [first, first + rows) depend on: on each axis, the value it holds (where the
        tile stays within one run of it) or where in its period the tile starts."""
        key: list[Any] = [rows]
        for axis in axes:
            stride = math.prod(self.shape[axis + 1:])
            size = self.shape[axis]
            if first % stride + rows <= stride:
                key.append((first // stride) % size)
            else:
                key.append(-1 - first % (stride * size))
        return tuple(key)

    def column(self, name: str, axes: tuple[int, ...], start: int, stop: int,
               build: Callable[[int, int], Any]) -> pl.Series:
        """The column `name` of a cell of `axes` over rows [start, stop): `build(first, stop)`
        makes a tile's values (a NumPy array or a Series), once per distinct tile."""
        import polars as pl   # deferred: polars
        made: dict[tuple, pl.Series] = {}
        parts = []
        for first, rows in self.pieces(start, stop):
            key = self.tile_key(axes, first, rows)
            part = made.get(key)
            if part is None:
                constant = all(on >= 0 for on in key[1:])   # one value on each axis: one value
                values = build(first, first + 1 if constant else first + rows)
                part = values.alias(name) if isinstance(values, pl.Series) else pl.Series(name, values)
                if constant and rows > 1:   # in Polars' memory, which it reuses (NumPy's new pages fault)
                    part = part.new_from_index(0, rows)
                made[key] = part
            parts.append(part)
        return parts[0] if len(parts) == 1 else pl.concat(parts, rechunk=False)

    def copied_rows(self, axes: tuple[int, ...], start: int, stop: int) -> int:
        """The rows `column` copies for a column of `axes` over rows [start, stop): those of
        its distinct tiles, one for a tile of one value (Polars repeats it, at memset speed)."""
        keys = {self.tile_key(axes, first, rows) for first, rows in self.pieces(start, stop)}
        return sum(1 if all(on >= 0 for on in key[1:]) else key[0] for key in keys)


@lru_cache(maxsize=64)
def tile_length(shape: tuple[int, ...], target: int) -> int:
    """The tile length for a grid of `shape`: some axis's stride (the rows of the axes
    after it) times a divisor of its size — the largest such length up to `target`
    rows (a morsel), or the smallest above it up to 4x; else `target` itself (the
    tiles still repeat where they can, only less often)."""
    candidates: set[int] = set()
    for axis, size in enumerate(shape):
        stride = math.prod(shape[axis + 1:])
        candidates.update(stride * d for d in _divisors(size))
    below = [c for c in candidates if target // 16 <= c <= target]
    if below:
        return max(below)
    above = [c for c in candidates if target < c <= 4 * target]
    return min(above) if above else target


def _divisors(n: int) -> list[int]:
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return small + [n // d for d in small]

