"""The checker's result is immutable: sweeps, solves and choices type their own
formulas (where, goal, require) in results of their own, and the editor's
edits make new results; the sheet's result never grows or changes."""
from __future__ import annotations

import dataclasses

import pytest

from supersheet.editor.document import Document
from supersheet.engine.verify.blocks import test_blocks as run_blocks
from supersheet.engine.workbook import open_workbook

SHEET = """
cells:
  bandwidth: 100 GB/s
  size: 10 GB
  q: 50
  p: 50
  time: = size / bandwidth -> s
  steps: = range(1, q)
sweeps:
  wide:
    vary: {bandwidth: [50 GB/s, 100 GB/s, 200 GB/s]}
    where: percentile(time, p) < 0.15 s   # p read as a constant: it would become structural
    show: [time]
    expect: {time: [0.1 s, 0.05 s]}
solve:
  fast_enough:
    vary: bandwidth
    goal: time == 0.05 s
    between: [1 GB/s, 1000 GB/s]
    expect: 200 GB/s
choose:
  cheapest:
    vary: {bandwidth: [50 GB/s, 100 GB/s, 200 GB/s]}
    require: [time <= 0.2 s]
    minimize: bandwidth / (1 GB/s)
    expect: {bandwidth: 50 GB/s}
"""


def fingerprint(checked) -> tuple:
    """Everything a checked result holds, as plain values (sizes and contents)."""
    return (dict(checked.cells), tuple(checked.order), dict(checked.bindings), dict(checked.node_types),
            dict(checked.constants), set(checked.structural_inputs), tuple(checked.distributions),
            set(checked.uncertain), set(checked.reduced), tuple(checked.diagnostics))


def test_sweeps_solves_and_choices_leave_the_result_as_it_was(write_sheet):
    document = Document(write_sheet(SHEET))
    checked = document.workbook.checked
    before = fingerprint(checked)
    for _ in range(30):
        run = document.run_sweep("wide")
        assert run.frame is not None and run.frame.height == 2
        report = run_blocks(document.workbook)
        assert report.passed == 4 and not report.failed and not report.diagnostics
    assert document.workbook.checked is checked
    assert fingerprint(checked) == before
    assert checked.structural_inputs == {"q"}   # range(1, q); the where's percentile(…, p) stayed the sweep's own


def test_the_result_cannot_be_written(write_sheet):
    checked = open_workbook(write_sheet(SHEET)).checked
    with pytest.raises(dataclasses.FrozenInstanceError):
        checked.order = ()   # type: ignore[misc]
    for table in (checked.cells, checked.bindings, checked.node_types, checked.constants):
        with pytest.raises(TypeError):
            table[0] = None   # type: ignore[index]
    with pytest.raises(AttributeError):
        checked.structural_inputs.add("size")   # type: ignore[attr-defined]
    with pytest.raises(dataclasses.FrozenInstanceError):
        checked.cells["time"].display_unit = "ms"   # type: ignore[misc]


def test_an_edit_makes_a_new_result_and_leaves_the_old_one(write_sheet):
    document = Document(write_sheet(SHEET))
    old = document.workbook
    old_formula = old.model.cells["size"].formula
    before = fingerprint(old.checked)
    result = document.apply("size", "20 GB")   # the in-place path: a literal of the same type
    assert result.ok and result.recomputed
    assert document.value("time") == pytest.approx(0.2)
    assert old.model.cells["size"].formula is old_formula and old.model.cells["size"].spec.text != "20 GB"
    assert fingerprint(old.checked) == before
    new = document.workbook
    assert new.checked is not old.checked and new.checked.model is new.model
    assert new.model.cells["size"].spec.text == "20 GB"
    # the old literal's node is no key of the new result's tables (nodes are keys by identity)
    assert old_formula.expr not in new.checked.node_types and old_formula.expr in old.checked.node_types
    assert new.model.cells["size"].formula.expr in new.checked.node_types
    assert document.run_sweep("wide").frame["time [s]"].to_list() == [0.1]   # sweeps see the edit (was [0.1, 0.05])


def test_edit_after_edit_keeps_every_result_as_it_was(write_sheet):
    """An edit's per-node tables are laid over the sheet's as checked (checked.Layered): a
    hundred edits leave every result before them as it was, each holding its own literal's
    nodes and none it replaced (which an edit of the same cell drops, so the layer does not grow)."""
    from supersheet.engine.check.checked import NODE_TABLES, Layered
    document = Document(write_sheet(SHEET))
    kept = []
    for i in range(100):
        assert document.apply("size", f"{i + 11} GB").ok
        workbook = document.workbook
        kept.append((workbook, fingerprint(workbook.checked), workbook.model.cells["size"].formula.expr))
    layered = 0
    for n, (workbook, before, literal) in enumerate(kept):
        checked = workbook.checked
        assert fingerprint(checked) == before
        assert literal in checked.node_types and checked.node_types[literal].dims == (("information", 1.0),)
        assert all(other not in checked.node_types for _, _, other in kept if other is not literal)
        for table in vars(checked)[NODE_TABLES]:
            assert isinstance(table, Layered) and len(table.extra) <= 1 and len(table.hidden) <= 1
            assert table.copy() == dict(table.items()) and len(table) == len(table.copy())
            layered += 1
        assert workbook.evaluate().values["time"] == pytest.approx((n + 11) / 100)
    assert layered == 3 * 100
