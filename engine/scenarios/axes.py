"""Sweep axes: what varies and over which values (spec §6), from YAML or the
command line.

Values arrive read (load/literals.py: a sheet's when it loads, the command
line's when it is read): a number with its unit, never text to parse here. A
range is only counted when the axis is built (its size bounds --max-rows
before any work) and its values are computed with NumPy when the grid needs
them.

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
from dataclasses import dataclass, field, replace
from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from supersheet.engine.base.problems import AxisError
from supersheet.engine.base.limits import MAX_AXIS_VALUES
from supersheet.engine.base.project import library_name
from supersheet.engine.base.span import Span
from supersheet.engine.base.types import Type
from supersheet.engine.compile.bounds import Bounds, of_values
from supersheet.engine.formula import ast as A
from supersheet.engine.load.literals import Literal, bound_value, listed_value, range_part
from supersheet.engine.load.specs import AxisSpec, Written
from supersheet.engine.scenarios.spaced import Spaced, decades, decimal_places
from supersheet.engine.workbook import OverrideError, Workbook, literal_type_of
from supersheet.units import DIMENSIONLESS
from supersheet.units import parse_unit

if TYPE_CHECKING:   # NumPy is imported where values are built: `check` of a sheet without blocks loads none
    import numpy as np


def located(error: AxisError, span: Span | None) -> AxisError:
    """The same problem at `span` (an axis, a value in the file), unless it has a place of its own."""
    if error.span is not None or span is None:
        return error
    return AxisError.of(replace(error.diagnostic, span=span))


@dataclass
class Axis:
    name: str                          # as written: a cell (`tp`, `gpu.hbm_bandwidth`) or an import alias
    key: str | None = None             # the cell key, for a value axis
    explicit: np.ndarray | None = None   # listed values: base-unit magnitudes (or booleans)
    texts: list[str] | None = None     # listed values as written
    literals: list[Literal] | None = None   # listed values as read (a variant of the sheet re-checks them)
    paths: list[str] | None = None     # for an import axis
    shapes: bool = False               # the cell fixes an array's length: each value needs its own compiled sheet
    spaced: Spaced | None = None       # a range: its values are built when first needed
    type: Type | None = None           # the values' type (checked against the cell's)
    _built: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def values(self) -> np.ndarray:
        if self.explicit is not None:
            return self.explicit
        if self._built is None:
            assert self.spaced is not None
            self._built = self.spaced.values()
        return self._built

    @property
    def labels(self) -> list[str]:
        """The values as a user writes them (for messages and per-value sheets)."""
        if self.paths is not None:
            return list(self.paths)
        if self.texts is not None:
            return self.texts
        assert self.spaced is not None
        return [self.spaced.label(v) for v in self.values]

    def finite_nonzero(self) -> tuple[bool, bool]:
        """Whether every value is a finite number, and none 0 (the compiler skips NaN
        handling and division guards for such a column), without building a range's values."""
        if self.spaced is not None:
            return self.spaced.finite_nonzero()
        values = self.explicit
        if values is None or values.dtype.kind != "f":
            return False, False
        import numpy as np   # deferred: numpy
        finite = bool(np.isfinite(values).all())
        return finite, finite and bool((values != 0).all())

    def bounds(self) -> Bounds | None:
        """What every value lies between (the compiler proves cells finite with it: compile/bounds.py),
        without building a range's values; None for anything but finite numbers."""
        if self.spaced is not None:
            return of_values(self.spaced.ends()) if self.finite_nonzero()[0] else None
        values = self.explicit
        if values is None or values.dtype.kind != "f" or not len(values) or not self.finite_nonzero()[0]:
            return None
        return of_values([float(values.min()), float(values.max())])

    @property
    def size(self) -> int:
        if self.paths is not None:
            return len(self.paths)
        if self.spaced is not None:
            return self.spaced.count
        assert self.explicit is not None, "an axis holds import paths, a range or explicit values"
        return len(self.explicit)

    @property
    def is_import(self) -> bool:
        return self.paths is not None

    @property
    def cell_key(self) -> str:
        """The key of the cell a value axis sets (an import axis sets none)."""
        assert self.key is not None, f"{self.name} is an import axis"
        return self.key

    @property
    def structural(self) -> bool:
        """Import and length axes change the compiled sheet, not just a column."""
        return self.is_import or self.shapes


