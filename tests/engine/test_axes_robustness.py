"""Malformed sweep axes (in YAML and on the command line) are diagnostics, never
exceptions: found by Hypothesis, kept here as plain regression cases."""
from __future__ import annotations

import io

import pytest
from ruamel.yaml import YAML

from supersheet.engine.base.diagnostics import CODES
from supersheet.engine.verify.blocks import test_blocks as run_block_expectations, validate_blocks
from supersheet.engine.workbook import open_workbook

BAD_VARY = {
    "count-formula": ({"a": {"from": 1, "to": 4, "count": "= a + 1"}}, "'count' of a must be a whole number"),
    "count-none": ({"a": {"from": 1, "to": 4, "count": None}}, "'count' of a must be a whole number"),
    "count-float": ({"a": {"from": 1, "to": 4, "count": 2.5}}, "'count' of a must be a whole number"),
    "count-huge": ({"a": {"from": 1, "to": 4, "count": 10**12}}, "1,000,000,000,000 values"),
    "step-huge-count": ({"a": {"from": 0, "to": 1e300, "step": 1}}, "values (at most 10,000,000)"),
    "times-text": ({"a": {"from": 1, "to": 4, "times": "x"}}, "'times' of a must be a plain number"),
    "times-unit": ({"a": {"from": 1, "to": 4, "times": "2 GB"}}, "'times' of a must be a plain number"),
    "step-wrong-unit": ({"b": {"from": "1 KiB", "to": "4 KiB", "step": "1 s"}}, "different dimensions"),
    "step-no-unit": ({"b": {"from": "1 KiB", "to": "4 KiB", "step": 1}}, "different dimensions"),
    "from-beyond-to": ({"a": {"from": 8, "to": 1, "times": 2}}, "range of a is empty"),
    "infinite-bound": ({"a": {"from": 1, "to": "1e400", "times": 2}}, "is out of range"),
    "import-empty": ({"gpu": []}, "import axis gpu needs at least one sheet"),
    "empty-list": ({"a": []}, "axis a needs a list of values or a range"),
}


def dump(document) -> str:
    out = io.StringIO()
    YAML(typ="safe", pure=True).dump(document, out)
    return out.getvalue()


@pytest.mark.parametrize("block", ["sweeps", "choose"])
@pytest.mark.parametrize("case", list(BAD_VARY))
def test_bad_vary_is_a_diagnostic(case, block, tmp_path):
    vary, message = BAD_VARY[case]
    (tmp_path / "gpu.yaml").write_text("cells:\n  bw: 3350 GB/s\n", encoding="utf-8")
    document = {"use": {"gpu": "gpu.yaml"}, "cells": {"a": "1", "b": "2 KiB", "x": "= a * b"}}
    if block == "sweeps":
        document["sweeps"] = {"s": {"vary": vary, "expect": {"x": ["1 KiB"]}}}
    else:
        document["choose"] = {"c": {"vary": vary, "minimize": "x", "expect": {"a": 1}}}
    path = tmp_path / "sheet.yaml"
    path.write_text(dump(document), encoding="utf-8")
    workbook = open_workbook(path)
    assert workbook.ok, workbook.diagnostics
    diagnostics = validate_blocks(workbook)
    assert diagnostics and all(d.code in CODES for d in diagnostics)
    assert any(message in d.message for d in diagnostics), [d.message for d in diagnostics]
    report = run_block_expectations(workbook)
    assert all(d.code in CODES for d in report.diagnostics)


@pytest.mark.parametrize("vary, message", [
    ("tp=8..1*2", "range of tp is empty"),
    ("tp=1..8:1000000000000", "1,000,000,000,000 values"),
    ("tp=1..1e400*2", "is out of range"),
    ("tp=1..4+0", "needs the step (FROM..TO+STEP) > 0"),
    ("tp=1..4*x", "the factor (FROM..TO*FACTOR) of tp must be a plain number"),
    ("tp=0..4*2", "needs FROM > 0 and the factor (FROM..TO*FACTOR) > 1"),
    ("tp=1..4:0", "needs the count (FROM..TO:COUNT) >= 1"),
    ("message=1KiB..4KiB+1s", "different dimensions"),
])
def test_bad_cli_ranges_are_usage_errors(vary, message, run_cli, write_sheet, tmp_path, monkeypatch):
    write_sheet("cells:\n  tp: 1\n  message: 10 KiB\n  step: = message / tp\n", "s.yaml")
    monkeypatch.chdir(tmp_path)
    result = run_cli("sweep", "s.yaml", "--vary", vary)
    assert result.code == 2, result.output
    assert message in result.err and "internal error" not in result.err
    # the command line's own spelling, never the YAML keys
    assert not any(f"'{word}'" in result.err for word in ("times", "step", "count", "from", "to"))
