"""Rows for Python (a sweep's, a choice's ranked and excluded rows): a Polars frame with plain
column names, and its units beside it.

The files a sweep or a choice writes head their columns `name [unit]` (CSV has nowhere else to
keep a unit); in Python the unit is data, not part of a name: `frame["kv_per_card"]`,
`units["kv_per_card"] == "GB"`. The frame's values are in those display units, as
`supersheet sweep` prints them. `to_arrow()` puts each unit in its Arrow field's
metadata (as the Parquet files do) and `to_pandas()` in pint-pandas dtypes or, without
them, in `DataFrame.attrs["units"]`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Self

from supersheet.engine.expect.assume import OUTSIDE_HEADER
from supersheet.engine.present.headers import ERROR_UNIT, split_header

from .errors import RequestError
from supersheet.units import registry
from supersheet.engine.scenarios.arrow_schema import with_units

if TYPE_CHECKING:
    import pandas
    import polars as pl
    import pyarrow


@dataclass(frozen=True)
class Rows:
    """Rows of cells: `frame` (a `polars.DataFrame` whose columns are the plain cell
    names: `context`, `max_sessions`, `x p95`, `x [error]` for a cell's error codes,
    `outside [assumptions]`), `units` (column name -> display unit, for the columns that
    have one) and `headers` (column name -> its header in the files: `context [token]`)."""

    frame: pl.DataFrame
    units: Mapping[str, str]
    headers: Mapping[str, str]

    @classmethod
    def from_headed(cls, frame: pl.DataFrame) -> Self:
        """A frame headed `name [unit]` (as the files write it), split into names and units."""
        units: dict[str, str] = {}
        headers: dict[str, str] = {}
        names: dict[str, str] = {}
        for text in frame.columns:
            name, unit = split_header(text)
            if unit is None or unit == ERROR_UNIT or text == OUTSIDE_HEADER:   # not a unit: part of the name
                name = text
            else:
                units[name] = unit
            names[text] = name
            headers[name] = text
        return cls(frame.rename(names), units, headers)

    @property
    def height(self) -> int:
        return self.frame.height

    def __len__(self) -> int:
        return self.frame.height

    @property
    def columns(self) -> list[str]:
        return self.frame.columns

    def headed(self) -> pl.DataFrame:
        """The frame with the files' headers (`context [token]`)."""
        return self.frame.rename(dict(self.headers))

    def to_arrow(self) -> pyarrow.Table:
        """A `pyarrow.Table`: each column with a unit has it in its field metadata (`unit`),
        and the schema's metadata has them all (`supersheet.units`, JSON), as the
        Parquet files a sweep writes."""
        return with_units(self.frame.to_arrow(), dict(self.units))

    def to_pandas(self, pint: bool | None = None) -> pandas.DataFrame:
        """A `pandas.DataFrame` with the units in `attrs["units"]`. With pint-pandas, columns
        with a unit are pint dtypes of supersheet's registry: `pint=None` makes them when
        pint-pandas is installed and `pint.set_application_registry(supersheet.registry())`
        was called (pint-pandas reads units with the application registry, and Pint's
        default one reads `Gb` as a gilbert); `pint=True` insists, `False` never."""
        try:
            import pandas  # deferred: pandas, to say what is missing before Polars does  # noqa: F401
        except ImportError:
            raise RequestError("to_pandas needs pandas: pip install pandas (and pint-pandas for unit dtypes)") from None
        frame = self.frame.to_pandas()
        frame.attrs["units"] = dict(self.units)
        if pint is False or not self.units:
            return frame
        unusable = _pint_pandas_unusable()
        if unusable:
            if pint:
                raise RequestError(unusable)
            return frame
        import pint_pandas   # deferred: numpy, pyarrow, pint

        from .quantities import pint_unit   # deferred: quantities (slow to import)
        for name, unit in self.units.items():
            dtype = pint_pandas.PintType(pint_unit(unit))
            frame[name] = pint_pandas.PintArray(frame[name].to_numpy(dtype=float, na_value=float("nan")), dtype=dtype)
        return frame

    def _repr_html_(self) -> str:
        return self.headed()._repr_html_()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.frame.height} rows: {', '.join(self.headers.values())}>"


class SweepResult(Rows):
    """The rows of a sweep (`Sheet.sweep`), as `supersheet sweep` writes them."""


def _pint_pandas_unusable() -> str | None:
    """Why pint-pandas dtypes cannot be made here, or None."""
    try:
        import pint   # deferred: numpy, pint
        import pint_pandas  # deferred: pint_pandas (pint's pandas dtype)  # noqa: F401
    except ImportError:
        return "pint dtypes need pint-pandas: pip install pint-pandas"
    if pint.get_application_registry().get() is not registry():
        return ("pint-pandas reads units with Pint's application registry: call "
                "pint.set_application_registry(supersheet.registry()) first")
    return None
