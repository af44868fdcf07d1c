"""Values written in a sheet's blocks — an axis's values, a range's bounds and
step, the ends of a goal seek's `between` — read once into typed literals: a
number with its unit (or a boolean) and its magnitude in base units.

The specs (specs.py) read them while the sheet loads and the command line's
`--vary`/`--between` when it is read, so the scenarios get values, never text
to parse. A value that is none keeps its problem (code, message, hint) without
a position: whoever uses the value reports it where it belongs (the value, the
axis, the end of `between`), when the block is used, as before.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.formula import ast as A
from supersheet.engine.formula.parser import ParseError, parse_formula
from supersheet.engine.load.positions import scalar_text


@dataclass(frozen=True)
class Literal:
    """One written value: `node` is the literal (a Number with its unit, its negation, or a
    Bool) and `magnitude` its value in base units; or, when it is no value, `problem`."""

    text: str                              # as messages and labels show it
    node: A.Node | None = None
    magnitude: float | bool | None = None
    plain: float | None = None             # the number, when written as a plain number (no unit)
    problem: Diagnostic | None = None      # why it is no value (without a span: see the module's doc)
    infinite: bool = False                 # a number YAML reads as infinity (1e400)

    @property
    def unit(self) -> str | None:
        return self.node.unit if isinstance(self.node, A.Number) else None


_PLAIN_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\Z")


def plain_number(value: Any) -> float | None:
    """A typed number (YAML int/float) or a plain numeral as a float, without the
    formula parser; None for anything else (quantities, booleans, inf …)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value) if abs(value) < 1e308 or isinstance(value, float) else math.inf
    elif isinstance(value, str) and _PLAIN_NUMBER.match(value.strip()):
        number = float(value)
    else:
        return None
    return number if math.isfinite(number) else None


def written_text(value: str | float) -> str:
    """How a bound is shown in a message: as the user wrote it (a typed number as YAML writes it)."""
    return value if isinstance(value, str) else str(scalar_text(value))


def parsed(text: str, what: str = "axis values") -> Literal:
    """A literal written as text, through the formula parser; `what` names it in the message
    when it is none."""
    try:
        formula = parse_formula(text)
    except ParseError as e:
        return Literal(text, problem=Diagnostic("E-PARSE", f"{e.message} in {text!r}", None, hint=e.hint))
    if not A.is_literal(formula) or isinstance(formula.expr, A.Array):
        return Literal(text, problem=Diagnostic(
            "E-SHEET", f"{what} must be numbers, quantities or booleans, got {text!r}", None))
    return of_node(text, formula.expr)


def of_node(text: str, node: A.Node) -> Literal:
    """A literal already parsed (a number, its negation or a boolean), written `text`."""
    from supersheet.units import UnitError   # deferred: units (slow to import)
    try:
        return Literal(text, node, _magnitude(node))
    except UnitError as e:   # an unknown unit, or a slip such as 128K (kelvin)
        return Literal(text, problem=Diagnostic("E-UNIT", f"{e.message} in {text!r}", None, hint=e.hint))


def listed_value(item: Any) -> Literal:
    """One value of an axis's list (a YAML scalar as YAML typed it, or text from the command line)."""
    number = plain_number(item)
    if number is not None:
        return Literal(str(item).strip(), A.Number(number, None, (0, 0)), number, number)
    text = str(item) if not isinstance(item, (int, float)) else scalar_text(item) or str(item)
    return parsed(text)


def bound_value(value: str | float, what: str = "axis values") -> Literal:
    """A range's bound or step, or an end of `between`: text (through the formula parser) or
    a typed number (as it is); `what` names them in a message."""
    number = plain_number(value) if not isinstance(value, str) else None
    text = written_text(value)
    if number is not None:
        return Literal(text, A.Number(number, None, (0, 0)), number, number)
    if isinstance(value, float) and not math.isfinite(value):   # YAML reads 1e400 as infinity
        return Literal(text, problem=Diagnostic("E-SHEET", "a bound or step is not a finite number (beyond ±1.8e308)",
                                                None, hint="write a number a float can hold, at most about 1.8e308"),
                       infinite=True)
    found = parsed(text, what)
    plain = plain_number(value)
    return found if plain is None else Literal(found.text, found.node, found.magnitude, plain, found.problem)


def range_part(value: Any) -> Literal:
    """A range's `from`, `to`, `times` or `step` from a sheet: a typed YAML number stays a
    number (a whole number as a float), never text parsed again."""
    if isinstance(value, float) and not math.isfinite(value):
        return bound_value(value)   # 1e400 read as infinity: refused as such, not shown as 'inf'
    if not isinstance(value, str):
        number = plain_number(value)
        value = number if number is not None else written_text(value)
    return bound_value(value)


def between_end(value: Any, text: str) -> Literal:
    """An end of a sheet's `between` (`text` as written): a typed YAML number stays a number."""
    typed = isinstance(value, (int, float)) and not isinstance(value, bool)
    return bound_value(value if typed else text, what="the ends")


def _magnitude(node: A.Node) -> float | bool:
    from supersheet.units import parse_unit   # deferred: units (slow to import)
    if isinstance(node, A.Bool):
        return node.value
    if isinstance(node, A.Unary):
        return -_magnitude(node.operand)
    assert isinstance(node, A.Number)
    return node.value * (parse_unit(node.unit).factor if node.unit else 1.0)
