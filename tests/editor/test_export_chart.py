"""The editor exports the chart its sweep view shows through `supersheet plot`'s code
(editor/sweep.py's export_chart over supersheet/plots.py), on the unsaved values."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from supersheet.editor.document import Document
from supersheet.editor.sweep import ExportError
from repo_paths import REPO



def test_the_chart_shown_is_exported_with_units_on_its_axes_and_the_unsaved_values(tmp_path: Path) -> None:
    for folder in ("hardware", "models", "supernodes"):
        shutil.copytree(REPO / "sheets" / folder, tmp_path / folder)
    (tmp_path / "supersheet.toml").write_text("")        # one project: supernodes/ imports ../hardware
    sheet = tmp_path / "supernodes" / "6.2.2-qwen3-32b-decode-step.yaml"
    document = Document(sheet)
    saved = tmp_path / "saved.svg"
    assert document.exporter(saved, "step_vs_context", chart=("s [token]", "step [ms]"))() == 24
    svg = saved.read_text()
    assert ">step [ms]</text>" in svg and ">s [token]</text>" in svg and ">tp</text>" in svg
    assert document.apply("layer_weights", "= 2 * model.layers * model.layer_bytes -> GB").ok   # unsaved
    assert "= 2 * model.layers * model.layer_bytes" not in sheet.read_text()
    faster = tmp_path / "faster.svg"
    assert document.exporter(faster, "step_vs_context", chart=("s [token]", "step [ms]"))() == 24
    assert faster.read_bytes() != saved.read_bytes()
    with pytest.raises(ExportError, match="pick the axis"):
        document.exporter(tmp_path / "x.png", "step_vs_context")
    with pytest.raises(ExportError, match="not a column|is not a column"):
        document.exporter(tmp_path / "x.svg", "step_vs_context", chart=("s [token]", "nope [ms]"))()
