"""A value that is not a finite number (overflow, inf - inf) is the error value
#NUM in every output — never `inf` or `nan` shown as if it were a number
(issue 12). The scalar and the Polars path agree (tests/engine/test_differential.py
compares them operator by operator)."""
from __future__ import annotations

import csv
import io
import json

import polars as pl
import pytest

OVERFLOW = """
cells:
  big: = 1e308 * 10
  gap: = big - big
  b: 5
  zero: = b - b
  tiny: = 1 / (1e308 * 10)
  after: = big * 0 + 1
"""


def _no_number_words(text: str) -> None:
    for word in ("inf", "nan", "Infinity", "NaN"):
        assert word not in text.replace("info", ""), text


def test_run_shows_num_and_exits_1(run_cli, write_sheet):
    result = run_cli("run", str(write_sheet(OVERFLOW)))
    assert result.code == 1
    lines = {line.split()[0]: line.split()[1] for line in result.out.splitlines()[2:] if line.strip()}
    assert lines == {"big": "#NUM", "gap": "#NUM", "b": "5", "zero": "0", "tiny": "0", "after": "#NUM"}
    _no_number_words(result.out)


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_json_and_csv_hold_the_error_not_a_number(fmt, run_cli, write_sheet):
    result = run_cli("run", str(write_sheet(OVERFLOW)), "--format", fmt)
    assert result.code == 1
    if fmt == "json":
        cells = {c["name"]: c for c in json.loads(result.out)["cells"]}
        assert cells["big"]["value"] is None and cells["big"]["error"] == "#NUM"
        assert cells["gap"]["error"] == "#NUM" and cells["zero"]["value"] == 0
    else:
        rows = {r["name"]: r for r in csv.DictReader(io.StringIO(result.out))}
        assert rows["big"]["value"] == "" and rows["big"]["error"] == "#NUM"
        assert rows["after"]["error"] == "#NUM"
    _no_number_words(result.out)


def test_calc_overflow_is_num(run_cli):
    for expression in ("1e308 * 10", "1e308 * 10 - 1e308 * 10", "exp(1000)"):
        result = run_cli("calc", expression)
        assert (result.code, result.out.strip()) == (1, "#NUM"), expression


def test_an_expectation_on_an_overflowing_cell_fails(run_cli, write_sheet):
    path = write_sheet(OVERFLOW + "expect:\n  big: 1\n  zero: 0\n")
    result = run_cli("test", str(path))
    assert result.code == 1 and "big = #NUM" in result.out and "1 passed, 1 failed" in result.out


SWEPT = """
cells:
  x: 1
  big: = 1e300 ^ x
  back: = 1 / big
  ok: = x * 2
"""


@pytest.mark.parametrize("suffix", [".csv", ".json", ".parquet"])
def test_sweep_rows_that_overflow_are_num_in_every_file(suffix, run_cli, write_sheet, tmp_path):
    """x = 2 overflows 1e300 ^ x; `back` (1 / inf would be 0) is #NUM too: it uses an error."""
    out = tmp_path / f"out{suffix}"
    result = run_cli("sweep", str(write_sheet(SWEPT)), "--vary", "x=1,2", "-o", str(out))
    assert result.code == 0, result.err
    if suffix == ".parquet":
        frame = pl.read_parquet(out)
    elif suffix == ".csv":
        frame = pl.read_csv(out)
    else:
        text = out.read_text()
        _no_number_words(text)
        rows = [{c["name"]: c for c in row} for row in json.loads(text)["rows"]]
        assert [r["big"].get("error") for r in rows] == [None, "#NUM"]
        assert [r["back"].get("error") for r in rows] == [None, "#NUM"]
        assert [r["big"]["value"] for r in rows] == [1e300, None] and [r["ok"]["value"] for r in rows] == [2, 4]
        return
    assert frame["big"].to_list() == [1e300, None] and frame["back"].to_list() == [1e-300, None]
    assert frame["big [error]"].to_list() == [None, "#NUM"] and frame["back [error]"].to_list() == [None, "#NUM"]
    assert frame["ok"].to_list() == [2, 4]


