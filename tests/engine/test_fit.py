"""Fits (issue 35): known constants recovered from synthetic data, standard errors that cover
the truth at the rate they claim, located diagnostics, and the command's outputs."""
from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest

from supersheet.engine.scenarios.fit import FitError, run_fit
from supersheet.engine.workbook import open_workbook

ALPHA, BUSBW, RANKS = 4e-6, 370e9, 8
SIZES = 1024 * 2.0 ** np.arange(0, 21)          # 1 KiB … 1 GiB


def allreduce_time(sizes: np.ndarray) -> np.ndarray:
    """The α–β model of a ring AllReduce on 8 ranks, in seconds."""
    return 2 * (RANKS - 1) * ALPHA + 2 * (RANKS - 1) / RANKS * sizes / BUSBW


SHEET = """
tables:
  nccl: {table}
cells:
  n: 8
  size: 1 MiB
  alpha: 5 us
  busbw: 300 GB/s
  predicted: = 2 * (n - 1) * alpha + 2 * (n - 1) / n * size / busbw -> us
fit:
  allreduce:
    table: nccl
    inputs: {{size: size}}
    targets: {{time: predicted}}
    vary: {{alpha: [0 us, 1 ms], busbw: [1 GB/s, 5000 GB/s]}}
    error: {error}
    expect: {{alpha: 4 us, busbw: 370 GB/s}}
"""


def _write_table(path, sizes, times) -> None:
    path.write_text("size [B],time [us]\n" + "".join(f"{float(s)!r},{float(t) * 1e6!r}\n" for s, t in zip(sizes, times)))


@pytest.fixture
def synthetic(tmp_path, write_sheet):
    _write_table(tmp_path / "allreduce.csv", SIZES, allreduce_time(SIZES))
    return write_sheet(SHEET.format(table="allreduce.csv", error="relative"))


@pytest.mark.parametrize("error", ["relative", "absolute"])
def test_known_constants_are_recovered(tmp_path, write_sheet, error):
    _write_table(tmp_path / "allreduce.csv", SIZES, allreduce_time(SIZES))
    result = run_fit(open_workbook(write_sheet(SHEET.format(table="allreduce.csv", error=error))), "allreduce")
    assert result.values["alpha"] == pytest.approx(ALPHA, rel=1e-6)
    assert result.values["busbw"] == pytest.approx(BUSBW, rel=1e-6)
    assert result.rms < 1e-9 * (1 if error == "relative" else 1e-3) and not result.on_bound
    assert result.rows == 21 and len(result.residuals["time"]) == 21


def test_supersheet_test_checks_the_expect(synthetic, run_cli):
    result = run_cli("test", str(synthetic))
    assert result.code == 0, result.output
    assert "pass" in result.out and "allreduce.alpha = 4 μs" in result.out and "2 passed, 0 failed" in result.out


def test_a_failing_expect_fails(tmp_path, write_sheet, run_cli):
    _write_table(tmp_path / "allreduce.csv", SIZES, allreduce_time(SIZES) * 1.1)   # 10 % slower everywhere
    sheet = write_sheet(SHEET.format(table="allreduce.csv", error="relative"))
    result = run_cli("test", str(sheet))
    # 4.4 us is within 4 us's half unit; 336 GB/s is not 370 GB/s
    assert result.code == 1 and "1 passed, 1 failed" in result.out, result.output
    assert "allreduce.busbw: expected 370 GB/s, got 336.36" in result.out


def test_standard_errors_cover_the_truth_at_the_rate_they_claim(tmp_path, write_sheet):
    """200 data sets with 2 % Gaussian noise (fixed seed): ±1 standard error holds the truth in
    68.3 % of fits. 400 intervals: the binomial sd is 2.3 points, so the band 60-77 % holds at
    3.5 sd, and errors off by 2x (coverage 38 % or 95 %) fail it."""
    sizes = np.geomspace(1024, 2 ** 30, 24)
    _write_table(tmp_path / "allreduce.csv", sizes, allreduce_time(sizes))
    workbook = open_workbook(write_sheet(SHEET.format(table="allreduce.csv", error="relative")))
    table = workbook.model.tables["nccl"]
    rng = np.random.default_rng(20261202)
    covered, intervals, widths = 0, 0, []
    for _ in range(200):
        noisy = allreduce_time(sizes) * (1 + 0.02 * rng.standard_normal(len(sizes))) * 1e6
        time = replace(table.columns["time"], values=noisy)
        workbook.model.tables["nccl"] = replace(table, columns={**table.columns, "time": time})
        result = run_fit(workbook, "allreduce")
        for key, truth in (("alpha", ALPHA), ("busbw", BUSBW)):
            error = result.errors[key]
            assert math.isfinite(error) and error > 0
            covered += abs(result.values[key] - truth) <= error
            intervals += 1
            widths.append(error / truth)
    assert intervals == 400
    assert 0.60 <= covered / intervals <= 0.77, covered / intervals


