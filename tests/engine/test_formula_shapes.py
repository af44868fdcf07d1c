"""A formula copied from a template of its shape (formula/shapes.py) is exactly the
parser's tree for it, or the parser's error: on every formula of the library and of the
conformance cases with its cell names renamed, and on generated texts with any of their
identifiers (names, functions, units, keywords) replaced."""
from __future__ import annotations

import re
from typing import Iterator

import pytest
from hypothesis import given, settings, strategies as st
from ruamel.yaml import YAML

from repo_paths import CONFORMANCE, SHEETS
from test_lexer_paths import _tree
from supersheet.engine.base.vocabulary import is_formula
from supersheet.engine.formula import ast as A
from supersheet.engine.formula import shapes
from supersheet.engine.formula.parser import ParseError, formula_body, parse_formula, parse_in_full

# names of every length and kind: a function's, a unit's, an exponent's, a keyword (never copied)
RENAMES = ["x", "a_much_longer_name_7", "max", "GB", "e5", "_", "and", "true", "in0", "ZZ9", "s", "not"]


def _outcome(parse, text: str) -> object:
    try:
        return _tree(parse(text))
    except ParseError as e:
        return ("error", e.message, e.start, e.end, e.hint)


@pytest.fixture
def copies(monkeypatch) -> Iterator[list[int]]:
    """Empty template caches, and a count of the formulas copied from one."""
    monkeypatch.setattr(shapes, "_seen", set())
    monkeypatch.setattr(shapes, "_templates", {})
    made: list[int] = []
    copy = shapes.Template.copy

    def counted(self, identifiers):
        made.append(1)
        return copy(self, identifiers)
    monkeypatch.setattr(shapes.Template, "copy", counted)
    yield made


def _texts() -> list[str]:
    """Every string of every sheet of the library and of the conformance cases, as a formula's
    body where it is one (most of the rest are inputs, some are not formulas at all)."""
    yaml, found = YAML(typ="safe"), []
    for path in sorted([*SHEETS.rglob("*.yaml"), *CONFORMANCE.rglob("*.yaml")]):
        try:
            documents = list(yaml.load_all(path.read_text(encoding="utf-8")))
        except Exception:   # noqa: BLE001 - a conformance case of broken YAML
            continue
        stack: list[object] = documents
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, str):
                found.append(formula_body(item)[0] if is_formula(item) else item)
    return found


def _renamed(text: str, parsed: A.Formula, offset: int) -> str:
    """`text` with each cell name (no alias) replaced by one of RENAMES, in turn from `offset`."""
    spans = sorted({node.span for node in A.names(parsed.expr) if node.alias is None})
    out, last = [], 0
    for i, (start, end) in enumerate(spans):
        out += [text[last:start], RENAMES[(i + offset) % len(RENAMES)]]
        last = end
    return "".join(out) + text[last:]


def test_every_formula_of_the_library_renamed_is_copied_as_the_parser_parses_it(copies):
    texts = _texts()
    compared = 0
    for k, text in enumerate(texts):
        try:
            parsed = parse_in_full(text)
        except ParseError:
            continue
        for offset in range(3):
            shapes._seen.clear()
            shapes._templates.clear()
            parse_formula(text)
            parse_formula(text)   # the second of its shape: now a template
            other = _renamed(text, parsed, k + offset)
            assert _outcome(parse_formula, other) == _outcome(parse_in_full, other), (text, other)
            compared += 1
    assert compared > 3000, compared
    assert len(copies) > 2000, len(copies)   # most were copies (a renamed keyword is parsed in full)


PIECES = ["a", "b1", "cell_2", "x", "2", "0.5", "1e3", "1_000", ".5", " + ", " - ", " * ", " / ", " ^ ", "**", "(", ")",
          "-", " < ", " <= ", " == ", " != ", ", ", " and ", " or ", "not ", "true", "false", "max(", "min(", "if(",
          "sum(", "[", "]", " GB", "GiB", " MB", "-> GB", " -> GiB/s", "-> 1", "gpu.", "hbm", " %", "5k", "32k token",
          " ", "é", "x²", "KiB/token", "e", "E", "_"]
IDENTIFIERS = ["a", "b", "and", "or", "not", "true", "false", "max", "min", "GB", "GiB", "MB", "k", "e3", "E",
               "x_long_name", "_", "gpu", "hbm", "token", "s", "if", "sum", "M"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=20).map("".join), st.randoms(use_true_random=False))
def test_a_generated_formula_with_other_identifiers_is_what_the_parser_makes_of_it(text, pick):
    """Any identifier replaced (a name, a function, a unit, a keyword): a copy only where the
    template fits, and then the parser's tree; otherwise the parser's own tree or error."""
    shapes._seen.clear()
    shapes._templates.clear()
    for _ in range(2):   # the shape's template, when the text parses
        _outcome(parse_formula, text)
    other = re.sub(r"[A-Za-z_][A-Za-z0-9_]*", lambda m: pick.choice(IDENTIFIERS + [m.group()]), text)
    assert _outcome(parse_formula, other) == _outcome(parse_in_full, other)
    assert _outcome(parse_formula, text) == _outcome(parse_in_full, text)


def test_the_generated_sheets_formulas_are_copies(copies):
    """The benchmark's random DAG (bench/generate.py): four shapes, every formula after
    the first two of each a copy, with its own names and positions."""
    texts = [f"max(in{i}, f{i * 7}) + in{i + 3} / 4 -> GB" for i in range(1, 200)]
    for text in texts:
        assert _tree(parse_formula(text)) == _tree(parse_in_full(text))
    assert len(copies) == len(texts) - 2
    first, second = parse_formula(texts[5]), parse_formula(texts[5])
    assert first.expr is not second.expr   # new nodes each time: later stages key facts by node


def test_a_copy_leaves_no_reference_cycle(copies):
    """Loading pauses the cycle collector (engine/base/gcpause.py) and `run` never resumes it:
    a cycle left per formula (a recursive closure) would stay in memory until the exit."""
    import gc
    texts = [f"max(in{i}, f{i * 7}) + in{i + 3} / 4 -> GB" for i in range(1, 300)]
    gc.collect()
    gc.disable()
    try:
        kept = [parse_formula(text) for text in texts]
        assert gc.collect() == 0   # nothing unreachable: every object made is freed by reference counting
    finally:
        gc.enable()
    assert len(copies) == len(texts) - 2 and len(kept) == len(texts)
