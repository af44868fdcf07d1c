"""supersheet's Python API reads the values `supersheet run` prints (issue 17, item 2)."""
from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

import supersheet as ss
from repo_paths import REPO, RUNNING

LIBRARY = ["sheets/supernodes/6.1.2-running-example.yaml", "sheets/supernodes/6.4.2-ring-vs-tree.yaml",
           "sheets/supernodes/6.7.3-choosing-a-partitioning.yaml"]


def cli_cells(run_cli, path, *sets: str) -> dict[str, dict]:
    args = [a for s in sets for a in ("--set", s)]
    result = run_cli("run", str(path), "--format", "json", *args)
    assert result.code in (0, 1), result.err
    return {c["name"]: c for c in json.loads(result.out)["cells"]}


def magnitude_in(value, unit: str | None):
    """A value from the API as the number the CLI prints in `unit`."""
    if isinstance(value, (bool, float)):
        return value
    if isinstance(value, list):
        return value
    from supersheet.quantities import pint_unit
    return value.to(pint_unit(unit)).magnitude if unit else value.magnitude


@pytest.mark.parametrize("path", LIBRARY)
def test_every_cell_has_the_value_the_cli_prints(run_cli, path):
    sheet = ss.load(REPO / path)
    cells = cli_cells(run_cli, REPO / path)
    assert list(sheet) == list(cells)          # the same cells, in the CLI's order
    for name, record in cells.items():
        if record.get("error"):
            assert sheet.error(name) == record["error"]
            continue
        assert sheet.display(name) == record["display"], name
        value = sheet[name]
        if isinstance(record["value"], list):
            got = list(value.magnitude) if hasattr(value, "magnitude") else list(value)
            if record["unit"] and not hasattr(value, "magnitude"):   # a dimensionless array shown in %
                continue
            assert got == pytest.approx(record["value"], rel=1e-12), name
            continue
        if isinstance(record["value"], bool):
            assert value is record["value"], name
            continue
        if record["unit"] and not hasattr(value, "magnitude"):
            # dimensionless shown in a unit such as %: the API gives the plain fraction
            from supersheet.units import parse_unit
            assert value == pytest.approx(record["value"] * parse_unit(record["unit"]).factor, rel=1e-12), name
            continue
        assert magnitude_in(value, record["unit"]) == pytest.approx(record["value"], rel=1e-12), name


def test_a_quantity_is_in_the_display_unit_of_the_project_registry():
    from supersheet.units import registry
    sheet = ss.load(RUNNING)
    weights = sheet["weights_total"]
    assert isinstance(weights, registry().Quantity)
    assert str(weights.units) == "gigabyte" and weights.magnitude == pytest.approx(470.18726912, rel=1e-12)
    assert weights.to("GiB").magnitude == pytest.approx(470.18726912e9 / 2**30, rel=1e-12)
    assert isinstance(sheet["max_sessions"], float) and sheet["max_sessions"] == 47.0
    assert sheet["fits_one_card"] is False


def test_with_inputs_matches_the_cli_set_and_leaves_the_original_unchanged(run_cli):
    sheet = ss.load(RUNNING)
    before = {name: sheet.display(name) for name in sheet}
    bigger = sheet.with_inputs(context="32768 token")
    cells = cli_cells(run_cli, RUNNING, "context=32768 token")
    assert {name: bigger.display(name) for name in bigger} == {n: c["display"] for n, c in cells.items()}
    assert bigger["max_sessions"] == 11.0 != sheet["max_sessions"]
    assert {name: sheet.display(name) for name in sheet} == before
    assert sheet.inputs == {} and bigger.inputs == {"context": "32768 token"}


def test_with_inputs_recomputes_only_the_dependents(monkeypatch):
    import supersheet.engine.compile.evaluate as evaluate
    sheet = ss.load(RUNNING)
    seen: list[list[str]] = []
    original = evaluate.evaluate_cells

    def spy(checked, keys, values, fixed):
        seen.append(list(keys))
        return original(checked, keys, values, fixed)

    monkeypatch.setattr("supersheet.engine.compile.evaluate.evaluate_cells", spy)
    sheet.with_inputs(context="32768 token")
    assert len(seen) == 1 and "context" in seen[0]
    assert "weights_total" not in seen[0] and "max_sessions" in seen[0]


def test_inputs_accumulate_and_take_quantities_numbers_and_imported_cells(run_cli):
    from supersheet.units import registry
    sheet = ss.load(RUNNING)
    both = sheet.with_inputs(context=registry().Quantity(32768, "token")).with_inputs(cards=4)
    cells = cli_cells(run_cli, RUNNING, "context=32768 token", "cards=4")
    assert both.display("max_sessions") == cells["max_sessions"]["display"]
    assert both.inputs == {"context": "32768.0 token", "cards": "4"}
    imported = sheet.with_inputs(**{"hgx.cards": 4})
    assert imported.display("capacity") == cli_cells(run_cli, RUNNING, "hgx.cards=4")["capacity"]["display"]


def test_import_of_supersheet_loads_neither_polars_nor_pint():
    code = "import sys, supersheet; print(sorted(m for m in ('polars', 'pint', 'textual') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_the_pint_unit_of_every_display_unit_has_the_engines_size():
    from supersheet.quantities import pint_unit
    from supersheet.units import parse_unit
    for text in ("GB", "GiB", "token/s", "USD/GPU/h", "μs", "GB/s", "Gbit/s", "MFLOP", "GPU*s/session"):
        q = (1.0 * pint_unit(text)).to_root_units()
        grams = dict(q.dimensionality).get("[mass]", 0)
        assert math.isclose(q.magnitude * 1000.0 ** -grams, parse_unit(text).factor, rel_tol=1e-12), text
