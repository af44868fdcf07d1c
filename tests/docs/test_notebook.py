"""docs/notebook.ipynb runs headless (nbclient, a real kernel) and shows what the CLI shows
(issue 29, "Done when"): every output is checked against the command or the file it stands for."""
from __future__ import annotations

import json

import pytest
from repo_paths import REPO

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOK = REPO / "docs" / "notebook.ipynb"


@pytest.fixture(scope="module")
def outputs() -> list[dict[str, str]]:
    """Each code cell's outputs, executed from docs/: its stdout, its result's text and HTML."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert not any(cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), \
        "the notebook is committed without outputs"
    nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    seen = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        found = {"stdout": "", "text": "", "html": ""}
        for out in cell.outputs:
            assert out.output_type != "error", out
            if out.output_type == "stream" and out.name == "stdout":
                found["stdout"] += out.text
            elif out.output_type == "execute_result":
                found["text"] = out.data.get("text/plain", "")
                found["html"] = out.data.get("text/html", "")
        seen.append(found)
    return seen


def cli_json(run_cli, *args: str) -> dict:
    result = run_cli(*args, "--format", "json")
    assert result.code in (0, 1), result.err
    return json.loads(result.out)


def cells(document: dict) -> dict[str, dict]:
    return {c["name"]: c for c in document["cells"]}


def test_the_notebook_runs_and_shows_what_the_cli_shows(outputs, run_cli):
    running = str(REPO / "sheets/supernodes/6.1.2-running-example.yaml")
    assert len(outputs) == 8
    sheet_table = outputs[0]["html"]
    assert sheet_table.startswith('<table class="supersheet">') and '<th colspan="4">checks</th>' in sheet_table
    run = cells(cli_json(run_cli, "run", running))
    lines = outputs[1]["stdout"].splitlines()
    assert lines[0] == f"{run['max_sessions']['display']} {run['max_sessions']['value']}"
    assert lines[1] == "472.3 gigabyte"          # weights_total plus the user's 2 GiB, in one registry
    skew = cells(cli_json(run_cli, "run", str(REPO / "sheets/questions/q4-ep-skew-monte-carlo.yaml")))["mc_skew_random"]
    first, second = outputs[2]["stdout"].splitlines()
    assert first == skew["display"]             # the mean and percentiles run shows, not the value at the mean
    assert second == f"{round(skew['mean'], 3)} {round(skew['p95'], 3)} {skew['samples']}"
    longer = cells(cli_json(run_cli, "run", running, "--set", "context=32768 token"))
    assert outputs[3]["stdout"].strip() == longer["max_sessions"]["display"]
    assert "<td>max_sessions</td>" in outputs[3]["html"] and outputs[3]["text"].startswith("<Diff ")
    assert outputs[4]["stdout"].strip() == "{'context': 'token', 'kv_per_card': 'GB'}"
    sweep = cli_json(run_cli, "sweep", running, "--vary", "cards=8", "--vary", "context=4096token..131072token*2",
                     "--show", "max_sessions")
    expected = [next(c["value"] for c in row if c["name"] == "max_sessions") for row in sweep["rows"]]
    shown = [float(line.split("┆")[1].strip(" │")) for line in outputs[4]["text"].splitlines() if "┆" in line
             and line.strip("│ ").split("┆")[0].strip().replace(".", "").isdigit()]
    assert shown == expected and len(shown) == 6
    assert outputs[5]["stdout"].splitlines() == ["pint[gigabyte][Float64]", "{b'unit': b'GB'}"]
    solve = run_cli("solve", str(REPO / "sheets/supernodes/6.4.2-ring-vs-tree.yaml"), "crossover", "--format", "json")
    message = json.loads(solve.out)["solution"]
    assert f"message = {message['display']}" in outputs[6]["text"] and "<td>goal</td>" in outputs[6]["html"]
    choice = cli_json(run_cli, "choose", str(REPO / "sheets/supernodes/6.7.3-choosing-a-partitioning.yaml"),
                      "four_sessions_128k_130ms", "--show", "all_done")
    answer, units = outputs[7]["stdout"].splitlines()
    assert answer == str({header.split(" [")[0]: value for header, value in choice["answer"].items()})
    assert units == "{'all_done': 'ms', 'cost_per_on_time': 'GPU*s/session'}"
    assert "all_done [ms]" in choice["answer"] and "<th>all_done [ms]</th>" in outputs[7]["html"]
    assert outputs[7]["html"].startswith('<table class="supersheet"><caption>four_sessions_128k_130ms: minimize')
