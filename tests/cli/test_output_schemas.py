"""One schema per sheet and command, decided by the sheet, not by the rows (issue 29, item 4):
every reader (Polars, pandas, pyarrow, DuckDB) gets the same column types from two runs whose
data differ, sees the units, and the JSON outputs validate against the schemas the package ships."""
from __future__ import annotations

import io
import json
from pathlib import Path

import duckdb
import pandas as pd
import polars as pl
import pyarrow.parquet as pq
import pytest

import supersheet
from repo_paths import REPO, RUNNING

SKEW = REPO / "sheets/questions/q4-ep-skew-monte-carlo.yaml"
SCHEMAS = Path(supersheet.__file__).parent / "schemas"
RUNS = {"whole": "mfu_ceiling=60%,70%", "fractional": "mfu_ceiling=60%,62.5%"}
SHOW = "max_sessions,fits,kv_per_card,read_over_compute"


def validator(name: str):
    import jsonschema
    return jsonschema.Draft202012Validator(json.loads((SCHEMAS / f"{name}-1.json").read_text(encoding="utf-8")))


def sweep_files(run_cli, tmp_path: Path, label: str, vary: str) -> dict[str, Path]:
    files = {}
    for fmt in ("csv", "parquet", "json"):
        target = tmp_path / f"{label}.{fmt}"
        result = run_cli("sweep", str(RUNNING), "--vary", vary, "--vary", "cards=1,8", "--show", SHOW, "-o", str(target))
        assert result.code == 0, result.err
        files[fmt] = target
    return files


def types_seen(files: dict[str, Path]) -> dict[str, object]:
    """Each reader's column types of each file."""
    seen: dict[str, object] = {}
    for fmt in ("csv", "parquet"):
        path = str(files[fmt])
        seen[f"polars {fmt}"] = dict(pl.read_csv(path).schema if fmt == "csv" else pl.read_parquet(path).schema)
        frame = pd.read_csv(path) if fmt == "csv" else pd.read_parquet(path)
        seen[f"pandas {fmt}"] = {name: str(dtype) for name, dtype in frame.dtypes.items()}
        reader = f"read_{fmt}('{path}')"
        seen[f"duckdb {fmt}"] = duckdb.sql(f"DESCRIBE SELECT * FROM {reader}").fetchall()
    seen["pyarrow parquet"] = str(pq.read_schema(files["parquet"]))
    seen["json"] = [(c["name"], type(c["value"]).__name__) for c in json.loads(files["json"].read_text())["rows"][0]]
    return seen


def test_two_runs_whose_data_differ_read_with_the_same_types_in_every_reader(run_cli, tmp_path):
    whole = types_seen(sweep_files(run_cli, tmp_path, "whole", RUNS["whole"]))
    fractional = types_seen(sweep_files(run_cli, tmp_path, "fractional", RUNS["fractional"]))
    compared = 0
    for reader in whole:
        assert whole[reader] == fractional[reader], reader
        compared += 1
    assert compared == 8
    assert whole["polars csv"]["mfu_ceiling [%]"] == pl.Float64 == whole["polars parquet"]["max_sessions"]
    assert whole["polars parquet"]["fits"] == pl.Boolean and whole["pandas parquet"]["cards"] == "float64"


def test_every_reader_sees_the_units(run_cli, tmp_path):
    files = sweep_files(run_cli, tmp_path, "units", RUNS["fractional"])
    assert "kv_per_card [GB]" in pl.read_csv(files["csv"]).columns and "kv_per_card [GB]" in pd.read_csv(files["csv"])
    schema = pq.read_schema(files["parquet"])
    assert schema.field("kv_per_card [GB]").metadata == {b"unit": b"GB"}
    assert json.loads(schema.metadata[b"supersheet.units"])["mfu_ceiling [%]"] == "%"
    assert "kv_per_card [GB]" in pd.read_parquet(files["parquet"]).columns
    kv = dict(duckdb.sql(f"SELECT decode(key), decode(value) FROM parquet_kv_metadata('{files['parquet']}')").fetchall())
    assert json.loads(kv["supersheet.units"])["kv_per_card [GB]"] == "GB"
    document = json.loads(files["json"].read_text())
    assert {c["name"]: c["unit"] for c in document["rows"][0]}["kv_per_card"] == "GB"


def test_run_and_sweep_write_one_cell_alike(run_cli, tmp_path):
    run = pl.read_csv(io.StringIO(run_cli("run", str(RUNNING), "--format", "csv").out), infer_schema=False)
    cards_text = run.filter(pl.col("name") == "cards")["value"].item()
    sweep = run_cli("sweep", str(RUNNING), "--vary", "cards=8", "--show", "max_sessions", "--format", "csv").out
    assert cards_text == "8.0" and sweep.splitlines()[1].startswith("8.0,")
    run_json = json.loads(run_cli("run", str(RUNNING), "--format", "json").out)
    sweep_json = json.loads(run_cli("sweep", str(RUNNING), "--vary", "cards=8", "--format", "json").out)
    run_value = next(c for c in run_json["cells"] if c["name"] == "max_sessions")["value"]
    sweep_value = next(c for c in sweep_json["rows"][0] if c["name"] == "max_sessions")["value"]
    assert run_value == sweep_value and type(run_value) is type(sweep_value) is float


