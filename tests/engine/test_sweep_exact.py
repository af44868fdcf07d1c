"""A sweep's output columns in a display unit are the base value divided exactly by the
unit's factor (IEEE division, by a column of the factor: sweep_columns.Column.display),
so a row's value does not depend on how long the sweep is or how it is cut into chunks,
and is what `run` shows for the same scenario. (Polars computes a column divided by a
literal as a product with its reciprocal once a chunk has more than a few rows: the
same row was 85.32502944 in a one-row sweep and 85.32502944000001 in a three-row one.)
"""
from __future__ import annotations

import polars as pl
from repo_paths import SHEETS
from sweep_cases import WRITTEN_SHEET, WRITTEN_VARY, library_sweeps

from supersheet.engine.present.present import show
from supersheet.engine.scenarios.axes import cli_axis
from supersheet.engine.scenarios.sweep import Grid, SweepSpec, iterate_chunks, plans_for
from supersheet.engine.workbook import apply_assignments, open_workbook

Q3 = SHEETS / "questions" / "q3-mla-tp-replication.yaml"


def swept(workbook, vary: list[str], chunk: int, show_: list[str] | None = None) -> pl.DataFrame:
    grid = Grid([cli_axis(workbook, v) for v in vary])
    plans = plans_for(workbook, grid, show_, None, None)
    return pl.concat(list(iterate_chunks(plans, grid, chunk)), how="diagonal_relaxed")


def test_a_row_is_the_same_whatever_the_sweep_length_and_is_runs_value():
    workbook = open_workbook(Q3)
    variant, fixed = apply_assignments(workbook, ["attn_tp=4", "context=4096token"])
    shown = show(variant.checked, "weights_per_gpu", variant.evaluate(fixed).values["weights_per_gpu"], "GB")
    assert shown.value == 85.32502944   # what `supersheet run … --format csv` prints
    compared = 0
    for tps in ("4", "4,1", "4,1,2", "4,1,2,8", "4,1,2,8,16,32,64,3,5,6,7,9,10,11,12"):
        for chunk in (1, 2, 3, 4, 5, 1000):
            frame = swept(workbook, ["context=4096token", f"attn_tp={tps}"], chunk, ["weights_per_gpu"])
            row = frame.filter(pl.col("attn_tp") == 4.0)
            assert row["weights_per_gpu [GB]"].to_list() == [shown.value], (tps, chunk)
            compared += 1
    assert compared == 30


def test_every_converted_value_of_a_row_is_runs_quotient():
    """Every cell of the row attn_tp = 4 (those that vary with the axes and those that do not:
    a constant is converted once, in Python) is the scenario's value divided by the column's
    factor, the quotient `run` computes, in a sweep of one row and of fifteen."""
    workbook = open_workbook(Q3)
    variant, fixed = apply_assignments(workbook, ["attn_tp=4", "context=4096token"])
    values = variant.evaluate(fixed).values
    compared = constants = 0
    for tps in ("4", "4,1,2,8,16,32,64,3,5,6,7,9,10,11,12"):
        grid = Grid([cli_axis(workbook, v) for v in ["context=4096token", f"attn_tp={tps}"]])
        plan = plans_for(workbook, grid, None, None, None)[0]
        row = swept(workbook, ["context=4096token", f"attn_tp={tps}"], 1000).filter(pl.col("attn_tp") == 4.0)
        for column in plan.columns:
            if column.is_error or column.typed or column.factor == 1.0 or not isinstance(values.get(column.source), float):
                continue
            assert row[column.header].item() == values[column.source] / column.factor, (tps, column.header)
            compared += 1
            constants += column.constant is not None
    assert compared >= 10 and constants >= 2, (compared, constants)


def test_every_row_is_the_same_in_chunks_of_any_size(tmp_path):
    """The written sheet (errors, #NUM, a constant divisor, GiB beside GB) and the library's
    smaller two-axis sweeps, in chunks of one row up: bit for bit the rows of one chunk."""
    path = tmp_path / "f.yaml"
    path.write_text(WRITTEN_SHEET)
    written = open_workbook(path)
    grid = Grid([cli_axis(written, v) for v in WRITTEN_VARY])
    cases = [("written", written, SweepSpec("f", grid, None, None))]
    cases += [(where, workbook, spec) for where, workbook, spec, _ in library_sweeps() if spec.grid.size() <= 400]
    compared = expected = 0
    for where, workbook, spec in cases:
        plans = plans_for(workbook, spec.grid, spec.show, spec.where, spec.where_origin)
        whole = pl.concat(list(iterate_chunks(plans, spec.grid, spec.grid.value_size())), how="diagonal_relaxed")
        for chunk in (1, 2, 3, 5, 6, 7):
            if chunk >= spec.grid.value_size():
                continue
            expected += 1
            cut = pl.concat(list(iterate_chunks(plans, spec.grid, chunk)), how="diagonal_relaxed")
            assert cut.equals(whole), (where, chunk)
            compared += 1
    assert len(cases) >= 5 and compared == expected >= 25, (len(cases), compared)
