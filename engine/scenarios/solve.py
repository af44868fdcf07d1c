"""Goal seek (spec §7) on the compiled expressions; choices (spec §8) are in
choice.py, which binds its requirements and objective as a goal is bound here.

Goal seek is bracketed root finding done the Polars way: each round evaluates
the goal on a grid of points inside the current bracket in one frame, keeps
the first sub-interval where the difference changes sign, and stops at a
relative width of 1e-12 (the spec asks for 1e-9). A few rounds of one
vectorised evaluation each replace dozens of one-row evaluations.

`supersheet check` runs the same search with each point evaluated in floats
(the one-row path, `floats=True`): check never loads Polars, which this module
imports only where a plan is built.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from supersheet.engine.base.problems import SolveError
from supersheet.engine.base.span import Origin, Span
from supersheet.engine.compile.evaluate import Scenario
from supersheet.engine.expect.assume import violations
from supersheet.engine.formula import ast as A
from supersheet.engine.load.specs import SolveBlock
from supersheet.engine.present.present import display_unit, unit_factor
from supersheet.engine.load.literals import Literal, bound_value
from supersheet.engine.scenarios.axes import AxisError
from supersheet.engine.scenarios.expression import Bound, bind_expression
from supersheet.engine.workbook import Workbook
from supersheet.engine.check.reductions import uses_reductions
from supersheet.engine.compile.evaluate import literal_for
from supersheet.units import format_number
from supersheet.units import compact_unit
from supersheet.engine.compile.evaluate import compile_program
from supersheet.engine.compile.evaluate import affected_cells, evaluate_expression, literal_for
from supersheet.engine.compile.scalar import Unsupported, evaluate_cells
from supersheet.engine.scenarios.axes import check_override
from supersheet.engine.workbook import OverrideError
from supersheet.units import UnitError
from supersheet.engine.check.graph import dependents
from supersheet.engine.check.checked import node_type
from supersheet.engine.base.diagnostics import did_you_mean

POINTS = 64
MAX_ROUNDS = 40
PRECISION = 1e-12


@dataclass
class Solution:
    key: str
    value: float                 # base units
    scenario: Scenario
    goal: str


def bind_at_means(workbook: Workbook, text: str, origin: Origin) -> Bound:
    """A goal, requirement or objective bound in the sheet; refused when it reduces over
    random samples (solve and choose see every draw at its mean)."""
    bound = bind_expression(workbook, text, origin)
    if not isinstance(bound, Bound):
        raise AxisError.of(bound)
    if uses_reductions(bound.formula.expr, bound.deps, bound.checked):
        # solve and choose see every draw at its mean, where prob() is 0 or 1 and p95(x) is x
        raise AxisError("E-TYPE", f"{bound.text!r} uses a reduction over random samples (p95, prob …), which solve "
                                  "and choose cannot honour: they evaluate every draw at its mean",
                        "compare the rows of a sweep: it evaluates each row over the samples")
    return bound


def bound_span(bound: Bound) -> Span:
    """Where a free formula is written (the whole of it)."""
    return bound.origin.span(0, len(bound.text))


def goal_sides(workbook: Workbook, goal: str, origin: Origin) -> tuple[Bound, A.Node, A.Node]:
    bound = bind_at_means(workbook, goal, origin)
    expr = bound.formula.expr
    if not (isinstance(expr, A.Binary) and expr.op == "=="):
        raise AxisError("E-SHEET", f"a goal is written 'A == B', got {goal!r}", span=bound_span(bound))
    if bound.type.is_array:
        raise AxisError("E-TYPE", "a goal must compare two scalars", span=bound_span(bound))
    return bound, expr.left, expr.right


def solve(workbook: Workbook, vary: str, goal: str, between: tuple[Literal | str | float, Literal | str | float],
          goal_origin: Origin | None = None, between_spans: tuple[Span | None, Span | None] = (None, None),
          floats: bool = False) -> Solution:
    """`goal` met by varying `vary` between two values (as read: load/literals.py; text or a
    typed number is read here); a problem of an end is reported at its span (a sheet's
    `between: [lo, hi]`). With `floats`, each point is evaluated on the one-row path
    instead of in a Polars frame."""
    ends = tuple(end if isinstance(end, Literal) else bound_value(end, what="the ends") for end in between)
    key = workbook.key_for(vary)
    if key is None:
        raise AxisError.of(workbook.unknown_cell(vary))
    if key in workbook.checked.structural_inputs:
        raise AxisError("E-TYPE", f"{vary} sets the length of an array (range) and cannot be varied")
    bound, left, right = goal_sides(workbook, goal, goal_origin or Origin("<--goal>", 1, 1))
    if not depends_on(workbook, bound.deps, key):
        raise SolveError(f"the goal does not depend on {vary}: no value of {vary} changes {goal}",
                         f"vary a cell that {goal} is computed from")
    lo_node, lo = bound_end(workbook, key, ends[0], between_spans[0])
    hi_node, hi = bound_end(workbook, key, ends[1], between_spans[1])
    between = (ends[0].text, ends[1].text)   # as the messages show them
    lo, hi = float(lo), float(hi)
    if not lo < hi:
        raise AxisError("E-SHEET", f"between: the lower end {between[0]} is not below the upper end {between[1]}",
                        (f"write the ends in order: [{between[1]}, {between[0]}]" if between_spans[1] else
                         f"write the ends in order: --between {between[1]},{between[0]}") if lo > hi else
                        "give two different ends, around the value you expect", span=between_spans[1])
    evaluate = (_float_differences if floats else _frame_differences)(workbook, key, bound, left, right)
    log = lo > 0 and hi / lo > 100
    xs = np.geomspace(lo, hi, POINTS + 1) if log else np.linspace(lo, hi, POINTS + 1)
    fs = evaluate(xs)
    bracket = _first_sign_change(xs, fs)
    if bracket is None:
        unit = display_unit(workbook.checked, key, abs(hi))
        factor = unit_factor(unit)
        diff_unit = None
        left_type = node_type(bound.checked, left)
        if left_type is not None:
            diff_unit = compact_unit(max(abs(fs[0]), abs(fs[-1]), 1e-300), left_type.dims)
        dfac = unit_factor(diff_unit)
        low_text, high_text = (between[0], between[1]) if lo_node is not None else (format_number(lo / factor),
                                                                                    format_number(hi / factor))
        differences = (f"{_fmt(fs[0] / dfac, diff_unit)} at {vary} = {low_text}",
                       f"{_fmt(fs[-1] / dfac, diff_unit)} at {vary} = {high_text}")
        raise SolveError(f"no solution of {goal} for {vary} in [{between[0]}, {between[1]}]: "
                         f"the difference is {differences[0]} and {differences[1]}, with no sign change between",
                         "widen 'between' or check the goal")
    a, b, fa, fb = bracket
    for _ in range(MAX_ROUNDS):
        if abs(b - a) <= PRECISION * max(abs(a), abs(b), 1e-300) or fa == 0 or fb == 0:
            break
        xs = np.linspace(a, b, POINTS + 1)
        fs = evaluate(xs)
        fs[0], fs[-1] = fa, fb
        found = _first_sign_change(xs, fs)
        if found is None:
            break
        a, b, fa, fb = found
    root = a if fa == 0 else b if fb == 0 else a - fa * (b - a) / (fb - fa)
    scenario = workbook.evaluate({key: literal_for(root, None)})
    outside = violations(workbook, scenario)
    if outside:
        answer = display_unit(workbook.checked, key, abs(root))
        raise SolveError(f"the answer {vary} = {_fmt(root / unit_factor(answer), answer)} is outside the model: "
                         + "; ".join(v.describe() for v in outside),
                         "narrow 'between' to where the sheet's assumptions hold, or extend the model")
    return Solution(key, root, scenario, goal)


def _frame_differences(workbook: Workbook, key: str, bound: Bound, left: A.Node, right: A.Node
                       ) -> Callable[[np.ndarray], np.ndarray]:
    """The goal's two sides' difference at many values of `key`, as one Polars frame."""
    from supersheet.engine.compile.values import Source   # deferred: polars
    program = compile_program(workbook.checked, inputs={key: Source(key, False)}, baseline=workbook.evaluate())
    compiler = program.compiler(bound.checked)
    difference = (compiler.compile_expression(left)[0].expr - compiler.compile_expression(right)[0].expr)  # type: ignore[operator]  # goal sides are scalars: one Expr each
    needed = [d for d in bound.deps if d != key]

    def evaluate(xs: np.ndarray) -> np.ndarray:
        frame = program.apply(program.frame({key: xs}, len(xs)), needed).select(difference.alias("f")).collect()
        fs = frame["f"].to_numpy(allow_copy=True).astype(float)
        # a goal that does not depend on `vary` is a constant: one row, whatever the frame
        return np.full(len(xs), fs[0]) if len(fs) == 1 and len(xs) > 1 else fs
    return evaluate


def _float_differences(workbook: Workbook, key: str, bound: Bound, left: A.Node, right: A.Node
                       ) -> Callable[[np.ndarray], np.ndarray]:
    """The same difference, one value of `key` at a time in floats (the one-row path): only
    the cells downstream of `key` are evaluated again; an error value is NaN, as in the frame."""
    checked = workbook.checked
    affected = affected_cells(checked, [key])
    values = dict(workbook.evaluate().values)

    def number(value: Any) -> float:
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan

    def evaluate(xs: np.ndarray) -> np.ndarray:
        out = np.empty(len(xs))
        for i, x in enumerate(xs):
            fixed: dict[str, A.Node] = {key: literal_for(float(x), None)}
            evaluate_cells(checked, affected, values, fixed)
            scenario = Scenario(bound.checked, values, fixed)
            out[i] = number(evaluate_expression(scenario, left)) - number(evaluate_expression(scenario, right))
        return out
    try:
        evaluate(np.array([0.0]))   # a formula the one-row path does not know: the frame's way
    except Unsupported:
        return _frame_differences(workbook, key, bound, left, right)
    return evaluate


def bound_end(workbook: Workbook, key: str, given: Literal, span: Span | None) -> tuple[A.Node, float]:
    """One end of `between`, checked against the varied cell's type (E-UNIT as for --set),
    a number a float holds in base units; a problem is reported at `span`."""
    text = given.text
    if given.infinite:   # YAML reads 1e400 as infinity
        raise AxisError("E-SHEET", "between: this end is not a finite number (beyond ±1.8e308)",
                        "write a number a float can hold, at most about 1.8e308", span=span)
    try:
        if given.problem is not None:
            raise AxisError.of(given.problem)
        node, value = given.node, given.magnitude
        assert node is not None and value is not None   # a literal without a problem is a value
        check_override(workbook, key, node)
    except UnitError as e:
        raise AxisError("E-UNIT", f"between: {e.message} in {text!r}", e.hint, span=span) from None
    except OverrideError as e:
        raise AxisError(e.code, f"between: {text}: {e.message}", e.hint, span=span) from None
    except AxisError as e:
        raise AxisError(e.code, f"between: {e.message}", e.hint, span=e.span or span) from None
    if not math.isfinite(value):   # 1e308 PB: a finite number in a unit whose base magnitude is not
        raise AxisError("E-SHEET", f"between: {text} is not a finite number in base units (beyond ±1.8e308)",
                        "write it in a smaller unit, or nearer the value you expect", span=span)
    return node, value


def _fmt(value: float, unit: str | None) -> str:
    """A goal's difference at a bound; where it is no number (overflow, sqrt(-1)) it is the error value."""

    if not math.isfinite(value):
        return "#NUM (no finite value)"
    return format_number(value) + (f" {unit}" if unit else "")


