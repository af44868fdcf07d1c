"""supersheet diff: golden outputs on library sheets, exit codes, renamed cells,
a sheet that stopped checking, and the git integration in a temporary repository."""
from __future__ import annotations

import json
import re
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from supersheet.cli.main import main
from repo_paths import REPO

VARIANT = "sheets/supernodes/6.1.2-running-example-32k.yaml"
SUPERSHEET = str(Path(sys.executable).parent / "supersheet")


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


@pytest.fixture
def in_root(monkeypatch):
    monkeypatch.chdir(REPO)
    monkeypatch.delenv("BASE", raising=False)
    monkeypatch.delenv("MERGED", raising=False)


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_variant_against_base_golden(capsys, in_root, snapshot, fmt: str) -> None:
    code, out = run(capsys, "diff", "--base", VARIANT, "--format", fmt, "--color", "never")
    assert code == 1
    assert out == snapshot


def test_variant_diff_content(capsys, in_root) -> None:
    _, out = run(capsys, "diff", "--base", VARIANT, "--format", "json")
    (sheet,) = json.loads(out)["sheets"]
    inputs = {c["name"]: c for c in sheet["inputs"]}
    assert inputs["context"]["old"] == "8192 token" and inputs["context"]["new"] == "32768 token"
    results = [c["name"] for c in sheet["results"]]
    assert results[:2] == ["kv_total", "kv_per_card"]          # largest relative change first (+300 %)
    sessions = next(c for c in sheet["results"] if c["name"] == "max_sessions")
    assert (sessions["old"], sessions["new"]) == ("47", "11")
    sizes = [abs(c["relative"]) for c in sheet["results"] if c["relative"] is not None]
    assert sizes == sorted(sizes, reverse=True)


def test_a_library_variant_by_its_name_against_its_base(capsys, in_root, tmp_path, monkeypatch) -> None:
    """`diff --base supersheet:PATH` from a folder of one's own: the library name was loaded as a
    path of the current folder, found no sheet, and the command said the variant 'does not extend
    a base sheet' (exit 2). The same diff as the checkout's path gives, its base named by library name."""
    _, by_path = run(capsys, "diff", "--base", VARIANT, "--format", "json")
    monkeypatch.chdir(tmp_path)
    code, out = run(capsys, "diff", "--base", "supersheet:supernodes/6.1.2-running-example-32k.yaml",
                    "--format", "json")
    assert code == 1
    (sheet,), (expected,) = json.loads(out)["sheets"], json.loads(by_path)["sheets"]
    assert sheet["old_label"] == "base supersheet:supernodes/6.1.2-running-example.yaml"
    assert sheet["name"] == "supersheet:supernodes/6.1.2-running-example-32k.yaml"
    for part in ("inputs", "results", "formulas", "checks"):
        assert sheet[part] == expected[part], part
    assert len(sheet["results"]) > 10


def test_identical_sheets_exit_zero(capsys, in_root) -> None:
    sheet = "sheets/supernodes/6.1.2-running-example.yaml"
    code, out = run(capsys, "diff", sheet, sheet)
    assert code == 0
    assert "unchanged" in out and "results changed" not in out


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_renamed_cell_and_formula_change(capsys, tmp_path) -> None:
    old = _write(tmp_path / "old.yaml", "cells:\n  weights: 80 GB\n  cards: 8\n  per_card: = weights / cards\n")
    new = _write(tmp_path / "new.yaml", "cells:\n  total_weights: 80 GB\n  cards: 8\n"
                                        "  per_card: = total_weights / cards\n")
    code, out = run(capsys, "diff", str(old), str(new), "--format", "json")
    (sheet,) = json.loads(out)["sheets"]
    assert [c["name"] for c in sheet["renamed"]] == ["weights -> total_weights"]
    assert not sheet["added"] and not sheet["removed"]
    assert [c["name"] for c in sheet["formulas"]] == ["per_card"]
    assert not sheet["results"]          # same value: the rename moved nothing
    assert code == 1                     # but the sheet differs (a cell was renamed)


