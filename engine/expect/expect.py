"""Expectations (spec §5): parse `61.50 GB`, `5.15 ms ± 1%`, `true`, `'#DIV/0'`
and check a computed value against them with the stated or implied tolerance.

Without `±` the tolerance is half a unit in the last written digit, in the
written unit — a book's rounded number holds exactly when the book's rounding
of the computed value gives it.
"""
from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.base.problems import ExpectationError
from supersheet.engine.base.span import Span
from supersheet.engine.base.types import Type
from supersheet.engine.compile.evaluate import ErrorValue
from supersheet.units import DIMENSIONLESS, UnitError, describe, format_number, parse_unit

_NUMBER = re.compile(r"\s*([-+]?(?:\d[\d_]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s?(.*?)\s*\Z")
_TOLERANCE_SPLIT = re.compile(r"\s*(?:±|\+/-|\+-)\s*")
_EPSILON = 1e-9


@dataclass(frozen=True)
class Expectation:
    text: str
    span: Span
    kind: str                    # "number" | "bool" | "error"
    value: float | bool | str    # in `unit` for numbers
    unit: str | None = None
    absolute: float | None = None   # tolerance in `unit`
    relative: float | None = None   # tolerance as a fraction of |value|

    def tolerance_in_unit(self) -> float:
        if self.relative is not None:
            return abs(float(self.value)) * self.relative
        return self.absolute or 0.0

    def describe_tolerance(self) -> str:
        if self.kind != "number":
            return "exact"
        if self.relative is not None:
            return f"± {format_number(self.relative * 100, 6)} %"
        return f"± {format_number(self.absolute or 0.0, 6)}" + (f" {self.unit}" if self.unit else "")


@dataclass(frozen=True)
class Outcome:
    target: str
    expectation: Expectation
    passed: bool
    actual: str          # the computed value, shown in the expectation's unit
    message: str = ""

    def diagnostic(self) -> Diagnostic:
        return Diagnostic("E-EXPECT", self.message or f"{self.target}: expected {self.expectation.text}, got {self.actual}",
                          self.expectation.span)


@functools.lru_cache(maxsize=4096)
def parse_expectation(text: str, span: Span) -> Expectation:
    """Raises ExpectationError (at `span`) for text that is not a value with an optional ± tolerance.
    Remembered (both are immutable): the editor checks the expectations again after every edit."""
    try:
        return _parse_expectation(text, span)
    except ExpectationError as e:
        raise ExpectationError(e.code, e.message, e.hint, span) from None


def _parse_expectation(text: str, span: Span) -> Expectation:
    raw = text.strip()
    if raw in ("true", "false"):
        return Expectation(raw, span, "bool", raw == "true")
    if raw.startswith("#"):
        return Expectation(raw, span, "error", raw)
    parts = _TOLERANCE_SPLIT.split(raw, maxsplit=1)
    value, unit, decimals = _quantity(parts[0])
    if len(parts) == 2:
        tol_text = parts[1].strip()
        if tol_text.endswith("%") and (number := _NUMBER.match(tol_text[:-1])) and not number.group(2):
            return Expectation(raw, span, "number", value, unit, relative=float(tol_text[:-1].strip()) / 100)
        tol, tol_unit, _ = _quantity(tol_text)
        if unit is None and tol_unit is None:
            return Expectation(raw, span, "number", value, unit, absolute=abs(tol))
        value_dims = parse_unit(unit).dimensions if unit else DIMENSIONLESS
        tol_dims = parse_unit(tol_unit).dimensions if tol_unit else DIMENSIONLESS
        if value_dims != tol_dims:
            raise ExpectationError("E-UNIT", f"tolerance {tol_text!r} is {describe(tol_dims)}, "
                                             f"the value is {describe(value_dims)}")
        factor = (parse_unit(tol_unit).factor if tol_unit else 1.0) / (parse_unit(unit).factor if unit else 1.0)
        return Expectation(raw, span, "number", value, unit, absolute=abs(tol) * factor)
    return Expectation(raw, span, "number", value, unit, absolute=0.5 * 10.0 ** (-decimals))


