"""`supersheet init [DIR]`: make a folder a supersheet project (format 10.2) and let
`git diff` show sheets' values.

It writes DIR/supersheet.toml (kept when there is one), a `*.yaml diff=supersheet`
line in DIR/.gitattributes (when it lacks one), and, inside a git repository,
configures that repository's textconv and difftool drivers with the absolute path of
the running supersheet, so `git diff` works from a shell without the virtual
environment on PATH. `--print` shows all of it and changes nothing.
"""
from __future__ import annotations

import argparse
import os
import shlex
from functools import partial
import sys
from pathlib import Path
from typing import Callable

from supersheet.cli.support import EXIT_OK, UsageError

CONFIG = "supersheet.toml"
ATTRIBUTE = "*.yaml diff=supersheet"
TEMPLATE = """\
# This folder is a supersheet project (sheet format 10.2): its sheets may import
# each other across its folders, and `supersheet:PATH` names the bundled library
# (supersheet:hardware/h100-sxm.yaml) wherever supersheet is installed.
# Every key is optional; relative folders are relative to this file.

# allow = ["../reference-sheets"]    # more folders imports may read
# max-cells = 10000                  # defaults for the --max-... load limits

[libraries]
# team = "../capacity-sheets"        # team:models/x.yaml is a file of that folder
"""


def init_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", metavar="DIR", nargs="?", default=".", help="the project's folder (default: here)")
    p.add_argument("--print", dest="dry_run", action="store_true",
                   help="show what would be written and configured, and change nothing")


def init(args: argparse.Namespace) -> int:
    folder = Path(args.folder)
    if not folder.is_dir():
        raise UsageError(f"{args.folder} is not a folder")
    command = running_supersheet()
    repository = _git_top(folder)
    steps = _plan(folder, command, repository)
    for (done, would), action in steps:
        if not args.dry_run:
            action()
        print(would if args.dry_run else done)
    if repository is None:
        print(f"{folder} is not in a git repository: no diff drivers configured "
              "(run `supersheet init` again after `git init` for `git diff` to show values)")
    return EXIT_OK


def running_supersheet() -> list[str]:
    """The command that runs this supersheet from any shell: its console script by absolute
    path, else this interpreter with `-m supersheet` (`python -m supersheet init`)."""
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is not None and script.name == "supersheet" and script.is_file():
        return [os.path.abspath(script)]
    return [os.path.abspath(sys.executable), "-m", "supersheet"]


Step = tuple[tuple[str, str], Callable[[], None]]      # (what was done, what would be done), doing it


def _plan(folder: Path, command: list[str], repository: Path | None) -> list[Step]:
    steps: list[Step] = []
    config = folder / CONFIG
    if config.exists():
        steps.append(((f"kept {config} (it exists)",) * 2, lambda: None))
    else:
        steps.append(((f"wrote {config}", f"would write {config}:\n" + _indented(TEMPLATE)),
                      lambda: _create(config, TEMPLATE)))
    attributes = folder / ".gitattributes"
    if repository is not None:
        present = attributes.is_file() and ATTRIBUTE in attributes.read_text(encoding="utf-8").splitlines()
        if present:
            steps.append(((f"kept {attributes} (it has {ATTRIBUTE!r})",) * 2, lambda: None))
        else:
            steps.append(((f"added {ATTRIBUTE!r} to {attributes}", f"would add {ATTRIBUTE!r} to {attributes}"),
                          lambda: _append_line(attributes, ATTRIBUTE)))
        from supersheet.compare import git_drivers   # deferred: supersheet.compare (the engine's diff); the README's driver commands: options end with `--`
        settings = git_drivers(" ".join(shlex.quote(part) for part in command))
        for key, value in settings.items():
            line = f"git config {key} {shlex.quote(value)}   (in {repository})"
            steps.append(((f"configured: {line}", f"would run: {line}"),
                          partial(_git, ["config", key, value], repository)))
    return steps


def _indented(text: str) -> str:
    return "".join("    " + line + "\n" for line in text.splitlines())


def _create(path: Path, text: str) -> None:
    with open(path, "x", encoding="utf-8") as handle:     # never over a file that appeared meanwhile
        handle.write(text)


def _append_line(path: Path, line: str) -> None:
    before = path.read_text(encoding="utf-8") if path.is_file() else ""
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(("" if not before or before.endswith("\n") else "\n") + line + "\n")


def _git_top(folder: Path) -> Path | None:
    import subprocess   # deferred: subprocess (only `init` runs git; every other command's start skips it, ~3-6 ms)
    try:
        result = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=folder, capture_output=True, text=True)
    except FileNotFoundError:
        return None
    return Path(result.stdout.strip()) if result.returncode == 0 and result.stdout.strip() else None


def _git(args: list[str], cwd: Path) -> None:
    import subprocess   # deferred: subprocess (as in _git_top)
    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        raise UsageError(f"git {' '.join(args[:2])} failed: {result.stderr.strip() or result.returncode}")
