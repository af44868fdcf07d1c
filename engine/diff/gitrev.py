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
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from supersheet.engine.base import scratch
from supersheet.engine.base.limits import current_limits
from supersheet.engine.base.project import CONFIG
from supersheet.engine.base.sheetroot import TABLE_SUFFIXES
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
        scratch.discard(str(self.folder))


REV_PREFIX = "supersheet-rev-"
_REV_PATTERN = re.compile(re.escape(REV_PREFIX) + scratch.TAG + r"\.[A-Za-z0-9_]{8}")


def snapshot(revision: str, cwd: Path) -> Snapshot:
    """The revision's YAML files in a temporary folder (removed by `close()`, by a signal that
    stops the process, or by a later run once stale). The load limits apply before a blob is
    read: git tells each blob's size, and one over --max-file-size is not read but stands in
    the folder as an empty (sparse) file of its size, so that loading it, and only that, is
    refused by the limit, by name, as the same file in the work tree would be."""
    root = repo_root(cwd)
    commit = commit_of(revision, root)
    scratch.remove_stale(tempfile.gettempdir(), _REV_PATTERN)
    folder = Path(scratch.temp_dir(None, REV_PREFIX))
    limits = current_limits()
    try:
        for size, name in _yaml_blobs(commit, root):
            limit = limits.max_data_size if name.lower().endswith(TABLE_SUFFIXES) else limits.max_file_size
            target = (folder / name).resolve()
            if not target.is_relative_to(folder.resolve()):      # git never stores such a name; be sure
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if size > limit:
                if name.rsplit("/", 1)[-1] == CONFIG:    # a project file that large is no project file
                    continue
                with open(target, "wb") as handle:
                    handle.truncate(size)
                continue
            target.write_bytes(_git(["cat-file", "blob", f"{commit}:{name}"], root))
    except BaseException:
        scratch.discard(str(folder))
        raise
    register_tree(folder, root)   # its sheets import each other (and name libraries) as they did in the repository
    return Snapshot(revision, root, folder)


def _yaml_blobs(commit: str, root: Path) -> list[tuple[int, str]]:
    """(size in bytes, path) of every `.yaml`/`.yml` blob, table (`.csv`, `.parquet`: what `tables:`
    reads) and project file (supersheet.toml) of the commit (`ls-tree -l`: no blob is read)."""
    found = []
    for entry in run_git(["ls-tree", "-r", "-z", "-l", commit], root).split("\0"):
        meta, tab, name = entry.partition("\t")
        fields = meta.split()
        if tab and len(fields) == 4 and fields[1] == "blob" and fields[3].isdigit() \
                and (name.endswith((".yaml", ".yml")) or name.lower().endswith(TABLE_SUFFIXES)
                     or name.rsplit("/", 1)[-1] == CONFIG):
            found.append((int(fields[3]), name))
    return found


def repo_path(path: Path, root: Path) -> str:
    return os.path.relpath(path.resolve(), root.resolve())


def changed_files(revision: str, root: Path) -> list[str]:
    """YAML files and tables (`.csv`, `.parquet`) that differ between `revision` and the working
    tree (tracked or new)."""
    commit = commit_of(revision, root)
    patterns = ["*.yaml", "*.yml", *(f"*{suffix}" for suffix in TABLE_SUFFIXES)]
    changed = run_git(["diff", "--name-only", "-z", commit, "--", *patterns], root).split("\0")
    untracked = run_git(["ls-files", "-z", "--others", "--exclude-standard", "--", *patterns], root).split("\0")
    return sorted((set(changed) | set(untracked)) - {""})
