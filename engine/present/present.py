"""Values for people: display units, significant digits, text for one cell.

Presentation only: the engine's values are base-unit magnitudes; this module
decides what unit a reader sees (the cell's display unit, else a compact one).
"""
from __future__ import annotations

from dataclasses import dataclass

from supersheet.engine.base.slots import install_init, slot_setters
from supersheet.engine.base.types import Type
from supersheet.engine.check.checked import Checked, CheckedCell
from supersheet.engine.compile.evaluate import ErrorValue, Value
from supersheet.units import compact_unit, convert, format_number, parse_unit

DEFAULT_DIGITS = 4


@dataclass(frozen=True, slots=True)
class Shown:
    """A value as displayed: the number in its display unit, and the text."""

    value: float | bool | str | list | None   # number in `unit`, bool, error code, or list of those
    unit: str | None
    text: str


_shown_value, _shown_unit, _shown_text = slot_setters(Shown, "value", "unit", "text")


def _shown_init(self: Shown, value: float | bool | str | list | None, unit: str | None, text: str) -> None:
    _shown_value(self, value)
    _shown_unit(self, unit)
    _shown_text(self, text)


install_init(Shown, _shown_init)   # one a cell `run` shows (engine/base/slots.py)


def display_unit(checked: Checked, key: str, magnitude: float | None = None) -> str | None:
    return _display_unit(checked.cells.get(key), magnitude)


def _display_unit(cell: CheckedCell | None, magnitude: float | None = None) -> str | None:
    if cell is None or cell.type is None or cell.type.is_bool:
        return None
    if cell.display_unit:
        return cell.display_unit
    return compact_unit(magnitude if magnitude is not None and magnitude == magnitude else 1.0, cell.type.dims,
                        binary=cell.family == "binary")


def digits_of(checked: Checked, key: str) -> int:
    cell = checked.model.cells.get(key)
    return (cell.spec.digits if cell is not None and cell.spec.digits else None) or DEFAULT_DIGITS


def show(checked: Checked, key: str, value: Value, unit: str | None = None) -> Shown:
    """The value of one cell, in its display unit (or `unit`)."""
    return show_checked(checked.cells.get(key), digits_of(checked, key), value, unit)


def show_checked(cell: CheckedCell | None, digits: int, value: Value, unit: str | None = None) -> Shown:
    """`show` of a cell as checked (None: unknown), with `digits` significant digits (`digits_of`)."""
    typ = cell.type if cell is not None else None
    if value is None or typ is None:
        return Shown(None, None, "—")
    if isinstance(value, list):
        numbers = [v for v in value if isinstance(v, float) and not isinstance(v, bool)]
        sample = max((abs(v) for v in numbers), default=1.0)
        unit = unit or _display_unit(cell, sample)
        items = [show_scalar(v, typ, unit, digits) for v in value]
        text = "[" + ", ".join(i.text for i in items) + "]" + (f" {unit}" if unit else "")
        return Shown([i.value for i in items], unit, text)
    if type(value) is float:   # the common case: show_scalar's number and the unit after it, in one step
        return Shown(*shown_float(cell, digits, value, unit))
    if unit is None and isinstance(value, float):
        unit = _display_unit(cell, abs(value))
    shown = show_scalar(value, typ, unit, digits)
    text = shown.text + (f" {unit}" if unit and isinstance(shown.value, float) else "")
    return Shown(shown.value, shown.unit, text)


def shown_float(cell: CheckedCell | None, digits: int, value: float, unit: str | None = None
                ) -> tuple[float, str | None, str]:
    """`show_checked` of a plain float of a typed cell, as the number, unit and text of its `Shown`
    (run's text table takes the text alone: no `Shown` made for each of its lines)."""
    if unit is None:
        unit = _display_unit(cell, abs(value))
    number = convert(value, unit) if unit else value
    text = format_number(number, digits)
    return number, unit, f"{text} {unit}" if unit else text


def show_scalar(value: float | bool | ErrorValue, typ: Type, unit: str | None, digits: int) -> Shown:
    if isinstance(value, ErrorValue):
        return Shown(value.code, None, value.code)
    if isinstance(value, bool):
        return Shown(value, None, "true" if value else "false")
    number = convert(value, unit) if unit else value
    return Shown(number, unit, format_number(number, digits))


def unit_factor(unit: str | None) -> float:
    return parse_unit(unit).factor if unit else 1.0
