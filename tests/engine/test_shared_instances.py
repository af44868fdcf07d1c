"""Format 10.3: within one evaluation every import of the same file without
`set:` is one instance, wherever it is imported; an import with `set:` is an
instance of its own whose own `set:`-less imports are still the shared ones.
Every way of overriding an imported cell (--set, a sweep axis, a goal seek,
`with_inputs`, a value passed at load, an import axis) changes that one
instance for every importer; its cells are listed once, under the first alias
that reaches it."""
from __future__ import annotations

from pathlib import Path

import pytest

import supersheet as ss
from supersheet.engine.load.resolve import build_model
from supersheet.engine.workbook import apply_assignments, open_workbook

MS = 1e-3


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def graph(folder: Path, first: str = "hw") -> Path:
    """The conformance case's shape: `top` imports hw, mid (which imports hw) and big (mid with set:)."""
    write(folder, "hw.yaml", "cells:\n  bw: 100 GB/s\n")
    write(folder, "other-hw.yaml", "cells:\n  bw: 400 GB/s\n")
    write(folder, "mid.yaml", "use:\n  hw: hw.yaml\ncells:\n  size: 1 GB\n  t: = size / hw.bw -> ms\n")
    uses = {"hw": "  hw: hw.yaml\n", "mid": "  mid: mid.yaml\n",
            "big": "  big: {sheet: mid.yaml, set: {size: 4 GB}}\n"}
    order = [first] + [alias for alias in uses if alias != first]
    return write(folder, "top.yaml", "use:\n" + "".join(uses[a] for a in order) +
                 "cells:\n  direct: = 1 GB / hw.bw -> ms\n  via_mid: = mid.t -> ms\n  via_big: = big.t -> ms\n"
                 "  target: 8 ms\n"
                 "solve:\n  fast_enough:\n    vary: hw.bw\n    goal: via_big == target\n"
                 "    between: [1 GB/s, 10000 GB/s]\n")


def times(values) -> tuple[float, float, float]:
    return tuple(round(values[k] / MS, 9) for k in ("direct", "via_mid", "via_big"))  # type: ignore[return-value]


def at(bw_gb_s: float) -> tuple[float, float, float]:
    """The independent calculation: 1 GB, 1 GB and 4 GB over the one bandwidth, in ms."""
    return tuple(round(size / bw_gb_s * 1e3, 9) for size in (1, 1, 4))  # type: ignore[return-value]


def test_one_instance_listed_once_under_the_first_alias(tmp_path):
    workbook = open_workbook(graph(tmp_path))
    assert workbook.ok, workbook.diagnostics
    assert workbook.model.shared == {"mid.hw": "hw", "big.hw": "hw"}
    assert [k for k in workbook.model.cells if k.endswith("bw")] == ["hw.bw"]
    assert times(workbook.evaluate().values) == at(100)
    assert workbook.model.sharers("hw") == ["mid.hw", "big.hw"]


def test_the_first_alias_is_the_first_reached(tmp_path):
    workbook = open_workbook(graph(tmp_path, first="mid"))
    assert workbook.ok, workbook.diagnostics
    assert [k for k in workbook.model.cells if k.endswith("bw")] == ["mid.hw.bw"]
    assert workbook.model.shared == {"hw": "mid.hw", "big.hw": "mid.hw"}
    for name in ("hw.bw", "mid.hw.bw", "big.hw.bw"):      # every alias names the one cell
        assert workbook.key_for(name) == "mid.hw.bw"


@pytest.mark.parametrize("name", ["hw.bw", "mid.hw.bw", "big.hw.bw"])
@pytest.mark.parametrize("bw", [50, 200, 3350])
def test_set_reaches_every_importer(tmp_path, name, bw):
    workbook = open_workbook(graph(tmp_path))
    variant, fixed = apply_assignments(workbook, [f"{name}={bw} GB/s"])
    assert list(fixed) == ["hw.bw"]
    assert times(variant.evaluate(fixed).values) == at(bw)


def test_a_value_passed_at_load_reaches_every_importer(tmp_path):
    # how a cell that shapes the sheet, a sweep's partition and the API's inputs are set
    for name in ("hw.bw", "big.hw.bw"):
        model = build_model(graph(tmp_path), cell_overrides={name: "250 GB/s"})
        workbook = open_workbook(tmp_path / "top.yaml", cell_overrides={name: "250 GB/s"})
        assert not model.diagnostics and workbook.ok, workbook.diagnostics
        assert times(workbook.evaluate().values) == at(250)


