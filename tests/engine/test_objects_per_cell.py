"""What a loaded, checked and evaluated sheet keeps a cell (issue 30's flat cost). Every object
kept that the cycle collector tracks is walked again by each of its collections, and by the
collections of a process's exit, at a cost per object that grows as the heap outgrows the CPU's
caches: at 50,000 cells that was about half of a process's CPU (bench/bench_scaling.py). These
tests fail if a change brings back what was taken out: a span tuple per node, a type per name
node, the YAML document, a copy of the cell table, a type made per call."""
from __future__ import annotations

import gc
import sys

from repo_paths import REPO
from supersheet.engine.check.checked import node_type
from supersheet.engine.formula import ast as A
from supersheet.engine.workbook import open_workbook

sys.path.insert(0, str(REPO / "bench"))
from generate import random_dag_sheet  # noqa: E402

CELLS = 4000


def _loaded(tmp_path):
    warm = tmp_path / "warm.yaml"
    warm.write_text(random_dag_sheet(CELLS))   # the caches a first load fills (units, types, the shapes' templates)
    open_workbook(warm).evaluate()
    path = tmp_path / "dag.yaml"
    path.write_text(random_dag_sheet(CELLS))
    return path


def test_a_large_sheet_keeps_few_objects_the_collector_walks(tmp_path):
    path = _loaded(tmp_path)
    gc.collect()
    before = len(gc.get_objects())
    workbook = open_workbook(path)
    workbook.evaluate()
    gc.collect()   # (a collection untracks the tuples and dicts that hold only atoms)
    kept = (len(gc.get_objects()) - before) / CELLS
    # 6.4 formula nodes, a Formula, Cell, CellSpec, Span, Origin and CheckedCell, a call's
    # argument tuple; was 14.5 with a Type per call and a position list per YAML key kept
    assert 11 < kept < 13.6, kept   # (13.3 at this writing)


def test_copied_formulas_share_their_span_tuples(tmp_path):
    workbook = open_workbook(_loaded(tmp_path))
    nodes: list[A.Node] = []
    for cell in workbook.model.cells.values():
        stack = [cell.formula.expr] if cell.formula is not None else []
        while stack:
            node = stack.pop()
            nodes.append(node)
            stack.extend(A.children(node))
    spans = {id(node.span) for node in nodes}
    assert len(nodes) > 5 * CELLS
    assert len(spans) < len(nodes) / 20, (len(spans), len(nodes))   # one tuple a (start, end), not one a node


def test_name_nodes_have_no_entry_of_their_own_and_read_their_cells_type(tmp_path):
    workbook = open_workbook(_loaded(tmp_path))
    checked, compared = workbook.checked, 0
    for cell in workbook.model.cells.values():
        for name in A.names(cell.formula.expr) if cell.formula is not None else ():
            assert name not in checked.node_types
            assert node_type(checked, name) is checked.cells[checked.bindings[name]].type is not None
            compared += 1
    assert compared > 2 * CELLS


def test_the_loaded_model_keeps_neither_the_yaml_nor_a_copy_of_the_cells(tmp_path):
    model = open_workbook(_loaded(tmp_path)).model
    assert model.root is not None
    assert model.root.file.document is None
    assert model.root.cells is model.root.file.cells
