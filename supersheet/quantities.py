"""Engine values <-> Python values: Pint quantities, floats, booleans.

The engine holds base-unit magnitudes (floats) and error values. A reader of
the API gets the value in the cell's display unit (the unit `supersheet run`
shows) as a quantity of the project's one Pint registry (`units.registry()`),
a plain float for a dimensionless number (a fraction: 50 % is 0.5), a bool
for a condition. Inputs go the other way as literal text the engine's own
parser reads, so an input set from Python is checked exactly like `--set`.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

from supersheet.engine.compile.errorcodes import ERROR
from supersheet.engine.compile.evaluate import ErrorValue, Value
from supersheet.engine.present.present import show
from supersheet.units import DIMENSIONLESS, parse_unit, registry

from .errors import SheetError, problem

if TYPE_CHECKING:
    import pint

    from supersheet.engine.check.checked import Checked

CellValue = Union["pint.Quantity", float, bool, list, "Spread", "Share"]
"""What `sheet[name]` gives: a Pint quantity of `registry()` (over a NumPy array for an array
cell), a float (a dimensionless number), a bool (a check or condition), a list (an array of
bools or plain numbers), or a Spread or Share (a cell over random draws)."""

_GRAMS_PER_KILOGRAM = 1000.0   # Pint's root mass unit is the gram, ours the kilogram (units/parse.py)


@functools.cache
def pint_unit(text: str) -> pint.Unit:
    """The Pint unit of a display unit, refused unless Pint and our parser agree on its size."""
    ureg = registry()
    ours = parse_unit(text)
    try:
        unit = ureg.Unit(text)
        root = ureg.Quantity(1.0, unit).to_root_units()
    except Exception:   # noqa: BLE001 - Pint raises several types for text it cannot read
        root = None
    if root is not None:
        grams = float(dict(root.dimensionality).get("[mass]", 0).real)   # pint types it as any number
        size = float(root.magnitude) * _GRAMS_PER_KILOGRAM ** -grams
        if math.isclose(size, ours.factor, rel_tol=1e-12):
            return unit
    raise problem("E-UNIT", f"the unit {text!r} has no Pint equivalent of the same size",
                  "read the value with Sheet.magnitude(name), which gives the number and the unit text")


def python_value(checked: Checked, key: str, value: Value) -> Any:
    """A cell's value for Python; an error value raises SheetError (E-VALUE) at the cell."""
    cell = checked.cells[key]
    typ = cell.type
    if _has_error(value):
        raise error_value(checked, key, value)
    if value is None or typ is None:
        raise problem("E-TYPE", f"{key} has no value (it is not evaluated)")
    if typ.is_bool:
        return [bool(v) for v in value] if isinstance(value, list) else bool(value)
    if typ.dims == DIMENSIONLESS:
        return [float(v) for v in value] if isinstance(value, list) else float(value)   # type: ignore[arg-type]  # no ErrorValue: _has_error raised
    shown = show(checked, key, value)
    unit = pint_unit(shown.unit) if shown.unit else None
    magnitude: Any = shown.value
    if isinstance(magnitude, list):
        import numpy as np   # deferred: numpy
        magnitude = np.array(magnitude, dtype=float)
    return registry().Quantity(magnitude, unit) if unit is not None else magnitude


@dataclass(frozen=True)
class Spread:
    """A cell that depends on random draws, as `supersheet run` shows it: the `mean` and
    the 5th, 50th and 95th percentiles over the samples, each in the display unit `run`
    picks (a Pint quantity, or a float for a dimensionless number; None where a statistic
    overflows, which `run` shows as #NUM); `samples` drawn, `error_samples` of them
    holding an error value (left out of the statistics). `str()` is `run`'s text."""

    mean: Any
    p5: Any
    p50: Any
    p95: Any
    samples: int
    error_samples: int
    display: str

    def __str__(self) -> str:
        return self.display


@dataclass(frozen=True)
class Share:
    """A check, condition or boolean cell over random draws, as `supersheet run` shows it:
    the share of the `samples` where it holds (`share_true`, 0 to 1), never its value at
    the mean. `str()` is `run`'s text (`84.1 % true`)."""

    share_true: float
    samples: int
    display: str

    def __str__(self) -> str:
        return self.display


def spread_value(checked: Checked, key: str, record: dict[str, Any]) -> Spread:
    """An uncertain cell's record (`run --format json`'s) as a Spread of Python values: Pint
    quantities in the unit shown, or plain fractions for a dimensionless cell (as `sheet[name]`
    gives them: 50 % is 0.5)."""
    text = record["unit"]
    typ = checked.cells[key].type
    plain = typ is None or typ.dims == DIMENSIONLESS
    factor = parse_unit(text).factor if plain and text else 1.0
    unit = pint_unit(text) if text and not plain else None

    def value(x: float | None) -> Any:
        if x is None:
            return None
        return registry().Quantity(x, unit) if unit is not None else x * factor

    return Spread(value(record["mean"]), value(record["p5"]), value(record["p50"]), value(record["p95"]),
                  record["samples"], record.get("error_samples", 0), record["display"])


def error_value(checked: Checked, key: str, value: Value) -> SheetError:
    """The diagnostic of a cell that holds an error value (#DIV/0, #NUM, ...), at the cell's name."""
    codes = [v.code for v in (value if isinstance(value, list) else [value]) if isinstance(v, ErrorValue)]
    cell = checked.model.cells[key]
    return problem("E-VALUE", f"{key} is {codes[0] if codes else ERROR}", span=cell.spec.span,
                   hint="Sheet.error(name) gives the code without raising; `supersheet explain` shows why")


def _has_error(value: Value) -> bool:
    items = value if isinstance(value, list) else [value]
    return any(isinstance(v, ErrorValue) for v in items)


def own_quantity(value: Any) -> Any:
    """A Pint quantity of `registry()`: `value` itself, or one of another registry (a user's
    `pint.UnitRegistry()`) read by its unit's name, which both registries spell alike."""
    ureg = registry()
    if getattr(value, "_REGISTRY", ureg) is ureg:
        return value
    try:
        return ureg.Quantity(value.magnitude, str(value.units))
    except Exception as e:   # noqa: BLE001 - Pint's UndefinedUnitError and kin
        raise problem("E-UNIT", f"the unit {value.units} is not one supersheet knows: {e}",
                      "give the value as text such as '32768 token'") from None


def literal_text(checked: Checked, key: str, value: Any) -> str:
    """The literal text of an input given from Python: text as written (`"32768 token"`),
    a number, a bool, or a Pint quantity (converted to the cell's display unit by Pint,
    which refuses other dimensions)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(float(value)) if isinstance(value, float) else str(value)
    if hasattr(value, "units") and hasattr(value, "magnitude"):
        value = own_quantity(value)
        shown = show(checked, key, 1.0)
        if not shown.unit:
            raise problem("E-UNIT", f"{key} is a plain number, not a quantity in {value.units}",
                          "give a number")
        try:
            magnitude = value.to(pint_unit(shown.unit)).magnitude
        except SheetError:
            raise
        except Exception as e:   # noqa: BLE001 - Pint's DimensionalityError and kin
            raise problem("E-UNIT", f"{key} is in {shown.unit}: {e}") from None
        return f"{float(magnitude)!r} {shown.unit}"
    raise problem("E-TYPE", f"{key}: cannot use a {type(value).__name__} as an input",
                  "give text such as '32768 token', a number, a bool or a Pint quantity")
