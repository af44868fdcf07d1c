"""Sheets at git revisions: `REV:path` specs, the files a revision changed,
and a revision's sheets materialised in a temporary folder so that their
relative imports resolve to the same revision."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .sheetroot import register_tree, unregister_tree


class GitError(Exception):
    pass


def run_git(args: list[str], cwd: Path) -> str:
    """Run git in `cwd`; its output, or GitError with its last line of stderr."""
    try:
        result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    if result.returncode != 0:
        raise GitError(result.stderr.strip().splitlines()[-1] if result.stderr.strip() else f"git {args[0]} failed")
    return result.stdout


def repo_root(start: Path) -> Path:
    return Path(run_git(["rev-parse", "--show-toplevel"], start if start.is_dir() else start.parent).strip())


def is_revision_spec(text: str) -> bool:
    """`REV:path` (and not a Windows drive or an existing file with a colon)."""
    return ":" in text and not Path(text).exists() and not text.startswith(":")


@dataclass
class Snapshot:
    """The YAML files of one revision, written under `folder` at their repository paths."""

    revision: str
    root: Path
    folder: Path

    def path_of(self, repo_path: str) -> Path:
        return self.folder / repo_path

    def close(self) -> None:
        unregister_tree(self.folder)
        shutil.rmtree(self.folder, ignore_errors=True)


def snapshot(revision: str, cwd: Path) -> Snapshot:
    root = repo_root(cwd)
    run_git(["rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"], root)
    folder = Path(tempfile.mkdtemp(prefix="supersheet-rev-"))
    names = [n for n in run_git(["ls-tree", "-r", "--name-only", revision], root).splitlines()
             if n.endswith((".yaml", ".yml"))]
    for name in names:
        data = subprocess.run(["git", "show", f"{revision}:{name}"], cwd=root, capture_output=True, check=True).stdout
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    register_tree(folder)      # its sheets import each other as they did in the repository
    return Snapshot(revision, root, folder)


def repo_path(path: Path, root: Path) -> str:
    return os.path.relpath(path.resolve(), root.resolve())


def changed_files(revision: str, root: Path) -> list[str]:
    """YAML files that differ between `revision` and the working tree (tracked or new)."""
    changed = run_git(["diff", "--name-only", revision, "--", "*.yaml", "*.yml"], root).splitlines()
    untracked = run_git(["ls-files", "--others", "--exclude-standard", "--", "*.yaml", "*.yml"], root).splitlines()
    return sorted(set(changed) | set(untracked))
