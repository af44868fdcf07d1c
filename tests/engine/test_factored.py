"""A sweep's cells of only some axes, evaluated once per combination of those axes'
values (engine/scenarios/factored.py), give the very rows of a row-by-row evaluation:
the same doubles bit for bit, the same error columns, the same filtered rows, in one
chunk and in chunks that cut the grid anywhere — on a sheet written to hold error
values, #NUM, conditions and a varying `outside` column, and on every sweep of the
library with two axes or more. (Chunks of one to three rows included: a display
unit's conversion is an exact division whatever the chunk's length, test_sweep_exact.py.)
"""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from repo_paths import BENCH, SHEETS
from sweep_cases import WRITTEN_SHEET, WRITTEN_VARY, library_sweeps

import supersheet.engine.scenarios.factored as factored_module
import supersheet.engine.scenarios.kept as kept_module
import supersheet.engine.scenarios.sweep as sweep_module
from supersheet.engine.scenarios.axes import cli_axis
from supersheet.engine.scenarios.factored import factoring as factoring_of, rows_of
from supersheet.engine.scenarios.sweep import (
    Grid,
    SweepSpec,
    iterate_chunks,
    plans_for,
)
from supersheet.engine.present.headers import error_header
from supersheet.engine.workbook import open_workbook



def factoring(plan, grid, rows):
    return factoring_of(plan.program, plan.columns, plan.filter, grid, rows)


def rows(workbook, spec: SweepSpec, chunk: int, factor: bool) -> pl.DataFrame:
    plans = plans_for(workbook, spec.grid, spec.show, spec.where, spec.where_origin)
    if not factor:
        real = sweep_module.factor
        sweep_module.factor = lambda *args: None
        try:
            frames = list(iterate_chunks(plans, spec.grid, chunk))
        finally:
            sweep_module.factor = real
    else:
        frames = list(iterate_chunks(plans, spec.grid, chunk))
    return pl.concat(frames, how="diagonal_relaxed") if frames else pl.DataFrame()


@pytest.fixture
def always(monkeypatch):
    """Factor every group however small the grid and whatever it saves."""
    monkeypatch.setattr(factored_module, "SHARE", 0)
    monkeypatch.setattr(factored_module, "PAYS", 0)
    monkeypatch.setattr(factored_module, "OVERHEAD", 0)


def test_written_sheet_same_rows_in_any_chunks(tmp_path, always):
    path = tmp_path / "f.yaml"
    path.write_text(WRITTEN_SHEET)
    workbook = open_workbook(path)
    assert workbook.ok, workbook.diagnostics
    grid = Grid([cli_axis(workbook, v) for v in WRITTEN_VARY])
    plan = plans_for(workbook, grid, None, None, None)[0]
    found = factoring(plan, grid, grid.value_size())
    assert found is not None and {"inv", "big", "flag", "half", "scaled", "steps"} <= found.skipped
    assert "ratio" not in found.skipped   # of every axis: row by row
    compared = 0
    for where in (None, "half > 0.6 and ratio < 4", "flag"):
        spec = SweepSpec("f", grid, None, where)
        for chunk in (grid.value_size(), 1, 2, 3, 7, 16, 35, 50):
            ours, plain = rows(workbook, spec, chunk, True), rows(workbook, spec, chunk, False)
            assert ours.columns == plain.columns and ours.height == plain.height > 0
            assert ours.equals(plain), (where, chunk)   # bit for bit: NaN and -0.0 and nulls included
            compared += 1
    assert compared == 24
    frame = rows(workbook, SweepSpec("f", grid, None, None), grid.value_size(), True)
    assert frame[error_header("inv")].drop_nulls().unique().to_list() == ["#DIV/0"]   # errors survive the factoring
    assert frame["outside [assumptions]"].n_unique() > 2                     # a string column that varies


def test_library_sweeps_same_rows(always):
    compared = factored = 0
    for where, workbook, spec, plans in library_sweeps():
        grid = spec.grid
        factored += any(factoring(p, grid, grid.value_size()) is not None for p in plans)
        for chunk in {grid.value_size(), 5, 6, 7}:   # last chunks of 1 to 3 rows among them
            ours, plain = rows(workbook, spec, chunk, True), rows(workbook, spec, chunk, False)
            assert ours.equals(plain), (where, chunk)
            compared += 1
    assert factored >= 5 and compared >= factored, (factored, compared)


