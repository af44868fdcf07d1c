"""A Sheet is a read-only Mapping and its quantities mix with the user's Pint (issue 29, items 2 and 5)."""
from __future__ import annotations

from collections.abc import Mapping

import pint
import pytest

import supersheet as ss
from supersheet.errors import UnknownCell
from repo_paths import RUNNING



@pytest.fixture
def application_registry():
    """`pint.set_application_registry(ss.registry())` for one test, the previous one restored."""
    before = pint.get_application_registry().get()
    pint.set_application_registry(ss.registry())
    yield ss.registry()
    pint.set_application_registry(before)


def test_a_sheet_value_combines_with_the_application_registry_s_quantities(application_registry):
    sheet = ss.load(RUNNING)
    weights = sheet["weights_total"]
    total = weights + pint.Quantity(10, "GB")          # the user's quantities, as Pint users write them
    assert total.to("GB").magnitude == pytest.approx(weights.to("GB").magnitude + 10, rel=1e-12)
    ureg = application_registry
    per_card = (weights / ureg.Quantity(8, "")).to("GiB")
    assert per_card.magnitude == pytest.approx(weights.to("GiB").magnitude / 8, rel=1e-12)
    # the project's units (units/): a bit is information, Gb a gigabit, FLOP a unit
    assert pint.Quantity(8, "Gb").to("GB").magnitude == pytest.approx(1.0)
    assert pint.Quantity(1, "bit").dimensionality == ureg.Quantity(1, "byte").dimensionality
    assert pint.Quantity(2, "TFLOP").to("GFLOP").magnitude == pytest.approx(2000)


def test_without_the_application_registry_pint_refuses_rather_than_mixing():
    sheet = ss.load(RUNNING)
    other = pint.UnitRegistry()
    with pytest.raises(ValueError, match="different registries"):
        sheet["weights_total"] + other.Quantity(1, "GB")


def test_an_input_may_be_a_quantity_of_another_registry():
    sheet = ss.load(RUNNING)
    other = pint.UnitRegistry()
    given = sheet.with_inputs(workspace=other.Quantity(4096, "MiB"))
    assert given.display("workspace") == sheet.with_inputs(workspace="4 GiB").display("workspace") != sheet.display("workspace")
    assert given["max_sessions"] == sheet.with_inputs(workspace="4 GiB")["max_sessions"]
    with pytest.raises(ss.SheetError, match="E-UNIT"):
        sheet.with_inputs(workspace=other.Quantity(3, "meter"))


def test_a_sheet_is_a_read_only_mapping():
    sheet = ss.load(RUNNING)
    assert isinstance(sheet, Mapping)
    assert list(sheet.keys()) == list(sheet) and len(sheet.items()) == len(sheet)
    with pytest.raises(KeyError):
        sheet["no_such_cell"]
    with pytest.raises(UnknownCell) as caught:
        sheet["max_sesions"]
    assert caught.value.code == "E-NAME" and "max_sessions" in (caught.value.hint or "")
    assert isinstance(caught.value, ss.SheetError)
    assert sheet.get("no_such_cell") is None and sheet.get("max_sessions") == sheet["max_sessions"]
    assert "max_sessions" in sheet and "nope" not in sheet
    with pytest.raises(TypeError):
        sheet["max_sessions"] = 3   # type: ignore[index]
    assert sheet == sheet and sheet != ss.load(RUNNING) and len({sheet, sheet}) == 1
