"""What the language server answers, below the protocol: editor/language.py,
references.py, suggest.py and fixes.py on the library's sheets and small ones."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from supersheet.editor.fixes import quick_fixes
from supersheet.editor.language import Snapshot, looks_like_sheet, sample
from supersheet.editor.references import RenameRefused, places, renamed
from supersheet.editor.suggest import suggestions
from repo_paths import SHEETS



def snapshot(tmp_path: Path, text: str, name: str = "s.yaml") -> Snapshot:
    path = tmp_path / name
    path.write_text(text)
    return Snapshot(path, text)


def test_only_sheets_are_sheets() -> None:
    assert looks_like_sheet((SHEETS / "hardware" / "h100-sxm.yaml").read_text())
    assert not looks_like_sheet("name: ci\non:\n  push: {}\njobs: {}\n")       # a workflow: not a sheet
    assert not looks_like_sheet("- a\n- b\n")


def test_hints_are_the_values_run_shows_at_each_cells_line(tmp_path: Path) -> None:
    s = snapshot(tmp_path, "title: t\ncells:\n  a: 80 GB\n  b: 2 s\n  r: = a / b -> GB/s\n  z: = a / (b - b)\n"
                           "checks:\n  fast: r > 50 GB/s\nassume:\n  small: a < 10 GB\n")
    hints = {h.line: (h.label, h.problem) for h in s.hints()}
    assert hints[3] == ("80 GB", False) and hints[5] == ("40 GB/s", False)
    assert hints[6] == ("#DIV/0", True)
    assert hints[8] == ("✗ fails", True) and hints[10] == ("✗ outside the model", True)


def test_draws_show_the_mean_and_percentiles_once_sampled() -> None:
    path = SHEETS / "questions" / "q4-ep-skew-monte-carlo.yaml"
    s = Snapshot(path, path.read_text())
    samples = sample(s)
    assert samples is not None and samples.sampled is not None
    labels = [h.label for h in s.hints(samples)]
    assert any(label.startswith("≈ ") and " (p5 " in label and " … p95 " in label for label in labels), labels


def test_a_position_names_a_cell_a_unit_or_a_function(tmp_path: Path) -> None:
    s = snapshot(tmp_path, "title: t\ncells:\n  a: 80 GB\n  b: = max(a, 2 GiB) -> MB\n")
    line = "  b: = max(a, 2 GiB) -> MB"
    spot = s.spot_at(4, line.index("a,") + 1)
    assert (spot.kind, spot.text) == ("cell", "a") and "80 GB" in s.hover(spot)
    assert s.spot_at(4, line.index("GiB") + 2).kind == "unit"
    assert "information" in s.hover(s.spot_at(4, line.index("GiB") + 2))
    assert s.spot_at(4, line.index("max") + 1).text == "max"
    assert s.spot_at(3, 3).text == "a" and s.definition(s.spot_at(4, line.index("a,") + 1)).line == 3


def test_definition_of_an_imported_cell_is_in_its_file() -> None:
    path = SHEETS / "supernodes" / "6.1.2-running-example.yaml"
    s = Snapshot(path, path.read_text())
    line_no, line = next((i, l) for i, l in enumerate(path.read_text().splitlines(), 1) if "= model.weights" in l)
    spot = s.spot_at(line_no, line.index("model.weights") + 3)
    where = s.definition(spot)
    assert Path(where.file).name == "qwen3-235b-a22b.yaml"
    assert Path(where.file).read_text().splitlines()[where.line - 1].strip().startswith("weights:")


def test_completion_completes_only_the_word_typed(tmp_path: Path) -> None:
    """The terminal editor's completion (editor/completion.py), at a line of the sheet's text."""
    path = SHEETS / "supernodes" / "6.1.2-running-example.yaml"
    s = Snapshot(path, path.read_text())
    after_alias = suggestions(s, "  x: = model.kv_pe")
    assert [x.label for x in after_alias] == ["model.kv_per_token"] and after_alias[0].replace == len("model.kv_pe")
    assert after_alias[0].detail.endswith("/token")          # its value with its unit
    units = suggestions(s, "  x: 80 G")
    assert {"GB", "GiB", "GB/s"} <= {u.label for u in units} and all(u.replace == 1 for u in units)
    assert suggestions(s, "  x: 8") == []                    # still typing the number
    functions = {x.label: x.detail for x in suggestions(s, "  x: = ce")}
    assert functions["ceil("].startswith("ceil(x)")
    assert [x.label for x in suggestions(s, "ce")] == ["cells"]


def test_quick_fixes_are_checked_to_fix(tmp_path: Path) -> None:
    text = "title: t\ncells:\n  ctx: 128K\n  bw: 3350 GB/s\n  t: = 80 GB / bww -> ms\n"
    s = snapshot(tmp_path, text)
    problems = {d.code: (d, span) for d, span in s.located_problems()}
    d, span = problems["E-NAME"]
    (fix,) = quick_fixes(s, d.code, span.line, span.col, span.end_col, d.hint)
    assert fix.text == "bw" and (fix.start, fix.end) == (span.col, span.end_col)
    d, span = problems["E-UNIT"]
    fixes = quick_fixes(s, d.code, span.line, span.col, span.end_col, d.hint)
    # `128K` becomes the whole quantity, never `128131072 token`, and never the aside "128 ktoken" (128,000)
    assert {f.text for f in fixes} == {"131072 token", "128 Kitoken"}
    assert all(f.start == text.splitlines()[2].index("128") + 1 for f in fixes)


def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    shutil.copytree(SHEETS / "hardware", root / "hardware")
    (root / "plan.yaml").write_text("title: plan\nuse:\n  gpu: hardware/h100-sxm.yaml\ncells:\n"
                                    "  t: = 1 GB / gpu.hbm_bandwidth -> ms\nexpect:\n  gpu.hbm_bandwidth: 3350 GB/s\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_references_and_rename_reach_every_sheet_that_names_the_cell(tmp_path: Path) -> None:
    root = project(tmp_path)
    home = root / "hardware" / "h100-sxm.yaml"
    found = places(home, "hbm_bandwidth")
    files = {p.path.name for p in found}
    assert {"h100-sxm.yaml", "hgx-h100.yaml", "plan.yaml"} <= files
    in_plan = sorted(p.edit for p in found if p.path.name == "plan.yaml")
    assert in_plan == [(4, 18, 13), (6, 6, 13)]          # the formula and the `expect` key
    edits = renamed(home, "hbm_bandwidth", "hbm_bw")
    assert sorted(edits[(root / "plan.yaml").resolve()]) == in_plan
    with pytest.raises(RenameRefused, match="already has a cell"):
        renamed(home, "hbm_bandwidth", "hbm_capacity")
    with pytest.raises(RenameRefused, match="not a cell name"):
        renamed(home, "hbm_bandwidth", "2x")


def test_an_open_buffer_is_read_instead_of_its_file(tmp_path: Path) -> None:
    root = project(tmp_path)
    plan = root / "plan.yaml"
    hw = (root / "hardware" / "h100-sxm.yaml").resolve()
    faster = hw.read_text().replace("3350 GB/s", "6700 GB/s")
    assert faster != hw.read_text()
    s = Snapshot(plan, plan.read_text(), {hw: faster})
    assert {h.key: h.label for h in s.hints()}["t"] == "0.1493 ms"      # 1 GB / 6700 GB/s, not / 3350 GB/s
    assert s.reads(hw)


@pytest.mark.parametrize("value", ["200 GB", "1.5e3 GB", "0 GB", "7 GiB", "1_000 GB", "0x10 GB", "12", "3 TB  ",
                                   "4 GB # a comment", "'5 GB'", "= 2 GB", "5 token", "[1, 2] GB"])
def test_an_input_typed_in_place_reads_as_the_whole_sheet_read_again(value: str) -> None:
    """The incremental path (one input's value) gives what reading the text again gives,
    or is not taken: every hint and problem equal, for values it takes and refuses."""
    text = (SHEETS / "supernodes" / "6.1.2-running-example.yaml").read_text()
    path = SHEETS / "supernodes" / "6.1.2-running-example.yaml"
    first = Snapshot(path, text)
    edited = text.replace("    value: 2 GiB", f"    value: {value}", 1)
    assert edited != text
    fast, full = first.after(edited), Snapshot(path, edited)
    assert [(h.line, h.label) for h in fast.hints()] == [(h.line, h.label) for h in full.hints()]
    assert [(d.code, d.message, span) for d, span in fast.located_problems()] == \
        [(d.code, d.message, span) for d, span in full.located_problems()]


def test_the_incremental_path_is_taken_for_a_plain_value() -> None:
    path = SHEETS / "supernodes" / "6.1.2-running-example.yaml"
    text = path.read_text()
    first = Snapshot(path, text)
    fast = first.after(text.replace("    value: 2 GiB", "    value: 3 GiB", 1))
    assert fast.layout is first.layout            # the same layout: no re-read (Snapshot() makes a new one)
    assert fast.workbook.model.files is first.workbook.model.files