def _quantity(text: str) -> tuple[float, str | None, int]:
    match = _NUMBER.match(text)
    if not match:
        raise ExpectationError("E-SHEET", f"expected a value like '61.50 GB' or 'true', got {text.strip()!r}",
                               "a tolerance is written '5.15 ms ± 1%' or '11.55 us ± 0.01 us'")
    number, unit = match.group(1), match.group(2) or None
    if unit is not None:
        try:
            unit = parse_unit(unit).text
        except UnitError as e:
            raise ExpectationError("E-UNIT", e.message, e.hint) from None
    mantissa, _, exponent = number.replace("_", "").lower().partition("e")
    decimals = len(mantissa.partition(".")[2]) - (int(exponent) if exponent else 0)
    value = float(number.replace("_", ""))
    if not math.isfinite(value) or abs(decimals) > 300:  # 1e400: no 64-bit float holds it (nor its tolerance)
        raise ExpectationError("E-SHEET", f"{number} is out of the range of a 64-bit float (about ±1.8e308)",
                               "write the value in a larger unit")
    return value, unit, decimals


def static_problem(target: str, expectation: Expectation, typ: Type | None) -> ExpectationError | None:
    """What `check` can tell before evaluating (as `test` reports it): one value for an array, a number
    of the wrong dimension."""
    if typ is not None and typ.is_array:
        return ExpectationError("E-TYPE", f"{target} is an array of {typ.length} values, the expectation "
                                          f"{expectation.text!r} is one value", "expect one value per element: [a, b, …]",
                                expectation.span)
    if typ is None or typ.is_bool or expectation.kind != "number":
        return None
    dims = parse_unit(expectation.unit).dimensions if expectation.unit else DIMENSIONLESS
    if expectation.kind == "number" and dims != typ.dims:
        return ExpectationError("E-UNIT", f"{target} is {describe(typ.dims)}, the expectation "
                                          f"{expectation.text!r} is {describe(dims)}", span=expectation.span)
    return None


def check_expectation(target: str, expectation: Expectation, value: object, typ: Type | None) -> Outcome:
    """Compare one computed value (base-unit magnitude, bool or error) with an expectation."""
    if isinstance(value, list):
        raise ExpectationError("E-TYPE", f"{target} is an array of {len(value)} values, the expectation "
                                         f"{expectation.text!r} is one value", "expect one value per element: [a, b, …]",
                               expectation.span)
    if isinstance(value, ErrorValue):
        actual = value.code
        ok = expectation.kind == "error" and expectation.value == value.code
        return Outcome(target, expectation, ok, actual, "" if ok else f"{target}: expected {expectation.text}, got {actual}")
    if expectation.kind == "error":
        return _fail(target, expectation, _plain(value, expectation))
    if isinstance(value, bool) or (typ is not None and typ.is_bool):
        actual = "true" if value else "false"
        ok = expectation.kind == "bool" and expectation.value == bool(value)
        return Outcome(target, expectation, ok, actual, "" if ok else f"{target}: expected {expectation.text}, got {actual}")
    if expectation.kind != "number":
        return _fail(target, expectation, _plain(value, expectation))
    if typ is not None:
        dims = parse_unit(expectation.unit).dimensions if expectation.unit else DIMENSIONLESS
        if dims != typ.dims:
            raise ExpectationError("E-UNIT", f"{target} is {describe(typ.dims)}, the expectation "
                                             f"{expectation.text!r} is {describe(dims)}", span=expectation.span)
    factor = parse_unit(expectation.unit).factor if expectation.unit else 1.0
    computed = float(value) / factor  # type: ignore[arg-type]  # a number: lists, errors and bools returned above
    tolerance = expectation.tolerance_in_unit()
    expected = float(expectation.value)
    ok = abs(computed - expected) <= tolerance + _EPSILON * max(abs(expected), abs(tolerance), 1e-300)
    actual = format_number(computed, 7) + (f" {expectation.unit}" if expectation.unit else "")
    message = "" if ok else (f"{target}: expected {expectation.text}, got {actual} "
                             f"(off by {format_number(computed - expected, 4)}{f' {expectation.unit}' if expectation.unit else ''}, "
                             f"tolerance {expectation.describe_tolerance()})")
    return Outcome(target, expectation, ok, actual, message)


def _plain(value: object, expectation: Expectation) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        factor = parse_unit(expectation.unit).factor if expectation.unit else 1.0
        return format_number(value / factor, 7) + (f" {expectation.unit}" if expectation.unit else "")
    return str(value)


def _fail(target: str, expectation: Expectation, actual: str) -> Outcome:
    return Outcome(target, expectation, False, actual, f"{target}: expected {expectation.text}, got {actual}")
