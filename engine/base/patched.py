"""`Patched`: a table with a few of its entries given other values, without
copying it. The editor's edit of one cell makes new, immutable results (the
model's cell tables, the values) that differ from the ones before in a few
entries; each copy of a 20,000-entry table was ~0.5 ms of an edit
(bench/bench_edit.py), where the edit itself changes one cell.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Patched(Mapping[K, V], Generic[K, V]):
    """A table `base` with some of its entries given other values (`patch`, whose keys
    are all keys of `base`): the keys, their order and the length are the base's.
    `Model.with_text` and `reevaluate` make one per edit instead of copying the table;
    the base is never written, so every model and scenario made before keeps its own
    view. The patch is merged into a plain dict once it holds 1/16 of the table.
    `changes` given to `over` becomes the patch: the caller must not change it after."""

    __slots__ = ("base", "patch")

    def __init__(self, base: Mapping[K, V], patch: dict[K, V]) -> None:
        self.base, self.patch = base, patch

    @classmethod
    def of(cls, table: Mapping[K, V], key: K, value: V) -> Mapping[K, V]:
        """`table` with `key` (one of its keys) holding `value`."""
        return cls.over(table, {key: value})

    @classmethod
    def over(cls, table: Mapping[K, V], changes: dict[K, V]) -> Mapping[K, V]:
        """`table` with the entries `changes` (new keys, if any, come last): a `Patched`
        over the table it was made from, or a plain dict once the patch holds 1/16
        of the table, or when `changes` adds a key."""
        base, patch = (table.base, {**table.patch, **changes}) if isinstance(table, Patched) else (table, changes)
        if len(patch) > max(64, len(base) // 16) or any(key not in base for key in changes):
            merged = dict(base)
            merged.update(patch)
            return merged
        return cls(base, patch)

    def __getitem__(self, key: K) -> V:
        patch = self.patch
        return patch[key] if key in patch else self.base[key]

    def get(self, key: Any, default: Any = None) -> Any:
        patch = self.patch
        return patch[key] if key in patch else self.base.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self.base

    def __iter__(self) -> Iterator[K]:
        return iter(self.base)

    def __len__(self) -> int:
        return len(self.base)

    def items(self):  # a list: one pass at C speed over the base
        patch = self.patch
        return [(k, patch[k]) if k in patch else (k, v) for k, v in self.base.items()]

    def values(self):  # a list, as items() (above)
        return [v for _, v in self.items()]

    def copy(self) -> dict[K, V]:
        merged = dict(self.base)
        merged.update(self.patch)
        return merged