def _type_of(node: A.Node) -> Type:
    try:
        return literal_type_of(node)
    except OverrideError as e:
        raise AxisError.of(e.diagnostic) from None


def axis_cell(workbook: Workbook, name: str) -> tuple[str, Type | None, bool]:
    """The cell an axis varies (key, type, shapes an array), checked before any value is read."""
    key = workbook.key_for(name)
    if key is None:
        raise AxisError.of(workbook.unknown_cell(name))
    expected = workbook.checked.cells[key].type
    if expected is not None and expected.is_array:
        raise AxisError("E-TYPE", f"{name} is an array; only scalar cells can be swept")
    shapes = key in workbook.checked.structural_inputs
    if shapes and workbook.model.cells[key].scope.prefix:
        raise AxisError("E-TYPE", f"{name} sets the length of an array (range) in an imported sheet and cannot be "
                                  "varied", "vary a cell of this sheet that it is computed from")
    return key, expected, shapes


def _fits(name: str, expected: Type | None, typ: Type, text: str) -> None:
    if expected is not None and (typ.kind, typ.dims) != (expected.kind, expected.dims):
        raise AxisError("E-UNIT" if typ.kind == expected.kind else "E-TYPE",
                        f"{name} is {expected.describe()}, but {text!r} is {typ.describe()}")


def value_axis(workbook: Workbook, name: str, values: Sequence[Literal | Any], spans: list[Span] | None = None) -> Axis:
    """An axis of listed values, as read (`Literal`s; text or a typed number is read here);
    a problem of one is located at its span, when given."""
    key, expected, shapes = axis_cell(workbook, name)
    if not values:
        raise AxisError("E-SHEET", f"axis {name} has no values", "e.g. --vary tp=1,2,4,8")
    literals = [v if isinstance(v, Literal) else listed_value(v) for v in values]
    for i, value in enumerate(literals):
        try:
            if value.problem is not None:
                raise AxisError.of(value.problem)
            assert value.node is not None
            typ = Type("number", DIMENSIONLESS) if value.plain is not None else _type_of(value.node)
            _fits(name, expected, typ, value.text)
        except AxisError as e:
            raise located(e, spans[i] if spans else None) from None
    import numpy as np   # deferred: numpy
    magnitudes = [v.magnitude for v in literals]
    dtype = bool if isinstance(magnitudes[0], bool) else np.float64
    return Axis(name, key, np.array(magnitudes, dtype=dtype), [v.text for v in literals], literals, shapes=shapes)


def import_axis(workbook: Workbook, name: str, paths: list[str]) -> Axis:
    if name not in workbook.model.scope.aliases:
        raise AxisError("E-NAME", f"{name!r} is not an import of this sheet")
    if not paths:
        raise AxisError("E-SHEET", f"import axis {name} needs at least one sheet")
    return Axis(name, paths=paths)


def rebind(workbook: Workbook, axis: Axis) -> Axis:
    """The same axis for another compiled variant of the sheet (its cell's type re-checked)."""
    if axis.spaced is None:
        return value_axis(workbook, axis.name, axis.literals or axis.labels)
    key, expected, shapes = axis_cell(workbook, axis.name)
    if axis.type is not None:
        _fits(axis.name, expected, axis.type, axis.spaced.label(axis.spaced.start * axis.spaced.factor))
    return Axis(axis.name, key, shapes=shapes, spaced=axis.spaced, type=axis.type)


# How a range's parts are called where it was written: the YAML keys, or the CLI syntax.
YAML_WORDS = {"from": "'from'", "to": "'to'", "times": "'times'", "step": "'step'", "count": "'count'"}
CLI_WORDS = {"from": "FROM", "to": "TO", "times": "the factor (FROM..TO*FACTOR)", "step": "the step (FROM..TO+STEP)",
             "count": "the count (FROM..TO:COUNT)"}


Part = Literal | str | float


def _read(part: Part) -> Literal:
    return part if isinstance(part, Literal) else bound_value(part)


