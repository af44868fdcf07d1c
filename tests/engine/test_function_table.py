"""engine/formula/functions.py (and distributions.py for random draws) is the one list of
function names. Every function in it names a unit/type rule that the checker implements
(functions.UNIT_RULES, engine/check/check_calls.py `CallRules.RULES`),
a Polars implementation (engine/compile/compile_calls.py) and a one-row implementation in
floats (engine/compile/scalar.py), and neither implementation knows a name the list does
not: adding a function without all three fails here."""
from __future__ import annotations

import math

import pytest

from supersheet.engine.check.check_calls import CallRules
from supersheet.engine.check.reductions import REDUCTIONS
from supersheet.engine.compile import scalar
from supersheet.engine.compile.compile import Compiler
from supersheet.engine.compile.evaluate import evaluate_with_polars
from supersheet.engine.compile.scalar import Unsupported, evaluate_cells
from supersheet.engine.formula.distributions import DISTRIBUTIONS
from supersheet.engine.formula.functions import FUNCTIONS, UNIT_RULES
from supersheet.engine.workbook import open_workbook

NAMES = set(FUNCTIONS) | set(DISTRIBUTIONS)

# One call of each function that checks; a new function needs its line here.
EXAMPLES = {
    "min": "min(2 ms, 3 ms)", "max": "max([1, 4, 2])", "sum": "sum([1 GB, 2 GB])", "mean": "mean([1, 2, 6])",
    "count": "count([1 < 2, 2 < 1, 3 < 4])", "abs": "abs(-2 ms)", "sqrt": "sqrt(16)", "ceil": "ceil(2.5)",
    "floor": "floor(5 ms, 2 ms)", "round": "round(2.5)", "ln": "ln(2)", "log2": "log2(8)", "log10": "log10(1000)",
    "exp": "exp(1)", "clamp": "clamp(5 ms, 1 ms, 3 ms)", "if": "if(1 < 2, 1 ms, 2 ms)", "range": "range(2, 5)",
    "p5": "p5(3 ms)", "p50": "p50(3)", "p95": "p95(3)", "percentile": "percentile(3 ms, 99)",
    "expected": "expected(3)", "prob": "prob(1 < 2)",
    "uniform": "uniform(1 ms, 3 ms)", "normal": "normal(2, 1)", "lognormal": "lognormal(1, 4)",
    "triangular": "triangular(1, 2, 4)", "poisson": "poisson(3)", "binomial": "binomial(10, 0.5)",
    "routing_loads": "routing_loads(64, 2, 8, 4)",
    "interp": "interp(3 KiB, [1, 2, 4] KiB, [10, 12, 20] us)",
    "log_interp": "log_interp(3 KiB, [1, 2, 4] KiB, [10, 12, 20] us)",
    "interp_extrapolate": "interp_extrapolate(8 KiB, [1, 2, 4] KiB, [10, 12, 20] us)",
    "log_interp_extrapolate": "log_interp_extrapolate([8, 0.5] KiB, [1, 2, 4] KiB, [10, 12, 20] us)",
    "lookup": "lookup(2048 B, [1, 2, 4] KiB, [10, 12, 20] us)",
}


def test_every_function_has_an_example_here():
    assert set(EXAMPLES) == NAMES


def test_every_unit_rule_is_implemented_once():
    assert set(CallRules.RULES) == set(UNIT_RULES)
    unknown = {f.name: f.rule for f in [*FUNCTIONS.values(), *DISTRIBUTIONS.values()] if f.rule not in UNIT_RULES}
    assert unknown == {}
    assert all(i < (f.max_args or f.min_args) for f in DISTRIBUTIONS.values() for i in f.dimensionless)


def test_the_implementations_know_no_name_the_table_does_not():
    polars = {name[3:] for name in dir(Compiler) if name.startswith("fn_")}
    assert polars <= set(FUNCTIONS), polars - set(FUNCTIONS)
    assert set(scalar.FUNCTIONS) <= NAMES, set(scalar.FUNCTIONS) - NAMES
    # range, the reductions and the draws have their own paths in the Polars compiler
    assert set(FUNCTIONS) - polars == {"range"} | REDUCTIONS


def _same(a, b) -> bool:
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12) or (math.isnan(a) and math.isnan(b))
    return a == b


@pytest.mark.parametrize("name", sorted(NAMES))
def test_each_function_checks_and_both_evaluators_agree(name, write_sheet):
    workbook = open_workbook(write_sheet(f"cells:\n  result: = {EXAMPLES[name]}\n"))
    assert workbook.diagnostics == [], [d.headline() for d in workbook.diagnostics]   # a check rule
    checked = workbook.checked
    one_row: dict = {key: None for key in checked.model.cells}
    try:
        evaluate_cells(checked, checked.order, one_row)        # the scalar path, without falling back
    except Unsupported:
        pytest.fail(f"{name}() has no one-row implementation in engine/compile/scalar.py")
    polars = evaluate_with_polars(checked)                     # the Polars path
    assert one_row["result"] is not None
    assert _same(one_row["result"], polars["result"]), (one_row["result"], polars["result"])
