"""The one-row (scalar) evaluation path: incremental re-evaluation, the Polars
fallback, and the linear graph passes that long chains and wide fan-ins need.
(Agreement of every operator with the reference: test_differential.py.)"""
from __future__ import annotations

import sys

import pytest

from supersheet.engine.check.graph import _strongly_connected
from supersheet.engine.compile import scalar
from supersheet.engine.compile.evaluate import affected_cells, evaluate, evaluate_with_polars, literal_for, reevaluate
from supersheet.engine.workbook import open_workbook
from repo_paths import REPO

sys.path.insert(0, str(REPO / "bench"))
from generate import chain_sheet, fanin_sheet  # noqa: E402

SHEET = """
    cells:
      a: 2 GB
      b: 3 GB
      side: 7
      c: = a + b
      d: = c * 2 -> GB
      e: = d / side
      lone: = side + 1
      arr: = [a, b] * side
      m: = max(arr)
"""


def test_reevaluate_recomputes_only_dependents_and_agrees_with_full(write_sheet):
    workbook = open_workbook(write_sheet(SHEET))
    assert workbook.ok, workbook.diagnostics
    before = workbook.evaluate()
    after, recomputed = reevaluate(before, {"a": literal_for(5e9, None)})
    assert recomputed == ["a", "c", "d", "e", "arr", "m"]
    assert after.values["lone"] == before.values["lone"] == 8.0
    full = evaluate(workbook.checked, {"a": literal_for(5e9, None)})
    assert after.values == full.values
    assert after.values["d"] == 16e9 and after.values["m"] == 35e9


def test_reevaluate_keeps_set_overrides(write_sheet):
    """A cell fixed by --set stays fixed when an edit elsewhere recomputes it."""
    workbook = open_workbook(write_sheet(SHEET))
    fixed = workbook.evaluate({"c": literal_for(1.0, None)})
    after, _ = reevaluate(fixed, {"a": literal_for(4e9, None)})
    assert after.values["c"] == 1.0 and after.values["d"] == 2.0


def test_affected_cells_in_order_from_the_reverse_index(write_sheet):
    workbook = open_workbook(write_sheet(SHEET))
    assert affected_cells(workbook.checked, ["side"]) == ["side", "e", "lone", "arr", "m"]
    assert affected_cells(workbook.checked, ["m"]) == ["m"]


def test_a_function_the_scalar_path_lacks_falls_back_to_polars(write_sheet, monkeypatch):
    workbook = open_workbook(write_sheet("""
        cells:
          x: 9
          root: = sqrt(x) + 1
          neg: = sqrt(-x)
    """))
    monkeypatch.delitem(scalar.FUNCTIONS, "sqrt")
    scenario = evaluate(workbook.checked)
    assert scenario.values["root"] == 4.0
    assert scenario.values["neg"].code == "#NUM"
    again, recomputed = reevaluate(scenario, {"x": literal_for(16.0, None)})
    assert again.values["root"] == 5.0 and "root" in recomputed


@pytest.mark.parametrize("make", [chain_sheet, fanin_sheet])
def test_generated_sheets_agree_on_both_one_row_paths(tmp_path, make):
    path = tmp_path / "generated.yaml"
    path.write_text(make(400), encoding="utf-8")
    workbook = open_workbook(path)
    assert workbook.ok, workbook.diagnostics[:2]
    assert workbook.evaluate().values == evaluate_with_polars(workbook.checked)


def test_generated_chain_is_a_chain(tmp_path):
    """bench/generate.py's chain really is one: every formula reads the one before."""
    path = tmp_path / "chain.yaml"
    path.write_text(chain_sheet(200), encoding="utf-8")
    checked = open_workbook(path).checked
    formulas = [k for k in checked.order if k[0] == "f" and k[1:].isdigit()]
    assert len(formulas) == 180
    assert all(f"f{i - 1}" in checked.cells[f"f{i}"].deps for i in range(1, 180))


def test_strongly_connected_on_a_wide_fan_in_and_a_cycle():
    n = 50_000
    deps = {f"g{i}": () for i in range(n)}
    deps["all"] = tuple(deps)
    deps.update({"x": ("y",), "y": ("z",), "z": ("x",)})
    components = _strongly_connected(list(deps), deps)
    assert len(components) == n + 2
    assert sorted(next(c for c in components if len(c) > 1)) == ["x", "y", "z"]


def test_order_of_a_long_chain(write_sheet):
    lines = ["cells:", "  c0: 1"] + [f"  c{i}: = c{i - 1} + 1" for i in range(1, 3000)]
    workbook = open_workbook(write_sheet("\n".join(lines)))
    assert workbook.checked.order[:3] == ("c0", "c1", "c2")
    assert workbook.evaluate().values["c2999"] == 3000.0
