"""Column headers `name [unit]`: one module builds them and reads them back."""
from __future__ import annotations

import json

import polars as pl
import pytest

from supersheet.engine.present.headers import error_header, header, is_error_header, split_header


@pytest.mark.parametrize("name, unit, text", [
    ("step", "ms", "step [ms]"),
    ("tp", None, "tp"),
    ("x[0]", "ms", "x[0] [ms]"),       # an element of an array cell
    ("x[0]", None, "x[0]"),             # ... of a plain-number array: no unit to read back
    ("share true", "%", "share true [%]"),
])
def test_a_header_reads_back_as_what_built_it(name, unit, text):
    assert header(name, unit) == text
    assert split_header(text) == (name, unit)


def test_error_columns_are_told_apart_by_their_header():
    assert error_header("step") == "step [error]" and is_error_header("step [error]")
    assert not is_error_header("step [ms]") and not is_error_header("error")


def test_parquet_units_name_only_columns_with_a_unit(run_cli, write_sheet, tmp_path):
    """A plain-number array cell's element columns (`ratios[0]`) have no unit: the metadata
    must not claim one (reading `ratios[0]` as `name [unit]` made its unit `ratios[0]`)."""
    sheet = write_sheet("""
        cells:
          n: 2
          ratios: = [n, n * 2]
          times: = [n * 1 ms, n * 2 ms]
        """)
    out = tmp_path / "out.parquet"
    result = run_cli("sweep", str(sheet), "--vary", "n=1,2", "-o", str(out))
    assert result.code == 0, result.output
    units = json.loads(pl.read_parquet_metadata(out)["supersheet.units"])
    frame = pl.read_parquet(out)
    assert "ratios[0]" in frame.columns and "ratios[0]" not in units
    assert units["times[1] [ms]"] == "ms"
