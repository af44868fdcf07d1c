"""Every command example in README.md, sheets/README.md and docs/*.md runs.

Conventions (documented in README.md, "Set up and run"):
* a fenced `yaml` block whose first line is `# NAME.yaml` is written to NAME.yaml
  in a scratch folder outside this repository (no git work tree, no link to
  `sheets/`: the examples name the bundled library as `supersheet:PATH`, so they
  work from any folder), where the commands then run;
* in `console`, `sh` and `shell` blocks, each line `supersheet …` or
  `$ supersheet …` (with `\\` continuations) is run in-process and must exit 0
  with no internal error; `diff` may exit 1 (a difference is its answer);
* in a `console` block, lines after a `$ ` command up to the next `$ ` are its
  shown output: each must appear in what the command printed.
Commands about this repository itself (git revisions of its sheets, the
conformance cases beside it) run at the repository's root. Commands that need a
terminal (`edit`), a Ray runtime (`--on ray`, covered by
tests/engine/test_on_ray.py) or a git revision the clone may lack are listed
with their reason, not run.
"""
from __future__ import annotations

import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from repo_paths import REPO

DOCS = [REPO / "README.md", REPO / "sheets" / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


@dataclass
class Example:
    doc: str
    line: int
    argv: list[str]
    shown: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def _files_and_examples() -> tuple[dict[str, str], list[Example]]:
    files: dict[str, str] = {}
    examples: list[Example] = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        name = str(doc.relative_to(REPO))
        for fence in FENCE.finditer(text):
            lang, body = fence.group(1), fence.group(2)
            first_line = text.count("\n", 0, fence.start(2)) + 1
            if lang == "yaml":
                head = body.splitlines()[0] if body else ""
                if re.fullmatch(r"# [\w.-]+\.yaml", head.strip()):
                    files[head.strip()[2:]] = body
            elif lang in ("console", "sh", "shell"):
                examples += _commands(name, first_line, body, console=lang == "console")
    return files, examples


def _commands(doc: str, first_line: int, body: str, console: bool) -> list[Example]:
    found: list[Example] = []
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        line, number = lines[i], first_line + i
        command = line[2:] if line.startswith("$ ") else line
        if command.startswith("supersheet "):
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1] + " " + lines[i].strip()
            found.append(Example(doc, number, shlex.split(command, comments=True)[1:]))
        elif console and found and not line.startswith("$") and line.strip():
            found[-1].shown.append(line.strip())
        i += 1
    return found


FILES, EXAMPLES = _files_and_examples()


def _has_revision(rev: str) -> bool:
    return subprocess.run(["git", "rev-parse", "--verify", "--quiet", rev], cwd=REPO,
                          capture_output=True).returncode == 0


def _not_run(argv: list[str]) -> str | None:
    if argv[0] == "edit":
        return "needs a terminal (the editor is covered by tests/tui)"
    if "--on" in argv and argv[argv.index("--on") + 1] == "ray":
        return "needs a Ray runtime (covered by tests/engine/test_on_ray.py)"
    revisions = [a.split(":", 1)[0] for a in argv if re.match(r"^[\w~^.-]+:sheets/", a)]
    if "--rev" in argv:
        after = argv[argv.index("--rev") + 1:]
        revisions.append(after[0] if after and not after[0].startswith("-") and not Path(after[0]).exists()
                         else "HEAD")
    missing = [r for r in revisions if not _has_revision(r)]
    return f"this clone has no revision {missing[0]}" if missing else None


def _about_this_repository(argv: list[str]) -> bool:
    """Examples that compare this repository's revisions or read the conformance cases beside it."""
    return argv[0] == "diff" or any(a.startswith("../shared/") for a in argv)


def test_the_docs_have_examples_and_sheets():
    assert len(EXAMPLES) >= 10 and "hbm-read.yaml" in FILES
    outside = [e for e in EXAMPLES if not _about_this_repository(e.argv) and not _not_run(e.argv)]
    assert len(outside) >= 6, [e.id for e in outside]      # most examples run from a folder outside it


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_doc_example_runs(example: Example, run_cli, tmp_path, monkeypatch):
    reason = _not_run(example.argv)
    if reason:
        pytest.skip(reason)
    if _about_this_repository(example.argv):
        monkeypatch.chdir(REPO)
    else:
        scratch = tmp_path / "scratch"       # outside this repository and any git work tree
        scratch.mkdir()
        for name, text in FILES.items():
            (scratch / name).write_text(text, encoding="utf-8")
        assert not any((folder / ".git").exists() for folder in (scratch, *scratch.parents))
        monkeypatch.chdir(scratch)
    argv = [str(tmp_path / a) if a.startswith("out") else a for a in example.argv]   # outputs go to scratch
    result = run_cli(*argv)
    allowed = {0, 1} if argv[0] == "diff" else {0}
    assert result.code in allowed, f"{example.id}: supersheet {' '.join(argv)}\n{result.output[-3000:]}"
    assert "internal error" not in result.output and "Traceback" not in result.output
    printed = " ".join(result.output.split())
    for shown in example.shown:
        assert " ".join(shown.split()) in printed, f"{example.id}: {shown!r} not in the output"
