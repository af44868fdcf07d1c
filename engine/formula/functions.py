"""The built-in functions of spec §3.6: arity and unit rules (for check.py).

The Polars implementations live with the rest of the compiler in compile.py;
this table is the one place that says which functions exist and what they
accept, so did-you-mean hints and the docs come from the same list. Each
function names its unit rule (`UNIT_RULES`); the checker implements each rule
once (engine/check/check_calls.py, `CallRules.RULES`), so a function whose
units behave like another's is one line here.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Function:
    """A built-in function: its arity, signature, summary and unit rule."""
    name: str
    min_args: int
    max_args: int | None     # None: any number
    signature: str
    summary: str
    rule: str                # its unit rule, one of UNIT_RULES
    dimensionless: tuple[int, ...] = ()   # arguments that must be dimensionless (of a draw: binomial's p)


# What each unit rule accepts and gives (the checker's CallRules.RULES implements them).
UNIT_RULES = {
    "extreme": "numbers of one dimension (or one array): the least or greatest, of that dimension",
    "same": "numbers of one dimension, the result of that dimension (elementwise over arrays)",
    "any": "a number of any dimension, the result of the same",
    "sqrt": "a number whose unit has even exponents: their halves",
    "rounding": "a dimensionless number, or a number and a step of one dimension",
    "dimensionless": "a dimensionless number, a dimensionless result",
    "total": "an array: of numbers, their dimension; of booleans, a count",
    "count": "an array of anything: a dimensionless count",
    "choice": "a condition and two values of one kind and dimension",
    "share": "a condition: a dimensionless share",
    "reduction": "a number over the samples (and a fixed percentile): its dimension",
    "range": "dimensionless bounds known before evaluation: a dimensionless array",
    "draw": "parameters of one dimension (a discrete draw's fixed before evaluation): that dimension",
    "interpolation": "x (a number or array) of the dimension of the array xs, and an array ys of its length: "
                     "ys's dimension, x's shape",
}


FUNCTIONS: dict[str, Function] = {f.name: f for f in (
    Function("min", 1, None, "min(a, b, …) | min(array)", "least value; same dimension", "extreme"),
    Function("max", 1, None, "max(a, b, …) | max(array)", "greatest value; same dimension", "extreme"),
    Function("sum", 1, 1, "sum(array)", "sum of an array (of booleans: number of trues)", "total"),
    Function("mean", 1, 1, "mean(array)", "mean of an array", "total"),
    Function("count", 1, 1, "count(array)", "number of elements (of booleans: number of trues)", "count"),
    Function("abs", 1, 1, "abs(x)", "absolute value, any dimension", "any"),
    Function("sqrt", 1, 1, "sqrt(x)", "square root; halves the unit's exponents", "sqrt"),
    Function("ceil", 1, 2, "ceil(x) | ceil(x, step)", "round up (to a multiple of step)", "rounding"),
    Function("floor", 1, 2, "floor(x) | floor(x, step)", "round down (to a multiple of step)", "rounding"),
    Function("round", 1, 2, "round(x) | round(x, step)",
             "round half away from zero (to a multiple of step, same dimension)", "rounding"),
    Function("ln", 1, 1, "ln(x)", "natural logarithm; dimensionless", "dimensionless"),
    Function("log2", 1, 1, "log2(x)", "base-2 logarithm; dimensionless", "dimensionless"),
    Function("log10", 1, 1, "log10(x)", "base-10 logarithm; dimensionless", "dimensionless"),
    Function("exp", 1, 1, "exp(x)", "e to the x; dimensionless", "dimensionless"),
    Function("clamp", 3, 3, "clamp(x, lo, hi)", "x limited to [lo, hi]; same dimension", "same"),
    Function("if", 3, 3, "if(cond, a, b)", "a where cond holds, else b", "choice"),
    Function("range", 1, 2, "range(n) | range(a, b)", "the array [0 … n-1] / [a … b-1]", "range"),
    # a table of points (engine/compile/interpolate.py): xs strictly increasing; outside it #NUM
    Function("interp", 3, 3, "interp(x, xs, ys)", "piecewise linear in the points (xs, ys); #NUM outside xs",
             "interpolation"),
    Function("log_interp", 3, 3, "log_interp(x, xs, ys)",
             "linear in log x and log y (a power law between points); #NUM outside xs", "interpolation"),
    Function("interp_extrapolate", 3, 3, "interp_extrapolate(x, xs, ys)",
             "interp, the first and last segments extended beyond xs", "interpolation"),
    Function("log_interp_extrapolate", 3, 3, "log_interp_extrapolate(x, xs, ys)",
             "log_interp, the first and last segments extended beyond xs", "interpolation"),
    Function("lookup", 3, 3, "lookup(x, xs, ys)", "ys[i] where x equals xs[i]; #NUM for any other x",
             "interpolation"),
    # reductions over random samples (format 9.6, engine/check/reductions.py): deterministic results
    Function("p5", 1, 1, "p5(x)", "5th percentile of x over the samples; x itself without draws", "reduction"),
    Function("p50", 1, 1, "p50(x)", "median of x over the samples; x itself without draws", "reduction"),
    Function("p95", 1, 1, "p95(x)", "95th percentile of x over the samples; x itself without draws", "reduction"),
    Function("percentile", 2, 2, "percentile(x, q)", "q-th percentile (0 to 100, fixed) of x over the samples",
             "reduction"),
    Function("expected", 1, 1, "expected(x)", "mean of x over the samples; x itself without draws", "reduction"),
    Function("prob", 1, 1, "prob(cond)", "share of samples where cond holds (shown in %); 0 or 1 without draws",
             "share"),
)}
