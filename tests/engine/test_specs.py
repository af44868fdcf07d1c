"""The typed specs of a sheet's sweeps, solve, choose, expect and samples blocks
(engine/load/specs.py): built once when the sheet loads, frozen, every part
with the place it is written, and every problem of a sweep at its own line."""
from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest

from supersheet.engine.load.sheet import load_sheet
from supersheet.engine.load.specs import AxisSpec, ChoiceBlock, Expected, SolveBlock, SweepBlock
from supersheet.engine.verify.blocks import validate_blocks
from supersheet.engine.workbook import open_workbook

SHEET = """\
cells:
  tp: 1
  message: 1 MiB
  step: = message / (tp * 10 GB/s)
sweeps:
  scaling:
    vary:
      tp: [1, 2, 4]
      message: {from: 1 KiB, to: 1 MiB, times: 4}
    show: [step]
    where: step < 1 s
    expect:
      step: [0.10 ms, 0.05 ms]
  by_count:
    vary:
      message: {from: 0.1 MiB, to: 0.5 MiB, count: 5, scale: lin}
  rows:
    vary:
      - {tp: 1}
      - {tp: 2, message: 2 MiB}
solve:
  fast:
    vary: tp
    goal: step == 1e-05 s
    between: [1, 64]
    expect: 10.50
choose:
  smallest:
    vary: {tp: [1, 2, 4]}
    require: [step < 1 ms, tp >= 2]
    minimize: tp
    expect: {tp: 2}
expect:
  step: 0.10 ms ± 1%
  tp: 1
samples: {count: 500, seed: 7}
"""


