"""The project as installed: one import name, and the architecture's import
contracts (pyproject.toml [tool.importlinter]) checked by import-linter.

The wheel is built and installed into a fresh virtual environment: that is the
only place where the package has the layout users get (in the repository its
folders are mapped into `supersheet` by pyproject.toml), and where import-linter
can see every subpackage."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from repo_paths import REPO



@pytest.fixture(scope="module")
def site_packages(wheel_install) -> Path:
    return wheel_install.site      # tests/conftest.py builds the wheel once per session


def test_the_wheel_adds_only_supersheet_to_site_packages(site_packages: Path) -> None:
    names = {p.name for p in site_packages.iterdir()}
    assert {n for n in names if not n.endswith(".dist-info")} == {"supersheet"}
    package = site_packages / "supersheet"
    for part in ("engine", "cli", "editor", "lsp", "units", "tui", "sheets"):
        assert (package / part).is_dir(), part
    assert (package / "units" / "definitions.txt").is_file() and (package / "tui" / "app.tcss").is_file()
    assert (package / "sheets" / "supernodes" / "6.1.2-running-example.yaml").is_file()


def installed(site_packages: Path, *args: str) -> subprocess.CompletedProcess:
    """This interpreter (with the dependencies) running the installed copy, not the checkout."""
    env = {**os.environ, "PYTHONPATH": str(site_packages)}
    return subprocess.run([sys.executable, *args], cwd=site_packages.parent, env=env, capture_output=True,
                          text=True, timeout=300)


def test_the_installed_package_runs_its_bundled_library(site_packages: Path) -> None:
    where = installed(site_packages, "-c", "import supersheet.engine.workbook as w, supersheet; "
                                           "print(w.__file__); print(supersheet.__file__)")
    assert where.returncode == 0, where.stderr
    assert all(line.startswith(str(site_packages)) for line in where.stdout.split())
    sheet = site_packages / "supersheet" / "sheets" / "supernodes" / "6.1.2-running-example.yaml"
    run = installed(site_packages, "-m", "supersheet", "test", str(sheet))
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_import_contracts_hold(site_packages: Path) -> None:
    linter = Path(sys.executable).with_name("lint-imports")
    env = {**os.environ, "PYTHONPATH": str(site_packages)}
    result = subprocess.run([str(linter), "--no-cache", str(REPO / "pyproject.toml")], cwd=site_packages, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_no_relative_imports_in_the_engine_cli_or_editor() -> None:
    """Absolute imports name the stage a module comes from (and tools/restructure.py reads
    any relative import there as the old flat layout's)."""
    offenders = [f"{p.relative_to(REPO)}:{n}" for folder in ("engine", "cli", "editor")
                 for p in (REPO / folder).rglob("*.py")
                 for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
                 if line.lstrip().startswith("from .")]
    assert offenders == []


def test_the_api_contract_lists_every_module_of_the_api() -> None:
    """The contract that keeps the Python API below its clients names its modules one by one
    (the API is the root package's own modules): a new module of supersheet/ must be added."""
    import tomllib
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
    (api,) = [c for c in contracts if c["name"].startswith("The Python API sits between")]
    modules = {f"supersheet.{p.stem}" for p in (REPO / "supersheet").glob("*.py") if not p.stem.startswith("__")}
    assert set(api["source_modules"]) == modules


def test_the_api_layers_list_every_module_of_the_api() -> None:
    """The API's layers name its modules one by one: a new module of supersheet/ must take its place."""
    import tomllib
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
    (layers,) = [c for c in contracts if c["name"].startswith("The Python API is layered")]
    listed = {f"supersheet.{name.strip()}" for layer in layers["layers"] for name in layer.split("|")}
    modules = {f"supersheet.{p.stem}" for p in (REPO / "supersheet").glob("*.py") if not p.stem.startswith("__")}
    assert listed == modules


def test_the_contracts_cover_every_top_level_package() -> None:
    """Every folder mapped into the package is in the clients' layers (or is the API's, layered
    on its own) and under the no-cycles contract, which starts at the root."""
    import tomllib
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (acyclic,) = [c for c in contracts if c["type"] == "acyclic_siblings"]
    assert acyclic["ancestors"] == ["supersheet"] and not acyclic.get("ignore_imports")
    (clients,) = [c for c in contracts if c["name"].startswith("Clients sit on the engine")]
    layered = {name.strip() for layer in clients["layers"] for name in layer.split("|")}
    code_packages = {p for p in config["tool"]["setuptools"]["package-dir"] if p.count(".") == 1} - {"supersheet.sheets"}
    assert code_packages == layered


def test_an_import_inside_a_function_says_which_heavy_dependency_it_defers() -> None:
    """An import belongs at the top of its module (where the contracts see the layers it
    crosses), unless it defers a heavy dependency: then it says which (`# deferred: polars`)."""
    import ast
    unexplained, deferred = [], 0
    for folder in ("supersheet", "engine", "cli", "editor", "lsp", "tui", "units"):
        for path in sorted((REPO / folder).rglob("*.py")):
            lines = path.read_text(encoding="utf-8").splitlines()
            for function in ast.walk(ast.parse("\n".join(lines))):
                if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    for node in ast.walk(function):
                        if isinstance(node, (ast.Import, ast.ImportFrom)):
                            if "# deferred: " in lines[node.lineno - 1]:
                                deferred += 1
                            else:
                                unexplained.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert deferred > 50          # the scan reads the functions' imports
    assert unexplained == []


def test_every_name_the_api_exports_resolves() -> None:
    """`supersheet` imports its names on first use (PEP 562): each is the object of the module
    `_HOME` names, which is also where its TYPE_CHECKING import (what a type checker and an
    IDE read) finds it, and `__all__` lists exactly those names."""
    import ast
    import importlib

    import supersheet
    homes = supersheet._HOME
    assert sorted(supersheet.__all__) == sorted(homes) and len(homes) > 10
    tree = ast.parse(Path(supersheet.__file__).read_text(encoding="utf-8"))
    typed = {alias.name: node.module for node in ast.walk(tree)
             if isinstance(node, ast.ImportFrom) and node.level == 1 for alias in node.names}
    assert typed == homes
    for name, home in homes.items():
        assert getattr(supersheet, name) is getattr(importlib.import_module(f"supersheet.{home}"), name), name
