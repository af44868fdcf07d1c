"""Which revision a temporary copy of a sheet comes from.

`git diff` with the textconv driver and `git difftool -x 'supersheet diff'`
hand over old versions as temporary files, with no revision. A sheet's values
depend on its imports, so the copy must be evaluated with the imports of the
revision it was taken from, not today's. The copy's content names its blob;
the commits that hold that blob at the sheet's path are found in the history.
The revision is the one git is diffing when its command line (the git process
that started us) names one holding the blob; otherwise the commit that
introduced the blob, when the sheet's imports and the supersheet.toml files
that could govern it (its `[libraries]` names, `allow`, limits: format 10.2)
did not change while the blob stayed at the path (then every such commit gives
the same values). Anything else is ambiguous, and the caller says so instead
of guessing.
"""
from __future__ import annotations

import os
from pathlib import Path

from supersheet.engine.base.project import CONFIG
from supersheet.engine.diff.gitrev import GitError, commit_of, run_git
from supersheet.engine.diff.gitrev import repo_path as relative, snapshot

# Where Linux shows each process's command line and parent. Elsewhere (macOS, Windows)
# there is none: the git command line cannot be read, and only the commit that
# introduced the copy's content is tried (then the caller's first line may have to
# say that the imports are the working tree's). Tests point it at a missing folder.
PROC = Path("/proc")


def find_revision(copy: Path, repo_path: str, root: Path) -> str | None:
    """The commit whose tree holds `copy` at `repo_path` and whose imports are the copy's, or None."""
    try:
        blob = run_git(["hash-object", "--no-filters", "--", str(copy)], root).strip()
        named = _commits_on_git_command_line(root)
        parents = [p for c in named for p in _first_parent(c, root)]   # `git show C` diffs C^ against C
        held = [c for c in named + parents if _blob_at(c, repo_path, root) == blob]
        if held:
            return held[0]
        return _unambiguous_introduction(blob, repo_path, root)
    except (GitError, OSError):
        return None


def _first_parent(commit: str, root: Path) -> list[str]:
    try:
        return [commit_of(commit + "^", root)]
    except GitError:
        return []


def _blob_at(commit: str, repo_path: str, root: Path) -> str | None:
    try:
        return run_git(["rev-parse", "--verify", "--quiet", f"{commit}:{repo_path}"], root).strip()
    except GitError:
        return None


def _unambiguous_introduction(blob: str, repo_path: str, root: Path) -> str | None:
    """The commit that introduced `blob` at `repo_path` (in HEAD's history), if the blob
    appears in one stretch of history only and the sheet's imports did not change in it."""
    log = run_git(["log", "--format=%x00%H", "--raw", "--no-abbrev", "--no-renames", "HEAD", "--", repo_path], root)
    changes: list[tuple[str, str]] = []    # (commit, blob after it), newest first
    for entry in log.split("\0")[1:]:
        lines = entry.strip().splitlines()
        raw = [line for line in lines[1:] if line.startswith(":")]
        if lines and raw:
            changes.append((lines[0], raw[0].split()[3]))
    stretches = [i for i, (_, after) in enumerate(changes) if after == blob]
    if len(stretches) != 1:
        return None
    start = changes[stretches[0]][0]
    end = changes[stretches[0] - 1][0] + "^" if stretches[0] > 0 else "HEAD"
    imported = _imported_files(start, repo_path, root)
    if imported is None:
        return None
    # a project file changed (or added, or removed) in the stretch may name another folder for
    # a library the sheet imports from: the commit that introduced the blob may not be the one shown
    governing = [*imported, *_project_files(repo_path)]
    if run_git(["diff", "--name-only", start, commit_of(end, root), "--", *governing], root).strip():
        return None
    return start


def _project_files(repo_path: str) -> list[str]:
    """The repository paths where a supersheet.toml would make the sheet's project: its folder's
    and each folder's above it (the nearest one is its project's; format 10.2)."""
    folders = Path(repo_path).parents
    return [(folder / CONFIG).as_posix() for folder in folders]


def _imported_files(commit: str, repo_path: str, root: Path) -> list[str] | None:
    """The repository paths of every file the sheet at `commit` loads besides itself."""
    from supersheet.engine.load.resolve import build_model   # deferred: ruamel
    snap = snapshot(commit, root)
    try:
        target = snap.path_of(repo_path)
        model = build_model(target)
        inside = [relative(p, snap.folder) for p in model.files if Path(p).resolve() != target.resolve()]
        return [p for p in inside if not p.startswith("..")]
    except (OSError, ValueError):
        return None
    finally:
        snap.close()


def _commits_on_git_command_line(root: Path) -> list[str]:
    """Commits named on the command lines of the git processes above this one
    (`git diff A B`, `git difftool A..B`, `git show C`), on systems with /proc."""
    found: list[str] = []
    pid = os.getppid()
    for _ in range(8):   # sh -> git diff -> git difftool … a few levels at most
        if pid <= 1:
            break
        try:
            argv = (PROC / str(pid) / "cmdline").read_bytes().split(b"\0")
            status = (PROC / str(pid) / "status").read_text(encoding="utf-8", errors="replace")
        except OSError:
            break
        words = [a.decode("utf-8", errors="replace") for a in argv if a]
        if words and Path(words[0]).name.startswith("git"):
            found.extend(c for c in _named_commits(words[1:], root) if c not in found)
        pid = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("PPid:")), 0)
    return found


def _named_commits(words: list[str], root: Path) -> list[str]:
    commits: list[str] = []
    for word in words:
        if word == "--":
            break
        if word.startswith("-"):
            continue
        for part in word.replace("...", "..").split(".."):
            try:
                commits.append(commit_of(part or "HEAD", root))
            except GitError:
                continue
    return commits