def depends_on(workbook: Workbook, keys: tuple[str, ...], key: str) -> bool:
    """Whether any of `keys` is `key` or computed from it."""
    checked = workbook.checked
    downstream = set(dependents({key}, {k: c.deps for k, c in checked.cells.items()}, checked.order))
    return any(k == key or k in downstream for k in keys)


def _first_sign_change(xs: np.ndarray, fs: np.ndarray) -> tuple[float, float, float, float] | None:
    for i in range(len(xs) - 1):
        fa, fb = fs[i], fs[i + 1]
        if math.isfinite(fa) and math.isfinite(fb) and (fa == 0 or fb == 0 or (fa < 0) != (fb < 0)):
            return float(xs[i]), float(xs[i + 1]), float(fa), float(fb)
    return None


def solve_block(workbook: Workbook, name: str) -> SolveBlock:
    """The solve `name` as written (a problem of its shape raised)."""
    return named_block(workbook.model.root.solve if workbook.model.root else {}, "solve", name)


def named_block(blocks: Mapping[str, Any], kind: str, name: str) -> Any:
    """A sheet's block by name: E-NAME (with did-you-mean) if there is none, its first shape problem raised."""
    block = blocks.get(name)
    if block is None:
        raise AxisError("E-NAME", f"no {kind} named {name!r}", did_you_mean(name, blocks))
    if block.problems:
        raise AxisError.of(block.problems[0])
    return block


def solve_entry(workbook: Workbook, name: str, floats: bool = False) -> tuple[Solution, SolveBlock]:
    block = solve_block(workbook, name)
    assert block.goal is not None and block.between is not None
    low, high = block.between
    assert low.literal is not None and high.literal is not None   # read when the sheet loaded (specs.py)
    return solve(workbook, block.vary, block.goal.text, (low.literal, high.literal), block.goal.origin,
                 (low.span, high.span), floats), block
