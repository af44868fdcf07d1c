"""A project of your own (format 10.1, 10.2): libraries by name, the project root,
supersheet.toml. Every sheet here lives in a temporary folder outside this repository."""
from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from supersheet.engine.base import project as proj
from supersheet.engine.base.project import library_name, project_for, shown_path
from supersheet.engine.workbook import open_workbook
from repo_paths import REPO

H100 = "supersheet:hardware/h100-sxm.yaml"


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _plan(folder: Path, use: str, name: str = "plans/plan.yaml") -> Path:
    return _write(folder / name, f"title: a plan\nuse:\n{use}cells:\n  weights: 58.96 GB\n"
                                 "  read_time: = weights / gpu.hbm_bandwidth -> ms\n")


@pytest.mark.parametrize(("text", "expected"), [
    ("supersheet:hardware/h100-sxm.yaml", ("supersheet", "hardware/h100-sxm.yaml")),
    ("team-2_x:models/a.yaml", ("team-2_x", "models/a.yaml")),
    ("C:/sheets/a.yaml", None), ("c:a.yaml", None),          # a drive letter is never a library name
    ("Team:a.yaml", None), ("2team:a.yaml", None), ("hardware/a.yaml", None), ("../a.yaml", None),
    ("https://example.com/a.yaml", None),
])
def test_a_library_name_is_two_or_more_of_a_z_0_9_dash_underscore_starting_with_a_letter(text, expected):
    assert library_name(text) == expected


def test_the_bundled_library_is_named_supersheet_from_any_folder(tmp_path, run_cli, monkeypatch):
    sheet = _plan(tmp_path, f"  gpu: {H100}\n")
    monkeypatch.chdir(tmp_path)
    result = run_cli("run", "plans/plan.yaml")
    assert result.code == 0 and "17.6 ms" in result.out, result.output
    explained = run_cli("explain", str(sheet), "gpu.hbm_bandwidth")
    assert "defined at supersheet:hardware/h100-sxm.yaml:" in explained.out, explained.output
    assert str(proj.bundled_library()) not in explained.output       # never where it is installed


def test_library_names_work_in_extends_import_axes_and_command_lines(tmp_path, run_cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "variant.yaml", f"extends: {H100}\ncells:\n  hbm_capacity: 96 GB\n")
    result = run_cli("run", "variant.yaml", "--format", "json")
    assert result.code == 0 and '"display": "96 GB"' in result.out and '"display": "3350 GB/s"' in result.out
    _plan(tmp_path, f"  gpu: {H100}\n")
    swept = run_cli("sweep", "plans/plan.yaml", "--vary", f"gpu={H100},supersheet:hardware/h200.yaml",
                    "--show", "read_time", "--format", "csv")
    assert swept.code == 0, swept.output
    rows = swept.out.strip().splitlines()
    assert rows[1:] == [f"{H100},17.6", "supersheet:hardware/h200.yaml,12.283333333333333"], rows
    ran = run_cli("run", H100, "--format", "json")
    assert ran.code == 0 and '"sheet": "supersheet:hardware/h100-sxm.yaml"' in ran.out
    tested = run_cli("test", H100)
    assert tested.code == 0 and tested.out.startswith(f"pass  {H100}:"), tested.output


def test_an_unknown_library_is_an_import_error_at_the_entry_naming_the_known_ones(tmp_path, run_cli):
    _write(tmp_path / "supersheet.toml", '[libraries]\nteam = "lib"\n')
    (tmp_path / "lib").mkdir()
    sheet = _plan(tmp_path, f"  gpu: {H100}\n  mine: nosuch:hardware/x.yaml\n")
    result = run_cli("check", str(sheet))
    assert result.code == 2
    assert "plan.yaml:4:3: E-IMPORT: nosuch:hardware/x.yaml: no library is named 'nosuch'" in result.err, result.err
    assert "hint: the libraries known here are supersheet:, team:" in result.err
    assert "Traceback" not in result.output
    assert run_cli("check", "nosuch:x.yaml").code == 2


def test_a_project_names_its_own_libraries_relative_to_its_toml(tmp_path, run_cli):
    project, shared = tmp_path / "project", tmp_path / "capacity-sheets"
    _write(project / "supersheet.toml", '[libraries]\nteam = "../capacity-sheets"\n')
    _write(shared / "hardware" / "card.yaml", "cells:\n  hbm_bandwidth: 2000 GB/s\n")
    sheet = _plan(project, "  gpu: team:hardware/card.yaml\n")
    result = run_cli("run", str(sheet))
    assert result.code == 0 and "29.48 ms" in result.out, result.output
    # the same folder by a relative path is outside the project: the name is what lets it in
    other = _plan(project, "  gpu: ../../capacity-sheets/hardware/card.yaml\n", "plans/other.yaml")
    assert run_cli("run", str(other)).code == 0                       # a library's folder is in the root
    _write(project / "supersheet.toml", "")
    refused = run_cli("run", str(other))
    assert refused.code == 2 and "outside the sheet root" in refused.err