def _write(tmp_path: Path, text: str, name: str = "sheet.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_a_sweep_is_a_frozen_typed_spec_with_the_place_of_every_part(tmp_path):
    sheet = load_sheet(_write(tmp_path, SHEET))
    assert not sheet.diagnostics
    sweep = sheet.sweeps["scaling"]
    assert isinstance(sweep, SweepBlock) and not sweep.problems
    assert (sweep.span.line, sweep.span.col) == (6, 3)
    tp, message = sweep.vary.axes
    assert isinstance(tp, AxisSpec) and tp.name == "tp" and (tp.span.line, tp.span.col) == (8, 7)
    assert [v.value for v in tp.values] == [1, 2, 4]               # YAML's typed numbers, not text
    assert all(type(v.value) is int for v in tp.values)
    assert [(v.span.line, v.span.col) for v in tp.values] == [(8, 12), (8, 15), (8, 18)]
    assert message.values == () and message.range is not None
    assert (message.range.start.value, message.range.stop.value, message.range.times.value) == ("1 KiB", "1 MiB", 4)
    assert message.range.step is None and message.range.count is None
    assert [s.value for s in sweep.show] == ["step"] and sweep.show[0].span.line == 10
    assert sweep.where.text == "step < 1 s" and (sweep.where.origin.line, sweep.where.origin.col) == (11, 12)
    (expected,) = sweep.expect.entries
    assert [w.text for w in expected.items] == ["0.10 ms", "0.05 ms"]   # as written: the zero sets the tolerance
    with pytest.raises(dataclasses.FrozenInstanceError):
        sweep.show = ()  # type: ignore[misc]
    counted = sheet.sweeps["by_count"].vary.axes[0].range
    assert (counted.count, counted.scale) == (5, "lin") and type(counted.count) is int


def test_explicit_rows_keep_each_value_at_its_place(tmp_path):
    rows = load_sheet(_write(tmp_path, SHEET)).sweeps["rows"].vary.rows
    assert [[(c.name, c.value.value) for c in row] for row in rows] == [[("tp", 1)], [("tp", 2), ("message", "2 MiB")]]
    assert rows[1][1].value.span.line == 20


def test_solve_choice_expectations_and_samples_are_typed(tmp_path):
    sheet = load_sheet(_write(tmp_path, SHEET))
    solve = sheet.solve["fast"]
    assert isinstance(solve, SolveBlock) and solve.vary == "tp" and not solve.problems
    assert solve.goal.text == "step == 1e-05 s" and solve.goal.origin.line == 24
    assert [b.value for b in solve.between] == [1, 64] and [b.text for b in solve.between] == ["1", "64"]
    assert solve.expect.text == "10.50" and solve.expect.value == 10.5
    choice = sheet.choose["smallest"]
    assert isinstance(choice, ChoiceBlock) and choice.minimize and choice.objective.text == "tp"
    assert [r.text for r in choice.require] == ["step < 1 ms", "tp >= 2"]
    assert [(r.origin.line, r.origin.col) for r in choice.require] == [(30, 15), (30, 28)]
    assert [(e.name, e.value.value) for e in choice.expect.entries] == [("tp", 2)]
    step = sheet.expect["step"]
    assert isinstance(step, Expected) and step.value.text == "0.10 ms ± 1%" and step.span.line == 34
    assert (sheet.samples.count, sheet.samples.seed) == (500, 7)


def test_every_problem_of_a_sweep_shape_is_kept_at_its_own_line(tmp_path):
    sheet = load_sheet(_write(tmp_path, """\
        cells:
          tp: 1
        sweeps:
          broken:
            vary:
              tp: {from: 1, to: 8, count: 2.5}
              other: [[1, 2]]
            shwo: [tp]
            colour: red
        """))
    block = sheet.sweeps["broken"]
    assert [(d.code, d.span.line, d.message) for d in block.problems] == [
        ("E-SHEET", 8, "unknown key 'shwo' in sweep 'broken'"),
        ("E-SHEET", 9, "unknown key 'colour' in sweep 'broken'")]
    assert block.problems[0].hint and "show" in block.problems[0].hint
    count, other = block.vary.axes
    assert (count.problem.span.line, count.problem.span.col) == (6, 28)
    assert "'count' of tp must be a whole number" in count.problem.message
    assert other.problem.span.line == 7 and "needs a list of values or a range" in other.problem.message


def test_check_reports_an_unknown_axis_and_an_unknown_show_cell_each_at_its_line(tmp_path):
    workbook = open_workbook(_write(tmp_path, """\
        cells:
          tp: 1
          step: = 10 ms / tp
        sweeps:
          scaling:
            vary:
              pt: [1, 2]
              tp: [1 GB, 2]
            show: [step, stpe]
        """))
    found = [(d.code, d.span.line, d.span.col, d.message) for d in validate_blocks(workbook)]
    assert found == [
        ("E-NAME", 7, 7, "sweep 'scaling': unknown cell 'pt'"),
        ("E-UNIT", 8, 12, "sweep 'scaling': tp is dimensionless, but '1 GB' is information"),
        ("E-NAME", 9, 18, "sweep 'scaling': 'show' names unknown cell 'stpe'"),
    ]


def test_a_formula_problem_of_a_block_is_at_the_formula(tmp_path):
    workbook = open_workbook(_write(tmp_path, """\
        cells:
          tp: 1
          step: = 10 ms / tp
        sweeps:
          filtered:
            vary: {tp: [1, 2]}
            where: step
        choose:
          best:
            vary: {tp: [1, 2]}
            require: [step < 5 ms]
            minimize: step < 5 ms
        """))
    found = [(d.code, d.span.line, d.span.col) for d in validate_blocks(workbook)]
    assert found == [("E-TYPE", 7, 12), ("E-TYPE", 12, 15)]



def test_a_range_of_typed_numbers_reaches_its_axis_as_numbers(tmp_path, monkeypatch):
    """`{from: 0.1, to: 0.5, step: 0.1}` is numbers in the YAML: they are never turned
    into text and parsed (a quantity such as `1 KiB` is text, and is parsed once, when the
    sheet loads: the axis gets its value)."""
    from supersheet.engine.load import literals
    from supersheet.engine.scenarios.sweep import load_sweep
    seen: list[str] = []
    real = literals.parse_formula
    monkeypatch.setattr(literals, "parse_formula", lambda text: seen.append(text) or real(text))
    workbook = open_workbook(_write(tmp_path, """\
        cells:
          x: 1
          message: 1 MiB
        sweeps:
          plain:
            vary: {x: {from: 0.1, to: 0.5, step: 0.1}}
          sized:
            vary: {message: {from: 1 KiB, to: 4 KiB, times: 2}}
        """))
    assert seen == ["1 KiB", "4 KiB"]     # read when the sheet loads
    (axis,) = load_sweep(workbook, "plain").grid.axes
    assert axis.values.tolist() == [0.1, 0.2, 0.3, 0.4, 0.5]
    (sized,) = load_sweep(workbook, "sized").grid.axes
    assert sized.size == 3 and sized.values.tolist() == [1024.0, 2048.0, 4096.0]
    assert seen == ["1 KiB", "4 KiB"]     # and never again


def test_explicit_rows_get_values_never_text(tmp_path, monkeypatch):
    """A row's quantities are read when the sheet loads; a row that leaves a cell out takes
    the cell's input as the sheet wrote it (parsed then), not its text parsed again."""
    from supersheet.engine.load import literals
    from supersheet.engine.scenarios.sweep import load_sweep
    seen: list[str] = []
    real = literals.parse_formula
    monkeypatch.setattr(literals, "parse_formula", lambda text: seen.append(text) or real(text))
    workbook = open_workbook(_write(tmp_path, """\
        cells:
          tp: 1
          message: 1 MiB
        sweeps:
          rows:
            vary:
              - {tp: 2}
              - {tp: 4, message: 2 MiB}
        """))
    assert seen == ["2 MiB"]
    tp, message = load_sweep(workbook, "rows").grid.axes
    assert message.values.tolist() == [2**20, 2 * 2**20] and message.labels == ["1 MiB", "2 MiB"]
    assert tp.values.tolist() == [2.0, 4.0] and seen == ["2 MiB"]


def test_a_goal_seek_between_typed_numbers_reads_them_as_numbers(tmp_path, monkeypatch):
    from supersheet.engine.load import literals
    from supersheet.engine.scenarios.solve import solve_entry
    seen: list[str] = []
    real = literals.parse_formula
    monkeypatch.setattr(literals, "parse_formula", lambda text: seen.append(text) or real(text))
    workbook = open_workbook(_write(tmp_path, """\
        cells:
          tp: 1
          step: = 10 ms / tp
        solve:
          plain:
            vary: tp
            goal: step == 2.5 ms
            between: [1, 64]
          quantities:
            vary: step
            goal: step == 2.5 ms
            between: [1 ms, 10 ms]
        """))
    assert seen == ["1 ms", "10 ms"]      # the quantities, read when the sheet loads
    low, high = workbook.model.root.solve["quantities"].between
    assert (low.literal.node.value, low.literal.unit, low.literal.magnitude) == (1.0, "ms", 1e-3)
    solution, block = solve_entry(workbook, "plain")
    assert abs(solution.value - 4) < 1e-9 and block.name == "plain"
    solve_entry(workbook, "quantities")
    assert seen == ["1 ms", "10 ms"]      # and never again


def test_imports_and_base_are_typed_at_load(tmp_path: Path) -> None:
    """`use` and `extends` are read once into frozen specs: the sheet each names,
    its `set:` values read as cells, and its shape problems at the import's line."""
    _write(tmp_path, "cells:\n  x: 1\n  y: = x\n", "lib.yaml")
    path = _write(tmp_path, """\
        extends: base.yaml
        use:
          plain: lib.yaml
          tuned: {sheet: lib.yaml, set: {x: 2 GB, y: = 3}}
          broken: [lib.yaml]
          odd: {sheet: lib.yaml, set: 5}
        cells:
          z: 1
        """)
    sheet = load_sheet(path)
    assert sheet.extends is not None and sheet.extends.target == "base.yaml"
    plain, tuned, broken, odd = (sheet.use[a] for a in ("plain", "tuned", "broken", "odd"))
    assert (plain.target, dict(plain.sets), plain.written_sets, plain.problems) == ("lib.yaml", {}, None, ())
    assert tuned.target == "lib.yaml" and (tuned.span.line, tuned.span.col) == (4, 3)
    assert {n: (s.kind, s.text) for n, s in tuned.sets.items()} == {"x": ("input", "2 GB"), "y": ("formula", "= 3")}
    assert tuned.written_sets == (("x", "2 GB"), ("y", "= 3"))
    assert broken.target is None and [d.message for d in broken.problems] == [
        "import 'broken' must be a path or {sheet: path, set: {...}}"]
    assert odd.target == "lib.yaml" and [d.message for d in odd.problems] == ["'set' must be a mapping of cell: value"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        tuned.target = "other.yaml"  # type: ignore[misc]
    bad_base = load_sheet(_write(tmp_path, "extends: [base.yaml]\ncells:\n  z: 1\n", "bad.yaml")).extends
    assert bad_base is not None and bad_base.target is None
    assert [(d.message, d.span.line) for d in bad_base.problems] == [("'extends' must be the path of a base sheet", 1)]


def test_a_set_problem_is_reported_where_the_import_is_resolved(tmp_path: Path) -> None:
    """A `set:` value that does not parse is reported once per resolution, at its own position."""
    _write(tmp_path, "cells:\n  x: 1\n", "lib.yaml")
    path = _write(tmp_path, "use:\n  a: {sheet: lib.yaml, set: {x: = 1 +}}\ncells:\n  z: = a.x\n")
    diagnostics = open_workbook(path).diagnostics
    assert [(d.code, d.span.line) for d in diagnostics if d.code == "E-PARSE"] == [("E-PARSE", 2)]
