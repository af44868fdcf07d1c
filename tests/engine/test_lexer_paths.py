"""The lexer's regular expression for common tokens (lexer._SCAN) must cut
every text exactly as its character loop does: same tokens, or the same error;
and the parser's shortcut past the logic levels must change no tree."""
from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings, strategies as st

from supersheet.engine.formula import parser
from supersheet.engine.formula.lexer import LexError, key_of, scan, tokenize
from supersheet.engine.formula.parser import ParseError, parse_in_full

PIECES = list("0123456789.eE_ +-*/^()[],<>=!abgsGBKiMm%μ·²\u00a0\t\n") + [
    "and ", "or ", "not ", "true", "gpu.", "max(", "GB/s", "->", "**", "é", "x²", "1_000", ".5", "5.", "1e3", "2e",
    "] GB", "-> 45*min", "KiB/token", "-> GB", "->GiB", " MB", "GB(", "°C", "Ω", "‰", "µs", "or", " true", "\r",
    "-> ", "1 ", "in3", "]"]


def _cut(text: str, common_tokens: bool) -> object:
    try:
        return tokenize(text, common_tokens)
    except LexError as e:
        return ("error", e.message, e.start, e.end, e.hint)


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
def test_common_tokens_are_cut_as_the_character_loop_cuts_them(text):
    assert _cut(text, True) == _cut(text, False)
    try:
        tokens, keys = scan(text)
    except LexError:
        return
    assert keys == [key_of(t) for t in tokens]   # the keys the scan lists as it goes are each token's


def test_the_generated_sheets_formulas_take_the_regular_expression():
    text = "ceil(f15 / in16) * in16 + max(f13, in14) + 1 MB -> GB"
    assert _cut(text, True) == _cut(text, False)
    assert [t.kind for t in tokenize("f1 + 2.5 GB")] == ["NAME", "OP", "NUMBER", "UNIT", "END"]


def _tree(value: object) -> object:
    """A tree's structure: node types and fields, spans included (nodes compare by identity)."""
    if dataclasses.is_dataclass(value):
        return (type(value).__name__,) + tuple(_tree(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, tuple):
        return tuple(_tree(v) for v in value)
    return value


def _parsed(text: str) -> object:
    try:
        return _tree(parse_in_full(text))   # the parser itself, never a shape's copy (formula/shapes.py)
    except ParseError as e:
        return ("error", e.message, e.start, e.end, e.hint)


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(PIECES + ["a", "b1", "2", " + ", " * ", "(", ")", "-", "^", " < ", " == ", ", "]),
                max_size=25).map("".join))
def test_a_formula_without_logic_parses_as_through_every_level(text):
    """The parser skips the or/and/not/comparison levels when a formula has none of them
    (parser._LOGIC): the tree, or the error, is the one every level gives."""
    shortcut = _parsed(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parser, "_LOGIC", frozenset({"END"}))   # every token list has END: never skipped
        assert _parsed(text) == shortcut