def test_a_sweep_showing_only_what_uses_an_overflow_shows_errors(run_cli, write_sheet, tmp_path):
    """A #NUM cell's column keeps its inf inside the sweep's plan (not masked, for speed): what
    reads it must be an error all the same — arithmetic (inf * 0 + 1 is NaN), a comparison
    (inf > 1 is true), min (min(inf, 3) is 3), exp(-inf) (0), `where` — in rows where the
    overflowing cell itself is not shown."""
    sheet = write_sheet(SWEPT + """  after: = big * 0 + 1
  flag: = big > 1
  least: = min(big, 3)
  fade: = exp(-big)
""")
    out = tmp_path / "out.parquet"
    result = run_cli("sweep", str(sheet), "--vary", "x=1,2", "--show", "after,flag,least,fade,ok", "-o", str(out))
    assert result.code == 0, result.err
    frame = pl.read_parquet(out)
    assert frame["after"].to_list() == [1, None] and frame["flag"].to_list() == [True, None]
    assert frame["least"].to_list() == [3, None] and frame["fade"].to_list() == [0, None]
    for name in ("after", "flag", "least", "fade"):
        assert frame[f"{name} [error]"].to_list() == [None, "#NUM"], name
    assert frame["ok"].to_list() == [2, 4]
    # exp(-1e300) is 0, and exp(-inf) would be: x = 2 and 3 hold an error there, which `where` drops
    result = run_cli("sweep", str(sheet), "--vary", "x=1,2,3", "--where", "fade == 0", "--show", "ok", "-o", str(out))
    assert result.code == 0, result.err
    assert pl.read_parquet(out)["x"].to_list() == [1]


def test_samples_that_are_errors_are_counted_in_the_display(run_cli, write_sheet):
    path = write_sheet("""
        cells:
          x: = uniform(-1, 1)
          y: = exp(x * 1000)
        samples: {count: 1000}
    """)
    result = run_cli("run", str(path))
    assert result.code == 1
    line = next(line for line in result.out.splitlines() if line.strip().startswith("y "))
    assert "of 1,000 samples are error values" in line
    _no_number_words(result.out)


def test_a_sweep_says_how_many_samples_its_statistics_leave_out(run_cli, write_sheet, tmp_path):
    """A sampled sweep's mean and percentiles are over the samples with a value; its error
    column counts the others, as `run` does, so a row never reads as if every sample had one."""
    path = write_sheet("""
        cells:
          k: 1
          x: = uniform(-1, 1)
          y: = exp(x * k)
        samples: {count: 1000, seed: 1}
    """)
    run_line = next(line for line in run_cli("run", str(path), "--set", "k=1000").out.splitlines()
                    if line.strip().startswith("y "))
    failed = run_line.split("; ")[1].split(" of ")[0].replace(",", "")
    out = tmp_path / "out.parquet"
    result = run_cli("sweep", str(path), "--vary", "k=1,1000", "--show", "y", "-o", str(out))
    assert result.code == 0, result.err
    frame = pl.read_parquet(out)
    assert frame["y [error]"].to_list() == [None, f"{failed} of 1000 samples are error values"]
    assert int(failed) > 0 and frame["y"][1] is not None


def test_messages_never_show_a_non_number_as_a_value(run_cli, write_sheet):
    """Found by the fuzzing campaign: a range bound of 1e400 (YAML reads it as infinity), a
    goal whose difference is no number at the bounds, and an input written `inf`."""
    sheet = write_sheet("""
cells:
  c0: 3
  v4: = sqrt(c0 - 200)
sweeps:
  s:
    vary: {c0: {from: 1, to: 1e400, step: 1}}
    show: [v4]
solve:
  g:
    vary: c0
    goal: v4 == 4
    between: [0.1, 100]
""")
    checked = run_cli("check", str(sheet))
    assert checked.code == 2
    assert "sweep 's': a bound or step is not a finite number" in checked.err
    assert "the difference is #NUM (no finite value) at c0 = 0.1" in checked.err
    _no_number_words(checked.out + checked.err)
    word = run_cli("check", str(write_sheet("cells:\n  c2: inf\n")))
    assert word.code == 2 and "a value is a finite number, at most about 1.8e308" in word.err
    assert "= inf" not in word.err
    _no_number_words(word.err.replace("c2: inf", ""))   # the sheet's own line, quoted
    huge = run_cli("check", str(write_sheet("cells:\n  c2: 1e400\n")))
    assert huge.code == 2 and "at most about 1.8e308" in huge.err
    _no_number_words(huge.out + huge.err)


