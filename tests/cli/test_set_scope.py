"""Format 9.1: a `use: … set:` formula is read in the importing sheet, the
imports of a base that a variant extends resolve from the base file, and
`--set` accepts every cell (even one that sets the length of a range)."""
from __future__ import annotations

import json
from repo_paths import REPO


STEP = """
    cells:
      context: 1000 token
      per_token: 2 ms/token
      step: = context * per_token -> s
"""

PASSES_DOWN = """
    use:
      small: {sheet: step.yaml, set: {context: = context / 2}}
    cells:
      context: 4000 token
      step: = small.step
      own: = context * small.per_token -> s
    solve:
      four_seconds:
        vary: context
        goal: step == 4 s
        between: [1000 token, 100000 token]
"""


def test_a_set_formula_reads_the_importing_sheets_cell(run_cli, write_sheet):
    write_sheet(STEP, "step.yaml")
    sheet = write_sheet(PASSES_DOWN)
    result = run_cli("run", str(sheet), "--format", "json")
    assert result.code == 0, result.output
    cells = {c["name"]: c for c in json.loads(result.out)["cells"]}
    assert cells["small.context"]["value"] == 2000   # 4000 token / 2: this sheet's context, not the import's 1000
    assert cells["step"]["value"] == 4


def test_set_sweep_and_solve_of_the_importing_cell_move_the_import(run_cli, write_sheet):
    write_sheet(STEP, "step.yaml")
    sheet = write_sheet(PASSES_DOWN)
    run = run_cli("run", str(sheet), "--set", "context=10000token", "--format", "json")
    assert run.code == 0, run.output
    cells = {c["name"]: c["value"] for c in json.loads(run.out)["cells"]}
    assert cells["small.context"] == 5000 and cells["step"] == 10
    sweep = run_cli("sweep", str(sheet), "--vary", "context=2000token,6000token", "--show", "step",
                    "--format", "csv")
    assert sweep.code == 0, sweep.output
    rows = [[float(v) for v in line.split(",")] for line in sweep.out.splitlines()[1:]]
    assert rows == [[2000, 2], [6000, 6]]
    solve = run_cli("solve", str(sheet), "four_seconds", "--format", "json")
    assert solve.code == 0, solve.output
    assert abs(json.loads(solve.out)["solution"]["value"] - 4000) < 1e-6


def test_a_set_formula_naming_the_imports_cell_without_alias_is_e_name(run_cli, write_sheet):
    write_sheet(STEP, "step.yaml")
    sheet = write_sheet("""
        use:
          small: {sheet: step.yaml, set: {context: = per_token * 1 s}}
        cells:
          x: 1
    """)
    result = run_cli("check", str(sheet))
    assert result.code == 2
    assert f"{sheet}:2:46: E-NAME: unknown cell 'per_token'" in result.err
    assert "hint: a set: formula is read in this sheet; the imported sheet's cell is small.per_token" in result.err


def test_the_imports_of_a_base_resolve_from_the_base_file(run_cli, write_sheet):
    write_sheet(STEP, "lib/step.yaml")
    write_sheet("""
        use:
          s: {sheet: step.yaml, set: {context: = context}}
        cells:
          context: 3000 token
          step: = s.step
    """, "lib/base.yaml")
    variant = write_sheet("""
        extends: ../lib/base.yaml
        cells:
          context: 5000 token
        expect:
          step: 10 s
    """, "variants/fast.yaml")
    # variants/ and lib/ are sibling folders outside any git work tree: allow their parent
    result = run_cli("test", str(variant), "--allow-path", str(variant.parent.parent))
    assert result.code == 0, result.output
    assert result.out.splitlines()[-1] == "1 passed, 0 failed"


def test_set_accepts_a_cell_that_sets_the_length_of_a_range(run_cli, write_sheet):
    sheet = write_sheet("""
        cells:
          sessions: 4
          index: = range(sessions)
          total: = sum(index + 1)
    """)
    result = run_cli("run", str(sheet), "--set", "sessions=6", "--format", "json")
    assert result.code == 0, result.output
    cells = {c["name"]: c["value"] for c in json.loads(result.out)["cells"]}
    assert cells["total"] == 21
    wrong = run_cli("run", str(sheet), "--set", "sessions=6 GB")
    assert wrong.code == 2
    assert "--set sessions=6 GB: E-UNIT: sessions is dimensionless" in wrong.err
    empty = run_cli("run", str(sheet), "--set", "sessions=0")
    assert empty.code == 2 and "--set sessions=0: E-TYPE" in empty.err and "Traceback" not in empty.err


