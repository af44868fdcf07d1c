"""Each piece of the format's and the engine's knowledge is written once (issue 32, item 3):
the exception hierarchy, the format's vocabulary, the limits, "is this text a formula",
the unknown-cell message. These read the source, so a second copy fails here."""
from __future__ import annotations

import pickle
import re

import pytest
from repo_paths import PACKAGE_FOLDERS, REPO

import supersheet as ss
from supersheet import errors
from supersheet.engine.base import problems
from supersheet.engine.base.vocabulary import TOP_LEVEL_KEYS, is_formula


def source_lines():
    for folder in PACKAGE_FOLDERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                yield f"{path.relative_to(REPO)}:{n}", line


def places(pattern: str) -> list[str]:
    found = re.compile(pattern)
    return [where for where, line in source_lines() if found.search(line)]


def test_the_api_raises_the_engines_exceptions_not_copies():
    for name in ("SheetError", "Problem", "OverrideError", "AxisError", "SolveError", "ExpectationError"):
        assert getattr(errors, name) is getattr(problems, name), name
    assert ss.SheetError is problems.SheetError
    assert issubclass(errors.UnknownCell, problems.Problem) and issubclass(errors.UnknownCell, KeyError)
    # each is declared once, in the engine (a copy in the API drifted before: issue 32)
    declared = places(r"^class (SheetError|Problem|OverrideError|AxisError|SolveError|ExpectationError)\(")
    assert {p.split(":")[0] for p in declared} == {"engine/base/problems.py"} and len(declared) == 6


def test_an_engine_problem_is_caught_as_the_apis_and_crosses_a_process():
    error = problems.OverrideError("E-UNIT", "a is information, but '4 s' is time", "write 4 GB")
    error.assignment = "a=4 s"
    assert isinstance(error, ss.SheetError) and error.code == "E-UNIT"
    named = error.naming_its_assignment()
    assert named.message == "a=4 s: a is information, but '4 s' is time" and named.assignment == "a=4 s"
    back = pickle.loads(pickle.dumps(named))      # a Ray worker's problem reaches the driver whole
    assert type(back) is errors.OverrideError and back.diagnostics == named.diagnostics
    assert back.assignment == "a=4 s" and str(back) == str(named)
    solve = pickle.loads(pickle.dumps(problems.SolveError("no root", "widen it")))
    assert solve.code == "E-SOLVE" and solve.hint == "widen it"


def test_the_top_level_keys_are_listed_once():
    # the list's first keys, in any module but the vocabulary, would be a second copy
    copies = [p for p in places(r'"title",\s*"doc",\s*"extends"') if not p.startswith("engine/base/vocabulary.py")]
    assert copies == []
    assert "samples" in TOP_LEVEL_KEYS


def test_the_editor_creates_every_top_level_block_where_the_format_lists_it():
    from ruamel.yaml import YAML

    from supersheet.editor.cellwrite import block
    doc = YAML().load("title: t\ncells:\n  a: 1\nexpect:\n  a: 1\n")
    created = block(doc, "samples")            # the editor's copy of the keys lacked `samples`
    assert list(doc) == ["title", "cells", "expect", "samples"] and len(created) == 0
    block(doc, "checks")
    assert list(doc) == ["title", "cells", "checks", "expect", "samples"]


def test_is_this_text_a_formula_is_decided_in_one_place():
    assert [p.split(":")[0] for p in places(r"""startswith\(["']=["']\)""")] == ["engine/base/vocabulary.py"]
    assert is_formula("= a * b") and is_formula("  =a") and not is_formula("80 GB") and not is_formula(3)


def test_the_limits_live_in_one_module():
    defined = places(r"^(FORMULA_(NESTING|DEPTH|OPERATORS)|MAX_NESTING|MAX_OPERATORS|SAMPLES_LIMIT|MAX_SAMPLES|"
                     r"MAX_AXIS_VALUES)\s*=")
    assert {p.split(":")[0] for p in defined} == {"engine/base/limits.py"} and len(defined) == 5
    # a sweep's rows: the engine's limits; the editor's and the TUI's views show fewer rows of their own
    sweep_rows = [p.split(":")[0] for p in places(r"^(MAX_ROWS|MAX_TABLE_ROWS)\s*=")]
    assert [p for p in sweep_rows if not p.startswith(("editor/", "tui/"))] == ["engine/base/limits.py"] * 2


@pytest.mark.parametrize("message", ["unknown cell {", "names unknown cell {"])
def test_the_unknown_cell_message_is_written_once(message):
    assert [p for p in places(re.escape(message)) if not p.startswith("engine/base/diagnostics.py")] == []


def test_the_tests_find_the_repository_in_one_place():
    """tests/repo_paths.py is where a test finds the repository; a conftest is no module to
    import from (tests/ and tests/tui/ each have one, both named `conftest`)."""
    tests = REPO / "tests"
    found = [f"{p.relative_to(REPO)}:{n}" for p in sorted(tests.rglob("*.py")) if p.name != "repo_paths.py"
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"Path\(__file__\)\.resolve\(\)\.(parents\[|parent\.parent)|^from conftest import|^import conftest", line)]
    assert found == []
