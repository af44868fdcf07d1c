"""`Patched` (engine/base/patched.py): a table with a few entries given other
values reads exactly as the copy it replaces would, and never changes the
table it was made from."""
from __future__ import annotations

import random

from supersheet.engine.base.patched import Patched


def test_a_patched_table_reads_as_the_copy_would_and_leaves_its_base_alone() -> None:
    pick = random.Random(7)
    base = {f"k{i}": i for i in range(2000)}
    frozen = dict(base)
    table, copy = base, dict(base)
    views = 0
    for step in range(400):
        changes = {f"k{pick.randrange(2000)}": -step for _ in range(pick.randint(1, 5))}
        table = Patched.over(table, changes)
        copy.update(changes)
        views += isinstance(table, Patched)
        assert list(table) == list(copy) and len(table) == len(copy)
        assert dict(table.items()) == copy and list(table.values()) == list(copy.values())
        probe = f"k{pick.randrange(2000)}"
        assert table[probe] == copy[probe] and table.get(probe) == copy[probe] and probe in table
        assert table.get("nope", "none") == "none" and "nope" not in table
    assert base == frozen, "the base table was written"
    assert 0 < views < 400, "both a view and a merged dict were made"   # merged once the patch holds 1/16


def test_a_new_key_makes_a_plain_dict_with_the_key_last() -> None:
    table = Patched.of({"a": 1, "b": 2}, "a", 5)
    assert isinstance(table, Patched)
    grown = Patched.over(table, {"c": 3})
    assert type(grown) is dict and list(grown.items()) == [("a", 5), ("b", 2), ("c", 3)]