def _value(part: Literal) -> tuple[A.Node, float]:
    if part.problem is not None:
        raise AxisError.of(part.problem)
    assert part.node is not None and part.magnitude is not None, "a literal without a problem has both"
    return part.node, part.magnitude


def range_axis(workbook: Workbook, name: str, start: Part, stop: Part, *,
               times: Part | None = None, step: Part | None = None, count: int | None = None,
               scale: str = "linear", words: dict[str, str] = YAML_WORDS) -> Axis:
    """A range axis: its bounds checked, its size counted; values built when needed.
    Bounds and step are read values (`Literal`s; text or a typed number is read here)."""
    key, expected, shapes = axis_cell(workbook, name)
    start_read, stop_read = _read(start), _read(stop)
    start_node, lo = _value(start_read)
    stop_node, hi = _value(stop_read)
    start, stop = start_read.text, stop_read.text
    times_value = None if times is None else _read(times)
    step_value = None if step is None else _read(step)
    times = None if times_value is None else times_value.text      # the texts to show
    step = None if step_value is None else step_value.text
    typ = _type_of(start_node)
    if typ.kind != "number" or _type_of(stop_node).kind != "number":
        raise AxisError("E-TYPE", f"range of {name} needs numbers or quantities, got {start!r} to {stop!r}")
    if _type_of(stop_node).dims != typ.dims:
        raise AxisError("E-UNIT", f"range of {name}: {start!r} and {stop!r} have different dimensions")
    _fits(name, expected, typ, start)
    unit = start_node.unit if isinstance(start_node, A.Number) else None
    factor = parse_unit(unit).factor if unit else 1.0
    lo, hi = float(lo) / factor, float(hi) / factor   # in the unit `start` is written in
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise AxisError("E-SHEET", f"range of {name} needs finite bounds, got {start!r} to {stop!r}")
    if times_value is not None:   # (so is `times`, its text)
        ratio = times_value.plain
        if ratio is None:
            raise AxisError("E-SHEET", f"{words['times']} of {name} must be a plain number, got {times!r}")
        if not ratio > 1 or lo <= 0:
            raise AxisError("E-SHEET", f"a geometric range of {name} needs {words['from']} > 0 and "
                                       f"{words['times']} > 1")
        n = _count(name, decades(lo, hi) / math.log(ratio) + 1e-9 + 1 if hi >= lo else 0, words)
        spaced = Spaced(lo, hi, n, "times", ratio, factor, unit)
    elif step_value is not None:
        step_node, by = _value(step_value)
        if _type_of(step_node).dims != typ.dims:
            raise AxisError("E-UNIT", f"range of {name}: {words['step']} {step!r} and {start!r} have different "
                                      "dimensions")
        by = float(by) / factor
        if not by > 0 or not math.isfinite(by):
            raise AxisError("E-SHEET", f"a linear range of {name} needs {words['step']} > 0")
        span = (hi - lo) / by if math.isfinite(hi - lo) else hi / by - lo / by    # (-1e308..1e308: beyond a float)
        n = _count(name, span + 1e-9 + 1 if hi >= lo else 0, words)
        spaced = Spaced(lo, hi, n, "step", by, factor, unit, decimal_places(lo, by))
    elif count is not None:
        if count < 1:
            raise AxisError("E-SHEET", f"range of {name} needs {words['count']} >= 1")
        if scale == "log" and (lo <= 0 or hi <= 0):
            raise AxisError("E-SHEET", f"a log-spaced range of {name} needs positive bounds")
        n = _count(name, count, words)
        lin_step = (Decimal(repr(hi)) - Decimal(repr(lo))) / max(n - 1, 1)
        spaced = Spaced(lo, hi, n, "log" if scale == "log" else "lin", 0.0, factor, unit, decimal_places(lo, hi, lin_step))
    else:
        raise AxisError("E-SHEET", f"range of {name} needs {words['times']}, {words['step']} or {words['count']}")
    return Axis(name, key, shapes=shapes, spaced=spaced, type=typ)


