"""Fast constructors for the small frozen records a large sheet makes per cell.

A frozen dataclass's generated __init__ sets each field through object.__setattr__,
~2.2x the time of setting its slots directly; the records made several times per
cell (formula nodes, spans, checked cells, shown values) get an __init__ that sets
the slots through these setters instead (same arguments, keywords and defaults;
assigning to a field afterwards still raises FrozenInstanceError)."""
from __future__ import annotations

from typing import Any, Callable


def slot_setters(cls: type, *fields: str) -> tuple[Callable[[Any, Any], None], ...]:
    """The setters of a slotted class's fields, in the order named."""
    return tuple(cls.__dict__[name].__set__ for name in fields)


def install_init(cls: type, init: Callable[..., None]) -> None:
    """`init` as `cls.__init__` (named so in tracebacks)."""
    init.__qualname__ = f"{cls.__name__}.__init__"
    cls.__init__ = init  # type: ignore[misc]  # replacing a method is this function's purpose
