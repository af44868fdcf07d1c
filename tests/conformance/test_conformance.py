"""The conformance harness of ../shared/conformance/README.md.

valid/:  `supersheet check FILE` exits 0 with no diagnostic, and `supersheet test
         FILE` passes every expectation of the file (top-level `expect` and those
         inside sweeps, solve and choose) and exits 0.
errors/: the `# error: CODE at LINE[:COL]` headers name every diagnostic: `check`
         exits non-zero and reports each listed code at its line (and column),
         and no diagnostic with a code no header names. E-EXPECT and E-ASSUME
         cases (a failed expectation, a violated assumption) pass `check` and
         fail `test` (exit 1) with the diagnostic on the expectation's or the
         assumption's line.

The v1 cases are in conformance/{valid,errors}, the format 9 additions in
conformance/v1.1/{valid,errors} and the format 10 additions in
conformance/v1.2/{valid,errors}, under the same rules.

The CLI runs in-process (supersheet.cli.main.main) for speed; one subprocess test runs
the installed `supersheet` console script end to end.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from ruamel.yaml import YAML
from repo_paths import REPO

CONFORMANCE = (REPO.parent / "shared" / "conformance").resolve()
MISSING = f"conformance cases not found at {CONFORMANCE} (expected <repo>/../shared/conformance)"

HEADER = re.compile(r"^#\s*error:\s*(?P<code>E-[A-Z]+)\s+at\s+(?P<line>\d+)(?::(?P<col>\d+))?\s*$")
# `path:line:col: CODE: message` (a located diagnostic) or `CODE: message` (none).
LOCATED = re.compile(r"^(?P<file>\S[^\n]*?):(?P<line>\d+):(?P<col>\d+): (?P<code>E-[A-Z]+): ")
UNLOCATED = re.compile(r"^(?P<code>E-[A-Z]+): ")
TRACEBACK_MARKERS = ("Traceback (most recent call last)", "internal error")


VERSIONS = ("", "v1.1", "v1.2")   # conformance/valid, conformance/v1.1/valid, ...
# Cases of a format addition still being implemented: (version, file, command) -> a strict xfail mark.
PENDING: dict[tuple[str, str, str], pytest.MarkDecorator] = {}
EVALUATION_FINDINGS = {"E-EXPECT", "E-ASSUME"}   # `check` passes, `test` fails


def _cases(folder: str, command: str = "check") -> list:
    params = []
    for version in VERSIONS:
        directory = CONFORMANCE / version / folder
        if not directory.is_dir():
            params.append(pytest.param(version, None, id=f"{version or 'v1'}-missing",
                                       marks=pytest.mark.skip(reason=MISSING)))
            continue
        for p in sorted(directory.glob("*.yaml")):
            mark = PENDING.get((version, p.name, command))
            params.append(pytest.param(version, p.name, id=f"{version + '/' if version else ''}{p.stem}",
                                       marks=[mark] if mark else []))
    return params


@dataclass(frozen=True)
class Header:
    code: str
    line: int
    col: int | None


@dataclass(frozen=True)
class Reported:
    file: str | None
    line: int | None
    col: int | None
    code: str


def read_headers(path: Path) -> list[Header]:
    headers = []
    for text in path.read_text(encoding="utf-8").splitlines():
        if not text.startswith("#"):
            break
        match = HEADER.match(text)
        if match:
            headers.append(Header(match["code"], int(match["line"]), int(match["col"]) if match["col"] else None))
    return headers


def reported_diagnostics(output: str) -> list[Reported]:
    found = []
    for text in output.splitlines():
        match = LOCATED.match(text)
        if match:
            found.append(Reported(os.path.normpath(match["file"]), int(match["line"]), int(match["col"]),
                                  match["code"]))
            continue
        match = UNLOCATED.match(text)
        if match:
            found.append(Reported(None, None, None, match["code"]))
    return found


def count_expectations(path: Path) -> int:
    """How many expectations the file itself states (none are inherited via extends)."""
    document = YAML(typ="safe").load(path.read_text(encoding="utf-8")) or {}
    total = len(document.get("expect") or {})
    for sweep in (document.get("sweeps") or {}).values():
        total += sum(len(values) for values in (sweep.get("expect") or {}).values())
    total += sum(1 for solve in (document.get("solve") or {}).values() if "expect" in solve)
    for choice in (document.get("choose") or {}).values():
        total += len(choice.get("expect") or {})
    return total


def assert_no_traceback(output: str) -> None:
    for marker in TRACEBACK_MARKERS:
        assert marker not in output, output


@pytest.fixture
def in_conformance(monkeypatch):
    """Run from a version's conformance folder so paths print as `valid/x.yaml` / `errors/x.yaml`."""
    def enter(version: str) -> Path:
        monkeypatch.chdir(CONFORMANCE / version)
        return CONFORMANCE / version
    return enter


@pytest.fixture
def run_cli(run_cli):
    """The cases import across their folders (`../valid/hardware.yaml`), and
    ../shared is no git work tree (nor in CI's fresh clone): the harness
    allows the whole conformance folder, as a user would with --allow-path."""
    return lambda *argv: run_cli(*argv, "--allow-path", str(CONFORMANCE))


