"""Reductions over samples (format 9.6): p5, p50, p95, percentile, expected, prob.

With random draws, a sheet is evaluated once per sample (a row of the sample
frame). A reduction turns a value that varies over the samples into one
number: `p95(step)` the 95th percentile of `step` over the samples,
`expected(x)` their mean, `prob(cond)` the share of samples where `cond`
holds. Its result is deterministic: the same in every sample, shown as one
value, never as a mean with a spread. Without draws the samples are one
scenario, so a reduction is the value itself (and `prob` is 0 or 1).

Which cells vary over samples (`Checked.uncertain`) is decided by what they
read outside reductions; a cell that reads samples only through reductions is
`Checked.reduced`: deterministic, but computed from the sample frame.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from supersheet.engine.formula import ast as A
from supersheet.engine.formula.distributions import DISTRIBUTIONS

if TYPE_CHECKING:
    from supersheet.engine.check.checked import Checked, Draft

QUANTILES: dict[str, float] = {"p5": 5.0, "p50": 50.0, "p95": 95.0}
REDUCTIONS = frozenset({*QUANTILES, "percentile", "expected", "prob"})


def outside_reductions(expr: A.Node) -> tuple[list[A.Name], bool]:
    """The names a formula reads outside reductions, and whether it draws outside them."""
    names: list[A.Name] = []
    draws = False
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, A.Call) and node.func in REDUCTIONS:
            continue
        if isinstance(node, A.Call) and node.func in DISTRIBUTIONS:
            draws = True
        if isinstance(node, A.Name):
            names.append(node)
        stack.extend(A.children(node))
    return names, draws


def varies_over_samples(node: A.Node, checked: Checked | Draft) -> bool:
    """Whether a (sub)formula differs from sample to sample."""
    names, draws = outside_reductions(node)
    return draws or any(checked.bindings.get(n) in checked.uncertain for n in names)


def classify(key: str, expr: A.Node, deps: tuple[str, ...], checked: Draft, sampling_calls: bool = True) -> None:
    """Record a checked cell as varying over samples (uncertain), or as a
    deterministic result of reductions over them (reduced), or neither.
    `sampling_calls` False: the formula calls no draw and no reduction (its typing
    saw none), so only the cells it reads decide, and its tree need not be walked."""
    if not sampling_calls:   # (a sheet without draws has neither set: nothing to look up)
        if checked.uncertain and any(d in checked.uncertain for d in deps):
            checked.uncertain.add(key)
        elif checked.reduced and any(d in checked.reduced for d in deps):
            checked.reduced.add(key)
        return
    if varies_over_samples(expr, checked):
        checked.uncertain.add(key)
        return
    if uses_reductions(expr, deps, checked):
        checked.reduced.add(key)


def uses_reductions(expr: A.Node, deps: tuple[str, ...], checked: Checked | Draft) -> bool:
    """Whether a formula reduces over samples, itself or through the cells it reads."""
    return any(d in checked.reduced for d in deps) or _reduces_samples(expr, checked)


def _reduces_samples(expr: A.Node, checked: Checked | Draft) -> bool:
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, A.Call) and node.func in REDUCTIONS and varies_over_samples(node.args[0], checked):
            return True
        stack.extend(A.children(node))
    return False


def quantile_of(node: A.Call, checked: Checked) -> float | None:
    """The percentile a quantile reduction takes (0-100), None for expected/prob."""
    if node.func in QUANTILES:
        return QUANTILES[node.func]
    if node.func == "percentile":
        return checked.constants[node.args[1]]
    return None
