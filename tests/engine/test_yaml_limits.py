"""Every YAML limit fires before or while the text is parsed, with a position,
and the same on both loaders: libyaml's fast path (fastyaml.py) and the
bounded round-trip loader (yamlguard.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from supersheet.engine.base.limits import set_limits
from supersheet.engine.load import fastyaml, sheet as sheet_module
from supersheet.engine.load.sheet import load_sheet

pytestmark = pytest.mark.skipif(not fastyaml.available(), reason="PyYAML's libyaml parser is not installed")

CELLS_12 = "title: t\ncells:\n" + "".join(f"  c{i}: {i}\n" for i in range(12)) + "checks:\n  ok: = c0 < c1\n"
LIST_30 = "title: t\ncells:\n  a: [" + ", ".join(["1"] * 30) + "]\n"
DEEP = "cells:\n  a: " + "[" * 12 + "]" * 12 + "\n"

# text, limits, code, (line, col), the flag the hint names
CASES = {
    "cells": (CELLS_12, {"max_cells": 10}, "E-SHEET", (13, 3), "--max-cells"),       # at the 11th cell
    "cells-flow": ("cells: {a: 1, b: 2, c: 3}\n", {"max_cells": 2}, "E-SHEET", (1, 21), "--max-cells"),
    "nodes": (LIST_30, {"max_yaml_nodes": 20}, "E-YAML", (3, 46), "--max-yaml-nodes"),   # the 21st node: the 14th 1
    "depth": (DEEP, {"max_depth": 8}, "E-YAML", None, "--max-depth"),
    "line-length": ("cells:\n  a: 1 # " + "x" * 200 + "\n", {"max_line_length": 100}, "E-YAML", (2, 101),
                    "--max-line-length"),
    "file-size": ("cells:\n  a: 1\n" + "# pad\n" * 100, {"max_file_size": 200}, "E-IMPORT", (1, 1),
                  "--max-file-size"),
}


@pytest.fixture
def limits():
    yield set_limits
    set_limits()


def load(tmp_path: Path, text: str, fast: bool, monkeypatch) -> tuple:
    with monkeypatch.context() as patch:
        if not fast:
            patch.setattr(sheet_module, "load_fast", lambda text, yaml: None)
        loaded = load_sheet(tmp_path / "s.yaml", text)
    assert len(loaded.diagnostics) == 1, loaded.diagnostics
    d = loaded.diagnostics[0]
    assert loaded.document is None          # refused: nothing of the sheet was read
    return d.code, d.message, (d.span.line, d.span.col) if d.span else None, d.hint or ""


@pytest.mark.parametrize("name", list(CASES))
def test_each_limit_is_the_same_diagnostic_on_both_loaders(name, tmp_path, monkeypatch, limits):
    text, changes, code, position, flag = CASES[name]
    limits(**changes)
    fast = load(tmp_path, text, True, monkeypatch)
    slow = load(tmp_path, text, False, monkeypatch)
    assert fast == slow
    assert fast[0] == code and flag in fast[3]
    if position is not None:
        assert fast[2] == position
    else:
        assert fast[2] is not None and fast[2][0] == 2


@pytest.mark.parametrize("name", ["cells", "cells-flow", "nodes"])
def test_the_fast_path_refuses_before_constructing_anything(name, tmp_path, monkeypatch, limits):
    text, changes, code, position, _ = CASES[name]
    limits(**changes)
    calls = []
    monkeypatch.setattr(sheet_module, "yaml_loader", _spy(sheet_module.yaml_loader, calls))
    loaded = load_sheet(tmp_path / "s.yaml", text)
    assert (loaded.diagnostics[0].code, loaded.diagnostics[0].span.line) == (code, position[0])
    assert calls == [], "the round-trip loader read the text: the fast path did not refuse it itself"


@pytest.mark.parametrize("name", ["cells", "nodes"])
def test_the_bounded_loader_stops_reading_at_the_limit(name, tmp_path, monkeypatch, limits):
    # a syntax error after the limit is never reached: the load stopped where the limit passed
    text, changes, code, position, _ = CASES[name]
    limits(**changes)
    monkeypatch.setattr(sheet_module, "load_fast", lambda text, yaml: None)
    loaded = load_sheet(tmp_path / "s.yaml", text + "bad: [unclosed\n")
    assert (loaded.diagnostics[0].code, loaded.diagnostics[0].span.line) == (code, position[0])


def _spy(make, calls):
    def loader():
        yaml = make()
        original = yaml.load
        yaml.load = lambda text: calls.append(text) or original(text)
        return yaml
    return loader


def test_the_fast_path_still_reads_a_sheet_at_the_limits(tmp_path, limits):
    limits(max_cells=12, max_yaml_nodes=3 + 12 * 2 + 2 + 2 + 2)   # every node of CELLS_12 exactly
    loaded = load_sheet(tmp_path / "s.yaml", CELLS_12)
    assert loaded.diagnostics == [] and len(loaded.cells) == 12