# -- valid/ ---------------------------------------------------------------------
@pytest.mark.parametrize(("version", "name"), _cases("valid"))
def test_valid_case_checks_clean(version, name, run_cli, in_conformance):
    in_conformance(version)
    result = run_cli("check", f"valid/{name}")
    assert_no_traceback(result.output)
    assert reported_diagnostics(result.output) == [], result.output
    assert result.code == 0, result.output


@pytest.mark.parametrize(("version", "name"), _cases("valid", "test"))
def test_valid_case_passes_every_expectation(version, name, run_cli, in_conformance):
    root = in_conformance(version)
    result = run_cli("test", f"valid/{name}")
    assert_no_traceback(result.output)
    assert result.code == 0, result.output
    assert reported_diagnostics(result.output) == [], result.output
    lines = result.out.splitlines()
    failures = [line for line in lines if line.startswith("FAIL")]
    passes = [line for line in lines if line.startswith("pass")]
    assert failures == [], result.out
    expected = count_expectations(root / "valid" / name)
    assert len(passes) == expected, f"{expected} expectations in the file, {len(passes)} reported:\n{result.out}"
    assert lines[-1] == f"{expected} passed, 0 failed"


# -- errors/ --------------------------------------------------------------------
def _matches(header: Header, reported: Reported, file: str) -> bool:
    return (reported.file == file and reported.code == header.code and reported.line == header.line
            and (header.col is None or reported.col == header.col))


@pytest.mark.parametrize(("version", "name"), _cases("errors"))
def test_error_case_reports_exactly_its_headers(version, name, run_cli, in_conformance):
    path = in_conformance(version) / "errors" / name
    headers = read_headers(path)
    assert headers, f"{name} has no '# error: CODE at LINE' header"
    file = os.path.normpath(f"errors/{name}")
    check = run_cli("check", f"errors/{name}")
    assert_no_traceback(check.output)
    if {h.code for h in headers} <= EVALUATION_FINDINGS:
        assert check.code == 0, check.output
        assert reported_diagnostics(check.output) == [], check.output
        result = run_cli("test", f"errors/{name}")
        assert_no_traceback(result.output)
        assert result.code == 1, result.output
    else:
        assert check.code != 0, check.output
        result = check
    reported = reported_diagnostics(result.output)
    for header in headers:
        assert any(_matches(header, r, file) for r in reported), (
            f"expected {header.code} at {header.line}" + (f":{header.col}" if header.col else "")
            + f"\ngot {reported}\n{result.output}")
    named = {h.code for h in headers}
    stray = [r for r in reported if r.code not in named]
    assert stray == [], f"diagnostics with codes no header names: {stray}\n{result.output}"
    # In the file itself, every diagnostic is one the headers list (same code, same line).
    unlisted = [r for r in reported if r.file == file
                and not any(h.code == r.code and h.line == r.line for h in headers)]
    assert unlisted == [], f"diagnostics at positions no header names: {unlisted}\n{result.output}"


@pytest.mark.parametrize("version", VERSIONS)
def test_headers_parse_in_every_error_case(version):
    if not (CONFORMANCE / version / "errors").is_dir():
        pytest.skip(MISSING)
    for path in sorted((CONFORMANCE / version / "errors").glob("*.yaml")):
        assert read_headers(path), path.name


@pytest.mark.parametrize("version", VERSIONS)
def test_check_of_the_whole_valid_folder(version, run_cli, conformance, monkeypatch):
    monkeypatch.chdir(conformance / version)
    result = run_cli("check", "valid")
    assert result.code == 0, result.output
    count = len(list((conformance / version / "valid").glob("*.yaml")))
    assert result.out.strip().splitlines()[-1] == f"{count} sheets checked, 0 invalid"


# -- the installed console script -------------------------------------------------
def _console_script() -> str | None:
    beside = Path(sys.executable).with_name("supersheet")
    return str(beside) if beside.exists() else shutil.which("supersheet")


def test_console_script_smoke(conformance):
    script = _console_script()
    if script is None:
        pytest.skip("the supersheet console script is not installed (pip install -e .)")
    env = {k: v for k, v in os.environ.items() if k != "SUPERSHEET_DEBUG"}
    checked = subprocess.run([script, "check", "valid"], cwd=conformance, capture_output=True, text=True,
                             timeout=120, env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = subprocess.run([script, "test", "valid/functions.yaml", "-q"], cwd=conformance, capture_output=True,
                            text=True, timeout=120, env=env)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert tested.stdout.strip().endswith("passed, 0 failed")
    broken = subprocess.run([script, "check", "errors/unknown-name.yaml"], cwd=conformance, capture_output=True,
                            text=True, timeout=120, env=env)
    assert broken.returncode == 2
    assert "errors/unknown-name.yaml:6:15: E-NAME" in broken.stderr
    assert "did you mean weights?" in broken.stderr
