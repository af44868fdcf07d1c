"""supersheet's units: one Pint registry, unit parsing, dimension algebra, display.

Units are checked with Pint once, at load time; afterwards values are plain
floats in base units (``Unit.factor`` converts).  This package never imports
the engine or the TUI.

* ``registry()``                    -- the cached Pint registry (``_registry.py``, ``definitions.txt``)
* ``parse_unit(text) -> Unit``      -- unit text to factor and Dimensions (``parse.py``)
* ``multiply/divide/power/describe`` -- Dimensions algebra (``dimensions.py``)
* ``convert/in_unit/format_*/compact_unit`` -- showing values (``display.py``)
"""

from __future__ import annotations

from supersheet.units._registry import registry
from supersheet.units.dimensions import DIMENSIONLESS, Dimensions, describe, divide, multiply, power
from supersheet.units.display import compact_unit, convert, format_number, format_quantity, in_unit
from supersheet.units.parse import Unit, UnitError, parse_unit

__all__ = [
    "DIMENSIONLESS",
    "Dimensions",
    "Unit",
    "UnitError",
    "compact_unit",
    "convert",
    "describe",
    "divide",
    "format_number",
    "format_quantity",
    "in_unit",
    "multiply",
    "parse_unit",
    "power",
    "registry",
]
