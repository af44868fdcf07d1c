"""`run_in_memory` compiles a sweep's plans once for a workbook and the same axes, shown
cells and filter: the same sweep run again evaluates at once, with the same rows; another
axis or another workbook (an edit makes a new one) compiles anew."""
from __future__ import annotations

from repo_paths import BENCH

import supersheet.engine.scenarios.sweep as sweep_module
from supersheet.engine.scenarios.axes import cli_axis
from supersheet.engine.scenarios.sweep import Grid, SweepSpec, run_in_memory
from supersheet.engine.workbook import open_workbook



def test_plans_compiled_once_per_workbook_and_sweep():
    workbook = open_workbook(BENCH / "tp-step.yaml")

    def spec(context: str) -> SweepSpec:
        return SweepSpec("s", Grid([cli_axis(workbook, v) for v in ["tp=1,2,4,8", context]]), ["step"])
    first = run_in_memory(workbook, spec("context=1024token..4096token:4"))
    built = []
    real = sweep_module.plans_for
    sweep_module.plans_for = lambda *a, **k: built.append(1) or real(*a, **k)
    try:
        again = run_in_memory(workbook, spec("context=1024token..4096token:4"))
        other = run_in_memory(workbook, spec("context=1024token..8192token:4"))
        fresh = run_in_memory(open_workbook(BENCH / "tp-step.yaml"), spec("context=1024token..4096token:4"))
    finally:
        sweep_module.plans_for = real
    assert again.equals(first) and fresh.equals(first) and not other.equals(first)
    assert len(built) == 2   # the other axis and the other workbook; the same sweep again was compiled once
