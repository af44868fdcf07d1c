"""A wheel install, used from a fresh folder outside any git repository (issue 26).

The wheel of this checkout is installed into a fresh virtual environment
(`wheel_install`, tests/conftest.py: built once per session, shared with
test_architecture.py), and its console script runs with a PATH that has no
supersheet on it.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from repo_paths import REPO

GIT = shutil.which("git")


def _run(wheel, cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(wheel.script), *argv], cwd=cwd, env=wheel.env(cwd), capture_output=True, text=True,
                          timeout=300)


def _python(wheel, cwd: Path, code: str) -> str:
    """The installed package asked from its own interpreter (-I: not this checkout's folder)."""
    return subprocess.run([str(wheel.venv / "bin" / "python"), "-I", "-c", code], cwd=cwd, env=wheel.env(cwd),
                          capture_output=True, text=True, check=True).stdout


def _outside_git(folder: Path) -> bool:
    return not any((p / ".git").exists() for p in (folder, *folder.parents))


def test_the_wheel_holds_the_library_and_runs_from_its_install(wheel_install, tmp_path):
    where = _python(wheel_install, tmp_path, "import supersheet, supersheet.engine.base.project as p; "
                                             "print(supersheet.__file__); print(p.bundled_library())").split()
    assert all(Path(w).is_relative_to(wheel_install.site) for w in where), where     # not this checkout
    version = _run(wheel_install, tmp_path, "--version")
    assert version.returncode == 0 and version.stdout.startswith("supersheet 0.")


def test_a_plans_sheet_imports_its_neighbour_and_the_library_by_name(wheel_install, tmp_path):
    folder = tmp_path / "fresh"
    (folder / "plans").mkdir(parents=True)
    (folder / "hardware").mkdir()
    assert _outside_git(folder)
    (folder / "hardware" / "x.yaml").write_text("title: my card\ncells:\n  hbm_bandwidth: 2000 GB/s\n")
    (folder / "plans" / "p.yaml").write_text(
        "title: plan\nuse:\n  mine: ../hardware/x.yaml\n  gpu: supersheet:hardware/h100-sxm.yaml\n"
        "cells:\n  weights: 58.96 GB\n  mine_time: = weights / mine.hbm_bandwidth -> ms\n"
        "  h100_time: = weights / gpu.hbm_bandwidth -> ms\nexpect:\n  mine_time: 29.48 ms\n  h100_time: 17.6 ms\n")
    tested = _run(wheel_install, folder, "test", "plans/p.yaml")
    assert tested.returncode == 0 and "2 passed, 0 failed" in tested.stdout, tested.stdout + tested.stderr
    explained = _run(wheel_install, folder, "explain", "plans/p.yaml", "gpu.hbm_bandwidth")
    assert "defined at supersheet:hardware/h100-sxm.yaml:" in explained.stdout
    assert str(wheel_install.site) not in explained.stdout + explained.stderr          # never the install path
    swept = _run(wheel_install, folder, "sweep", "supersheet:supernodes/6.2.2-qwen3-32b-decode-step.yaml",
                 "--vary", "tp=1,2,4,8", "-o", "out.csv")
    assert swept.returncode == 0, swept.stderr
    assert len((folder / "out.csv").read_text().splitlines()) == 5


def test_a_copy_of_the_installed_library_runs_the_headline_sweep(wheel_install, tmp_path):
    """`cp -r sheets /tmp/x && cd /tmp/x && supersheet sweep sheets/supernodes/… --vary tp=1,2,4,8 -o out.csv`."""
    library = _python(wheel_install, tmp_path, "import supersheet.engine.base.project as p; "
                                               "print(p.bundled_library())").strip()
    assert Path(library).is_relative_to(wheel_install.site)
    shutil.copytree(library, tmp_path / "sheets")
    swept = _run(wheel_install, tmp_path, "sweep", "sheets/supernodes/6.2.2-qwen3-32b-decode-step.yaml",
                 "--vary", "tp=1,2,4,8", "-o", "out.csv")
    assert swept.returncode == 0, swept.stderr
    assert "E-IMPORT" not in swept.stderr and len((tmp_path / "out.csv").read_text().splitlines()) == 5


@pytest.mark.skipif(GIT is None, reason="needs git")
def test_init_with_the_wheel_then_git_diff_shows_values_without_supersheet_on_path(wheel_install, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git = [GIT, "-c", "user.email=t@example.com", "-c", "user.name=t"]
    env = {**wheel_install.env(tmp_path), "PATH": os.path.dirname(GIT) + os.pathsep + "/bin"}
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    assert _run(wheel_install, repo, "init").returncode == 0
    (repo / "card.yaml").write_text("title: card\ncells:\n  hbm_bandwidth: 2000 GB/s\n  t: = 1 GB / hbm_bandwidth"
                                    " -> ms\n")
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "card"], cwd=repo, check=True)
    (repo / "card.yaml").write_text("title: card\ncells:\n  hbm_bandwidth: 4000 GB/s\n  t: = 1 GB / hbm_bandwidth"
                                    " -> ms\n")
    assert shutil.which("supersheet", path=env["PATH"]) is None
    diff = subprocess.run([*git, "--no-pager", "diff"], cwd=repo, env=env, capture_output=True, text=True,
                          check=True).stdout
    assert "-#   t" in diff and "0.5 ms" in diff and "+#   t" in diff and "0.25 ms" in diff, diff


def test_the_readme_s_examples_run_with_the_wheel_from_a_fresh_folder(wheel_install, tmp_path):
    """The README's sheet and each of its commands that needs no repository, terminal or Ray,
    run by the installed console script from a folder outside any git work tree."""
    import re
    import shlex
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    sheet = re.search(r"```yaml\n(# hbm-read\.yaml\n.*?)```", readme, re.S)[1]
    folder = tmp_path / "fresh"
    folder.mkdir()
    assert _outside_git(folder)
    (folder / "hbm-read.yaml").write_text(sheet, encoding="utf-8")
    commands = [shlex.split(line.removeprefix("$ ").replace("\\\n", " "), comments=True)[1:]
                for block in re.findall(r"```(?:console|sh)\n(.*?)```", readme, re.S)
                for line in re.findall(r"^(?:\$ )?supersheet (?:[^\n]*\\\n)*[^\n]*", block, re.M)]
    runnable = [argv for argv in commands if argv[0] not in ("edit", "diff", "init") and "ray" not in argv]
    assert any("hbm-read.yaml" in argv for argv in runnable) and any(a.startswith("supersheet:")
                                                                   for argv in runnable for a in argv)
    for argv in runnable:
        result = _run(wheel_install, folder, *argv)
        assert result.returncode == 0, (argv, result.stdout + result.stderr)
    assert len(runnable) >= 6


def test_the_wheel_ships_the_type_marker_and_the_json_schemas(wheel_install):
    """py.typed (PEP 561) and the JSON Schemas the run and sweep JSON name (issue 29)."""
    package = wheel_install.site / "supersheet"
    assert (package / "py.typed").is_file()
    for name in ("run", "sweep"):
        schema = json.loads((package / "schemas" / f"{name}-1.json").read_text(encoding="utf-8"))
        assert schema["$id"] == schema["properties"]["schema"]["const"] == f"supersheet-{name}/1"
