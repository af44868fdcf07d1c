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
(their evaluation is a Monte Carlo run, too slow to repeat here).

Each property is parametrised only over the sheets it can compare (found
when the tests are collected: the counts of `test_counts_stay_whole` are
read off the checked types and the book's values), each parameter asserts
that it compared something, and `test_the_sheets_left_out_have_nothing_to_compare`
names every sheet left out and why, so that a new sheet cannot drop out
silently."""
from __future__ import annotations

import dataclasses
import math
import random
import re
from functools import cache
from pathlib import Path

import pytest

from supersheet.engine.compile.evaluate import error_code
from supersheet.engine.formula import ast as A
from supersheet.engine.workbook import Workbook, open_workbook
from supersheet.units import DIMENSIONLESS, parse_unit
import property_coverage as coverage
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


@cache
def workbook_of(path: Path) -> Workbook:
    """The sheet, opened once per session (test_properties.py reads the same ones)."""
    return open_workbook(path)


@cache
def book_values(path: Path) -> dict:
    return workbook_of(path).evaluate().values


@cache
def evaluated(path: Path) -> list[tuple[dict[str, A.Number], dict]]:
    return points(workbook_of(path), str(path.relative_to(SHEETS)))


def monte_carlo(path: Path) -> bool:
    return bool(workbook_of(path).checked.uncertain)


def whole_counts(path: Path) -> list[str]:
    """The sheet's own formulas that count something (cards, nodes, rounds …):
    dimensionless scalars with a count's name, whole at the book's point."""
    workbook, baseline = workbook_of(path), book_values(path)
    return [k for k, c in workbook.checked.cells.items()
            if workbook.model.cells[k].kind == "formula" and not workbook.model.cells[k].scope.prefix
            and c.type is not None and not c.type.is_bool and not c.type.is_array and c.type.dims == DIMENSIONLESS
            and COUNT.search(k) and k not in NOT_COUNTS and is_number(baseline[k]) and baseline[k] == int(baseline[k])]


def name(path: Path) -> str:
    return str(path.relative_to(SHEETS))


EVALUATED = [p for p in SCENARIOS if not monte_carlo(p)]
COUNTING = [p for p in EVALUATED if whole_counts(p)]


@pytest.mark.parametrize("path", EVALUATED, ids=name)
def test_no_error_values(path: Path) -> None:
    workbook = workbook_of(path)
    assert not workbook.diagnostics
    baseline = book_values(path)
    compared = 0
    for fixed, values in evaluated(path):
        errors = {k: error_code(v) for k, v in values.items()
                  if error_code(v) and not error_code(baseline[k]) and k.split(".")[-1] not in ERRORS_ARE_ANSWERS}
        assert not errors, f"at {shown(fixed)}: {errors}"
        compared += len(values)
    assert compared, "no point inside the sheet's assumptions: the property compared nothing"
    coverage.record("no_error_values_away_from_the_book", path, compared)


@pytest.mark.parametrize("path", COUNTING, ids=name)
def test_counts_stay_whole(path: Path) -> None:
    counts = whole_counts(path)
    compared = 0
    for fixed, values in evaluated(path):
        fractional = {k: values[k] for k in counts if is_number(values[k]) and values[k] != int(values[k])}
        assert not fractional, f"at {shown(fixed)}: {fractional}"
        compared += sum(is_number(values[k]) for k in counts)
    assert compared, "every count was an error value or not a number at every point: the property compared nothing"
    coverage.record("counts_stay_whole", path, compared)


# The scenario sheets the properties above leave out, and why: with the sheets they
# compare they make up the library's scenarios (checked below, from the sheets themselves).
MONTE_CARLO = {"questions/q4-ep-skew-monte-carlo.yaml"}
NO_WHOLE_COUNT = {  # their own formulas are durations, sizes, rates, ratios or fractional averages
    "lessons/tp-allreduce-nvlink-vs-pcie.yaml", "lessons/tp-allreduce-three-lines.yaml",
    "questions/q1-distinct-experts-per-step.yaml", "questions/q10-tp-allreduce-rule-of-thumb.yaml",
    "questions/q3-mla-tp-replication.yaml", "questions/q4-ep-skew.yaml", "questions/q5-nvl72-domain.yaml",
    "questions/q7-two-batch-overlap.yaml", "questions/q9-rank-completion-times.yaml",
    "supernodes/6.1.3-prefill-vs-decode-hbm-halved.yaml", "supernodes/6.1.3-prefill-vs-decode.yaml",
    "supernodes/6.2.2-2d-grid.yaml", "supernodes/6.2.2-dense-moe-hybrid.yaml",
    "supernodes/6.2.2-ffn-four-way-split.yaml", "supernodes/6.2.2-long-context-capacity.yaml",
    "supernodes/6.2.2-qwen3-32b-decode-step.yaml", "supernodes/6.2.2-row-vs-column-split.yaml",
    "supernodes/6.2.3-sequence-parallel-activation.yaml", "supernodes/6.2.4-causal-balance.yaml",
    "supernodes/6.2.5-pipeline-uneven.yaml", "supernodes/6.2.5-pipeline-utilisation.yaml",
    "supernodes/6.3.2-batch-reuse-hotspots-spread.yaml", "supernodes/6.3.2-batch-reuse.yaml",
    "supernodes/6.3.3-trillion-scale.yaml", "supernodes/6.4.2-tp-doubling.yaml",
    "supernodes/6.4.3-algbw-busbw.yaml", "supernodes/6.4.3-overlap-and-tuning.yaml",
    "supernodes/6.4.4-fusion-and-small-reductions.yaml", "supernodes/6.5.1-numa-placement.yaml",
    "supernodes/6.5.1-swing-vs-recursive.yaml", "supernodes/6.5.4-ocs-reconfiguration.yaml",
    "supernodes/6.5.5-ub-connection-setup-fast-oob.yaml", "supernodes/6.5.5-ub-connection-setup.yaml",
    "supernodes/6.5.5-ub-read-latency.yaml", "supernodes/6.6.1-memory-borrowing.yaml",
    "supernodes/6.6.2-in-flight-bandwidth.yaml", "supernodes/6.6.3-remote-vs-local-reads.yaml",
    "supernodes/6.7.4-engram-and-kv-placement.yaml", "supernodes/6.7.4-rom-wafer.yaml",
    "supernodes/6.7.4-supernode-size.yaml", "supernodes/6.7.4-supernode-throughput.yaml",
}


def test_the_sheets_left_out_have_nothing_to_compare() -> None:
    """Every scenario sheet is compared by the properties, or named above with its
    reason; each named one is confirmed from the sheet (random draws; no whole
    count among its own formulas), so neither list can hide a sheet that has
    something to compare, and a new sheet without counts is seen, not dropped."""
    assert {name(p) for p in SCENARIOS if monte_carlo(p)} == MONTE_CARLO
    assert {name(p) for p in EVALUATED if not whole_counts(p)} == NO_WHOLE_COUNT
    assert len(EVALUATED) + len(MONTE_CARLO) == len(SCENARIOS)
    assert len(COUNTING) + len(NO_WHOLE_COUNT) == len(EVALUATED) and COUNTING
