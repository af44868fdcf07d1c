"""Every variant of a sheet — an import axis's row, a cell that reshapes it, an
input given to the API — is built from the texts the sheet was loaded from
(`Workbook.variant`), never from its file on disk: the editor's sweep after an
unsaved edit shows the formula on the screen."""
from __future__ import annotations

from pathlib import Path

import supersheet as ss
from supersheet.editor.document import Document


def project(tmp_path: Path) -> Path:
    (tmp_path / "a.yaml").write_text("title: a\ncells:\n  x: 1 GB\n")
    (tmp_path / "b.yaml").write_text("title: b\ncells:\n  x: 0.5 GB\n")
    sheet = tmp_path / "plan.yaml"
    sheet.write_text("title: plan\nuse:\n  m: a.yaml\ncells:\n  bw: 10 GB/s\n  t: = m.x / bw -> ms\n"
                     "sweeps:\n  models:\n    vary: {m: [a.yaml, b.yaml]}\n    show: [t]\n")
    return sheet


def test_the_editors_sweep_over_an_import_axis_uses_the_unsaved_formula(tmp_path: Path) -> None:
    sheet = project(tmp_path)
    document = Document(sheet)
    assert document.apply("t", "= 2 * m.x / bw -> ms").ok          # unsaved: the file still says m.x / bw
    run = document.run_sweep("models")
    assert run.frame is not None, run
    assert [round(v, 6) for v in run.frame["t [ms]"].to_list()] == [200.0, 100.0]   # not the saved 100 and 50
    assert "2 * m.x" not in sheet.read_text()


def test_a_reshaping_input_and_an_api_input_keep_the_loaded_text(tmp_path: Path) -> None:
    sheet = project(tmp_path)
    loaded = ss.load(sheet)
    sheet.write_text(sheet.read_text().replace("m.x / bw", "m.x / bw / 4"))   # changed on disk after loading
    assert loaded.with_inputs(bw="20 GB/s")["t"].magnitude == 50.0     # the loaded formula, not the file's new one
    assert [round(v, 6) for v in loaded.sweep("models").frame["t"].to_list()] == [100.0, 50.0]
