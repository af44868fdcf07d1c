"""A wheel install, used from a fresh folder outside any git repository (issue 26).

The wheel is built from this checkout (`pip wheel`), installed without its
dependencies into a temporary virtual environment that borrows this
environment's site-packages for them (a `.pth` line: the editable install's own
finder there is not run, so `supersheet` is the wheel's), and its console script
runs with a PATH that has no supersheet on it. About 40 s of wall time on a
busy machine (8 s of CPU), most of it building the wheel; every test shares the
one install.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
GIT = shutil.which("git")


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(work / "dist"),
                            str(REPO)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    wheel = next((work / "dist").glob("supersheet-*.whl"))
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                                "--no-index", str(wheel)], capture_output=True, text=True, timeout=600)
    assert installed.returncode == 0, installed.stderr
    site = subprocess.run([str(python), "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "zz-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv


def _run(venv: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {"HOME": str(cwd), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    return subprocess.run([str(venv / "bin" / "supersheet"), *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def _outside_git(folder: Path) -> bool:
    return not any((p / ".git").exists() for p in (folder, *folder.parents))


def test_the_wheel_holds_the_library_and_runs_from_its_install(wheel_venv, tmp_path):
    where = subprocess.run([str(wheel_venv / "bin" / "python"), "-I", "-c",
                            "import supersheet, supersheet.engine.base.project as p; "
                            "print(supersheet.__file__); print(p.bundled_library())"],
                           cwd=tmp_path, capture_output=True, text=True, check=True).stdout.split()
    assert all(Path(w).is_relative_to(wheel_venv) for w in where), where     # not this checkout
    version = _run(wheel_venv, tmp_path, "--version")
    assert version.returncode == 0 and version.stdout.startswith("supersheet 0.")


def test_a_plans_sheet_imports_its_neighbour_and_the_library_by_name(wheel_venv, tmp_path):
    folder = tmp_path / "fresh"
    (folder / "plans").mkdir(parents=True)
    (folder / "hardware").mkdir()
    assert _outside_git(folder)
    (folder / "hardware" / "x.yaml").write_text("title: my card\ncells:\n  hbm_bandwidth: 2000 GB/s\n")
    (folder / "plans" / "p.yaml").write_text(
        "title: plan\nuse:\n  mine: ../hardware/x.yaml\n  gpu: supersheet:hardware/h100-sxm.yaml\n"
        "cells:\n  weights: 58.96 GB\n  mine_time: = weights / mine.hbm_bandwidth -> ms\n"
        "  h100_time: = weights / gpu.hbm_bandwidth -> ms\nexpect:\n  mine_time: 29.48 ms\n  h100_time: 17.6 ms\n")
    tested = _run(wheel_venv, folder, "test", "plans/p.yaml")
    assert tested.returncode == 0 and "2 passed, 0 failed" in tested.stdout, tested.stdout + tested.stderr
    explained = _run(wheel_venv, folder, "explain", "plans/p.yaml", "gpu.hbm_bandwidth")
    assert "defined at supersheet:hardware/h100-sxm.yaml:" in explained.stdout
    assert str(wheel_venv) not in explained.stdout + explained.stderr          # never the install path
    swept = _run(wheel_venv, folder, "sweep", "supersheet:supernodes/6.2.2-qwen3-32b-decode-step.yaml",
                 "--vary", "tp=1,2,4,8", "-o", "out.csv")
    assert swept.returncode == 0, swept.stderr
    assert len((folder / "out.csv").read_text().splitlines()) == 5


def test_a_copy_of_the_installed_library_runs_the_headline_sweep(wheel_venv, tmp_path):
    """`cp -r sheets /tmp/x && cd /tmp/x && supersheet sweep sheets/supernodes/… --vary tp=1,2,4,8 -o out.csv`."""
    library = subprocess.run([str(wheel_venv / "bin" / "python"), "-I", "-c",
                              "import supersheet.engine.base.project as p; print(p.bundled_library())"],
                             cwd=tmp_path, capture_output=True, text=True, check=True).stdout.strip()
    shutil.copytree(library, tmp_path / "sheets")
    swept = _run(wheel_venv, tmp_path, "sweep", "sheets/supernodes/6.2.2-qwen3-32b-decode-step.yaml",
                 "--vary", "tp=1,2,4,8", "-o", "out.csv")
    assert swept.returncode == 0, swept.stderr
    assert "E-IMPORT" not in swept.stderr and len((tmp_path / "out.csv").read_text().splitlines()) == 5


@pytest.mark.skipif(GIT is None, reason="needs git")
def test_init_with_the_wheel_then_git_diff_shows_values_without_supersheet_on_path(wheel_venv, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git = [GIT, "-c", "user.email=t@example.com", "-c", "user.name=t"]
    env = {"HOME": str(tmp_path), "PATH": os.path.dirname(GIT) + os.pathsep + "/bin"}
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    assert _run(wheel_venv, repo, "init").returncode == 0
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
