"""Random draws and Monte Carlo: known distributions' statistics with fixed
seeds, reproducibility, unit rules, the expert-routing skew against a
brute-force simulation, percentiles in expectations and sweeps, sensitivity."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from supersheet.cli.main import main
from supersheet.engine.formula.distributions import routing_samples
from supersheet.engine.scenarios.uncertainty import evaluate_samples, sensitivity
from supersheet.engine.workbook import open_workbook

N = 200_000


def sheet(tmp_path: Path, cells: str, extra: str = "") -> Path:
    path = tmp_path / "u.yaml"
    path.write_text("cells:\n" + cells + extra, encoding="utf-8")
    return path


def sampled(tmp_path: Path, cells: str, samples: int = N, seed: int = 7):
    workbook = open_workbook(sheet(tmp_path, cells))
    assert workbook.ok, workbook.diagnostics
    return evaluate_samples(workbook, samples, seed)


def test_uniform_mean_and_percentiles(tmp_path) -> None:
    result = sampled(tmp_path, "  x: = uniform(2 ms, 4 ms)\n")
    summary = result.summaries["x"]
    assert summary.mean == pytest.approx(3e-3, rel=2e-3)
    assert summary.p5 == pytest.approx(2.1e-3, rel=3e-3)
    assert summary.p95 == pytest.approx(3.9e-3, rel=3e-3)


def test_normal_percentiles(tmp_path) -> None:
    summary = sampled(tmp_path, "  x: = normal(100 GB, 10 GB)\n").summaries["x"]
    assert summary.mean == pytest.approx(100e9, rel=1e-3)
    assert summary.p95 == pytest.approx(100e9 + 1.6449 * 10e9, rel=2e-3)
    assert summary.p5 == pytest.approx(100e9 - 1.6449 * 10e9, rel=2e-3)


def test_lognormal_is_a_90_percent_interval(tmp_path) -> None:
    summary = sampled(tmp_path, "  x: = lognormal(10 us, 50 us)\n").summaries["x"]
    assert summary.p5 == pytest.approx(10e-6, rel=1e-2)
    assert summary.p95 == pytest.approx(50e-6, rel=1e-2)
    assert summary.p50 == pytest.approx(math.sqrt(10e-6 * 50e-6), rel=1e-2)


def test_triangular_mean_and_median(tmp_path) -> None:
    summary = sampled(tmp_path, "  x: = triangular(0, 1, 4)\n").summaries["x"]
    assert summary.mean == pytest.approx(5 / 3, rel=3e-3)
    assert summary.p50 == pytest.approx(4 - math.sqrt(4 * 3 / 2), rel=5e-3)   # F(m) = 1/2 on the upper side


def test_poisson_and_binomial(tmp_path) -> None:
    result = sampled(tmp_path, "  a: = poisson(40)\n  b: = binomial(100, 0.3)\n")
    assert result.summaries["a"].mean == pytest.approx(40, rel=5e-3)
    assert result.summaries["b"].mean == pytest.approx(30, rel=5e-3)
    variance = float(result.frame[result.program.sources["b"].columns].var())
    assert variance == pytest.approx(100 * 0.3 * 0.7, rel=2e-2)


def test_exact_cells_stay_exact_and_deterministic_view_is_the_mean(tmp_path) -> None:
    result = sampled(tmp_path, "  k: 3\n  twice: = k * 2\n  x: = uniform(0, 1)\n  y: = x + twice\n", samples=1000)
    assert "twice" not in result.summaries and "y" in result.summaries
    assert result.deterministic.values["twice"] == 6.0
    assert result.deterministic.values["y"] == pytest.approx(6.5)


def test_sampling_leaves_the_sheets_own_scenario_at_the_means(tmp_path) -> None:
    """The reductions over the samples go into the sampled view only: the scenario the workbook
    remembers (`Workbook.evaluate()`, which sweeps, solves and choices start from) keeps every
    draw at its mean. Sampling wrote them into that shared scenario (found by mypy, issue 32)."""
    workbook = open_workbook(sheet(tmp_path, "  step: = normal(13 ms, 2 ms)\n  budget: 15 ms\n"
                                             "  tail: = p95(step)\n  margin: = budget - tail\n"))
    assert workbook.ok, workbook.diagnostics
    p95 = 0.013 + 1.6448536269514722 * 0.002   # of the normal distribution itself
    result = evaluate_samples(workbook, 20_000, 7)
    assert result.deterministic.values["tail"] == pytest.approx(p95, abs=1e-4)
    assert result.deterministic.values["margin"] == pytest.approx(0.015 - p95, abs=1e-4)
    remembered = workbook.evaluate()
    assert remembered is not result.deterministic
    assert remembered.values["tail"] == pytest.approx(0.013)     # p95 of the draw at its mean
    assert remembered.values["margin"] == pytest.approx(0.002)


def test_reproducible_with_seed_and_independent_streams(tmp_path) -> None:
    cells = "  x: = normal(0, 1)\n  y: = uniform(0, 1)\n"
    a = sampled(tmp_path, cells, 1000, seed=1).summaries
    b = sampled(tmp_path, cells, 1000, seed=1).summaries
    c = sampled(tmp_path, cells, 1000, seed=2).summaries
    assert a["x"] == b["x"] and a["y"] == b["y"]
    assert a["x"].mean != c["x"].mean
    # adding a draw elsewhere leaves this draw's samples alone
    d = sampled(tmp_path, "  w: = normal(5, 1)\n" + cells, 1000, seed=1).summaries
    assert d["x"] == a["x"]


@pytest.mark.parametrize("formula, code", [
    ("uniform(1 GB, 2 s)", "E-UNIT"),
    ("normal(1 ms, 2 GB)", "E-UNIT"),
    ("binomial(10, 50 GB)", "E-UNIT"),
    ("routing_loads(64, 8, 128 GB, 8)", "E-UNIT"),
    ("poisson(x)", "E-TYPE"),            # a discrete draw's parameter may not be random
    ("uniform(true, 2)", "E-TYPE"),
])
def test_unit_and_type_errors(tmp_path, capsys, formula: str, code: str) -> None:
    path = sheet(tmp_path, f"  x: = uniform(1, 2)\n  y: = {formula}\n")
    assert main(["check", str(path)]) == 2
    assert f"u.yaml:3:" in capsys.readouterr().err and code in open_workbook(path).diagnostics[0].code


def test_routing_loads_matches_brute_force(tmp_path) -> None:
    """The busiest of 8 ranks when 64 tokens each pick 8 of 128 experts (16 per rank)."""
    ours = routing_samples(64, 8, 128, 8, 20_000, np.random.default_rng(1))
    assert ours.shape == (20_000, 8) and (ours.sum(axis=1) == 64 * 8).all()
    rng = np.random.default_rng(2)
    brute = np.zeros((20_000, 8))
    for s in range(20_000):
        experts = np.argsort(rng.random((64, 128)), axis=1)[:, :8]   # 8 distinct experts per token
        brute[s] = np.bincount((experts // 16).ravel(), minlength=8)
    busiest_ours, busiest_brute = ours.max(axis=1), brute.max(axis=1)
    assert busiest_ours.mean() == pytest.approx(busiest_brute.mean(), rel=5e-3)
    assert np.percentile(busiest_ours, 95) == pytest.approx(np.percentile(busiest_brute, 95), abs=1)
    per_rank = ours[:, 0]                 # one rank's load is hypergeometric per token: mean 8, variance 64*8*(1/8)*(7/8)*(120/127)
    assert per_rank.mean() == pytest.approx(64.0, rel=5e-3)
    assert per_rank.var() == pytest.approx(64 * 8 * (1 / 8) * (7 / 8) * (120 / 127), rel=3e-2)


def test_skew_of_the_busiest_rank_in_a_sheet(tmp_path) -> None:
    result = sampled(tmp_path, "  loads: = routing_loads(64, 8, 128, 8)\n  busiest: = max(loads)\n"
                               "  skew: = busiest / mean(loads)\n", samples=20_000)
    skew = result.summaries["skew"]
    assert 1.1 < skew.mean < 1.25 and skew.p5 >= 1.0


def test_percentile_expectations_and_cli(tmp_path, capsys) -> None:
    path = sheet(tmp_path, "  x: = uniform(2 ms, 4 ms)\n", "samples: {count: 100000, seed: 3}\nexpect:\n"
                 "  x: 3 ms ± 1%\n  p95(x): 3.9 ms ± 1%\n  p5(x): 2.1 ms ± 1%\n  mean(x): 3 ms ± 1%\n")
    assert main(["test", str(path)]) == 0
    assert "4 passed, 0 failed" in capsys.readouterr().out
    path.write_text(path.read_text().replace("p95(x): 3.9 ms", "p95(x): 3.5 ms"))
    assert main(["test", str(path)]) == 1


def test_run_shows_percentiles_and_sensitivity(tmp_path, capsys) -> None:
    path = sheet(tmp_path, "  fast: = uniform(1 ms, 2 ms)\n  slow: = uniform(0 ms, 20 ms)\n"
                           "  total: = fast + slow -> ms\n")
    assert main(["run", str(path), "--samples", "5000"]) == 0
    out = capsys.readouterr().out
    assert "total" in out and "p5" in out and "p95" in out
    workbook = open_workbook(path)
    ranking = sensitivity(evaluate_samples(workbook, 5000, 0), "total")
    assert [i.draw for i in ranking] == ["slow", "fast"]
    assert ranking[0].rank_correlation > 0.95
    assert main(["explain", "--sensitivity", str(path), "total", "--samples", "2000"]) == 0
    assert "slow" in capsys.readouterr().out


def test_sweep_reports_percentiles_per_row(tmp_path, capsys) -> None:
    path = sheet(tmp_path, "  base: 10 ms\n  jitter: = uniform(0 ms, 2 ms)\n  total: = base + jitter -> ms\n")
    assert main(["sweep", str(path), "--vary", "base=10ms,20ms", "--show", "total", "--samples", "20000",
                 "--format", "csv"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    # the error column is there because a cell over draws can hold an error in some sample (the bounds
    # analysis proves nothing about draws): the schema says so whether or not this run's samples do
    assert lines[0] == "base [ms],total [ms],total p5 [ms],total p50 [ms],total p95 [ms],total [error]"
    assert lines[1].endswith(",")   # no sample of this row holds an error
    first = [float(v) for v in lines[1].split(",")[:-1]]
    assert first[1] == pytest.approx(11, rel=1e-2) and first[4] == pytest.approx(11.9, rel=1e-2)


def test_routing_loads_normal_limit_agrees_with_simulation() -> None:
    """Past the exact-simulation budget the sum is drawn from its normal limit
    with the exact covariance: the busiest rank must agree with simulation."""
    rng = np.random.default_rng(5)
    exact = np.vstack([routing_samples(512, 8, 256, 32, 1000, rng) for _ in range(5)])   # under the budget
    assert (exact.sum(axis=1) == 512 * 8).all()
    approx = routing_samples(512, 8, 256, 32, 5000, rng)                                   # over it
    assert exact.shape[1] == approx.shape[1] == 32
    assert approx.max(axis=1).mean() == pytest.approx(exact.max(axis=1).mean(), rel=1e-2)
    assert approx[:, 0].var() == pytest.approx(exact[:, 0].var(), rel=0.1)
    assert np.corrcoef(approx[:, 0], approx[:, 1])[0, 1] == pytest.approx(-1 / 31, abs=0.03)


def test_what_varies_and_what_reduces_carries_through_cells_without_draws(tmp_path) -> None:
    """A formula with no draw and no reduction of its own varies over samples, or is a reduction's
    result, through the cells it reads: the checker decides that from its precedents alone."""
    workbook = open_workbook(sheet(tmp_path, "  x: = uniform(1 GB, 3 GB)\n  y: = x * 2\n  z: = y + 1 GB\n"
                                             "  worst: = p95(z)\n  twice: = worst * 2\n  margin: = twice - 1 GB\n"
                                             "  fixed: 4 GB\n  plain: = fixed * 2\n  mixed: = plain + margin\n"))
    assert workbook.ok, workbook.diagnostics
    checked = workbook.checked
    assert {"x", "y", "z"} <= checked.uncertain and not {"worst", "twice", "margin", "plain", "mixed"} & checked.uncertain
    assert {"worst", "twice", "margin", "mixed"} <= checked.reduced and not {"plain", "fixed"} & checked.reduced
