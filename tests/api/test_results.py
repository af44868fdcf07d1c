"""A sweep's result keeps its units apart from its column names, into pandas and Arrow (issue 29, item 3)."""
from __future__ import annotations

import json

import pint
import pytest

import supersheet as ss
from supersheet.errors import RequestError
from repo_paths import RUNNING



@pytest.fixture(scope="module")
def result() -> ss.SweepResult:
    return ss.load(RUNNING).sweep(cards=[1, 8], context=["8192 token", "32768 token"],
                                  show=["kv_per_card", "max_sessions", "mfu_ceiling"])


def test_units_survive_polars_operations(result):
    doubled = result.frame.with_columns(result.frame["kv_per_card"] * 2).filter(result.frame["cards"] > 1)
    assert "kv_per_card" in doubled.columns and result.units["kv_per_card"] == "GB"
    assert result.units == {"context": "token", "kv_per_card": "GB", "mfu_ceiling": "%"}


def test_to_arrow_puts_each_unit_in_its_field_metadata(result):
    table = result.to_arrow()
    assert table.num_rows == 4 and table.column_names == result.columns
    assert table.schema.field("kv_per_card").metadata == {b"unit": b"GB"}
    assert table.schema.field("cards").metadata is None
    assert json.loads(table.schema.metadata[b"supersheet.units"]) == result.units
    assert table.column("kv_per_card").to_pylist() == result.frame["kv_per_card"].to_list()


def test_to_pandas_without_the_application_registry_keeps_floats_and_says_the_units(result):
    frame = result.to_pandas()
    assert frame.attrs["units"] == dict(result.units)
    assert str(frame["kv_per_card"].dtype) == "float64"
    assert frame["kv_per_card"].tolist() == result.frame["kv_per_card"].to_list()
    with pytest.raises(RequestError, match="set_application_registry"):
        result.to_pandas(pint=True)


def test_to_pandas_gives_pint_dtypes_of_supersheet_s_registry(result):
    before = pint.get_application_registry().get()
    pint.set_application_registry(ss.registry())
    try:
        frame = result.to_pandas()
        kv = frame["kv_per_card"].pint.quantity
        assert str(frame["kv_per_card"].dtype).startswith("pint[gigabyte]")
        assert kv.to("GiB").magnitude.tolist() == pytest.approx(
            [v * 1e9 / 2**30 for v in result.frame["kv_per_card"].to_list()], rel=1e-12)
        sheet_value = ss.load(RUNNING).with_inputs(cards=8)["kv_per_card"]
        assert (kv[-2] - sheet_value).to("GB").magnitude == pytest.approx(0, abs=1e-9)   # one registry: they combine
        assert str(frame["context"].dtype).startswith("pint[token]") and str(frame["cards"].dtype) == "float64"
        assert result.to_pandas(pint=False)["kv_per_card"].dtype == "float64"
    finally:
        pint.set_application_registry(before)