def _count(name: str, n: float, words: dict[str, str]) -> int:
    """The number of values of a range (a float: 1e308 / 1e-300 is inf), checked before any is built."""
    if not n >= 1:
        raise AxisError("E-SHEET", f"range of {name} is empty",
                        f"check that {words['from']} is not beyond {words['to']}")
    if n > MAX_AXIS_VALUES + 1:
        shown = f"{int(n):,}" if math.isfinite(n) and n < 1e30 else f"{n:.3g}" if math.isfinite(n) else "infinitely many"
        raise AxisError("E-SHEET", f"range of {name} has {shown} values (at most {MAX_AXIS_VALUES:,})")
    n = math.floor(n)
    if n > MAX_AXIS_VALUES:
        raise AxisError("E-SHEET", f"range of {name} has {n:,} values (at most {MAX_AXIS_VALUES:,})")
    return n


def _part(written: Written) -> Literal:
    """A range's part from the sheet, read when it loaded (specs.py)."""
    return written.literal if written.literal is not None else range_part(written.value)


def spec_axis(workbook: Workbook, spec: AxisSpec) -> Axis:
    """One axis of a sheet's `vary:` (load/specs.py): a list, a range, or import paths.
    A problem is located at the axis's name, or at the value it is about."""
    name = spec.name
    if name in workbook.model.scope.aliases and workbook.key_for(name) is None:
        base = workbook.model.root.file.path.parent if workbook.model.root else None
        paths = spec.paths
        try:
            return import_axis(workbook, name, [str(base / p) if base and not library_name(p) else p for p in paths])
        except AxisError as e:
            raise located(e, spec.span) from None
    if spec.problem is not None:
        raise AxisError.of(spec.problem)
    try:
        if spec.range is not None:
            r = spec.range
            return range_axis(workbook, name, _part(r.start), _part(r.stop), times=_part(r.times) if r.times else None,
                              step=_part(r.step) if r.step else None, count=r.count, scale=r.scale)
        return value_axis(workbook, name, [v.literal or v.value for v in spec.values], [v.span for v in spec.values])
    except AxisError as e:
        raise located(e, spec.span) from None


_RANGE = re.compile(r"^(?P<start>.+?)\.\.(?P<stop>.+?)(?:(?P<op>[*+])(?P<by>[^*+:]+)|:(?P<count>\d+)(?P<scale>log|lin)?)?$")


def cli_axis(workbook: Workbook, text: str) -> Axis:
    """`--vary NAME=VALUES`: the name is checked first, then the values; a range's
    values are only counted here (see Spaced)."""
    name, sep, values = text.partition("=")
    name, values = name.strip(), values.strip()
    if not sep or not name or not values:
        raise AxisError("E-SHEET", f"--vary needs NAME=VALUES, got {text!r}", "e.g. --vary tp=1,2,4,8")
    if name in workbook.model.scope.aliases and workbook.key_for(name) is None:
        return import_axis(workbook, name, [p.strip() for p in values.split(",") if p.strip()])
    axis_cell(workbook, name)
    match = _RANGE.match(values)
    if match and ".." in values:
        start, stop = match["start"].strip(), match["stop"].strip()
        if match["op"] == "*":
            return range_axis(workbook, name, start, stop, times=match["by"].strip(), words=CLI_WORDS)
        if match["op"] == "+":
            return range_axis(workbook, name, start, stop, step=match["by"].strip(), words=CLI_WORDS)
        if match["count"]:
            return range_axis(workbook, name, start, stop, count=int(match["count"]),
                              scale="log" if match["scale"] == "log" else "linear", words=CLI_WORDS)
        return range_axis(workbook, name, start, stop, step="1" if not any(c.isalpha() for c in start) else None,
                          words=CLI_WORDS)
    listed = [v.strip() for v in values.split(",") if v.strip()]
    if not listed:
        raise AxisError("E-SHEET", f"--vary {name}= lists no values, got {values!r}", "e.g. --vary tp=1,2,4,8")
    return value_axis(workbook, name, listed)


def check_override(workbook: Workbook, key: str, node: A.Node) -> None:
    """Raise OverrideError when a literal does not fit the cell's type."""
    typ = literal_type_of(node)
    expected = workbook.checked.cells[key].type
    if expected is not None and (typ.kind, typ.dims) != (expected.kind, expected.dims):
        raise OverrideError("E-UNIT", f"{key} is {expected.describe()}, not {typ.describe()}")
