"""Sheets at git revisions: `REV:path` specs, the files a revision changed,
and a revision's sheets materialised in a temporary folder so that their
relative imports resolve to the same revision.

Revisions come from the command line and from CI configuration, so nothing
the user typed reaches git where it could be read as an option
(`--rev=--output=FILE` once made `git diff` overwrite FILE): a revision is
resolved to its commit hash by `git rev-parse --verify --end-of-options
REV^{commit}` (and refused when it begins with '-'), only that hash is passed
on, and paths always follow `--`."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from supersheet.engine.base.project import CONFIG
from supersheet.engine.base.sheetroot import register_tree, unregister_tree


class GitError(Exception):
    pass


def run_git(args: list[str], cwd: Path) -> str:
    """Run git in `cwd`; its output, or GitError with its last line of stderr."""
    return _git(args, cwd).decode("utf-8", errors="surrogateescape")


def _git(args: list[str], cwd: Path) -> bytes:
    try:
        result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    if result.returncode != 0:
        err = result.stderr.decode("utf-8", errors="replace").strip()
        raise GitError(err.splitlines()[-1] if err else f"git {args[0]} failed")
    return result.stdout


def commit_of(revision: str, root: Path) -> str:
    """The commit hash `revision` names, verified; GitError for anything else."""
    if not revision or revision.startswith("-") or any(c in revision for c in "\0\n\r"):
        raise GitError(f"not a revision: {revision!r}")
    try:
        out = run_git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}"], root)
    except GitError:
        raise GitError(f"unknown revision {revision!r} (not a commit of the repository at {root})") from None
    commit = out.strip()
    if not commit or commit.startswith("-"):
        raise GitError(f"unknown revision {revision!r}")
    return commit


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
    commit = commit_of(revision, root)
    folder = Path(tempfile.mkdtemp(prefix="supersheet-rev-"))
    try:
        names = [n for n in run_git(["ls-tree", "-r", "-z", "--name-only", commit], root).split("\0")
                 if n.endswith((".yaml", ".yml")) or n.rsplit("/", 1)[-1] == CONFIG]
        for name in names:
            target = (folder / name).resolve()
            if not target.is_relative_to(folder.resolve()):      # git never stores such a name; be sure
                continue
            data = _git(["cat-file", "blob", f"{commit}:{name}"], root)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    register_tree(folder, root)   # its sheets import each other (and name libraries) as they did in the repository
    return Snapshot(revision, root, folder)


def repo_path(path: Path, root: Path) -> str:
    return os.path.relpath(path.resolve(), root.resolve())


def changed_files(revision: str, root: Path) -> list[str]:
    """YAML files that differ between `revision` and the working tree (tracked or new)."""
    commit = commit_of(revision, root)
    changed = run_git(["diff", "--name-only", "-z", commit, "--", "*.yaml", "*.yml"], root).split("\0")
    untracked = run_git(["ls-files", "-z", "--others", "--exclude-standard", "--", "*.yaml", "*.yml"],
                        root).split("\0")
    return sorted((set(changed) | set(untracked)) - {""})
