"""Boundaries read off the source, beside the import contracts of test_architecture.py:

* no module imports another module's private name (`from x import _name`, or
  `module._name` through an imported module): what crosses a module is public,
  named for what it is, and documented where it is defined;
* the engine (and `units`) never writes to stdout or stderr: it returns values
  and diagnostics, reports progress through a callback, and its clients print;
* the TUI reads the sheet through the editor's `Document` (and `Samples`), never
  through their workbook: what the UI needs is a method there."""
from __future__ import annotations

import ast
from pathlib import Path
from repo_paths import REPO

PROJECT = ("engine", "cli", "editor", "tui", "supersheet", "units")


def _modules(*folders: str) -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"), str(p)))
            for folder in folders for p in sorted((REPO / folder).rglob("*.py"))]


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _ours(module: str | None, level: int) -> bool:
    return level > 0 or (module or "").split(".")[0] in ("supersheet", *PROJECT)


def test_no_module_imports_a_private_name_of_another() -> None:
    offenders = []
    for path, tree in _modules(*PROJECT):
        modules: set[str] = set()   # local names bound to one of our modules
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and _ours(node.module, node.level):
                offenders += [f"{path.relative_to(REPO)}:{node.lineno} imports {a.name}"
                              for a in node.names if _private(a.name)]
                modules |= {a.asname or a.name for a in node.names}
            elif isinstance(node, ast.Import):
                modules |= {a.asname for a in node.names if a.asname and _ours(a.name, 0)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in modules and _private(node.attr) and node.value.id[:1].islower() \
                    and node.value.id not in ("self", "cls"):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno} uses {node.value.id}.{node.attr}")
    assert offenders == []


def test_the_engine_never_writes_to_stdout_or_stderr() -> None:
    offenders = []
    for path, tree in _modules("engine", "units"):
        for node in ast.walk(tree):
            printing = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
            streams = isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "sys" and node.attr in ("stdout", "stderr", "__stdout__", "__stderr__")
            if printing or streams:
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert offenders == []


def test_the_tui_never_reaches_through_a_workbook() -> None:
    offenders = [f"{path.relative_to(REPO)}:{node.lineno}" for path, tree in _modules("tui")
                 for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "workbook"]
    assert offenders == []
