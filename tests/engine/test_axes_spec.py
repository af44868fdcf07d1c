"""Sweep axes are checked and counted from their spec; values are built only
when the grid needs them, as floats, without the formula parser (issues 12
and 14)."""
from __future__ import annotations

import numpy as np
import pytest

from supersheet.engine.load import literals
from supersheet.engine.scenarios import axes
from supersheet.engine.verify.blocks import validate_blocks
from supersheet.engine.workbook import open_workbook

SHEET = """
    cells:
      tp: 2
      message: 1 GB
      tokens: 1000 token
      flops: 1e12 FLOP
      bw: 100 GB/s
      t: = message / bw * tp
    sweeps:
      fine:
        vary:
          tokens: {from: 1 token, to: 1000 token, step: 0.001 token}
"""


@pytest.fixture
def never_built(monkeypatch):
    """Fail the test if any range's values are computed."""
    def refuse(self):
        raise AssertionError("a range's values were built")
    monkeypatch.setattr(axes.Spaced, "values", refuse)


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """Every text read as a value of a block (load/literals.py: once, when the sheet loads)."""
    seen: list[str] = []
    real = literals.parse_formula

    def counting(text: str):
        seen.append(text)
        return real(text)
    monkeypatch.setattr(literals, "parse_formula", counting)
    return seen


@pytest.mark.parametrize("vary, message", [
    ("message=1GBs..2GBs:3", 'unknown unit "GBs"'),
    ("message=1 degC..2 degC:3", "offset"),
    ("flops=1 FLOPs..2 FLOPs:3", 'ambiguous unit "FLOPs"'),
    ("tp=0..1e308+1e-300", "range of tp has infinitely many values"),
    ("tp=,", "--vary tp= lists no values"),
    ("tp= , ,", "--vary tp= lists no values"),
    ("nosuch=1..1e9+1", "unknown cell 'nosuch'"),
])
def test_bad_axes_are_diagnostics(vary, message, run_cli, write_sheet, never_built):
    path = write_sheet(SHEET)
    result = run_cli("sweep", str(path), "--vary", vary)
    assert result.code == 2, result.output
    assert message in result.err and "internal error" not in result.err


def test_max_rows_is_counted_before_any_value_is_built(run_cli, write_sheet, never_built):
    result = run_cli("sweep", str(write_sheet(SHEET)), "--vary", "tp=1..1000000", "--vary", "message=1 GB..8 GB*2",
                     "--max-rows", "10")
    assert result.code == 2
    assert "the sweep has 4,000,000 rows, more than --max-rows 10" in result.err


def test_check_does_not_build_a_sheet_sweeps_values(write_sheet, never_built, parses):
    workbook = open_workbook(write_sheet(SHEET))
    assert workbook.ok, workbook.diagnostics
    assert validate_blocks(workbook) == []
    assert len(parses) <= 3   # from, to and step: not a million values


def test_an_overflowing_range_in_a_sheet_is_reported_by_check(write_sheet, run_cli):
    path = write_sheet("""
        cells:
          tp: 1
        sweeps:
          huge:
            vary:
              tp: {from: 0, to: 1e308, step: 1e-300}
    """)
    result = run_cli("check", str(path))
    assert result.code == 2, result.output
    assert "range of tp has infinitely many values" in result.output and "internal error" not in result.output


def test_range_values_are_computed_in_the_written_unit(write_sheet):
    workbook = open_workbook(write_sheet(SHEET))
    axis = axes.cli_axis(workbook, "message=1 GB..2 GB+0.25 GB")
    assert axis.size == 5 and axis.spaced is not None
    assert axis.values.tolist() == [1e9, 1.25e9, 1.5e9, 1.75e9, 2e9]
    assert axes.cli_axis(workbook, "message=1 KiB..1 MiB:3log").values.tolist() == [1024.0, 32768.0, 1048576.0]
    assert axes.cli_axis(workbook, "tp=1..1000*10").values.tolist() == [1.0, 10.0, 100.0, 1000.0]
    assert axes.cli_axis(workbook, "tp=0..1:5").values.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert axis.labels == ["1.0 GB", "1.25 GB", "1.5 GB", "1.75 GB", "2.0 GB"]


def test_typed_and_plain_numbers_skip_the_parser(write_sheet, parses):
    workbook = open_workbook(write_sheet(SHEET))
    parses.clear()
    axis = axes.value_axis(workbook, "tp", [1, 2.5, "4", " 8 ", "1e3"])
    assert axis.values.dtype == np.float64 and axis.values.tolist() == [1.0, 2.5, 4.0, 8.0, 1000.0]
    assert parses == []
    quantity = axes.value_axis(workbook, "message", ["1 GB", "2 GiB"])
    assert quantity.values.tolist() == [1e9, 2 * 2**30] and len(parses) == 2


def test_a_plain_number_for_a_quantity_is_still_a_unit_error(write_sheet):
    workbook = open_workbook(write_sheet(SHEET))
    with pytest.raises(axes.AxisError, match="message is information, but '4' is dimensionless"):
        axes.value_axis(workbook, "message", [4])
