"""A sweep chunk's columns built as tiles that repeat (engine/scenarios/tiling.py):
two tiles share their values only where every row holds the same values, the
tiled columns are the chunk's columns row for row, and a sweep cut into small
tiles gives the rows of one cut into none, bit for bit — factored or not, on a
sheet written to hold error values, #NUM, conditions and a varying `outside`
column, and on every sweep of the library with two axes or more.
"""
from __future__ import annotations

import itertools

import numpy as np
import polars as pl
import pytest
from repo_paths import BENCH
from sweep_cases import WRITTEN_SHEET, WRITTEN_VARY, library_sweeps

import supersheet.engine.scenarios.factored as factored_module
import supersheet.engine.scenarios.sweep as sweep_module
import supersheet.engine.scenarios.tiling as tiling_module
from supersheet.engine.scenarios.axes import cli_axis
from supersheet.engine.scenarios.sweep import Grid, SweepSpec, iterate_chunks, plans_for
from supersheet.engine.scenarios.tiling import Tiling, tile_length
from supersheet.engine.workbook import open_workbook



def indices(shape: tuple[int, ...], axis: int, first: int, rows: int) -> tuple[int, ...]:
    """The values (by index) of `axis` over rows [first, first + rows) of a grid of `shape`."""
    stride = int(np.prod(shape[axis + 1:], dtype=np.int64))
    return tuple((row // stride) % shape[axis] for row in range(first, first + rows))


def test_tiles_of_one_key_hold_the_same_values():
    """Brute force over small grids, every tile length, every set of axes and ranges that
    cut anywhere: tiles of one key walk the same values on each of their axes."""
    rng = np.random.default_rng(11)
    compared = shared = 0
    for _ in range(60):
        shape = tuple(int(n) for n in rng.integers(1, 6, size=int(rng.integers(1, 4))))
        size = int(np.prod(shape))
        for length in range(1, size + 1):
            tiling = Tiling(shape, length)
            start = int(rng.integers(0, size))
            stop = int(rng.integers(start + 1, size + 1))
            pieces = tiling.pieces(start, stop)
            assert pieces[0][0] == start and sum(rows for _, rows in pieces) == stop - start
            for count in range(len(shape) + 1):
                for axes in itertools.combinations(range(len(shape)), count):
                    seen: dict[tuple, tuple] = {}
                    for first, rows in pieces:
                        values = tuple(indices(shape, axis, first, rows) for axis in axes) + (rows,)
                        key = tiling.tile_key(axes, first, rows)
                        if key in seen:
                            assert seen[key] == values, (shape, length, axes, first, rows)
                            shared += 1
                        seen[key] = values
                        compared += 1
    assert compared > 5_000 and shared > 400, (compared, shared)


def test_pieces_are_cut_at_the_multiples_of_the_tile_length():
    """Short pieces at either end stay pieces: the tiled sweeps below, in tiles of 12 rows and
    chunks of 1, 2, 3 and 7 rows, are bit for bit the sweeps of whole columns."""
    tiling = Tiling((1000,), 10)
    assert tiling.pieces(8, 40) == [(8, 2), (10, 10), (20, 10), (30, 10)]
    assert tiling.pieces(0, 33) == [(0, 10), (10, 10), (20, 10), (30, 3)]
    assert tiling.pieces(5, 7) == [(5, 2)]
    assert tiling.pieces(9, 11) == [(9, 1), (10, 1)]


def test_tile_length_lets_the_grid_repeat():
    """Both benchmark grids: tiles of 62,500 rows (a divisor of the slow axis's runs, a
    multiple of the fast axes' periods), so tp-step's batch is one tile, context its
    250,000 values once, tp a value per tile; a prime-sized axis gets the morsel's length."""
    assert tile_length((4, 2500, 100), 100_000) == 62_500
    assert tile_length((4, 250_000), 100_000) == 62_500
    assert tile_length((1_000_003,), 100_000) == 100_000
    tiling = Tiling((4, 2500, 100), 62_500)
    assert tiling.copied_rows((2,), 0, 1_000_000) == 62_500
    assert tiling.copied_rows((1,), 0, 1_000_000) == 250_000
    assert tiling.copied_rows((0,), 0, 1_000_000) == 4                 # a tile of one value each
    assert tiling.copied_rows((0, 2), 0, 1_000_000) == 4 * 62_500
    assert tiling.copied_rows((), 0, 1_000_000) == 1


def test_tiled_columns_are_the_chunk_columns():
    workbook = open_workbook(BENCH / "tp-step.yaml")
    grid = Grid([cli_axis(workbook, v) for v in ["tp=1,2,4,8", "context=1024token..131072token:5", "batch=1..6"]])
    also = {"batch": ("#shown batch", np.arange(6) * 10.0)}
    rng = np.random.default_rng(3)
    size = grid.value_size()
    compared = 0
    for length in (4, 5, 6, 12, 30, 31, 120):
        tiling = Tiling(tuple(a.size for a in grid.value_axes), length)
        for _ in range(20):
            start = int(rng.integers(0, size))
            stop = int(rng.integers(start + 1, size + 1))
            plain, tiled = grid.chunk(start, stop, also), grid.tiled(tiling, start, stop, also)
            assert plain.keys() == tiled.keys()
            for name, values in plain.items():
                assert np.array_equal(tiled[name].to_numpy(), values), (length, start, stop, name)
                assert tiled[name].n_chunks() == len(tiling.pieces(start, stop))
                compared += 1
    assert compared == 7 * 20 * 4


def rows(workbook, spec: SweepSpec, chunk: int) -> pl.DataFrame:
    plans = plans_for(workbook, spec.grid, spec.show, spec.where, spec.where_origin)
    frames = list(iterate_chunks(plans, spec.grid, chunk))
    return pl.concat(frames, how="diagonal_relaxed") if frames else pl.DataFrame()


def whole_column(self, name, axes, start, stop, build) -> pl.Series:
    """A chunk's column built whole, as before tiles (`Tiling.column` without them)."""
    values = build(start, stop)
    return values.alias(name) if isinstance(values, pl.Series) else pl.Series(name, values)


def tiled_and_whole(monkeypatch, workbook, spec: SweepSpec, chunk: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The sweep's rows in tiles of at most 12 rows, and with every column built whole."""
    with monkeypatch.context() as patched:
        patched.setattr(tiling_module, "morsel_rows", lambda: 12)
        tiled = rows(workbook, spec, chunk)
    with monkeypatch.context() as patched:
        patched.setattr(tiling_module, "morsel_rows", lambda: 10**12)
        patched.setattr(Tiling, "column", whole_column)
        whole = rows(workbook, spec, chunk)
    return tiled, whole


@pytest.fixture(params=["factored", "row by row"])
def factor(request, monkeypatch):
    if request.param == "factored":   # every group, however small the grid and whatever it saves
        monkeypatch.setattr(factored_module, "SHARE", 0)
        monkeypatch.setattr(factored_module, "PAYS", 0)
        monkeypatch.setattr(factored_module, "OVERHEAD", 0)
    else:
        monkeypatch.setattr(sweep_module, "factor", lambda *args: None)
    return request.param


def test_written_sheet_same_rows_in_small_tiles(tmp_path, monkeypatch, factor):
    path = tmp_path / "t.yaml"
    path.write_text(WRITTEN_SHEET)
    workbook = open_workbook(path)
    assert workbook.ok, workbook.diagnostics
    grid = Grid([cli_axis(workbook, v) for v in WRITTEN_VARY])
    compared = 0
    for where in (None, "half > 0.6 and ratio < 4", "flag"):
        spec = SweepSpec("t", grid, None, where)
        for chunk in (grid.value_size(), 1, 2, 3, 7, 16, 35, 50):
            tiled, whole = tiled_and_whole(monkeypatch, workbook, spec, chunk)
            assert tiled.columns == whole.columns and tiled.height == whole.height > 0
            assert tiled.equals(whole), (factor, where, chunk)   # bit for bit: NaN, -0.0 and nulls included
            compared += 1
    assert compared == 24


def test_library_sweeps_same_rows_in_small_tiles(monkeypatch, factor):
    compared = 0
    for where, workbook, spec, _ in library_sweeps():
        size = spec.grid.value_size()
        for chunk in {size, 5, 7}:   # last chunks of 1 to 3 rows among them (exact division: test_sweep_exact.py)
            tiled, whole = tiled_and_whole(monkeypatch, workbook, spec, chunk)
            assert tiled.equals(whole), (where, chunk)
            compared += 1
    assert compared >= 10, compared
