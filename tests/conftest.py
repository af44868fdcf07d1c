"""Shared fixtures for the engine, CLI, conformance, golden, editor and TUI tests.

Only plain fixtures live here (no autouse side effects), so other suites
(tests/units, tests/tui) are unaffected by what the engine tests need.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from textwrap import dedent
from typing import Callable

import pytest
from repo_paths import CONFORMANCE, REPO, SHEETS



@dataclass
class CliResult:
    code: int
    out: str
    err: str

    @property
    def output(self) -> str:
        return self.out + self.err


@pytest.fixture
def run_cli(capsys) -> Callable[..., CliResult]:
    """Run `supersheet ARGS...` in-process (supersheet.cli.main.main) and capture its output."""
    from supersheet.cli.main import main

    def run(*argv: str) -> CliResult:
        capsys.readouterr()
        try:
            code = main(list(argv))
        except SystemExit as e:  # argparse usage errors and --help
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


@pytest.fixture
def write_sheet(tmp_path: Path) -> Callable[..., Path]:
    """Write a sheet (dedented YAML text) into tmp_path and return its path."""

    def write(text: str, name: str = "sheet.yaml") -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    return write


@pytest.fixture
def allow_path():
    """Let in-process loads (open_workbook, Document) import from folders outside
    the sheet root, as `--allow-path DIR` does for a command; undone afterwards."""
    from supersheet.engine.base.sheetroot import allow_paths

    def allow(*folders: Path) -> None:
        allow_paths([str(f) for f in folders])

    yield allow
    allow_paths([])


@pytest.fixture
def conformance() -> Path:
    if not CONFORMANCE.is_dir():
        pytest.skip(f"conformance cases not found at {CONFORMANCE} (expected <repo>/../shared/conformance)")
    return CONFORMANCE


def pytest_terminal_summary(terminalreporter) -> None:
    """How many sheets and comparisons each property of tests/sheets/test_properties.py
    covered, when it ran."""
    import sys
    coverage = sys.modules.get("property_coverage")
    if coverage is not None and coverage.COVERED:
        terminalreporter.section("sheet properties: coverage")
        for line in coverage.lines():
            terminalreporter.write_line(line)


@dataclass(frozen=True)
class WheelInstall:
    """The wheel of this checkout installed (without its dependencies) into a fresh virtual
    environment: the layout users get. `env` runs its console script with this environment's
    dependencies on PYTHONPATH (not its editable `supersheet`: a PYTHONPATH entry's .pth files
    are not run) and a PATH without supersheet."""
    venv: Path
    site: Path

    @property
    def script(self) -> Path:
        return self.venv / "bin" / "supersheet"

    def env(self, home: Path) -> dict[str, str]:
        import sysconfig
        return {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
                "PYTHONPATH": sysconfig.get_paths()["purelib"]}


@pytest.fixture(scope="session")
def wheel_install(tmp_path_factory: pytest.TempPathFactory) -> WheelInstall:
    """Built once per session (pip wheel, ~15 s of the ~20 s), shared by the tests of the
    installed package (test_architecture.py, test_wheel_install.py)."""
    import shutil
    import subprocess
    import sys
    import venv
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"   # a copy, so that no stale build/ folder of the checkout slips into the wheel
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", "__pycache__",
                                                                ".hypothesis", ".pytest_cache", ".mypy_cache", "tests", "bench"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(work / "dist"), str(source)],
                   check=True, capture_output=True, cwd=work)
    env_dir = work / "fresh"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    wheel = next((work / "dist").glob("supersheet-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", str(wheel)],
                   check=True, capture_output=True, cwd=work)
    (site,) = (env_dir / "lib").glob("python3*/site-packages")
    return WheelInstall(env_dir, site)


@pytest.fixture
def library(tmp_path: Path, allow_path) -> Path:
    """A writable copy of sheets/ (imports resolve inside it: its folder is
    allowed, as `--allow-path` does, since tmp_path is no git work tree)."""
    target = tmp_path / "sheets"
    shutil.copytree(SHEETS, target)
    allow_path(target)
    return target


@pytest.fixture
def example(library: Path) -> Path:
    """A writable copy of the running example, with its imports beside it."""
    return library / "supernodes" / "6.1.2-running-example.yaml"


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    """(old, new) line pairs that differ, for same-length texts."""
    a, b = before.splitlines(), after.splitlines()
    assert len(a) == len(b), "the number of lines changed"
    return [(x, y) for x, y in zip(a, b) if x != y]


@pytest.fixture
def line_diff():
    return changed_lines
