"""Safety: nothing in a sheet is ever executed as Python (spec §4).

* No `eval(` / `exec(` (nor the `compile` builtin) in the engine, units and
  TUI sources, found with Python's tokenizer (docstrings do not count).
* No YAML loader that constructs arbitrary objects.
* YAML tags that would construct Python objects are rejected with E-YAML and
  nothing runs (a marker file the payload would create never appears).
* Formula text that looks like Python is just a syntax or name error.
"""
from __future__ import annotations

import io
import json
import re
import tokenize
from pathlib import Path

import pytest

from supersheet.engine.workbook import open_workbook
from repo_paths import REPO

SOURCE_DIRS = ("supersheet", "engine", "cli", "editor", "units", "tui")


def source_files() -> list[Path]:
    return sorted(p for d in SOURCE_DIRS if (REPO / d).is_dir() for p in (REPO / d).rglob("*.py"))


def builtin_calls(path: Path, names: set[str]) -> list[str]:
    """Calls of the builtins `names` (NAME followed by '(' and not an attribute)."""
    found = []
    tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline))
    significant = [t for t in tokens if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT,
                                                       tokenize.INDENT, tokenize.DEDENT)]
    for i, tok in enumerate(significant):
        if tok.type != tokenize.NAME or tok.string not in names:
            continue
        after = significant[i + 1] if i + 1 < len(significant) else None
        before = significant[i - 1] if i > 0 else None
        if after is not None and after.string == "(" and not (before is not None and before.string in (".", "def")):
            found.append(f"{path.relative_to(REPO)}:{tok.start[0]}: {tok.line.strip()}")
    return found


def test_sources_are_found():
    files = source_files()
    assert any("engine" in p.parts for p in files) and any(p.parts[-2] == "units" for p in files)
    assert any(p.parts[-2] == "cli" for p in files) and any(p.parts[-2] == "editor" for p in files)


def test_no_eval_or_exec_in_the_sources():
    offenders = [hit for path in source_files() for hit in builtin_calls(path, {"eval", "exec", "compile"})]
    assert offenders == []


def test_no_plain_text_eval_or_exec_calls():
    """The brief's grep, on code lines only (comments and strings about eval are fine)."""
    pattern = re.compile(r"(?<![\w.])(eval|exec)\s*\(")
    offenders = []
    for path in source_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if pattern.search(code) and not code.strip().startswith(('"', "'")):
                offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert offenders == []


FAST_YAML = REPO / "engine" / "load" / "fastyaml.py"