@pytest.mark.parametrize("vary", ["d=0,2", "d=-1..1", "d={from: -1, to: 1, step: 0.5}", "d=2,4"])
def test_division_by_an_axis_is_guarded_unless_no_value_is_0(vary, run_cli, write_sheet, tmp_path):
    """A sweep's axis without 0 needs no division guard (the compiler knows its values); one with 0
    (listed, or inside a range) gives #DIV/0 in that row, and min() over an axis keeps its meaning."""
    sheet = write_sheet("cells:\n  d: 1\n  r: = 1 / d\n  m: = 1 / min(d, 3)\n")
    out = tmp_path / "out.parquet"
    if vary.startswith("d={"):
        sheet.write_text(sheet.read_text() + f"sweeps:\n  s:\n    vary:\n      {vary.replace('=', ': ', 1)}\n")
        result = run_cli("sweep", str(sheet), "s", "-o", str(out))
    else:
        result = run_cli("sweep", str(sheet), "--vary", vary, "-o", str(out))
    assert result.code == 0, result.err
    frame = pl.read_parquet(out)
    for d, r, m, error in zip(frame["d"], frame["r"], frame["m"],
                              frame["r [error]"] if "r [error]" in frame.columns else [None] * frame.height):
        if d == 0:
            assert (r, m, error) == (None, None, "#DIV/0")
        else:
            assert r == 1 / d and m == 1 / min(d, 3) and error is None
    assert (0 in frame["d"].to_list()) == (vary != "d=2,4")


def test_an_expectation_of_an_uncertain_cell_whose_samples_are_all_errors_reads_num(run_cli, write_sheet,
                                                                                     tmp_path):
    """Found by `tools/fuzz.py --cases 10000 --seed 12`: the samples' mean of a cell with no number
    in any sample is NaN; `test` showed `v = nan` and `diff` an expectation's new value "nan"."""
    path = write_sheet("cells:\n  big: 1e300\n  huge: = big * big\n  v: = uniform(huge, huge)\n"
                       "expect:\n  v: 1\n  p95(v): 1\n")
    result = run_cli("test", str(path))
    assert result.code == 1
    assert "v = #NUM" in result.out and "expected 1, got #NUM" in result.out + result.err
    assert "p95(v) = #NUM" in result.out
    _no_number_words(result.out + result.err)
    other = write_sheet("cells:\n  a: 1\n", name="other.yaml")
    diff = run_cli("diff", str(other), str(path), "--format", "json")
    (sheet,) = json.loads(diff.out)["sheets"]
    assert [(c["name"], c["new"]) for c in sheet["expectations"]] == [("v", "#NUM"), ("p95(v)", "#NUM")]
    _no_number_words(diff.out)


def test_a_sweeps_mean_over_samples_is_finite_where_their_sum_overflows(run_cli, write_sheet):
    """Found by the same fuzz run: samples near 1e308 are each finite, their sum is not;
    the mean column read `inf`. The mean of finite numbers lies between them."""
    path = write_sheet("cells:\n  low: 1e307\n  high: 1.5e308\n  v: = uniform(low, high)\n  k: 1\n"
                       "samples: 1000\n")
    result = run_cli("sweep", str(path), "--vary", "k=1,2", "--format", "csv")
    assert result.code == 0, result.err
    rows = list(csv.DictReader(io.StringIO(result.out)))
    assert [1e307 < float(row["v"]) < 1.5e308 for row in rows] == [True, True]
    assert float(rows[0]["v p5"]) < float(rows[0]["v"]) < float(rows[0]["v p95"])
    _no_number_words(result.out)
