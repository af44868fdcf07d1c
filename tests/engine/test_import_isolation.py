"""The engine, the CLI, the editor's document model and `units` never import
Textual or the TUI (docs/architecture.md; import-linter checks the import
statements, this checks what is really loaded): checked in fresh interpreters,
since this test process may have imported them already."""
from __future__ import annotations

import json
import subprocess
import sys
from repo_paths import REPO

FORBIDDEN = ("textual", "supersheet.tui")

PROBE = """
import importlib, json, pkgutil, sys
{imports}
bad = sorted(m for m in sys.modules if any(m == f or m.startswith(f + ".") for f in {forbidden!r}))
print(json.dumps(bad))
"""


def loaded_forbidden(imports: str) -> list[str]:
    code = PROBE.format(imports=imports, forbidden=FORBIDDEN)
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_engine_cli_and_units_do_not_import_the_ui():
    assert loaded_forbidden("import supersheet.engine, supersheet.cli.main, supersheet.editor.document, supersheet.units") == []


def test_no_engine_cli_editor_or_units_module_imports_the_ui():
    imports = """
import supersheet.engine, supersheet.cli, supersheet.editor, supersheet.units
for package in (supersheet.engine, supersheet.cli, supersheet.editor, supersheet.units):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if not info.name.endswith(".__main__"):     # that one runs the command
            importlib.import_module(info.name)
"""
    assert loaded_forbidden(imports) == []


def test_a_cli_run_does_not_import_the_ui(tmp_path):
    sheet = tmp_path / "s.yaml"
    sheet.write_text("cells:\n  a: 2 GB\n  b: = a / 2 -> MB\n", encoding="utf-8")
    imports = f"""
import contextlib, io
from supersheet.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    assert main(["run", {str(sheet)!r}]) == 0
    assert main(["sweep", {str(sheet)!r}, "--vary", "a=1GB,2GB"]) == 0
"""
    assert loaded_forbidden(imports) == []


def test_a_local_sweep_does_not_import_ray(tmp_path):
    """Ray is an optional extra, imported only by `--on ray`."""
    sheet = tmp_path / "s.yaml"
    sheet.write_text("cells:\n  a: 2 GB\n  b: = a / 2 -> MB\n", encoding="utf-8")
    code = f"""
import contextlib, io, json, sys
from supersheet.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    assert main(["sweep", {str(sheet)!r}, "--vary", "a=1GB,2GB", "-o", {str(tmp_path / "o.parquet")!r}]) == 0
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] == "ray")))
"""
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []
