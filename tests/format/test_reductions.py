"""Format 9.6: booleans over draws show the share of samples where they hold;
p5/p50/p95/percentile/expected/prob reduce over the samples to one value.
Expected figures come from the normal distribution, not from the engine."""
from __future__ import annotations

import csv
import json
import math

import pytest

DRAWS = """
title: draws
samples: {count: 40000, seed: 11}
cells:
  step: = normal(13 ms, 2 ms)
  budget: 15 ms
  ok: = step < budget
  on_time: = prob(ok)
  tail: = p95(step)
  p99: = percentile(step, 99)
  typical: = expected(step)
  margin: = budget - tail
checks:
  fast_enough: step < 16 ms
"""


def phi(z: float) -> float:
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


def cells(result) -> dict[str, dict]:
    return {c["name"]: c for c in json.loads(result.out)["cells"]}


def test_reductions_are_taken_over_the_samples(run_cli, write_sheet):
    result = run_cli("run", str(write_sheet(DRAWS)), "--format", "json")
    assert result.code == 0, result.output
    got = cells(result)
    assert got["on_time"]["value"] == pytest.approx(100 * phi(1.0), abs=1.0)        # not 100 %: the value at the mean
    assert got["on_time"]["unit"] == "%"
    assert got["tail"]["value"] == pytest.approx(13 + 2 * 1.6449, rel=0.01)
    assert got["p99"]["value"] == pytest.approx(13 + 2 * 2.3263, rel=0.01)
    assert got["typical"]["value"] == pytest.approx(13, rel=0.005)
    assert got["margin"]["value"] == pytest.approx(15 - got["tail"]["value"], abs=1e-9)  # downstream of a reduction
    for name in ("on_time", "tail", "p99", "typical", "margin"):
        assert "p5" not in got[name], name          # deterministic: one value, no spread


def test_a_boolean_over_draws_shows_the_share_where_it_holds(run_cli, write_sheet):
    path = write_sheet(DRAWS)
    got = cells(run_cli("run", str(path), "--format", "json"))
    assert got["ok"]["share_true"] == pytest.approx(phi(1.0), abs=0.01)
    assert got["ok"]["display"].endswith("% true")
    assert got["ok"]["value"] is not True          # never the answer at the mean
    text = run_cli("run", str(path)).out
    assert "% true" in text.split("fast_enough", 1)[1].splitlines()[0]
    assert "~ fast_enough" in text                 # holds in some samples only


def test_reductions_per_sweep_row(run_cli, write_sheet, tmp_path):
    out = tmp_path / "out.csv"
    result = run_cli("sweep", str(write_sheet(DRAWS)), "--vary", "budget=14ms,15ms,16ms", "--show", "on_time,ok",
                     "-o", str(out))
    assert result.code == 0, result.output
    with out.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 3 and "ok p95 [%]" not in rows[0]    # a condition has a share, not percentiles
    for row, z in zip(rows, (0.5, 1.0, 1.5)):
        on_time, ok = float(row["on_time [%]"]), float(row["ok true [%]"])
        assert on_time == pytest.approx(100 * phi(z), abs=1.0)
        assert ok == pytest.approx(on_time, abs=1e-9)


@pytest.mark.parametrize(("formula", "shown"), [
    ("prob(1 < 2)", "100 %"), ("prob(2 < 1)", "0 %"), ("p95(3 ms)", "3 ms"), ("p5(3 ms)", "3 ms"),
    ("p50(2 GB)", "2 GB"), ("percentile(7 s, 99)", "7 s"), ("expected(5 %)", "5 %"),
])
def test_without_draws_a_reduction_is_the_value_itself(run_cli, formula, shown):
    result = run_cli("calc", formula)
    assert result.code == 0, result.output
    assert result.out.strip() == shown


@pytest.mark.parametrize(("formula", "words"), [
    ("percentile(3 ms, 120)", "from 0 to 100"),
    ("percentile(3 ms, 5 ms)", "from 0 to 100"),
    ("prob(3 ms)", "prob"),
    ("p95(1 < 2)", "p95"),
])
def test_misused_reductions_are_refused(run_cli, formula, words):
    result = run_cli("calc", formula)
    assert result.code == 2
    assert "E-TYPE" in result.err and words in result.err


def test_explain_shows_reductions_over_the_samples(run_cli, write_sheet):
    result = run_cli("explain", str(write_sheet(DRAWS)), "margin")
    assert result.code == 0, result.output
    tail = next(line for line in result.out.splitlines() if "tail =" in line)
    shown = float(tail.split("tail = ", 1)[1].split(" ms", 1)[0])
    assert shown == pytest.approx(13 + 2 * 1.6449, rel=0.01)      # not 13 ms, the value at the mean


CHOICE = """
title: c
samples: {count: 4000, seed: 1}
cells:
  tp: 2
  step: = normal(13 ms, 2 ms) / tp
  on_time: = prob(step < 7 ms)
"""


@pytest.mark.parametrize("argv", [
    ("solve", "--vary", "tp", "--goal", "on_time == 90 %", "--between", "1,4"),
    ("solve", "--vary", "tp", "--goal", "prob(step < 7 ms) == 90 %", "--between", "1,4"),
])
def test_solve_refuses_reductions_it_cannot_honour(run_cli, write_sheet, argv):
    command, *rest = argv
    result = run_cli(command, str(write_sheet(CHOICE)), *rest)
    assert result.code == 2
    assert "E-TYPE" in result.err and "reduction over random samples" in result.err


def test_choose_refuses_reductions_it_cannot_honour(run_cli, write_sheet):
    sheet = CHOICE + "choose:\n  pick:\n    vary: {tp: [1, 2, 4]}\n    require: [on_time >= 90 %]\n    minimize: tp\n"
    result = run_cli("choose", str(write_sheet(sheet)), "pick")
    assert result.code == 2      # at the mean, tp = 2 would pass (6.5 ms < 7 ms) although it is on time 69 % of samples
    assert "reduction over random samples" in result.err
