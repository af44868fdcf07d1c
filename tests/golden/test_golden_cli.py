"""Golden CLI output: `run` (text, json, csv, markdown), `explain`, `sweep`
(text and csv), `solve`, `choose` and `calc` on the conformance `valid/`
sheets, stored as text snapshots. A changed snapshot is a change of the output
contract and reads as one in review.

Every command runs in-process from the conformance root with relative paths,
so nothing in a snapshot depends on the machine.
"""
from __future__ import annotations

import re
import shlex

import pytest
from repo_paths import CONFORMANCE


VALID = sorted(p.name for p in (CONFORMANCE / "valid").glob("*.yaml")) if (CONFORMANCE / "valid").is_dir() else []

COMMANDS = [
    *[f"run valid/{name}" for name in VALID],
    "run valid/units-basic.yaml --format json",
    "run valid/use-import.yaml --format json",
    "run valid/arrays.yaml --format json",
    "run valid/errors-as-values.yaml --format json",
    "run valid/units-basic.yaml --format csv",
    "run valid/arrays.yaml --format csv",
    "run valid/choose.yaml --format markdown",
    "run valid/use-import.yaml --format markdown",
    "run valid/sweeps.yaml --set tp=4",
    "run valid/use-import.yaml --set gpu.hbm_bandwidth=2TB/s --set bytes=10GB",
    "run valid/sweeps.yaml --set rounds=3",
    "run valid/sweeps.yaml --set rounds=3 --set alpha=3us --format json",
    "run valid/sweeps.yaml --set rounds=3 --format csv",
    "run valid/sweeps.yaml --set rounds=3 --format markdown",
    "explain valid/sweeps.yaml step --set rounds=3",
    "explain valid/choose.yaml cost_per_on_time",
    "explain valid/use-import.yaml ratio",
    "explain valid/dimensions.yaml spend",
    "explain valid/long-form.yaml read_time",
    "explain valid/errors-as-values.yaml downstream",
    "sweep valid/sweeps.yaml tp_scaling",
    "sweep valid/sweeps.yaml geometric",
    "sweep valid/sweeps.yaml linear",
    "sweep valid/sweeps.yaml product_order",
    "sweep valid/sweeps.yaml rows",
    "sweep valid/sweeps.yaml filtered",
    "sweep valid/sweeps.yaml tp_scaling --format csv",
    "sweep valid/sweeps.yaml product_order --format csv",
    "sweep valid/sweeps.yaml tp_scaling --format markdown",
    "sweep valid/sweeps.yaml --vary tp=1,2,4,8 --vary message=1KiB..1MiB:3log --show step --format csv",
    "sweep valid/sweeps.yaml --vary tp=1..8*2 --show allreduce,step --where 'step < 10 ms'",
    "sweep valid/solve.yaml --vary message=1KiB..1GiB:5log --show ring,tree",
    "sweep valid/errors-as-values.yaml --vary zero=0,1,2 --format csv",
    "sweep valid/tolerances.yaml explicit",
    "solve valid/solve.yaml crossover",
    "solve valid/solve.yaml budget",
    "solve valid/solve.yaml --vary n --goal 'ring == 20 us' --between 2,64",
    "choose valid/choose.yaml four_sessions_130ms",
    "choose valid/choose.yaml fastest_single",
    "choose valid/choose.yaml four_sessions_130ms --format markdown",
    "calc '470.2 GB -> GiB'",
    "calc '2 * 94 * 4 * 128 * 2 B -> KiB'",
    "calc '400 Gbit/s -> GB/s'",
    "calc '1 / 0'",
    "calc '75 % * 4'",
    "calc 'max([1, 5, 3] ms) -> us'",
    "calc '2 GB + 1 s'",
    "calc '(1 +'",
]


def slug(command: str) -> str:
    """A readable snapshot file name: `run valid/x.yaml --format json` -> `run-x-format-json`."""
    text = command.replace("valid/", "").replace(".yaml", "")
    return re.sub(r"[^A-Za-z0-9_=,.]+", "-", text).strip("-")


def transcript(command: str, result) -> str:
    return (f"$ supersheet {command}\nexit {result.code}\n--- stdout\n{result.out}"
            f"{'' if result.out.endswith(chr(10)) or not result.out else chr(10)}--- stderr\n{result.err}")


@pytest.mark.skipif(not VALID, reason=f"conformance cases not found at {CONFORMANCE}")
@pytest.mark.parametrize("command", COMMANDS, ids=[slug(c) for c in COMMANDS])
def test_cli_output(command, run_cli, monkeypatch, snapshot_txt):
    monkeypatch.chdir(CONFORMANCE)
    result = run_cli(*shlex.split(command))
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    assert transcript(command, result) == snapshot_txt