@pytest.mark.parametrize("args", [
    [str(RUNNING), "--vary", "cards=1,8", "--vary", "context=4096token..131072token*2"],
    [str(RUNNING), "per_card_table"],
    [str(SKEW), "--vary", "drift=0.25,0.5", "--samples", "200"],
])
def test_sweep_json_validates_against_the_shipped_schema(run_cli, args):
    result = run_cli("sweep", *args, "--format", "json")
    assert result.code == 0, result.err
    document = json.loads(result.out)
    validator("sweep").validate(document)
    assert document["schema"] == "supersheet-sweep/1" and document["rows"]


def test_an_error_column_exists_for_every_cell_that_can_hold_one_whatever_the_rows(run_cli, write_sheet, tmp_path):
    path = write_sheet("""
        cells:
          n: 1
          r: = 1 / n
    """)
    headers = []
    for values in ("1,2", "-1,1"):   # bounds exclude 0 / include it: the schema follows the axes, not the rows
        out = run_cli("sweep", str(path), "--vary", f"n={values}", "--format", "csv").out
        headers.append(out.splitlines()[0])
    assert headers == ["n,r", "n,r,r [error]"]
    # the second sweep's rows hold no error (n is never 0), yet its schema keeps the column
    rows = pl.read_csv(io.StringIO(run_cli("sweep", str(path), "--vary", "n=-1,1", "--format", "csv").out))
    assert rows["r [error]"].null_count() == rows.height == 2


PARTITION = REPO / "sheets/supernodes/6.7.3-choosing-a-partitioning.yaml"
CALIBRATION = REPO / "sheets/calibration/allreduce-16xh100.yaml"


@pytest.mark.parametrize(("schema", "args"), [
    ("solve", ["solve", str(REPO / "sheets/supernodes/6.6.2-in-flight-bandwidth.yaml"), "fill_the_path"]),
    ("solve", ["solve", str(RUNNING), "--vary", "context", "--goal", "kv_per_card == 20 GB",
               "--between", "1024token,1000000token"]),
    ("solve", ["solve", str(REPO / "sheets/supernodes/6.4.2-ring-vs-tree.yaml"), "crossover"]),
    ("choose", ["choose", str(PARTITION), "four_sessions_128k_130ms", "--show", "all_done"]),
    ("choose", ["choose", str(PARTITION), "one_session_128k_50ms", "--top", "1"]),
    ("diff", ["diff", "--base", str(REPO / "sheets/supernodes/6.4.2-ring-vs-tree-alpha-halved.yaml")]),
    ("diff", ["diff", str(RUNNING), str(REPO / "sheets/supernodes/6.1.2-running-example-32k.yaml")]),
    ("fit", ["fit", str(CALIBRATION), "latency"]),
    ("fit", ["fit", str(CALIBRATION), "both"]),
])
def test_every_json_output_names_its_schema_and_validates_against_it(run_cli, schema, args):
    """solve, choose, diff and fit name their schema as run and sweep do, and the package ships it."""
    result = run_cli(*args, "--format", "json")
    assert result.code in (0, 1), result.err
    document = json.loads(result.out)
    validator(schema).validate(document)
    assert document["schema"] == f"supersheet-{schema}/1"
    assert document.get("cells") or document.get("ranked") or document.get("sheets") or document.get("rows")


def test_the_schemas_refuse_what_they_do_not_describe(run_cli):
    """The schema files constrain: a cell record without its unit, or a choice whose direction is
    neither, does not validate (so the test above could fail)."""
    import jsonschema
    solved = json.loads(run_cli("solve", str(REPO / "sheets/supernodes/6.6.2-in-flight-bandwidth.yaml"),
                                "fill_the_path", "--format", "json").out)
    del solved["cells"][0]["unit"]
    with pytest.raises(jsonschema.ValidationError):
        validator("solve").validate(solved)
    chosen = json.loads(run_cli("choose", str(PARTITION), "four_sessions_128k_130ms", "--format", "json").out)
    chosen["direction"] = "best"
    with pytest.raises(jsonschema.ValidationError):
        validator("choose").validate(chosen)
    fitted = json.loads(run_cli("fit", str(CALIBRATION), "latency", "--format", "json").out)
    fitted["values"][0]["error"] = "0.1 us"
    with pytest.raises(jsonschema.ValidationError):
        validator("fit").validate(fitted)
    assert sorted(p.name for p in SCHEMAS.glob("*.json")) == ["choose-1.json", "diff-1.json", "fit-1.json",
                                                             "run-1.json", "solve-1.json", "sweep-1.json"]