def test_no_unsafe_yaml_or_pickle():
    # ruamel's YAML(typ="rt"/"safe").load is safe; PyYAML (outside fastyaml.py, below), unsafe loaders
    # and pickle are not wanted
    pattern = re.compile(r"typ\s*=\s*[\"'](unsafe|full|base)[\"']|^\s*(import|from)\s+(pickle|marshal|dill|yaml)\b|"
                         r"\bUnsafeLoader\b|\bFullLoader\b|\bunsafe_load\b")
    offenders = [f"{p.relative_to(REPO)}:{n}: {line.strip()}" for p in source_files() if p != FAST_YAML
                 for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert offenders == []


def test_pyyaml_only_composes_nodes():
    """fastyaml.py uses libyaml to compose a node tree and nothing else: no PyYAML constructor
    ever runs (ruamel's round-trip constructor builds the document, as for every sheet)."""
    text = FAST_YAML.read_text(encoding="utf-8")
    used = set(re.findall(r"_pyyaml\.(\w+)", text))
    assert used <= {"CSafeLoader", "MappingNode", "SequenceNode", "ScalarNode"}, used
    assert set(re.findall(r"loader\.(\w+)", text)) <= {"get_single_node", "dispose"}
    assert not re.search(r"\b(load|full_load|unsafe_load|construct_\w+|get_single_data)\(", text.replace(
        "yaml.constructor.construct_document(", ""))


PAYLOADS = {
    "apply-os-system": 'title: !!python/object/apply:os.system ["touch {marker}"]\ncells:\n  a: 1\n',
    "name-os-system": "cells:\n  a: !!python/name:os.system\n",
    "object-new": 'cells:\n  a: !!python/object/new:os.system ["touch {marker}"]\n',
    "apply-exec": "cells: !!python/object/apply:builtins.exec [\"open('{marker}', 'w')\"]\n",
    "module": "cells:\n  a: 1\nexpect:\n  a: !!python/module:os\n",
    "document": '!!python/object/apply:os.system ["touch {marker}"]\n',
    "in-a-sweep": 'cells:\n  a: 1\nsweeps:\n  s:\n    vary: {{a: [!!python/object/apply:os.system ["touch {marker}"]]}}\n',
    "anchor": 'x: &p !!python/object/apply:os.system ["touch {marker}"]\ncells:\n  a: *p\n',
    "local-tag": "cells:\n  a: !custom 1\n",
}


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_python_tags_are_e_yaml_and_nothing_runs(name, tmp_path, run_cli, monkeypatch):
    marker = tmp_path / "MARKER"
    path = tmp_path / "sheet.yaml"
    path.write_text(PAYLOADS[name].format(marker=marker), encoding="utf-8")
    workbook = open_workbook(path)
    assert [d.code for d in workbook.diagnostics] == ["E-YAML"], workbook.diagnostics
    assert "is not allowed in a sheet" in workbook.diagnostics[0].message
    monkeypatch.chdir(tmp_path)
    for command in ("check", "run", "test"):
        result = run_cli(command, "sheet.yaml")
        assert result.code == 2 and "E-YAML" in result.output
    assert not marker.exists()


def test_python_tag_on_a_key_is_e_yaml(tmp_path):
    """Tags are checked on the composed node graph, where a tag on a key is still visible."""
    marker = tmp_path / "MARKER"
    path = tmp_path / "sheet.yaml"
    path.write_text(f'cells:\n  ? !!python/object/apply:os.system ["touch {marker}"]\n  : 1\n', encoding="utf-8")
    workbook = open_workbook(path)
    assert not marker.exists()
    assert [d.code for d in workbook.diagnostics] == ["E-YAML"]


def test_python_tag_on_a_key_runs_nothing(tmp_path):
    marker = tmp_path / "MARKER"
    path = tmp_path / "sheet.yaml"
    path.write_text(f'cells:\n  ? !!python/object/apply:os.system ["touch {marker}"]\n  : 1\n', encoding="utf-8")
    workbook = open_workbook(path)
    assert workbook.diagnostics and not workbook.ok
    assert not marker.exists()


@pytest.mark.parametrize("formula", [
    "__import__('os').system('touch {marker}')",
    "open('{marker}', 'w')",
    "exec(\"open('{marker}', 'w')\")",
    "eval('1 + 1')",
    "(lambda: 1)()",
    "[x for x in range(3)]",
    "a.__class__",
])
def test_python_looking_formulas_are_just_errors(formula, tmp_path, run_cli, monkeypatch):
    marker = tmp_path / "MARKER"
    text = formula.format(marker=marker)
    path = tmp_path / "sheet.yaml"
    path.write_text("cells:\n  a: 1\n  x: " + json.dumps("= " + text) + "\n", encoding="utf-8")
    workbook = open_workbook(path)
    assert workbook.diagnostics and {d.code for d in workbook.diagnostics} <= {"E-PARSE", "E-NAME"}
    monkeypatch.chdir(tmp_path)
    assert run_cli("calc", text).code == 2
    assert run_cli("run", "sheet.yaml").code == 2
    path.write_text("cells:\n  a: 1\n", encoding="utf-8")
    assert run_cli("run", "sheet.yaml", "--set", f"a={text}").code == 2
    assert not marker.exists()
