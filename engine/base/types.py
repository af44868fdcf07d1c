"""The static type of a value: number or boolean, its dimensions, scalar or array."""
from __future__ import annotations

from dataclasses import dataclass

from supersheet.engine.base.slots import install_init, slot_setters

from supersheet.units import DIMENSIONLESS, Dimensions, describe


@dataclass(frozen=True, slots=True)
class Type:
    """The static type of a value: number or boolean, its dimensions, scalar or array."""
    kind: str                   # "number" | "bool"
    dims: Dimensions = DIMENSIONLESS
    length: int | None = None   # None for a scalar, n for an array of n elements

    @property
    def is_bool(self) -> bool:
        return self.kind == "bool"

    @property
    def is_array(self) -> bool:
        return self.length is not None

    def scalar(self) -> "Type":
        return self if self.length is None else Type(self.kind, self.dims, None)   # (immutable: shared)

    def with_length(self, length: int | None) -> "Type":
        return self if length == self.length else Type(self.kind, self.dims, length)

    def describe(self) -> str:
        base = "boolean" if self.is_bool else describe(self.dims)
        return f"array of {self.length} {base}" if self.is_array else base


_type_kind, _type_dims, _type_length = slot_setters(Type, "kind", "dims", "length")


def _type_init(self: Type, kind: str, dims: Dimensions = DIMENSIONLESS, length: int | None = None) -> None:
    _type_kind(self, kind)
    _type_dims(self, dims)
    _type_length(self, length)


install_init(Type, _type_init)   # made for calls and arrays at every formula that has them (slots.py)


BOOL = Type("bool")
NUMBER = Type("number")


_SCALAR_NUMBERS: dict[Dimensions, Type] = {}   # dimensions -> the scalar number type of them


def number_of(dims: Dimensions, length: int | None = None) -> Type:
    """`Type("number", dims, length)`, one object for each scalar's dimensions: the checker
    types thousands of operators and calls of the same few units, and a Type made for each
    was one more object a cell for the cycle collector to walk (issue 30)."""
    if length is not None:
        return Type("number", dims, length)
    typ = _SCALAR_NUMBERS.get(dims)
    if typ is None:
        typ = Type("number", dims)
        if len(_SCALAR_NUMBERS) < 4096:   # bounded, as parse_unit's own cache
            _SCALAR_NUMBERS[dims] = typ
    return typ