def test_a_value_passed_at_load_to_no_cell_is_reported(tmp_path):
    model = build_model(graph(tmp_path), cell_overrides={"mid.hw.bww": "250 GB/s"})
    assert [d.code for d in model.diagnostics] == ["E-NAME"] and "hw.bw" in (model.diagnostics[0].hint or "")


def test_api_with_inputs_sweep_and_solve_move_every_importer(tmp_path):
    sheet = ss.load(graph(tmp_path))
    changed = sheet.with_inputs(**{"hw.bw": "200 GB/s"})
    assert tuple(round(changed[k].to("ms").magnitude, 9) for k in ("direct", "via_mid", "via_big")) == at(200)
    assert tuple(round(sheet[k].to("ms").magnitude, 9) for k in ("direct", "via_mid", "via_big")) == at(100)
    df = sheet.sweep(**{"hw.bw": ["100 GB/s", "200 GB/s", "400 GB/s"]}, show=["direct", "via_mid", "via_big"])
    rows = [tuple(round(v, 9) for v in row) for row in df.frame.select(["direct", "via_mid", "via_big"]).rows()]
    assert {df.units[c] for c in ("direct", "via_mid", "via_big")} == {"ms"}
    assert rows == [at(100), at(200), at(400)]
    solution = sheet.solve("fast_enough")     # 4 GB in 8 ms: 500 GB/s, which moves every importer's time
    assert solution.value.to("GB/s").magnitude == pytest.approx(500, rel=1e-6)
    assert solution.sheet["via_mid"].to("ms").magnitude == pytest.approx(2, rel=1e-6)


def test_an_import_with_set_has_its_own_instance_but_shares_its_imports(tmp_path):
    workbook = open_workbook(graph(tmp_path))
    cells = workbook.model.cells
    assert {"mid.size", "big.size", "mid.t", "big.t"} <= set(cells)   # mid and big: two instances
    assert workbook.model.canonical("big.hw.bw") == "hw.bw"


def test_a_variant_and_a_deep_graph_share_the_same_instance(tmp_path):
    graph(tmp_path)
    write(tmp_path, "deep.yaml", "use:\n  inner: {sheet: mid.yaml, set: {size: 2 GB}}\ncells:\n  t: = inner.t\n")
    write(tmp_path, "variant.yaml", "extends: top.yaml\nuse:\n  deep: deep.yaml\ncells:\n  via_deep: = deep.t -> ms\n")
    workbook = open_workbook(tmp_path / "variant.yaml")
    assert workbook.ok, workbook.diagnostics
    assert workbook.model.canonical("deep.inner.hw.bw") == "hw.bw"
    variant, fixed = apply_assignments(workbook, ["deep.inner.hw.bw=400 GB/s"])
    values = variant.evaluate(fixed).values
    assert times(values) == at(400) and round(values["via_deep"] / MS, 9) == 5.0


def test_an_import_axis_over_a_shared_import_swaps_it_for_every_importer(tmp_path):
    sheet = graph(tmp_path)
    workbook = open_workbook(sheet, import_overrides={"hw": str(tmp_path / "other-hw.yaml")})
    assert workbook.ok, workbook.diagnostics
    assert times(workbook.evaluate().values) == at(400)
    # through the sweep, as `--vary hw=hw.yaml,other-hw.yaml` runs it
    df = ss.load(sheet).sweep(hw=[str(tmp_path / "hw.yaml"), str(tmp_path / "other-hw.yaml")], show=["direct", "via_mid", "via_big"])
    rows = [tuple(round(v, 9) for v in row) for row in df.frame.select(["direct", "via_mid", "via_big"]).rows()]
    assert {df.units[c] for c in ("direct", "via_mid", "via_big")} == {"ms"}
    assert rows == [at(100), at(400)]


def test_an_import_axis_over_an_import_with_set_replaces_only_it(tmp_path):
    graph(tmp_path)
    write(tmp_path, "mid2.yaml", "use:\n  hw: other-hw.yaml\ncells:\n  size: 1 GB\n  t: = size / hw.bw -> ms\n")
    workbook = open_workbook(tmp_path / "top.yaml", import_overrides={"big": str(tmp_path / "mid2.yaml")})
    assert workbook.ok, workbook.diagnostics
    assert times(workbook.evaluate().values) == (10.0, 10.0, 10.0)   # big: 4 GB at other-hw's 400 GB/s
