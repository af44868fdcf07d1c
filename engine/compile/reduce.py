"""Reductions over samples evaluated (format 9.6): as Polars aggregates over the
sample rows, or on the scalar path as the value itself. Which reductions there
are and which cells they make deterministic is the checker's (check/reductions.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from supersheet.engine.check.reductions import quantile_of
from supersheet.engine.formula import ast as A

if TYPE_CHECKING:   # this module stays light: the scalar path (calc) imports it without Polars
    import polars as pl

    from supersheet.engine.check.checked import Checked
    from supersheet.engine.compile.values import Val


def compile_reduction(node: A.Call, arg: Val, checked: Checked, over_samples: bool, group: str | None) -> Val:
    """A reduction as a Polars expression: an aggregate over the sample rows
    (per sweep row: `.over(group)`) when the argument varies over samples,
    else the value itself (prob: 1.0 or 0.0)."""
    import polars as pl   # deferred: polars

    from supersheet.engine.compile.values import elementwise   # deferred: polars
    if node.func == "prob":
        arg = elementwise(lambda c: c.cast(pl.Float64), arg, nullable=arg.nullable)
    if not over_samples:
        return arg
    q = quantile_of(node, checked)
    aggregate: Callable[[pl.Expr], pl.Expr]
    if q is None:
        aggregate = lambda x: x.mean()  # noqa: E731 - expected and prob: the mean over samples
    else:
        aggregate = lambda x: x.quantile(q / 100, "linear")  # noqa: E731
    over = (lambda x: aggregate(x).over(group)) if group else aggregate
    return elementwise(over, arg, nullable=arg.nullable)


def scalar_reduction(name: str, value: object) -> object:
    """Without samples (the scalar one-scenario path): the value itself; prob of a condition is 1.0 or 0.0."""
    if name == "prob" and isinstance(value, bool):
        return 1.0 if value else 0.0
    if name == "prob" and isinstance(value, list):
        return [scalar_reduction(name, v) for v in value]
    return value
