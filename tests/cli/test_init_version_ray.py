"""`supersheet init` (a project with git's diff drivers that work without the virtual
environment on PATH), `supersheet --version`, and `--on ray` without Ray (issue 26)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from repo_paths import REPO

SUPERSHEET = Path(sys.executable).parent / "supersheet"      # the console script of this environment
GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="needs git")


def _git(folder: Path, *args: str, env: dict | None = None) -> str:
    return subprocess.run([GIT, "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=folder,
                          env=env, check=True, capture_output=True, text=True).stdout


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@needs_git
@pytest.mark.skipif(not SUPERSHEET.is_file(), reason="needs the installed console script")
def test_init_then_git_diff_shows_values_from_a_shell_without_supersheet_on_path(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    result = subprocess.run([str(SUPERSHEET), "init"], cwd=repo, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert (repo / "supersheet.toml").is_file()
    assert "*.yaml diff=supersheet" in (repo / ".gitattributes").read_text().splitlines()
    textconv = _git(repo, "config", "diff.supersheet.textconv").strip()
    assert textconv == f"{SUPERSHEET} textconv --"        # the absolute path of the supersheet that ran init, options ended (issue 28)
    _write(repo / "hardware" / "card.yaml", "title: my card\ncells:\n  hbm_bandwidth: 2000 GB/s\n")
    _write(repo / "plans" / "plan.yaml", "title: plan\nuse:\n  mine: ../hardware/card.yaml\n"
                                         "  gpu: supersheet:hardware/h100-sxm.yaml\ncells:\n  weights: 58.96 GB\n"
                                         "  mine_time: = weights / mine.hbm_bandwidth -> ms\n"
                                         "  h100_time: = weights / gpu.hbm_bandwidth -> ms\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "plan")
    _write(repo / "hardware" / "card.yaml", "title: my card\ncells:\n  hbm_bandwidth: 4000 GB/s\n")
    bare = {"HOME": str(tmp_path), "PATH": os.path.dirname(GIT) + os.pathsep + "/bin"}
    assert shutil.which("supersheet", path=bare["PATH"]) is None
    diff = _git(repo, "--no-pager", "diff", env=bare)
    assert "-#   hbm_bandwidth  2000 GB/s" in diff and "+#   hbm_bandwidth  4000 GB/s" in diff, diff
    plan = _git(repo, "--no-pager", "diff", "HEAD", "--", "plans/plan.yaml", env=bare)
    assert plan == ""        # the plan's text did not change; its values are shown by `diff --rev`
    changed = subprocess.run([str(SUPERSHEET), "diff", "--rev"], cwd=repo, capture_output=True, text=True,
                             env=bare, timeout=60)
    assert "mine_time: 29.48 ms → 14.74 ms" in changed.stdout, changed.stdout + changed.stderr


@needs_git
def test_init_print_changes_nothing_and_init_keeps_what_exists(tmp_path, run_cli):
    _git(tmp_path, "init", "-q")
    shown = run_cli("init", "--print", str(tmp_path))
    assert shown.code == 0 and "would write" in shown.out and "would run: git config diff.supersheet.textconv" \
        in shown.out
    assert sorted(p.name for p in tmp_path.iterdir()) == [".git"]
    assert "supersheet" not in _git(tmp_path, "config", "--list")
    _write(tmp_path / "supersheet.toml", "max-cells = 5000\n")
    _write(tmp_path / ".gitattributes", "*.png binary")
    done = run_cli("init", str(tmp_path))
    assert done.code == 0 and "kept" in done.out
    assert (tmp_path / "supersheet.toml").read_text() == "max-cells = 5000\n"
    assert (tmp_path / ".gitattributes").read_text() == "*.png binary\n*.yaml diff=supersheet\n"
    run_cli("init", str(tmp_path))
    assert (tmp_path / ".gitattributes").read_text().count("diff=supersheet") == 1
    assert 'diff -- "$LOCAL" "$REMOTE"' in _git(tmp_path, "config", "difftool.supersheet.cmd")   # options end first


def test_init_outside_git_writes_the_project_file_only(tmp_path, run_cli):
    folder = tmp_path / "plain"
    folder.mkdir()
    result = run_cli("init", str(folder))
    assert result.code == 0 and "not in a git repository" in result.out
    assert sorted(p.name for p in folder.iterdir()) == ["supersheet.toml"]
    import tomllib
    assert tomllib.loads((folder / "supersheet.toml").read_text()) == {"libraries": {}}   # all comments: valid
    assert run_cli("init", str(tmp_path / "missing")).code == 2


def test_version(run_cli):
    result = run_cli("--version")
    assert result.code == 0 and result.out.strip() == f"supersheet {version('supersheet')}"


@pytest.mark.parametrize("argv", [
    ["run", "sheets/questions/q4-ep-skew-monte-carlo.yaml", "--on", "ray"],
    ["sweep", "sheets/supernodes/6.2.2-qwen3-32b-decode-step.yaml", "--vary", "tp=1,2", "--on", "ray", "-o", "OUT/"],
    ["choose", "sheets/supernodes/6.7.3-choosing-a-partitioning.yaml", "partitioning", "--on", "ray"],
])
def test_on_ray_without_ray_says_how_to_install_it(argv, run_cli, monkeypatch, tmp_path):
    monkeypatch.chdir(REPO)
    monkeypatch.setitem(sys.modules, "ray", None)          # `import ray` fails as it does where it is not installed
    result = run_cli(*[str(tmp_path / "out") + "/" if a == "OUT/" else a for a in argv])
    assert result.code == 2, result.output
    assert "pip install 'supersheet[ray]'" in result.err and "internal error" not in result.err


def test_edit_refuses_a_file_of_the_library_named_by_its_library_name(capsys) -> None:
    """The library is shared by every project that imports it: the editor never writes it by name."""
    from supersheet.cli.main import main
    assert main(["edit", "supersheet:hardware/h100-sxm.yaml"]) == 2
    assert "is a file of a library" in capsys.readouterr().err
