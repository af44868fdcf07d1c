"""The built-in functions of spec §3.6: arity and unit rules (for check.py).

The Polars implementations live with the rest of the compiler in compile.py;
this table is the one place that says which functions exist and what they
accept, so did-you-mean hints and the docs come from the same list.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Function:
    name: str
    min_args: int
    max_args: int | None     # None: any number
    signature: str
    summary: str


FUNCTIONS: dict[str, Function] = {f.name: f for f in (
    Function("min", 1, None, "min(a, b, …) | min(array)", "least value; same dimension"),
    Function("max", 1, None, "max(a, b, …) | max(array)", "greatest value; same dimension"),
    Function("sum", 1, 1, "sum(array)", "sum of an array (of booleans: number of trues)"),
    Function("mean", 1, 1, "mean(array)", "mean of an array"),
    Function("count", 1, 1, "count(array)", "number of elements (of booleans: number of trues)"),
    Function("abs", 1, 1, "abs(x)", "absolute value, any dimension"),
    Function("sqrt", 1, 1, "sqrt(x)", "square root; halves the unit's exponents"),
    Function("ceil", 1, 2, "ceil(x) | ceil(x, step)", "round up (to a multiple of step)"),
    Function("floor", 1, 2, "floor(x) | floor(x, step)", "round down (to a multiple of step)"),
    Function("round", 1, 2, "round(x) | round(x, step)",
             "round half away from zero (to a multiple of step, same dimension)"),
    Function("ln", 1, 1, "ln(x)", "natural logarithm; dimensionless"),
    Function("log2", 1, 1, "log2(x)", "base-2 logarithm; dimensionless"),
    Function("log10", 1, 1, "log10(x)", "base-10 logarithm; dimensionless"),
    Function("exp", 1, 1, "exp(x)", "e to the x; dimensionless"),
    Function("clamp", 3, 3, "clamp(x, lo, hi)", "x limited to [lo, hi]; same dimension"),
    Function("if", 3, 3, "if(cond, a, b)", "a where cond holds, else b"),
    Function("range", 1, 2, "range(n) | range(a, b)", "the array [0 … n-1] / [a … b-1]"),
    # reductions over random samples (format 9.6, engine/check/reductions.py): deterministic results
    Function("p5", 1, 1, "p5(x)", "5th percentile of x over the samples; x itself without draws"),
    Function("p50", 1, 1, "p50(x)", "median of x over the samples; x itself without draws"),
    Function("p95", 1, 1, "p95(x)", "95th percentile of x over the samples; x itself without draws"),
    Function("percentile", 2, 2, "percentile(x, q)", "q-th percentile (0 to 100, fixed) of x over the samples"),
    Function("expected", 1, 1, "expected(x)", "mean of x over the samples; x itself without draws"),
    Function("prob", 1, 1, "prob(cond)", "share of samples where cond holds (shown in %); 0 or 1 without draws"),
)}

DIMENSIONLESS_ONLY = frozenset({"round", "ln", "log2", "log10", "exp"})