def test_sheet_that_stopped_checking_reports_the_diagnostic(capsys, tmp_path) -> None:
    old = _write(tmp_path / "old.yaml", "cells:\n  a: 1 GB\n  b: = a * 2\n")
    new = _write(tmp_path / "new.yaml", "cells:\n  a: 1 GB\n  b: = a + 2 s\n")
    code, out = run(capsys, "diff", str(old), str(new), "--color", "never")
    assert code == 2                     # the new version is an error, not a difference
    assert "does not check" in out and "E-UNIT" in out and "new.yaml:3:" in out
    code, out = run(capsys, "diff", str(new), str(old), "--color", "never")
    assert code == 1                     # a broken sheet fixed is a difference


def test_both_sides_invalid_exit_two(capsys, tmp_path) -> None:
    old = _write(tmp_path / "old.yaml", "cells:\n  a: 1 GB\n  b: = a + 1 s\n")
    new = _write(tmp_path / "new.yaml", "cells:\n  a: 1 GB\n  b: = a + 2 s\n")
    code, out = run(capsys, "diff", str(old), str(new), "--format", "json")
    assert code == 2
    (sheet,) = json.loads(out)["sheets"]
    assert sheet["invalid"] and sheet["old_problems"] and sheet["new_problems"]


def test_missing_side_is_usage_error(capsys, tmp_path) -> None:
    assert main(["diff", str(tmp_path / "nope.yaml"), str(tmp_path / "nope2.yaml")]) == 2
    assert "no such sheet" in capsys.readouterr().err


def test_usage_without_sides(capsys) -> None:
    assert main(["diff"]) == 2


