"""supersheet.editor.document.Document: the editing model, without the UI."""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from supersheet.editor.baselines import SAVED, Baselines
from supersheet.editor.document import Document, ExternalChange, detect_indent, running_example
from supersheet.engine.formula import ast as A
from supersheet.engine.formula.parser import parse_formula
from supersheet.engine.workbook import open_workbook
from repo_paths import REPO, SHEETS

ALL_SHEETS = sorted(SHEETS.rglob("*.yaml"))


def _scalar_input(document: Document) -> tuple[str, str] | None:
    """An own input written as one positive number (with a unit or not), and a new text for it."""
    for key, cell in document.workbook.model.cells.items():
        own = document.workbook.model.root.file.cells
        if cell.scope.prefix or cell.kind != "input" or own.get(cell.name) is not cell.spec:
            continue   # inherited cells are added, not changed, by an edit
        if not isinstance(document.value(key), float) or document.editable(key):
            continue
        node = parse_formula(document.raw_text(key)).expr
        if isinstance(node, A.Number) and node.value > 0:
            number = node.value * 2
            text = (str(int(number)) if number == int(number) and number < 1e15 else repr(number))
            return key, text + (f" {node.unit}" if node.unit else "")
    return None


@pytest.fixture(scope="module")
def shared_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One copy of the library for the parametrised test (each case restores its file)."""
    target = tmp_path_factory.mktemp("library") / "sheets"
    shutil.copytree(SHEETS, target)
    return target


@pytest.mark.parametrize("path", ALL_SHEETS, ids=lambda p: str(p.relative_to(SHEETS)))
def test_every_library_sheet_saves_unchanged_and_one_edit_is_one_line(path: Path, shared_library: Path) -> None:
    """Open, edit one input (one line changes), undo, save: byte for byte the same file."""
    copy = shared_library / path.relative_to(SHEETS)
    original = path.read_bytes()
    assert copy.read_bytes() == original
    document = Document(copy)
    assert document.text() == original.decode("utf-8")
    edit = _scalar_input(document)
    if edit is not None:
        key, text = edit
        result = document.apply(key, text)
        if not result.ok and "length" in (result.message + result.rendered):
            result = None   # an input that sets an array's length cannot change here
    if edit is not None and result is not None:
        assert result.ok, (key, text, result.message, result.rendered)
        before, after = original.decode("utf-8").splitlines(), document.text().splitlines()
        assert len(before) == len(after)
        assert sum(a != b for a, b in zip(before, after)) == 1
        assert document.text() == document.source.merged()   # the line written in place = the whole document's
        document.undo()
        assert not document.dirty
        assert document.text() == document.source.merged() == original.decode("utf-8")
    document.save(force=True)
    assert copy.read_bytes() == original


def test_a_value_is_written_on_its_line_as_the_whole_document_would_write_it(tmp_path: Path) -> None:
    """The fast path writes the one changed line in place; every form it does not
    recognise (a comment after the value, a long form, a flow map, quotes) is
    merged from the whole document: both give the same text."""
    path = tmp_path / "forms.yaml"
    path.write_text("title: forms\ncells:\n  a: 100 GB\n  b: 3   # three\n  c:\n    value: 4 GB\n    doc: four\n"
                    "  d: {value: 5, doc: five}\n  e: '6 GB'\n  f: [1, 2, 3]\n  g: = a * b\n", encoding="utf-8")
    document = Document(path)
    calls = []
    replace = document.source.replace_scalar
    document.source.replace_scalar = lambda *a: calls.append(replace(*a)) or calls[-1]  # type: ignore[method-assign]
    for key, text in [("a", "200 GB"), ("b", "6"), ("c", "8 GB"), ("d", "10"), ("e", "12 GB"), ("f", "[2, 4, 6]"),
                      ("a", "2 TB")]:
        assert document.apply(key, text).ok, key
        assert document.text() == document.source.merged()
    assert calls == [True, False, True, False, True, True, True]
    assert document.text().splitlines()[2:4] == ["  a: 2 TB", "  b: 6   # three"]
    assert "    value: 8 GB\n    doc: four" in document.text() and "  e: '12 GB'" in document.text() and "  f: [2, 4, 6]" in document.text()
    while document.can_undo:
        document.undo()
        assert document.text() == document.source.merged()
    assert document.text() == path.read_text(encoding="utf-8")


def test_running_example_is_the_default() -> None:
    assert running_example() == (REPO / "sheets" / "supernodes" / "6.1.2-running-example.yaml").resolve()


def test_edit_an_input_recomputes_only_its_dependents(example: Path) -> None:
    document = Document(example)
    before = dict(document.scenario.values)
    result = document.apply("context", "32768 token")
    assert result.ok
    assert result.recomputed[0] == "context"
    assert {"kv_total", "kv_per_card", "total_per_card", "max_sessions"} <= set(result.changes)
    assert "weights_total" not in result.recomputed and "hgx.cards" not in result.recomputed
    assert document.value("max_sessions") == 11.0
    assert result.changes["kv_total"].ratio == pytest.approx(3.0)
    assert result.changes["max_sessions"].direction == -1
    # the same values as evaluating the edited sheet from scratch
    document.save()
    fresh = open_workbook(example).evaluate().values
    assert fresh == document.scenario.values
    assert before["weights_total"] == document.value("weights_total")


def test_bad_formula_is_refused_with_its_diagnostic_and_the_values_stay(example: Path) -> None:
    document = Document(example)
    values = dict(document.scenario.values)
    text = document.text()
    result = document.apply("kv_total", "= model.kv_per_token * context + 1 ms -> GB")
    assert not result.ok
    assert [d.code for d in result.diagnostics] == ["E-UNIT"]
    assert "cannot add B (information) and ms (time)" in result.rendered
    assert "^^^^" in result.rendered and "kv_total: = model.kv_per_token * context + 1 ms -> GB" in result.rendered
    assert document.scenario.values == values
    assert document.text() == text and not document.dirty and not document.can_undo
    parse = document.apply("kv_total", "= model.kv_per_token * (context")
    assert not parse.ok and parse.diagnostics[0].code == "E-PARSE"
    unknown = document.apply("kv_total", "= model.kv_per_token * contxt")
    assert not unknown.ok and "did you mean context?" in unknown.rendered


def test_a_unit_change_that_breaks_dependents_is_refused(example: Path, line_diff) -> None:
    document = Document(example)
    text, sessions = document.text(), document.value("max_sessions")
    result = document.apply("context", "= 8192")
    assert not result.ok and result.changes == {}
    assert result.message == "context was token and would become dimensionless"
    # refused means left as it was: the text, the cell, its dependents' values, no undo step ...
    assert document.text() == text and document.raw_text("context") == "8192 token"
    assert document.value("max_sessions") == sessions and not document.dirty and not document.can_undo
    # ... and the document the next edit is written into (the refused one must not ride along)
    overhead = "  weights_overhead: = weights_per_card - weights_total / cards -> {}   " \
               '# why it is "slightly more than one-eighth"'
    assert document.apply("weights_overhead", "= weights_per_card - weights_total / cards -> MB").ok
    assert line_diff(text, document.text()) == [(overhead.format("GB"), overhead.format("MB"))]


def test_a_bare_number_keeps_the_cells_unit(example: Path) -> None:
    document = Document(example)
    result = document.apply("context", "16384")
    assert result.ok and document.raw_text("context") == "16384 token"
    assert result.note == "16384 has no unit: kept context's unit, 16384 token"
    assert document.apply("kv_split", "2").note == ""          # a plain number stays one
    assert document.apply("kv_total", "3").note == "3 has no unit: kept kv_total's unit, 3 GB"


def test_formula_edit_recomputes_dependents_like_a_fresh_evaluation(example: Path) -> None:
    document = Document(example)
    result = document.apply("kv_split", "= min(cards, model.kv_heads) * 2")
    assert result.ok and result.recomputed[0] == "kv_split"
    assert "weights_total" not in result.recomputed
    assert document.value("kv_split") == 8.0
    document.save()
    assert open_workbook(example).evaluate().values == document.scenario.values


def test_long_form_formula_becomes_a_value_on_one_line(example: Path, line_diff) -> None:
    document = Document(example)
    text = document.text()
    assert document.apply("cards", "4").ok
    assert line_diff(text, document.text()) == [("    formula: hgx.cards", "    value: 4")]
    assert document.value("kv_split") == 4.0


def test_editing_an_imported_cell_writes_a_set_override_here(example: Path, line_diff) -> None:
    hgx = example.parent.parent / "hardware" / "hgx-h100.yaml"
    hgx_bytes = hgx.read_bytes()
    document = Document(example)
    text = document.text()
    result = document.apply("hgx.cards", "4")
    assert result.ok and document.value("cards") == 4.0
    assert line_diff(text, document.text()) == [
        ("  hgx: ../hardware/hgx-h100.yaml", "  hgx: {sheet: ../hardware/hgx-h100.yaml, set: {cards: 4}}")]
    assert document.cell("hgx.cards").set_by is not None
    # a second edit of the override is a plain value change
    assert document.apply("hgx.cards", "2").ok
    assert "set: {cards: 2}" in document.text()
    document.save()
    assert hgx.read_bytes() == hgx_bytes
    document.undo()
    document.undo()
    assert document.text() == text


def test_cells_of_an_import_of_an_import_are_read_only(example: Path) -> None:
    document = Document(example)
    result = document.apply("hgx.gpu.hbm_capacity", "141 GB")
    assert not result.ok and "hgx" in result.message
    assert document.editable("hgx.hbm_capacity") is None


def test_a_variant_records_an_inherited_cell_in_its_own_cells(library: Path) -> None:
    variant = library / "supernodes" / "6.1.2-running-example-32k.yaml"
    base = library / "supernodes" / "6.1.2-running-example.yaml"
    base_bytes = base.read_bytes()
    document = Document(variant)
    assert document.apply("workspace", "4 GiB").ok
    assert "  workspace: 4 GiB\n" in document.text()
    document.save()
    assert base.read_bytes() == base_bytes
    assert open_workbook(variant).evaluate().values == document.scenario.values


def test_checks_are_edited_as_conditions(example: Path) -> None:
    document = Document(example)
    assert document.raw_text("fits") == "total_per_card <= capacity"
    assert document.apply("fits", "total_per_card <= 60 GB").ok
    assert document.value("fits") is False
    assert "  fits: total_per_card <= 60 GB" in document.text()


def test_undo_redo_and_the_dirty_flag(example: Path) -> None:
    document = Document(example)
    assert not document.dirty and document.undo() is None
    document.apply("context", "16384 token")
    document.apply("kv_split", "= 2")
    assert document.dirty
    undone = document.undo()
    assert undone is not None and undone.key == "kv_split" and document.value("kv_split") == 4.0
    assert document.undo().key == "context" and document.value("context") == 8192.0
    assert not document.dirty
    assert document.redo().key == "context" and document.value("context") == 16384.0
    document.save()
    assert not document.dirty
    document.redo()
    assert document.dirty and document.value("kv_split") == 2.0
    document.undo()
    assert not document.dirty   # back at the saved state


def test_external_change_is_detected_and_never_clobbered(example: Path) -> None:
    document = Document(example)
    document.apply("context", "16384 token")
    assert not document.disk_changed()
    theirs = example.read_text(encoding="utf-8").replace("title:", "title: (edited elsewhere)", 1)
    example.write_text(theirs, encoding="utf-8")
    assert document.disk_changed()
    with pytest.raises(ExternalChange):
        document.save()
    assert example.read_text(encoding="utf-8") == theirs
    document.save(force=True)
    assert "16384 token" in example.read_text(encoding="utf-8") and "(edited elsewhere)" not in example.read_text()
    assert not document.disk_changed()


def test_touching_the_file_without_changing_it_is_not_a_change(example: Path) -> None:
    document = Document(example)
    os.utime(example, ns=(0, 0))
    assert not document.disk_changed()


def test_reload_reads_the_file_again_and_drops_history(example: Path) -> None:
    document = Document(example)
    document.apply("context", "16384 token")
    example.write_text(example.read_text().replace("8192 token", "4096 token"), encoding="utf-8")
    document.reload()
    assert document.value("context") == 4096.0 and not document.can_undo and not document.dirty


def test_saving_is_atomic_and_keeps_the_mode(example: Path) -> None:
    os.chmod(example, 0o640)
    document = Document(example)
    document.apply("context", "16384 token")
    document.save()
    assert stat.S_IMODE(example.stat().st_mode) == 0o640
    assert [p.name for p in example.parent.iterdir() if p.name.startswith(".")] == []


def test_crlf_bom_and_four_space_indentation_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    text = ("\ufefftitle: t\r\ncells:\r\n    a:\r\n        value: 2 GB   # two\r\n        doc: x\r\n"
            "    b: = a * 2\r\nsweeps:\r\n    s:\r\n        vary:\r\n            a: [1 GB, 2 GB]\r\n")
    path.write_bytes(text.encode("utf-8"))
    document = Document(path)
    assert document.apply("a", "3 GB").ok and document.value("b") == 6e9
    document.save()
    assert path.read_bytes() == text.replace("value: 2 GB", "value: 3 GB").encode("utf-8")


def test_detect_indent() -> None:
    assert detect_indent("a:\n  b: 1\n") == (2, 0)
    assert detect_indent("a:\n    b:\n        c: 1\n") == (4, 0)
    assert detect_indent("doc: |\n      x:\n        y\ncells:\n  x: 1\nv:\n  - 1\n") == (2, 2)


def test_numbers_are_written_as_typed(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("cells:\n  a: 1.50\n  b: = a * 2\n  c: '2 GB'\n", encoding="utf-8")
    document = Document(path)
    for text in ("2.50", "1e-6", "1_000", ".5"):
        assert document.apply("a", text).ok
        assert f"  a: {text}\n" in document.text()
    assert document.apply("c", "3 GB").ok
    assert "  c: '3 GB'\n" in document.text()   # the quoting stays


def test_sections_follow_the_comments_of_the_sheet(example: Path) -> None:
    sections = Document(example).sections()
    titles = [s.title for s in sections if s.kind == "cells"]
    assert titles[:3] == ["the scenario", "the whole model on one card", "split over `cards`"]
    assert sections[0].keys == ["context", "cards", "workspace", "capacity"]
    assert [s.alias for s in sections if s.kind == "import"] == ["hgx", "hgx.gpu", "model"]
    assert any(s.kind == "checks" and "fits" in s.keys for s in sections)


def test_a_diagnostic_points_at_its_cell(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("cells:\n  a: 2 GB\n  b: = a + 1 ms\n  c: = b * 2\n", encoding="utf-8")
    document = Document(path)
    assert [document.cell_at(d.span) for d in document.diagnostics] == ["b"]
    assert document.value("c") is None
    # fixing it is accepted, and everything evaluates
    assert document.apply("b", "= a + 1 GB").ok
    assert not document.diagnostics and document.value("c") == 6e9


def test_sweeps_run_on_the_unsaved_values(example: Path) -> None:
    document = Document(example)
    assert document.sweep_names() == ["per_card_table", "experiment_6_1a"]
    run = document.run_sweep("experiment_6_1a")
    assert run.frame is not None and run.axes == ["context [token]"]
    assert run.frame["max_sessions"].to_list() == [95.0, 47.0, 23.0]
    document.apply("workspace", "10 GiB")
    assert document.run_sweep("experiment_6_1a").frame["max_sessions"].to_list() != [95.0, 47.0, 23.0]
    axis = document.suggest_axis("context")
    assert axis == "context=1024 token..65536 token*2"
    adhoc = document.run_sweep(axis=axis)
    assert adhoc.frame.height == 7 and "max_sessions" in adhoc.cells
    assert document.run_sweep(axis="nope=1,2").error.startswith("E-NAME")


def test_the_engine_does_not_import_textual() -> None:
    code = "import sys, supersheet.cli.main, supersheet.editor.document; sys.exit('textual' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO).returncode == 0


def test_edit_needs_a_terminal_and_an_existing_sheet(tmp_path: Path) -> None:
    from supersheet.cli.main import main
    assert main(["edit", str(tmp_path / "missing.yaml")]) == 2
    result = subprocess.run([sys.executable, "-m", "supersheet.cli.main", "edit"], cwd=REPO, capture_output=True,
                            text=True, stdin=subprocess.DEVNULL)
    assert result.returncode == 2 and "needs a terminal" in result.stderr


def test_a_missing_library_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys) -> None:
    import supersheet.editor.library
    from supersheet.cli.main import main
    monkeypatch.setattr(supersheet.editor.library, "library_dir", lambda: tmp_path)
    assert main(["edit"]) == 2
    assert "bundled running example is not installed" in capsys.readouterr().err


def shared_project(folder: Path) -> Path:
    """top imports hw directly and through mid (one instance, format 10.3), gpu once."""
    (folder / "hw.yaml").write_text("cells:\n  bw: 100 GB/s   # the link\n", encoding="utf-8")
    (folder / "gpu.yaml").write_text("cells:\n  cards: 8\n", encoding="utf-8")
    (folder / "mid.yaml").write_text("use:\n  hw: hw.yaml\ncells:\n  t: = 1 GB / hw.bw -> ms\n", encoding="utf-8")
    sheet = folder / "top.yaml"
    sheet.write_text("use:\n  hw: hw.yaml\n  gpu: gpu.yaml\n  mid: mid.yaml\n"
                     "cells:\n  direct: = 1 GB / hw.bw -> ms\n  n: = gpu.cards\n  via_mid: = mid.t\n", encoding="utf-8")
    return sheet


def test_an_edit_of_a_shared_instance_changes_it_for_every_importer(tmp_path: Path) -> None:
    # format 10.3: hw is one instance for top and mid. A `set:` on top's hw would give top a copy
    # of its own that mid does not follow; the edit is an edit of hw.yaml, held until saved
    sheet = shared_project(tmp_path)
    hw, text = tmp_path / "hw.yaml", sheet.read_text(encoding="utf-8")
    document = Document(sheet)
    assert document.shared_instance("hw.bw") == ["hw", "mid.hw"] and document.editable("hw.bw") is None
    assert document.instance_importers("hw.bw") == [("hw", sheet), ("mid.hw", tmp_path / "mid.yaml")]
    result = document.apply("hw.bw", "200 GB/s")
    assert result.ok and "unsaved edit of hw.yaml" in result.note
    assert document.value("direct") == document.value("via_mid")          # mid follows: one instance
    assert document.shown("via_mid", document.value("via_mid")).text == "5 ms"
    assert {"direct", "via_mid", "mid.t"} <= set(result.changes)
    assert document.text() == text and "set:" not in document.text()      # never a `set:` that splits it
    assert hw.read_text(encoding="utf-8") == "cells:\n  bw: 100 GB/s   # the link\n"   # not written yet
    assert document.dirty and document.imported_edit("hw.bw") == hw.resolve()
    assert document.imported_edit("direct") is None and document.imported_edit("gpu.cards") is None
    assert "hw.yaml (bw: 100 GB/s -> 200 GB/s), imported by top.yaml as hw, mid.yaml as mid.hw" in \
        document.shared.describe(document.workbook.model).replace(str(tmp_path) + "/", "")
    # the diff against the saved files and a sweep's variant read the edited text too
    compared = Baselines().compare(sheet, document.text(), SAVED, document.shared.texts())
    assert {"direct", "via_mid"} <= {c.name for c in compared.diff.results}
    assert "200 GB/s" in document.workbook.model.files[hw.resolve()].text
    document.undo()
    assert document.shown("via_mid", document.value("via_mid")).text == "10 ms" and not document.dirty
    assert document.imported_edit("hw.bw") is None
    document.redo()
    assert document.shown("direct", document.value("direct")).text == "5 ms" and document.dirty
    document.save()                           # the sheet only: hw.yaml's edit stays in the session
    assert document.dirty and document.shared.pending() == [hw.resolve()]
    assert [p for p, _ in document.save_imported()] == [hw.resolve()]
    assert hw.read_text(encoding="utf-8") == "cells:\n  bw: 200 GB/s   # the link\n"   # one line, comment kept
    assert not document.dirty and sheet.read_text(encoding="utf-8") == text
    assert Document(sheet).shown("via_mid", Document(sheet).value("via_mid")).text == "5 ms"
    assert document.editable("gpu.cards") is None          # imported once: a `set:` changes nothing else
    assert document.apply("gpu.cards", "4").ok and "set:" in document.text()


def test_an_edit_of_a_shared_instance_that_does_not_check_is_refused(tmp_path: Path) -> None:
    sheet = shared_project(tmp_path)
    document = Document(sheet)
    result = document.apply("hw.bw", "200 GB")        # another dimension: mid.t would not check
    assert not result.ok and document.imported_edit("hw.bw") is None and not document.dirty
    assert document.shown("direct", document.value("direct")).text == "10 ms"


def test_a_library_file_is_never_edited_through_a_shared_instance(tmp_path: Path) -> None:
    (tmp_path / "mid.yaml").write_text("use:\n  lat: supersheet:hardware/latencies.yaml\n"
                                       "cells:\n  t: = 2 * lat.nvlink_latency -> us\n", encoding="utf-8")
    sheet = tmp_path / "top.yaml"
    sheet.write_text("use:\n  lat: supersheet:hardware/latencies.yaml\n  mid: mid.yaml\n"
                     "cells:\n  t: = lat.nvlink_latency -> us\n", encoding="utf-8")
    document = Document(sheet)
    assert document.shared_instance("lat.nvlink_latency") == ["lat", "mid.lat"]
    reason = document.editable("lat.nvlink_latency")
    assert reason and "supersheet:hardware/latencies.yaml is a file of the library supersheet:" in reason
    result = document.apply("lat.nvlink_latency", "0.65 us")
    assert not result.ok and not document.shared.files and not document.dirty

def test_sampling_in_the_editor_leaves_the_values_it_shows_at_the_means(tmp_path: Path) -> None:
    """The editor shows every draw at its mean and the samples beside (editor/sample.py). Its
    in-process sampler (the fallback when the resample process is not there) took the sheet's
    reductions over the samples into the document's own scenario: `tail` (a p95) changed from
    13 ms to ~16.3 ms on screen without an edit."""
    path = tmp_path / "draws.yaml"
    path.write_text("samples: {count: 4000, seed: 11}\ncells:\n  step: = normal(13 ms, 2 ms)\n"
                    "  budget: 15 ms\n  tail: = p95(step)\n  margin: = budget - tail\n", encoding="utf-8")
    from supersheet.editor.sample import sample_workbook
    document = Document(path)
    assert document.scenario.values["tail"] == pytest.approx(0.013)   # p95 of the draw at its mean
    samples = sample_workbook(document.workbook)
    assert samples is not None and samples.sampled is not None
    assert samples.sampled.reduced["tail"].startswith("16.")           # the p95 of the samples (16.3 ms), beside
    assert document.scenario.values["tail"] == pytest.approx(0.013)
    assert document.scenario.values["margin"] == pytest.approx(0.002)
