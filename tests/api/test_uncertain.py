"""The API reads every cell as `supersheet run` shows it, random draws included (issue 29, item 1):
`records()` is `run --format json`'s cells for every sheet of the library, and a cell over
random draws is its mean and percentiles (a `Spread`) or, for a boolean, its share true (a `Share`),
never its value at the mean input."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import supersheet as ss
from supersheet.quantities import Share, Spread
from repo_paths import REPO

LIBRARY = sorted((REPO / "sheets").rglob("*.yaml"))
SKEW = REPO / "sheets/questions/q4-ep-skew-monte-carlo.yaml"


def run_json(run_cli, path: Path, *args: str) -> dict:
    result = run_cli("run", str(path), "--format", "json", *args)
    assert result.code in (0, 1), result.err
    return json.loads(result.out)


def test_records_are_run_json_for_every_library_sheet(run_cli):
    """...and that JSON validates against the schema the package ships (supersheet/schemas/run-1.json)."""
    import jsonschema
    validator = jsonschema.Draft202012Validator(json.loads(
        (Path(ss.__file__).parent / "schemas" / "run-1.json").read_text(encoding="utf-8")))
    compared = sheets = uncertain = 0
    for path in LIBRARY:
        records = ss.load(path).records()
        document = run_json(run_cli, path)
        validator.validate(document)
        assert document["schema"] == "supersheet-run/1"
        cells = document["cells"]
        assert [r["name"] for r in records] == [c["name"] for c in cells], path
        for record, cell in zip(records, cells):
            assert record == cell, (path, cell["name"])
            compared += 1
            uncertain += "mean" in cell or "share_true" in cell
        sheets += 1
    assert sheets == len(LIBRARY) >= 80 and compared > 2000
    assert uncertain >= 7   # the Monte Carlo sheet's scalar cells over draws were among them


def test_a_cell_over_random_draws_is_its_mean_and_percentiles_as_run_shows_them(run_cli):
    sheet = ss.load(SKEW)
    cells = {c["name"]: c for c in run_json(run_cli, SKEW)["cells"]}
    checked = 0
    for name, cell in cells.items():
        if "mean" not in cell:
            continue
        value = sheet[name]
        assert isinstance(value, Spread) and str(value) == cell["display"] == sheet.display(name)
        for statistic in ("mean", "p5", "p50", "p95"):
            got = getattr(value, statistic)
            got = got.to(cell["unit"]).magnitude if hasattr(got, "magnitude") else got
            assert got == pytest.approx(cell[statistic], rel=1e-12), (name, statistic)
        assert value.samples == cell["samples"] == 4000
        checked += 1
    assert checked >= 7
    # not the value at the mean input (which reads 1 for the random placement)
    assert sheet["mc_skew_random"].mean == pytest.approx(cells["mc_skew_random"]["mean"]) and cells["mc_skew_random"]["mean"] > 1.5


def test_inputs_samples_and_seed_are_run_s_set_samples_and_seed(run_cli):
    sheet = ss.load(SKEW, samples=500, seed=3).with_inputs(drift=0.25)
    cells = run_json(run_cli, SKEW, "--samples", "500", "--seed", "3", "--set", "drift=0.25")["cells"]
    assert sheet.records() == cells
    assert sheet.display("mc_skew_drifted") != ss.load(SKEW).display("mc_skew_drifted")


def test_a_boolean_over_random_draws_is_the_share_true(run_cli, write_sheet):
    path = write_sheet("""
        samples: {count: 2000, seed: 5}
        cells:
          load: = normal(1, 0.5)
          high: = load > 1.2
        checks:
          ok: load < 1.5
    """)
    sheet = ss.load(path)
    cells = {c["name"]: c for c in run_json(run_cli, path)["cells"]}
    for name in ("high", "ok"):
        share = sheet[name]
        assert isinstance(share, Share) and str(share) == cells[name]["display"].strip()
        assert share.share_true == cells[name]["share_true"] and 0.05 < share.share_true < 0.95
    assert isinstance(sheet["load"], float) is False and sheet["load"].samples == 2000
    assert "% true" in sheet._repr_html_() and "p95" in sheet._repr_html_()