def test_decode_step_factors_its_tp_cells_only_where_it_pays():
    """At 10^6 rows the decode step's cells of tp alone are computed four times, not a
    million; bench/tp-step.yaml's cells of tp and batch 400 times: their columns are tiles
    that repeat (tiling.py), a few copied, not a column each; a cell of context and batch
    (250,000 combinations) is not worth it."""
    sheet = SHEETS / "supernodes" / "6.2.2-qwen3-32b-decode-step.yaml"
    workbook = open_workbook(sheet)
    grid = Grid([cli_axis(workbook, v) for v in ["tp=1,2,4,8", "s=1024token..131064token:250000"]])
    found = factoring(plans_for(workbook, grid, None, None, None)[0], grid, grid.value_size())
    assert found is not None
    assert {"allreduce", "allreduce_doubled", "whole_heads", "within_one_server"} <= found.skipped
    assert not {"kv_read", "local", "step"} & found.skipped   # of s: a quarter of the rows, not worth a copy
    tp_step = open_workbook(BENCH / "tp-step.yaml")
    grid = Grid([cli_axis(tp_step, v) for v in ["tp=1,2,4,8", "context=1024token..131072token:2500", "batch=1..100"]])
    found = factoring(plans_for(tp_step, grid, None, None, None)[0], grid, grid.value_size())
    assert found is not None and found.skipped == {"allreduce", "rounds", "message"}


def test_rows_of_is_the_broadcast_flattened():
    rng = np.random.default_rng(7)
    checked = 0
    for shape in [(4, 1, 100), (1, 5, 1), (3, 4), (1, 6), (2, 3, 4, 5), (7,)]:
        full = tuple(n if n > 1 else int(rng.integers(2, 6)) for n in shape)
        values = rng.random(shape)
        whole = np.broadcast_to(values, full).reshape(-1)
        for _ in range(40):
            start = int(rng.integers(0, whole.size))
            stop = int(rng.integers(start + 1, whole.size + 1))
            assert np.array_equal(rows_of(values, full, start, stop), whole[start:stop])
            checked += 1
    assert checked == 240


def test_a_kept_array_is_never_overwritten_while_held():
    """`Grid.chunk` builds its columns in arrays kept for the next chunk (kept.py: a sweep with
    draws, a choice's tally): one is handed out again once nothing holds it, never before."""
    workbook = open_workbook(BENCH / "tp-step.yaml")
    grid = Grid([cli_axis(workbook, v) for v in ["tp=1,2,4,8", "context=1024token..131072token:500", "batch=1..100"]])
    kept_module.release()
    try:
        held = grid.chunk(0, 50_000)
        values = {name: column.copy() for name, column in held.items()}
        for start in (50_000, 100_000, 150_000):
            other = grid.chunk(start, start + 50_000)
            for name, column in other.items():
                assert not np.shares_memory(column, held[name]), (start, name)
            assert all(np.array_equal(held[name], values[name]) for name in held)
        bases = {id(column.base) for column in other.values() if column.base is not None}
        assert len(bases) == 2   # batch and context (tp repeats each value: np.repeat)
        del other
        again = grid.chunk(0, 50_000)
        assert bases == {id(column.base) for column in again.values() if column.base is not None}   # reused
    finally:
        kept_module.release()
    assert not kept_module._kept


def test_a_sweep_in_chunks_is_its_rows_in_one(always):
    """The chunks an in-memory sweep keeps (large enough to hold its tiles, not copies) are
    the rows of the same sweep in one chunk, factored or not; a sweep that ends keeps no array."""
    workbook = open_workbook(BENCH / "tp-step.yaml")
    grid = Grid([cli_axis(workbook, v) for v in ["tp=1,2,4,8", "context=1024token..131072token:500", "batch=1..100"]])
    spec = SweepSpec("f", grid, None, None)
    assert factoring(plans_for(workbook, grid, None, None, None)[0], grid, 50_000) is not None
    compared = 0
    for factor in (True, False):
        whole = rows(workbook, spec, grid.value_size(), factor)
        assert not kept_module._kept   # released
        for chunk in (50_000, 40_000):
            assert rows(workbook, spec, chunk, factor).equals(whole), (factor, chunk)
            compared += 1
    assert compared == 4
