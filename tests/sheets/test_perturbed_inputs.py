"""Every scenario sheet away from the book's point: evaluated at randomized
input points (fixed seed), it must still give what the physics guarantees
everywhere - no error values, whole counts. (What more bandwidth, a faster
link, more KV heads or more cards may not do is in test_properties.py, which
also moves imported cells and counts its comparisons.)

A point moves one of the sheet's own scalar inputs, or a few at once
(quantities by a factor in [1/2, 2], whole numbers to a whole number in
[n/2, 2n]); points
outside the sheet's assumptions (`assume:`) are not the model's business and
are skipped. Sheets with random draws are left to their own expectations
(their evaluation is a Monte Carlo run, too slow to repeat here)."""
from __future__ import annotations

import dataclasses
import math
import random
import re

import pytest

from supersheet.engine.compile.evaluate import error_code
from supersheet.engine.formula import ast as A
from supersheet.engine.workbook import Workbook, open_workbook
from supersheet.units import DIMENSIONLESS, parse_unit
from repo_paths import SHEETS

SCENARIOS = sorted(p for folder in ("supernodes", "questions", "lessons") for p in (SHEETS / folder).glob("*.yaml"))
POINTS = 6
TIME = parse_unit("s").dimensions

# Cells whose error value at some inputs is the right answer, not a model gap.
ERRORS_ARE_ANSWERS = {
    "cost_per_on_time": "no session meets the deadline: the cost per on-time session is unbounded",
    "nominal_cost_per_on_time": "as cost_per_on_time, for the failure-free run",
    "cost_increase": "a ratio of the two costs above",
}
# Count-named cells that are expected values or ratios, not counts.
NOT_COUNTS = {"remote_nodes", "torus_avg_hops", "dedup_remote", "limited_remote", "cards_of_memory"}
COUNT = re.compile(r"(cards|servers|nodes|chips|rounds|hops|links|cables|sessions|instances|gpus|nics|leaves|"
                   r"spines|planes|stages|shards|hosts)$")
# Durations that are differences or savings: more bandwidth on one side may lengthen them.
DIFFERENCE = re.compile(r"sav|slack|added|slower|faster|_than|margin|diff|gap|extra|window|hidden|overlap")


def scalar_inputs(workbook: Workbook) -> dict[str, A.Number]:
    """The sheet's own scalar numeric inputs that a user would vary."""
    out = {}
    for key, cell in workbook.model.cells.items():
        if cell.kind != "input" or cell.scope.prefix or cell.formula is None:
            continue
        expr = cell.formula.expr
        if isinstance(expr, A.Number) and expr.value > 0 and key not in workbook.checked.structural_inputs:
            out[key] = expr
    return out


def perturb(literal: A.Number, rng: random.Random) -> A.Number:
    v = literal.value
    if literal.unit is None and v == int(v):
        return dataclasses.replace(literal, value=float(rng.randint(max(1, math.ceil(v / 2)), max(2, int(2 * v)))))
    return dataclasses.replace(literal, value=v * 2 ** rng.uniform(-1, 1))


def outside(workbook: Workbook, values: dict) -> list[str]:
    """Assumptions (format 9.2, the sheet's and its imports') that do not hold at this point."""
    return [key for key, cell in workbook.model.cells.items() if cell.kind == "assume" and values.get(key) is not True]


def points(workbook: Workbook, seed: str) -> list[tuple[dict[str, A.Number], dict]]:
    """Each input alone at two random values, then POINTS points that move a few
    inputs together; only the points inside the sheet's assumptions."""
    rng = random.Random(seed)
    inputs = scalar_inputs(workbook)
    moves = [[key] for key in sorted(inputs) for _ in range(2)]
    moves += [rng.sample(sorted(inputs), k=min(len(inputs), rng.randint(2, 3))) for _ in range(POINTS)]
    out = []
    for chosen in moves:
        fixed = {key: perturb(inputs[key], rng) for key in chosen}
        values = workbook.evaluate(fixed).values
        if not outside(workbook, values):
            out.append((fixed, values))
    return out


def shown(fixed: dict[str, A.Number]) -> str:
    return ", ".join(f"{k}={v.value:g}{' ' + v.unit if v.unit else ''}" for k, v in fixed.items())


def is_number(x: object) -> bool:
    return isinstance(x, float) and math.isfinite(x)


@pytest.fixture(scope="module", params=SCENARIOS, ids=lambda p: str(p.relative_to(SHEETS)))
def sheet(request) -> tuple[Workbook, list]:
    workbook = open_workbook(request.param)
    assert not workbook.diagnostics
    if workbook.checked.uncertain:
        pytest.skip("a Monte Carlo sheet")
    return workbook, points(workbook, str(request.param.relative_to(SHEETS)))


def test_no_error_values(sheet) -> None:
    workbook, evaluated = sheet
    baseline = workbook.evaluate().values
    compared = 0
    for fixed, values in evaluated:
        errors = {k: error_code(v) for k, v in values.items()
                  if error_code(v) and not error_code(baseline[k]) and k.split(".")[-1] not in ERRORS_ARE_ANSWERS}
        assert not errors, f"at {shown(fixed)}: {errors}"
        compared += len(values)
    assert evaluated and compared, "no point inside the sheet's assumptions: the property compared nothing"


def test_counts_stay_whole(sheet) -> None:
    workbook, evaluated = sheet
    baseline = workbook.evaluate().values
    counts = [k for k, c in workbook.checked.cells.items()
              if workbook.model.cells[k].kind == "formula" and not workbook.model.cells[k].scope.prefix
              and c.type is not None and not c.type.is_bool and not c.type.is_array and c.type.dims == DIMENSIONLESS
              and COUNT.search(k) and k not in NOT_COUNTS and is_number(baseline[k]) and baseline[k] == int(baseline[k])]
    if not counts:
        pytest.skip("no whole count among the sheet's own formulas: nothing to compare")
    compared = 0
    for fixed, values in evaluated:
        fractional = {k: values[k] for k in counts if is_number(values[k]) and values[k] != int(values[k])}
        assert not fractional, f"at {shown(fixed)}: {fractional}"
        compared += sum(is_number(values[k]) for k in counts)
    assert compared, "every count was an error value or not a number at every point: the property compared nothing"