# -- git ----------------------------------------------------------------------
def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=env).stdout


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    """A repository holding the hardware, the models and the running example."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    for folder in ("hardware", "models"):
        shutil.copytree(REPO / "sheets" / folder, repo / "sheets" / folder)
    (repo / "sheets" / "supernodes").mkdir(parents=True)
    for name in ("6.1.2-running-example.yaml", "6.1.2-running-example-32k.yaml"):
        shutil.copy(REPO / "sheets" / "supernodes" / name, repo / "sheets" / "supernodes" / name)
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "sheets")
    monkeypatch.chdir(repo)
    monkeypatch.delenv("BASE", raising=False)
    monkeypatch.delenv("MERGED", raising=False)
    return repo


def _edit_bandwidth(repo: Path) -> None:
    card = repo / "sheets" / "hardware" / "h100-sxm.yaml"
    text = card.read_text(encoding="utf-8")
    assert "value: 3350 GB/s" in text
    card.write_text(text.replace("value: 3350 GB/s", "value: 4000 GB/s"), encoding="utf-8")


def test_rev_diff_reaches_every_importing_sheet(capsys, repo) -> None:
    assert run(capsys, "diff", "--rev", "HEAD")[0] == 0          # a clean tree: no differences
    _edit_bandwidth(repo)
    code, out = run(capsys, "diff", "--rev", "--format", "json")
    assert code == 1
    by_name = {d["name"]: d for d in json.loads(out)["sheets"]}
    assert "sheets/hardware/h100-sxm.yaml" in by_name
    assert "sheets/supernodes/6.1.2-running-example.yaml" in by_name      # imports hgx, which imports the card
    assert "sheets/supernodes/6.1.2-running-example-32k.yaml" in by_name  # extends the running example
    assert "sheets/models/qwen3-32b.yaml" not in by_name                  # imports nothing that changed
    card = by_name["sheets/hardware/h100-sxm.yaml"]
    assert card["inputs"][0]["name"] == "hbm_bandwidth"
    example = by_name["sheets/supernodes/6.1.2-running-example.yaml"]
    step = next(c for c in example["results"] if c["name"] == "per_card_step")
    assert step["old"] == "1.727 ms" and step["relative"] == pytest.approx(3350 / 4000 - 1, rel=1e-9)
    assert any(c["name"] == "per_card_step" for c in example["expectations"])   # the book's 1.73 ms no longer holds


def test_rev_diff_markdown_for_review(capsys, repo) -> None:
    _edit_bandwidth(repo)
    code, out = run(capsys, "diff", "--rev", "HEAD", "sheets/supernodes", "--format", "markdown")
    assert code == 1
    assert "### `sheets/supernodes/6.1.2-running-example.yaml`" in out
    assert "| per_card_step | 1.727 ms | 1.447 ms |" in out


def test_revision_spec_pair(capsys, repo) -> None:
    _edit_bandwidth(repo)
    git(repo, "commit", "-qam", "faster HBM")
    code, out = run(capsys, "diff", "HEAD~1:sheets/supernodes/6.1.2-running-example.yaml",
                    "HEAD:sheets/supernodes/6.1.2-running-example.yaml", "--color", "never")
    assert code == 1
    assert "per_card_step: 1.727 ms → 1.447 ms" in out


def test_git_diff_with_textconv_shows_values(repo) -> None:
    (repo / ".gitattributes").write_text("*.yaml diff=supersheet\n", encoding="utf-8")
    git(repo, "config", "diff.supersheet.textconv", f"{SUPERSHEET} textconv")
    _edit_bandwidth(repo)
    out = git(repo, "diff", "sheets/hardware/h100-sxm.yaml")
    assert "-#   hbm_bandwidth" in out and "3350 GB/s" in out
    assert "+#   hbm_bandwidth" in out and "4000 GB/s" in out


def test_difftool_resolves_imports_of_the_old_copy(repo) -> None:
    sheet = repo / "sheets" / "supernodes" / "6.1.2-running-example.yaml"
    sheet.write_text(sheet.read_text(encoding="utf-8").replace("value: 8192 token", "value: 32768 token"),
                     encoding="utf-8")
    out = git(repo, "difftool", "-y", "-x", f"{SUPERSHEET} diff --color never", "HEAD", "--",
              "sheets/supernodes/6.1.2-running-example.yaml")
    assert "max_sessions: 47 → 11" in out
    assert "does not check" not in out


def test_rev_diff_fails_the_gate_on_added_and_removed_sheets(capsys, repo) -> None:
    (repo / "sheets" / "new.yaml").write_text("cells:\n  a: 1 GB\n  b: = a * 2\n", encoding="utf-8")
    (repo / "sheets" / "models" / "qwen3-32b.yaml").unlink()
    code, out = run(capsys, "diff", "--rev", "--format", "json")
    assert code == 1
    by_name = {d["name"]: d for d in json.loads(out)["sheets"]}
    added, removed = by_name["sheets/new.yaml"], by_name["sheets/models/qwen3-32b.yaml"]
    assert added["status"] == "added" and added["differs"]
    assert [c["name"] for c in added["added"]] == ["a", "b"] and added["added"][1]["new"] == "2 GB"
    assert removed["status"] == "removed" and removed["differs"] and removed["removed"]
    code, text = run(capsys, "diff", "--rev", "--color", "never")
    assert code == 1
    assert "sheet added (2 cells)" in text and "b = 2 GB" in text and "sheet removed (" in text
    assert "0 cells unchanged" not in text


def test_rev_diff_of_an_invalid_working_tree_is_an_error(capsys, repo) -> None:
    card = repo / "sheets" / "hardware" / "h100-sxm.yaml"
    card.write_text(card.read_text(encoding="utf-8").replace("value: 3350 GB/s", "value: 3350 GB/s + 1"),
                    encoding="utf-8")
    code, out = run(capsys, "diff", "--rev", "--color", "never")
    assert code == 2 and "does not check" in out


def _edit_card_and_sheet(repo: Path) -> Path:
    """A change to an import (the card's bandwidth) and to the sheet that uses it."""
    _edit_bandwidth(repo)
    sheet = repo / "sheets" / "supernodes" / "6.1.2-running-example.yaml"
    sheet.write_text(sheet.read_text(encoding="utf-8").replace("value: 8192 token", "value: 32768 token"),
                     encoding="utf-8")
    return sheet


def test_difftool_resolves_the_old_copy_at_its_revision(repo) -> None:
    """The old copy is HEAD's sheet with HEAD's imports (the card at 3350 GB/s), not today's card:
    its per-card step is the 1.727 ms HEAD really had, and the label says at which commit."""
    _edit_card_and_sheet(repo)
    head = git(repo, "rev-parse", "HEAD").strip()
    out = git(repo, "difftool", "-y", "-x", f"{SUPERSHEET} diff --color never", "HEAD", "--",
              "sheets/supernodes/6.1.2-running-example.yaml")
    assert out.splitlines()[0].startswith("== sheets/supernodes/6.1.2-running-example.yaml  "
                                          f"(sheets/supernodes/6.1.2-running-example.yaml at {head[:12]}, "
                                          "with its imports → ")
    assert "note:" not in out
    assert "per_card_step: 1.727 ms → " in out
    assert "hbm_bandwidth: 3350 GB/s → 4000 GB/s" in out     # the changed import is listed


def test_difftool_tool_that_init_configures_resolves_the_old_copy(repo) -> None:
    """`git difftool -t supersheet`, the tool `supersheet init` configures: git's helper keeps
    `$MERGED` as a shell variable, never in the tool's environment, so the command must pass
    it on. Without it the old copy in /tmp was opened as itself: outside the sheet root, its
    imports not found, and the diff said the old version "does not check"."""
    from supersheet.compare import git_drivers
    for key, value in git_drivers(SUPERSHEET).items():
        git(repo, "config", key, value)
    _edit_card_and_sheet(repo)
    head = git(repo, "rev-parse", "HEAD").strip()
    out = git(repo, "difftool", "-y", "-t", "supersheet", "HEAD", "--",
              "sheets/supernodes/6.1.2-running-example.yaml")
    assert "does not check" not in out
    assert f"(sheets/supernodes/6.1.2-running-example.yaml at {head[:12]}, with its imports → " in out
    assert "per_card_step: 1.727 ms → " in out


def test_git_diff_textconv_evaluates_each_side_at_its_revision(repo) -> None:
    (repo / ".gitattributes").write_text("*.yaml diff=supersheet\n", encoding="utf-8")
    git(repo, "config", "diff.supersheet.textconv", f"{SUPERSHEET} textconv")
    _edit_card_and_sheet(repo)
    git(repo, "commit", "-qam", "faster HBM, longer context")
    out = git(repo, "diff", "HEAD~1", "HEAD", "--", "sheets/supernodes/6.1.2-running-example.yaml")
    # both sides say the same first line (no commit in it): a diff does not show it as changed
    assert "-# supersheet:" not in out and "+# supersheet:" not in out
    assert re.search(r"^-#   hgx.gpu.hbm_bandwidth +3350 GB/s", out, re.M)      # HEAD~1 with its own card
    assert re.search(r"^\+#   hgx.gpu.hbm_bandwidth +4000 GB/s", out, re.M)


def test_textconv_of_a_copy_no_revision_holds_says_its_imports_are_todays(repo, tmp_path) -> None:
    """A copy whose content no commit holds (git's copy of the index, say): the honest first line."""
    copy = tmp_path / "XXXXXX_6.1.2-running-example.yaml"   # git's temporary copy of a version
    text = (repo / "sheets" / "supernodes" / "6.1.2-running-example.yaml").read_text(encoding="utf-8")
    copy.write_text(text.replace("value: 8192 token", "value: 16384 token"), encoding="utf-8")
    out = subprocess.run([SUPERSHEET, "textconv", str(copy)], cwd=repo, capture_output=True, text=True).stdout
    assert out.splitlines()[0].startswith("# supersheet: this copy's imports were resolved from the working tree")
    copy.write_text(text, encoding="utf-8")   # HEAD's content, imports unchanged since: resolved at HEAD
    out = subprocess.run([SUPERSHEET, "textconv", str(copy)], cwd=repo, capture_output=True, text=True).stdout
    assert out.splitlines()[0] == "# supersheet: evaluated with the imports of its own revision"
    plain = subprocess.run([SUPERSHEET, "textconv", "sheets/hardware/h100-sxm.yaml"], cwd=repo,
                           capture_output=True, text=True).stdout
    assert not plain.startswith("# supersheet:")


def test_display_of_changes_reads_right(capsys, tmp_path) -> None:
    old = _write(tmp_path / "old.yaml", "cells:\n  n: 47\n  share: 50 %\n  left: = n * 1 GB\n"
                                        "expect:\n  left: 47 GB\n")
    new = _write(tmp_path / "new.yaml", "cells:\n  n: 11\n  share: 54.3 %\n  left: = n * 1 GB\n"
                                        "expect:\n  left: 47 GB\n  share: 50 %\n")
    code, out = run(capsys, "diff", str(old), str(new), "--color", "never")
    assert code == 1
    assert "n: 47 → 11   ↓ 36 (-76.6%)" in out                                   # no double minus
    assert "share: 50 % → 54.3 %   ↑ 4.3 percentage points (+8.6%)" in out       # points beside the relative change
    assert "left: expected 47 GB, got 11 GB (held before)" in out
    assert "share: expected 50 %, got 54.3 % (a new expectation)" in out


def test_test_output_names_the_tolerance_once_and_the_unit_of_the_miss(run_cli, write_sheet) -> None:
    path = write_sheet("cells:\n  a: 1 GB\nexpect:\n  a: 1.2 GB ± 3%\n")
    result = run_cli("test", str(path))
    assert result.code == 1
    assert "(expected 1.2 GB ± 3%)" in result.out and "± 3%, ± 3 %" not in result.out
    assert "off by -0.2 GB," in result.out


@pytest.mark.parametrize("argv", [
    ["diff", "--rev=--output={victim}"],
    ["diff", "--rev", "--output={victim}"],
    ["diff", "--output={victim}:sheets/hardware/h100-sxm.yaml", "sheets/hardware/h100-sxm.yaml"],
    ["diff", "--rev=-o{victim}"],
    ["diff", "--rev=HEAD --output={victim}"],
])
def test_a_revision_cannot_inject_git_options(argv, repo, tmp_path, run_cli) -> None:
    """`--rev=--output=FILE` once reached `git diff --output=FILE` and overwrote FILE."""
    victim = tmp_path / "victim"
    victim.write_text("precious\n", encoding="utf-8")
    _edit_bandwidth(repo)
    result = run_cli(*[a.format(victim=victim) for a in argv])
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert result.code == 2 and "internal error" not in result.output, result.output
    assert "revision" in result.err


def test_commit_of_passes_only_verified_hashes(repo) -> None:
    from supersheet.engine.diff.gitrev import GitError, commit_of
    head = commit_of("HEAD", repo)
    assert len(head) == 40 and int(head, 16) >= 0
    for bad in ("--output=/tmp/x", "-p", "", "HEAD\n--output=x", "no-such-branch"):
        with pytest.raises(GitError):
            commit_of(bad, repo)


# Git's textconv driver run with /proc pointed at a folder that does not exist, as on
# a system without it (macOS, Windows): the git command line cannot be read there.
def _without_proc(*command: str) -> str:
    """The supersheet command as git runs it (git appends the files), with /proc pointed at a
    folder that does not exist, as on a system without it (macOS, Windows)."""
    argv = ", ".join(f'\"{word}\"' for word in command)
    return (f"{sys.executable} -c 'import sys; from pathlib import Path; "
            "from supersheet.engine.diff import copyrev; copyrev.PROC = Path(\"/nonexistent-proc\"); "
            f"from supersheet.cli.main import main; sys.exit(main([{argv}, *sys.argv[1:]]))'")


def _sheet_that_stood_while_its_import_changed(repo: Path) -> None:
    """HEAD~2 the card at 3350 GB/s, HEAD~1 at 4000 GB/s with the sheet unchanged, HEAD the
    sheet changed: HEAD~1's sheet is HEAD~2's content, which stood through a change of its card."""
    _edit_bandwidth(repo)
    git(repo, "commit", "-qam", "faster HBM")
    sheet = repo / "sheets" / "supernodes" / "6.1.2-running-example.yaml"
    sheet.write_text(sheet.read_text(encoding="utf-8").replace("value: 8192 token", "value: 32768 token"),
                     encoding="utf-8")
    git(repo, "commit", "-qam", "longer context")


def test_textconv_without_proc_says_on_its_first_line_that_imports_are_todays(repo) -> None:
    """Only the revision on git's command line tells which card HEAD~1's sheet had. Without
    /proc that line cannot be read: the old side says its imports were resolved from the working
    tree, instead of passing today's card off as HEAD~1's. With /proc the same diff resolves HEAD~1."""
    (repo / ".gitattributes").write_text("*.yaml diff=supersheet\n", encoding="utf-8")
    _sheet_that_stood_while_its_import_changed(repo)
    _edit_bandwidth_to(repo, "4000 GB/s", "5000 GB/s")   # today's card differs from every commit's
    argv = ("diff", "HEAD~1", "HEAD", "--", "sheets/supernodes/6.1.2-running-example.yaml")
    git(repo, "config", "diff.supersheet.textconv", _without_proc("textconv"))
    blind = git(repo, *argv)
    old_first = next(line for line in blind.splitlines() if line.startswith("-# supersheet:"))
    assert old_first.startswith("-# supersheet: this copy's imports were resolved from the working tree")
    assert re.search(r"^-#   hgx.gpu.hbm_bandwidth +5000 GB/s", blind, re.M)   # today's card, and said so
    git(repo, "config", "diff.supersheet.textconv", f"{SUPERSHEET} textconv")
    seeing = git(repo, *argv)
    if Path("/proc/self/cmdline").exists():   # Linux: the revision git diffs is read from its command line
        assert "-# supersheet:" not in seeing   # both sides evaluated with their own revision's imports
        assert not re.search(r"^-#   hgx.gpu.hbm_bandwidth +5000 GB/s", seeing, re.M)   # not today's card


def test_difftool_without_proc_notes_that_the_old_imports_are_todays(repo) -> None:
    """The same history through `git difftool -x 'supersheet diff'` on a system without /proc:
    the old side is labelled as it was given, and a note says its imports are the working tree's."""
    _sheet_that_stood_while_its_import_changed(repo)
    out = git(repo, "difftool", "-y", "-x", _without_proc("diff", "--color", "never"), "HEAD~1", "HEAD", "--",
              "sheets/supernodes/6.1.2-running-example.yaml")
    assert out.splitlines()[0].startswith("note: the old copy's imports were resolved from the working tree")
    header = next(line for line in out.splitlines() if line.startswith("== "))
    assert ", with its imports →" not in header   # no revision claimed for the old side (the new one may have one)


def _edit_bandwidth_to(repo: Path, old: str, new: str) -> None:
    card = repo / "sheets" / "hardware" / "h100-sxm.yaml"
    text = card.read_text(encoding="utf-8")
    assert f"value: {old}" in text
    card.write_text(text.replace(f"value: {old}", f"value: {new}"), encoding="utf-8")


def test_a_copy_that_stood_while_the_project_s_libraries_changed_is_not_given_a_revision(tmp_path,
                                                                                         monkeypatch) -> None:
    """`team:gpu.yaml` is lib1's card (80 GB) at HEAD~2, lib2's (96 GB) at HEAD~1 by a change of
    supersheet.toml alone, and the sheet changes at HEAD; today's toml names lib3 (120 GB, not
    committed). `git log -p` names no commit: the old copy's content was introduced at HEAD~2,
    whose toml it was evaluated with (80 GB, "evaluated with the imports of its own revision"),
    though HEAD's parent names lib2. A toml that changed while the content stood makes the
    revision ambiguous: the copy is evaluated over the working tree and its first line says so,
    today's toml named. With the revision on git's command line, HEAD~1's own toml (96 GB)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    for folder, hbm in (("lib1", "80 GB"), ("lib2", "96 GB"), ("lib3", "120 GB")):
        (repo / folder).mkdir(parents=True)
        _write(repo / folder / "gpu.yaml", f"cells:\n  hbm: {hbm}\n")
    toml = repo / "supersheet.toml"
    toml.write_text('[libraries]\nteam = "lib1"\n', encoding="utf-8")
    plan = _write(repo / "plan.yaml", "title: plan\nuse:\n  gpu: team:gpu.yaml\ncells:\n  total: = 2 * gpu.hbm\n")
    (repo / ".gitattributes").write_text("*.yaml diff=supersheet\n", encoding="utf-8")
    git(repo, "init", "-q")
    git(repo, "config", "diff.supersheet.textconv", f"{SUPERSHEET} textconv")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "lib1")
    toml.write_text('[libraries]\nteam = "lib2"\n', encoding="utf-8")
    git(repo, "commit", "-qam", "lib2")
    plan.write_text(plan.read_text(encoding="utf-8") + "  half: = gpu.hbm / 2\n", encoding="utf-8")
    git(repo, "commit", "-qam", "half")
    toml.write_text('[libraries]\nteam = "lib3"\n', encoding="utf-8")     # today's, not committed
    monkeypatch.chdir(repo)
    log = git(repo, "log", "-p", "-1", "--format=%h", "--", "plan.yaml")
    old_first = next((line for line in log.splitlines() if line.startswith("-# supersheet:")), "")
    assert old_first.startswith("-# supersheet: this copy's imports were resolved from the working tree, "
                                "its library names by today's supersheet.toml"), log
    assert re.search(r"^-#   gpu.hbm +120 GB", log, re.M) and not re.search(r"^-#   gpu.hbm +80 GB", log, re.M), log
    if Path("/proc/self/cmdline").exists():   # Linux: the revision git diffs is read from its command line
        named = git(repo, "diff", "HEAD~1", "HEAD", "--", "plan.yaml")
        assert "-# supersheet:" not in named and re.search(r"^ #   gpu.hbm +96 GB", named, re.M), named