def test_set_sessions_on_the_library_sheet(run_cli):
    sheet = REPO / "sheets" / "supernodes" / "6.7.1-instances-vs-tp.yaml"
    result = run_cli("run", str(sheet), "--set", "sessions=6", "--format", "json")
    assert result.code in (0, 1), result.output
    cells = {c["name"]: c["value"] for c in json.loads(result.out)["cells"]}
    assert cells["sessions"] == 6
    assert cells["per_instance"] == 2   # ceil(6 / 4 instances) at tp = 2


def test_set_accepts_an_imported_cell_that_sets_the_length_of_a_range(run_cli, write_sheet):
    write_sheet("cells:\n  n: 3\n  idx: = range(n)\n  total: = sum(idx + 1)\n", "lib.yaml")
    sheet = write_sheet("use:\n  lib: lib.yaml\ncells:\n  t: = lib.total * 2\n")
    result = run_cli("run", str(sheet), "--set", "lib.n=5", "--format", "json")
    assert result.code == 0, result.output
    cells = {c["name"]: c for c in json.loads(result.out)["cells"]}
    assert cells["t"]["value"] == 30 and cells["lib.idx"]["value"] == [0, 1, 2, 3, 4]
    assert cells["lib.n"]["set"] == "5"   # shown as set by --set, like any other override
    text = run_cli("run", str(sheet), "--set", "lib.n=5")
    assert "set by --set" in next(line for line in text.out.splitlines() if "lib.n " in line)


def test_set_gives_an_array_another_length(run_cli, write_sheet):
    """An array input set to another length reads the sheet again with it: the arrays
    computed from it follow; one typed with the old length is an E-TYPE located in the sheet."""
    sheet = write_sheet("""
        cells:
          stages: [1 ms, 1 ms, 2 ms, 1 ms]
          index: = range(count(stages))
          done: = sum(stages) + 3 * max(stages) -> ms
          last: = sum(if(index == count(stages) - 1, stages, 0 ms)) -> ms
    """)
    result = run_cli("run", str(sheet), "--set", "stages=[2 ms, 3 ms, 1 ms, 1 ms, 4 ms, 1 ms]", "--format", "json")
    assert result.code == 0, result.output
    cells = {c["name"]: c for c in json.loads(result.out)["cells"]}
    assert cells["done"]["value"] == 12 + 3 * 4 and cells["last"]["value"] == 1
    assert cells["index"]["value"] == [0, 1, 2, 3, 4, 5] and cells["stages"]["set"]
    short = run_cli("run", str(sheet), "--set", "stages=[2 ms]", "--format", "json")
    assert short.code == 0 and {c["name"]: c["value"] for c in json.loads(short.out)["cells"]}["done"] == 8
    wrong = run_cli("run", str(sheet), "--set", "stages=[2 GB, 3 GB]")
    assert wrong.code == 2 and "E-UNIT: stages is array of 4 time" in wrong.err
    paired = write_sheet("""
        cells:
          stages: [1 ms, 2 ms]
          weights: [1, 3]
          mean: = sum(stages * weights) / sum(weights) -> ms
    """, "paired.yaml")
    mismatch = run_cli("run", str(paired), "--set", "stages=[1 ms, 2 ms, 3 ms]")
    assert mismatch.code == 2 and "E-TYPE" in mismatch.err and "Traceback" not in mismatch.err


def test_python_api_gives_an_array_another_length():
    import supersheet as ss
    sheet = ss.load(REPO / "sheets" / "supernodes" / "6.2.5-pipeline-uneven.yaml")
    three = sheet.with_inputs(stages="[1 ms, 2 ms, 1 ms]")
    assert three["stage_count"] == 3
    assert three["pipeline_done"].to("ms").magnitude == 4 + 3 * 2      # sum + (b - 1) x slowest, b = 4
