"""Sweep axes: what varies and over which values (spec §6), from YAML or the
command line.

Command-line spelling (`--vary NAME=VALUES`):
    tp=1,2,4,8                        a list
    context=4096token..131072token*2  geometric: from..to*factor
    message=10KiB..30KiB+10KiB        linear: from..to+step
    message=1KiB..1GiB:50log          count points, log- (or lin-) spaced
    model=a.yaml,b.yaml               an import axis: which sheet the alias `model` points to
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from . import ast as A
from .parser import ParseError, parse_formula
from .sheet import _is_literal, _scalar_text
from .workbook import OverrideError, Workbook, literal_type_of

MAX_AXIS_VALUES = 10_000_000


class AxisError(Exception):
    def __init__(self, code: str, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.hint = code, message, hint


@dataclass
class Axis:
    name: str                          # as written: a cell (`tp`, `gpu.hbm_bandwidth`) or an import alias
    key: str | None = None             # the cell key, for a value axis
    values: np.ndarray | None = None   # base-unit magnitudes (or booleans)
    labels: list[str] = field(default_factory=list)   # the values as written
    paths: list[str] | None = None     # for an import axis
    shapes: bool = False               # the cell fixes an array's length: each value needs its own compiled sheet

    @property
    def size(self) -> int:
        return len(self.paths) if self.paths is not None else len(self.values)  # type: ignore[arg-type]

    @property
    def is_import(self) -> bool:
        return self.paths is not None

    @property
    def structural(self) -> bool:
        """Import and length axes change the compiled sheet, not just a column."""
        return self.is_import or self.shapes


def literal_value(text: str) -> tuple[A.Node, float | bool]:
    """A literal as (node, base-unit magnitude)."""
    try:
        formula = parse_formula(text)
    except ParseError as e:
        raise AxisError("E-PARSE", f"{e.message} in {text!r}", e.hint) from None
    if not _is_literal(formula) or isinstance(formula.expr, A.Array):
        raise AxisError("E-SHEET", f"axis values must be numbers, quantities or booleans, got {text!r}")
    from units import UnitError
    try:
        return formula.expr, _magnitude(formula.expr)
    except UnitError as e:   # an unknown unit, or a slip such as 128K (kelvin)
        raise AxisError("E-UNIT", f"{e.message} in {text!r}", e.hint) from None


def _magnitude(node: A.Node) -> float | bool:
    from units import parse_unit
    if isinstance(node, A.Bool):
        return node.value
    if isinstance(node, A.Unary):
        return -_magnitude(node.operand)  # type: ignore[operator]
    assert isinstance(node, A.Number)
    return node.value * (parse_unit(node.unit).factor if node.unit else 1.0)


def value_axis(workbook: Workbook, name: str, texts: list[str]) -> Axis:
    key = workbook.key_for(name)
    if key is None:
        raise AxisError("E-NAME", f"unknown cell {name!r}", workbook.name_hint(name))
    expected = workbook.checked.cells[key].type
    if expected is not None and expected.is_array:
        raise AxisError("E-TYPE", f"{name} is an array; only scalar cells can be swept")
    shapes = key in workbook.checked.structural_inputs
    if shapes and workbook.model.cells[key].scope.prefix:
        raise AxisError("E-TYPE", f"{name} sets the length of an array (range) in an imported sheet and cannot be "
                                  "varied", "vary a cell of this sheet that it is computed from")
    magnitudes: list[float | bool] = []
    for text in texts:
        node, magnitude = literal_value(text)
        typ = literal_type_of(node)
        if expected is not None and (typ.kind, typ.dims) != (expected.kind, expected.dims):
            raise AxisError("E-UNIT" if typ.kind == expected.kind else "E-TYPE",
                            f"{name} is {expected.describe()}, but {text!r} is {typ.describe()}")
        magnitudes.append(magnitude)
    dtype = bool if magnitudes and isinstance(magnitudes[0], bool) else np.float64
    return Axis(name, key, np.array(magnitudes, dtype=dtype), list(texts), shapes=shapes)


def import_axis(workbook: Workbook, name: str, paths: list[str]) -> Axis:
    if name not in workbook.model.scope.aliases:
        raise AxisError("E-NAME", f"{name!r} is not an import of this sheet")
    if not paths:
        raise AxisError("E-SHEET", f"import axis {name} needs at least one sheet")
    return Axis(name, paths=paths, labels=list(paths))


def range_texts(workbook: Workbook, name: str, start: str, stop: str, *, times: str | None = None,
                step: str | None = None, count: int | None = None, scale: str = "linear") -> list[str]:
    """Expand a range to literal texts in the unit `start` is written in."""
    from units import parse_unit
    start_node, lo = literal_value(start)
    stop_node, hi = literal_value(stop)
    unit = start_node.unit if isinstance(start_node, A.Number) else None
    factor = parse_unit(unit).factor if unit else 1.0
    if literal_type_of(start_node).dims != literal_type_of(stop_node).dims:
        raise AxisError("E-UNIT", f"range of {name}: {start!r} and {stop!r} have different dimensions")
    lo, hi = float(lo), float(hi)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise AxisError("E-SHEET", f"range of {name} needs finite bounds, got {start!r} to {stop!r}")
    if times is not None:
        try:
            ratio = float(times)
        except (TypeError, ValueError):
            raise AxisError("E-SHEET", f"'times' of {name} must be a plain number, got {times!r}") from None
        if not ratio > 1 or lo <= 0 or not math.isfinite(ratio):
            raise AxisError("E-SHEET", f"geometric range of {name} needs from > 0 and times > 1")
        n = _count(name, math.floor(math.log(hi / lo) / math.log(ratio) + 1e-9) + 1 if hi >= lo else 0)
        values = [lo * ratio ** i for i in range(n)]
    elif step is not None:
        step_node, step_value = literal_value(step)
        if literal_type_of(step_node).dims != literal_type_of(start_node).dims:
            raise AxisError("E-UNIT", f"range of {name}: the step {step!r} and {start!r} have different dimensions")
        step_value = float(step_value)
        if not step_value > 0:
            raise AxisError("E-SHEET", f"linear range of {name} needs a positive step")
        n = _count(name, math.floor((hi - lo) / step_value + 1e-9) + 1 if hi >= lo else 0)
        values = [lo + i * step_value for i in range(n)]
    elif count is not None:
        if count < 1:
            raise AxisError("E-SHEET", f"range of {name} needs a count of at least 1")
        _count(name, count)
        if scale == "log":
            if lo <= 0 or hi <= 0:
                raise AxisError("E-SHEET", f"a log-spaced range of {name} needs positive bounds")
            values = list(np.geomspace(lo, hi, count))
        else:
            values = list(np.linspace(lo, hi, count))
    else:
        raise AxisError("E-SHEET", f"range of {name} needs 'times', 'step' or 'count'")
    return [repr(float(v) / factor) + (f" {unit}" if unit else "") for v in values]


def _count(name: str, n: float) -> int:
    """The number of values of a range, checked before any list is built."""
    if not n >= 1:
        raise AxisError("E-SHEET", f"range of {name} is empty", "check that 'from' is not beyond 'to'")
    if n > MAX_AXIS_VALUES:
        raise AxisError("E-SHEET", f"range of {name} has {int(n):,} values (at most {MAX_AXIS_VALUES:,})")
    return int(n)


def _whole_number(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(value).strip().isdecimal():
        raise AxisError("E-SHEET", f"'count' of {name} must be a whole number, got {value!r}")
    return int(value)


def yaml_axis(workbook: Workbook, name: str, value: Any) -> Axis:
    """One axis of a `vary:` mapping: a list, a range mapping, or import paths."""
    if name in workbook.model.scope.aliases and workbook.key_for(name) is None:
        paths = [str(v) for v in value] if isinstance(value, CommentedSeq) else [str(value)]
        base = workbook.model.root.file.path.parent if workbook.model.root else None
        return import_axis(workbook, name, [str(base / p) if base else p for p in paths])
    if isinstance(value, CommentedMap):
        keys = set(value)
        unknown = keys - {"from", "to", "times", "step", "count", "scale"}
        if unknown or not {"from", "to"} <= keys:
            raise AxisError("E-SHEET", f"range of {name} is {{from, to}} with times, step or count (and scale)")
        texts = range_texts(workbook, name, str(_scalar_text(value["from"])), str(_scalar_text(value["to"])),
                            times=_scalar_text(value.get("times")) if "times" in value else None,
                            step=_scalar_text(value.get("step")) if "step" in value else None,
                            count=_whole_number(name, value["count"]) if "count" in value else None,
                            scale=str(value.get("scale", "linear")))
        return value_axis(workbook, name, texts)
    items = list(value) if isinstance(value, CommentedSeq) else [value]
    texts = [_scalar_text(v) for v in items]
    if any(t is None for t in texts) or not texts:
        raise AxisError("E-SHEET", f"axis {name} needs a list of values or a range")
    return value_axis(workbook, name, texts)  # type: ignore[arg-type]


_RANGE = re.compile(r"^(?P<start>.+?)\.\.(?P<stop>.+?)(?:(?P<op>[*+])(?P<by>[^*+:]+)|:(?P<count>\d+)(?P<scale>log|lin)?)?$")


def cli_axis(workbook: Workbook, text: str) -> Axis:
    name, sep, values = text.partition("=")
    name, values = name.strip(), values.strip()
    if not sep or not name or not values:
        raise AxisError("E-SHEET", f"--vary needs NAME=VALUES, got {text!r}", "e.g. --vary tp=1,2,4,8")
    if name in workbook.model.scope.aliases and workbook.key_for(name) is None:
        return import_axis(workbook, name, [p.strip() for p in values.split(",") if p.strip()])
    match = _RANGE.match(values)
    if match and ".." in values:
        start, stop = match["start"].strip(), match["stop"].strip()
        if match["op"] == "*":
            texts = range_texts(workbook, name, start, stop, times=match["by"].strip())
        elif match["op"] == "+":
            texts = range_texts(workbook, name, start, stop, step=match["by"].strip())
        elif match["count"]:
            texts = range_texts(workbook, name, start, stop, count=int(match["count"]),
                                scale="log" if match["scale"] == "log" else "linear")
        else:
            texts = range_texts(workbook, name, start, stop, step="1" if not any(c.isalpha() for c in start) else None)
        return value_axis(workbook, name, texts)
    return value_axis(workbook, name, [v.strip() for v in values.split(",") if v.strip()])


def check_override(workbook: Workbook, key: str, node: A.Node) -> None:
    """Raise OverrideError when a literal does not fit the cell's type."""
    typ = literal_type_of(node)
    expected = workbook.checked.cells[key].type
    if expected is not None and (typ.kind, typ.dims) != (expected.kind, expected.dims):
        raise OverrideError("E-UNIT", f"{key} is {expected.describe()}, not {typ.describe()}")