def test_the_project_root_is_the_toml_then_git_then_the_current_folder_then_the_sheet_s(tmp_path):
    sheet = _write(tmp_path / "work" / "a" / "plans" / "x.yaml", "cells:\n  a: 1\n")
    real = tmp_path.resolve()
    assert project_for(sheet, cwd=tmp_path / "elsewhere").root == real / "work" / "a" / "plans"
    assert project_for(sheet, cwd=tmp_path / "work").root == real / "work"       # the current folder holds it
    (tmp_path / "work" / "a" / ".git").mkdir()
    assert project_for(sheet, cwd=tmp_path / "work").root == real / "work" / "a"
    _write(tmp_path / "work" / "a" / "plans" / "supersheet.toml", "")
    assert project_for(sheet, cwd=tmp_path / "work").root == real / "work" / "a" / "plans"
    assert project_for(sheet).config_file == real / "work" / "a" / "plans" / "supersheet.toml"


def test_a_copy_of_the_library_runs_its_cross_folder_imports_from_the_current_folder(tmp_path, run_cli,
                                                                                      monkeypatch):
    """The issue's reproducer: `cp -r sheets /tmp/x && cd /tmp/x && supersheet sweep …` (no git, no toml)."""
    subprocess.run(["cp", "-r", str(REPO / "sheets"), str(tmp_path)], check=True)
    monkeypatch.chdir(tmp_path)
    result = run_cli("sweep", "sheets/supernodes/6.2.2-qwen3-32b-decode-step.yaml", "--vary", "tp=1,2,4,8",
                     "-o", "out.csv")
    assert result.code == 0, result.output
    assert len((tmp_path / "out.csv").read_text().splitlines()) == 5


def test_the_toml_allows_folders_and_sets_the_load_limits_a_flag_overrides(tmp_path, run_cli):
    _write(tmp_path / "elsewhere" / "hw.yaml", "cells:\n  hbm_bandwidth: 1000 GB/s\n")
    sheet = _plan(tmp_path / "project", "  gpu: ../../elsewhere/hw.yaml\n")
    assert "outside the sheet root" in run_cli("check", str(sheet)).err
    _write(tmp_path / "project" / "supersheet.toml", 'allow = ["../elsewhere"]\nmax-cells = 2\n')
    limited = run_cli("check", str(sheet))
    assert limited.code == 2 and "limit of 2 cells" in limited.err, limited.output
    assert run_cli("check", str(sheet), "--max-cells", "10").code == 0
    _write(tmp_path / "project" / "supersheet.toml", 'allow = ["../elsewhere"]\n')
    assert run_cli("check", str(sheet)).code == 0


@pytest.mark.parametrize(("toml", "line", "message", "hint"), [
    ("max-cels = 5\n", 1, "unknown key 'max-cels' in supersheet.toml", "did you mean max-cells?"),
    ("allow = 'x'\n", 1, "allow must be a list of folders", None),
    ("\n[libraries]\nsupersheet = 'x'\n", 3, "'supersheet' names the bundled library", None),
    ("[libraries]\nC = 'x'\n", 2, "'C' is not a library name", None),
    ("[libraries]\nteam = 'missing'\n", 2, "library team: missing is not a folder", None),
    ("a = [\n", 1, "not valid TOML", None),
])
def test_a_wrong_toml_is_reported_at_its_line_and_refuses_the_sheet(tmp_path, run_cli, toml, line, message, hint):
    _write(tmp_path / "supersheet.toml", toml)
    sheet = _write(tmp_path / "a.yaml", "cells:\n  a: 1\n")
    result = run_cli("check", str(sheet))
    assert result.code == 2
    assert f"supersheet.toml:{line}:1: E-SHEET: {message}" in result.err, result.err
    assert hint is None or f"hint: {hint}" in result.err
    assert "Traceback" not in result.output


def test_outputs_name_a_library_file_by_its_name_not_its_install_path(tmp_path, monkeypatch):
    library = proj.bundled_library()
    monkeypatch.chdir(tmp_path)
    assert shown_path(library / "hardware" / "h100-sxm.yaml") == H100
    assert shown_path(str(library / "hardware" / ".." / "models" / "qwen3-32b.yaml")) == \
        "supersheet:models/qwen3-32b.yaml"
    assert shown_path(tmp_path / "a.yaml") == str(tmp_path / "a.yaml")
    monkeypatch.chdir(REPO)      # the checkout's own sheets, written relative to it, stay as written
    assert shown_path("sheets/hardware/h100-sxm.yaml") == "sheets/hardware/h100-sxm.yaml"


def test_a_library_inside_a_zip_is_copied_out_once(tmp_path):
    archive = tmp_path / "lib.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("supersheet/sheets/__init__.py", "")
        z.writestr("supersheet/sheets/hardware/card.yaml", "cells:\n  a: 1\n")
        z.writestr("supersheet/sheets/hardware/notes.pyc", b"\0")
    folder = proj._materialised(zipfile.Path(archive, "supersheet/sheets/"))
    assert (folder / "hardware" / "card.yaml").read_text() == "cells:\n  a: 1\n"
    assert not (folder / "hardware" / "notes.pyc").exists()