@pytest.mark.parametrize("fit, code, at, words, hinted", [
    ("{table: nccl, inputs: {time: size}, targets: {time: predicted}, vary: {alpha: [0 us, 1 ms]}}",
     "E-UNIT", "time: size", "column time [us] (time) sets size, which is information", True),
    ("{table: nccl, inputs: {size: size}, targets: {size: predicted}, vary: {alpha: [0 us, 1 ms]}}",
     "E-UNIT", "size: predicted", "is compared with predicted", True),
    ("{table: nccl, inputs: {size: size}, targets: {time: predicted}, vary: {alpha: [0 us, 1 ms], other: [1, 2]}}",
     "E-SOLVE", "other:", "no target depends on other", True),
    ("{table: nccl, inputs: {size: size}, targets: {time: predicted}, vary: {alpha: [0 GB, 1 ms]}}",
     "E-UNIT", "0 GB", "alpha is time, not information", True),
    ("{table: ncl, inputs: {size: size}, targets: {time: predicted}, vary: {alpha: [0 us, 1 ms]}}",
     "E-NAME", "ncl,", "no table named 'ncl'", True),
    ("{table: nccl, inputs: {sise: size}, targets: {time: predicted}, vary: {alpha: [0 us, 1 ms]}}",
     "E-NAME", "sise", "no column 'sise'", True),
])
def test_fit_problems_are_located_with_hints(tmp_path, write_sheet, run_cli, fit, code, at, words, hinted):
    _write_table(tmp_path / "allreduce.csv", SIZES, allreduce_time(SIZES))
    sheet = write_sheet(f"""
        tables:
          nccl: allreduce.csv
        cells:
          n: 8
          other: 3
          size: 1 MiB
          alpha: 5 us
          predicted: = 2 * (n - 1) * alpha + size / (100 GB/s) -> us
        fit:
          f: {fit}
    """)
    place = f"sheet.yaml:10:{len('  f: ') + 1 + fit.index(at)}: {code}: fit 'f': "
    result = run_cli("check", str(sheet))
    assert result.code == 2 and place in result.err and words in result.err, result.err
    assert ("hint:" in result.err) == hinted
    fitted = run_cli("fit", str(sheet), "f")
    assert place in fitted.err and fitted.code in (1, 2), fitted.output


def test_the_command_prints_values_rows_and_a_bound_warning(tmp_path, write_sheet, run_cli):
    _write_table(tmp_path / "allreduce.csv", SIZES, allreduce_time(SIZES))
    sheet = write_sheet(SHEET.format(table="allreduce.csv", error="relative")
                        .replace("[1 GB/s, 5000 GB/s]", "[1 GB/s, 300 GB/s]"))
    result = run_cli("fit", str(sheet))
    assert result.code == 0, result.output
    lines = result.out.splitlines()
    assert lines[0].startswith("fit allreduce: 2 cells to 21 rows of nccl (allreduce.csv), relative error")
    assert lines[2].split()[:3] == ["busbw", "300", "GB/s"]
    assert "warning: busbw sits on its bound 300 GB/s" in result.out
    assert "size [B]  time [us]  predicted [us]  time error [%]" in result.out
    as_json = json.loads(run_cli("fit", str(sheet), "--format", "json").out)
    assert as_json["values"][1]["on_bound"] is True and len(as_json["rows"]) == 21
    assert [c["name"] for c in as_json["columns"]] == ["size", "time", "predicted", "time error"]
    csv = run_cli("fit", str(sheet), "--format", "csv").out.splitlines()
    assert csv[0] == "size [B],time [us],predicted [us],time error [%]" and len(csv) == 22


def test_run_at_the_fitted_values(synthetic, run_cli):
    text = run_cli("run", str(synthetic), "--fit", "allreduce").out
    assert "alpha      4 μs      set by fit allreduce" in text
    cells = {c["name"]: c for c in json.loads(run_cli("run", str(synthetic), "--fit", "allreduce",
                                                      "--format", "json").out)["cells"]}
    assert cells["alpha"]["value"] == pytest.approx(4.0, rel=1e-6) and cells["alpha"]["set"] == "4 μs"
    assert cells["predicted"]["value"] == pytest.approx(allreduce_time(np.array([2.0 ** 20]))[0] * 1e6, rel=1e-6)


def test_the_python_api(synthetic):
    import supersheet as ss
    fitted = ss.load(synthetic).fit("allreduce")
    assert fitted.quantities()["busbw"].to("GB/s").magnitude == pytest.approx(370, rel=1e-6)
    frame = fitted.residuals()
    assert frame.columns == ["size [B]", "time [us]", "predicted [us]", "time error [%]"] and frame.height == 21
    assert fitted.summary()["worst"] < 1e-7


def test_a_row_without_a_value_is_refused(tmp_path, write_sheet):
    _write_table(tmp_path / "allreduce.csv", SIZES, allreduce_time(SIZES))
    sheet = write_sheet(SHEET.format(table="allreduce.csv", error="relative")
                        .replace("-> us", "+ sqrt(size / 1 B - 2048) * 1 us -> us"))
    with pytest.raises(FitError, match="no value for row 1"):
        run_fit(open_workbook(sheet), "allreduce")


def test_plot_draws_data_against_model(synthetic, run_cli, tmp_path):
    out = tmp_path / "fit.svg"
    result = run_cli("plot", str(synthetic), "--fit", "allreduce", "-o", str(out))
    assert result.code == 0 and "21 rows of fit allreduce plotted" in result.err, result.output
    svg = out.read_text()
    assert svg.startswith("<svg") and "time (data) and predicted (model) against size" in svg
    # sizes 1 KiB … 1 GiB span six decades: both axes are logarithmic without --log-x/--log-y
    page = tmp_path / "fit.html"
    assert run_cli("plot", str(synthetic), "--fit", "allreduce", "-o", str(page)).code == 0
    html = page.read_text()
    assert '"scale": {"nice": false, "type": "log"}' in html and '"scale": {"type": "log"}' in html, html[:2000]
    assert run_cli("plot", str(synthetic), "sweepname", "--fit", "allreduce", "-o", str(out)).code == 2
