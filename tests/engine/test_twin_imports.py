"""Twin imports (engine/load/model.py): one sheet importing the same file twice
with the same `set:` gets one copy under both aliases; any difference (the
`set:`, an import axis) keeps the copies apart. Imports without `set:` are one
instance wherever they are (format 10.3: tests/engine/test_shared_instances.py)."""
from __future__ import annotations

from pathlib import Path

from supersheet.engine.load.resolve import build_model
from supersheet.engine.workbook import OverrideError, apply_assignments, open_workbook


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def doubling_chain(folder: Path, files: int, sets: str = "") -> Path:
    """f0 imports f1 twice, f1 imports f2 twice, …: 2**(files-1) copies of the last sheet if copied.
    With `sets` (`set: {w: 2}`) every import is written with that `set:` (twins, not one instance)."""
    def entry(i: int) -> str:
        return f"{{sheet: f{i}.yaml, {sets}}}" if sets else f"f{i}.yaml"
    for i in range(files):
        body = f"use:\n  a: {entry(i + 1)}\n  b: {entry(i + 1)}\ncells:\n  w: 1\n  v: = w * (a.v + b.v)\n" \
            if i < files - 1 else "cells:\n  w: 1\n  v: = w * 1 GB\n"
        write(folder, f"f{i}.yaml", body)
    return folder / "f0.yaml"


def value(workbook, key: str):
    return workbook.evaluate().values[key]


def test_a_doubling_chain_is_one_copy_per_file(tmp_path):
    workbook = open_workbook(doubling_chain(tmp_path, 20, sets="set: {w: 2}"))
    assert workbook.ok, workbook.diagnostics
    assert len(workbook.model.cells) == 2 * 20                 # not 2 * (2**20 - 1)
    assert workbook.model.twins["b"] == "a" and workbook.model.twins["a.b"] == "a.a"
    assert not workbook.model.shared
    assert value(workbook, "v") == 2 ** 19 * 2 ** 19 * 1e9     # every twin counted, each with its set: w = 2


def test_the_same_set_shares_and_another_set_copies(tmp_path):
    write(tmp_path, "gpu.yaml", "cells:\n  cards: 1\n  memory: 80 GB\n  total: = cards * memory -> GB\n")
    sheet = write(tmp_path, "top.yaml", "use:\n"
                  "  a: {sheet: gpu.yaml, set: {cards: = n}}\n"
                  "  b: {sheet: gpu.yaml, set: {cards: = n}}\n"
                  "  c: {sheet: gpu.yaml, set: {cards: 4}}\n"
                  "  d: gpu.yaml\n"
                  "cells:\n  n: 2\n  sum: = a.total + b.total + c.total + d.total -> GB\n")
    workbook = open_workbook(sheet)
    assert workbook.ok, workbook.diagnostics
    assert workbook.model.twins == {"b": "a"} and not workbook.model.shared
    assert {k for k in workbook.model.cells if k.endswith(".total")} == {"a.total", "c.total", "d.total"}
    assert value(workbook, "sum") == (160 + 160 + 320 + 80) * 1e9


def test_a_set_formula_read_in_different_sheets_is_not_a_twin(tmp_path):
    # both middles write `set: {cards: = n}`, but each reads its own n
    write(tmp_path, "gpu.yaml", "cells:\n  cards: 1\n")
    write(tmp_path, "m2.yaml", "use:\n  g: {sheet: gpu.yaml, set: {cards: = n}}\ncells:\n  n: 2\n  c: = g.cards\n")
    write(tmp_path, "m3.yaml", "use:\n  g: {sheet: gpu.yaml, set: {cards: = n}}\ncells:\n  n: 3\n  c: = g.cards\n")
    sheet = write(tmp_path, "top.yaml", "use:\n  x: m2.yaml\n  y: m3.yaml\ncells:\n  s: = x.c + y.c\n")
    workbook = open_workbook(sheet)
    assert workbook.ok, workbook.diagnostics
    assert workbook.model.twins == {}
    assert value(workbook, "s") == 5


def test_a_twin_named_by_the_user_is_refused_with_the_shared_name(tmp_path):
    workbook = open_workbook(doubling_chain(tmp_path, 3, sets="set: {w: 2}"))
    try:
        apply_assignments(workbook, ["b.a.v=3 GB"])
    except OverrideError as e:
        assert e.code == "E-NAME" and "b imports the same sheet as a" in (e.hint or "") and "a.a.v" in e.hint
    else:
        raise AssertionError("setting a twin's cell must be refused: it would set its twin too")


def test_an_import_axis_is_never_a_twin(tmp_path):
    doubling_chain(tmp_path, 3, sets="set: {w: 2}")
    model = build_model(tmp_path / "f0.yaml", import_overrides={"b": str(tmp_path / "f1.yaml")})
    assert "b" not in model.twins and "b.v" in model.cells