def test_the_bundled_library_is_found_through_importlib_resources():
    from importlib.resources import files
    assert proj.bundled_library() == Path(str(files("supersheet.sheets"))).resolve()
    assert (proj.bundled_library() / "hardware" / "h100-sxm.yaml").is_file()


def test_a_sheet_copied_out_of_the_library_is_told_the_library_name_of_each_import(tmp_path, run_cli):
    copy = tmp_path / "q7.yaml"
    copy.write_text((REPO / "sheets" / "questions" / "q7-two-batch-overlap.yaml").read_text())
    result = run_cli("check", str(copy))
    assert result.code == 2
    assert "hint: the bundled library has models/deepseek-v3.yaml: import it as supersheet:models/deepseek-v3.yaml" \
        in result.err
    assert "import it as supersheet:hardware/h100-sxm.yaml" in result.err
    fixed = copy.read_text().replace("../models/", "supersheet:models/").replace("../hardware/", "supersheet:hardware/")
    copy.write_text(fixed)
    assert run_cli("test", str(copy)).code == 0


def test_the_python_api_loads_a_library_file_by_name(tmp_path, monkeypatch):
    import supersheet as ss
    monkeypatch.chdir(tmp_path)
    sheet = ss.load("supersheet:hardware/h100-sxm.yaml")
    assert sheet.quantity("hbm_capacity").to("GB").magnitude == 80
    with pytest.raises(ss.RequestError, match="no library is named 'nosuch'"):
        ss.load("nosuch:hardware/h100-sxm.yaml")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diff_rev_and_textconv_resolve_library_names_alike_on_both_sides(tmp_path, run_cli, monkeypatch):
    """The old revision is materialised in a temporary folder: `supersheet:` is still the bundled
    library there, and a project library outside the repository is still that folder."""
    repo, team = tmp_path / "repo", tmp_path / "capacity-sheets"
    _write(team / "card.yaml", "cells:\n  hbm_bandwidth: 2000 GB/s\n")
    _write(repo / "supersheet.toml", '[libraries]\nteam = "../capacity-sheets"\n')
    plan = _write(repo / "plans" / "plan.yaml",
                  "use:\n  mine: team:card.yaml\n  gpu: supersheet:hardware/h100-sxm.yaml\ncells:\n"
                  "  weights: 58.96 GB\n  mine_time: = weights / mine.hbm_bandwidth -> ms\n"
                  "  h100_time: = weights / gpu.hbm_bandwidth -> ms\n")
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "plan"], cwd=repo, check=True)
    plan.write_text(plan.read_text().replace("58.96 GB", "117.92 GB"))
    monkeypatch.chdir(repo)
    result = run_cli("diff", "--rev")
    assert result.code == 1, result.output
    assert "mine_time: 29.48 ms → 58.96 ms" in result.out and "h100_time: 17.6 ms → 35.2 ms" in result.out, \
        result.output
    old = tmp_path / "old-plan.yaml"
    old.write_text(subprocess.run(["git", "show", "HEAD:plans/plan.yaml"], cwd=repo, capture_output=True,
                                  text=True, check=True).stdout)
    converted = run_cli("textconv", str(old))
    assert converted.code == 0 and "29.48 ms" in converted.out and "17.6 ms" in converted.out, converted.output


def test_a_worker_s_copy_resolves_library_names_to_the_driver_s_library(tmp_path, monkeypatch):
    """Ray tasks compile the sheet from a bundle of the driver's files; a worker need not have
    the library installed: `supersheet:` names the copy of the driver's library."""
    from supersheet.engine.scenarios.sheetbundle import Materialized, SheetBundle
    sheet = _plan(tmp_path, f"  gpu: {H100}\n")
    h100 = open_workbook(sheet)
    h200 = open_workbook(sheet, import_overrides={"gpu": "supersheet:hardware/h200.yaml"})
    bundle = SheetBundle.of([h100, h200])
    assert bundle.libraries == {"supersheet": str(proj.bundled_library())}

    def missing():
        raise ModuleNotFoundError("No module named 'supersheet.sheets'")
    monkeypatch.setattr(proj, "bundled_library", missing)       # a worker without the library
    with Materialized(bundle) as copy:
        for overrides, expected in (({}, 17.6), ({"gpu": copy.locate("supersheet:hardware/h200.yaml")}, 12.28)):
            workbook = open_workbook(copy.sheet, import_overrides={k: str(v) for k, v in overrides.items()})
            assert workbook.ok, workbook.diagnostics
            seconds = float(workbook.evaluate().values[workbook.key_for("read_time")])   # base unit: s
            assert abs(seconds * 1000 - expected) < 0.01, (overrides, seconds)


def test_a_missing_library_file_on_the_command_line_is_named_as_written(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_cli("run", "supersheet:hardware/h100-sx.yaml")
    assert result.code == 2
    assert "no such file in the library: supersheet:hardware/h100-sx.yaml (did you mean h100-sxm.yaml?)" \
        in result.err
    assert str(proj.bundled_library()) not in result.output
