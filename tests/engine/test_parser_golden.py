"""Parser golden tests: formula source -> fully parenthesised text (spec §3.1, §3.2).

The cheapest golden test there is: every precedence level, associativity,
unary minus against power, not/and/or, comparisons, unit literals (with and
without a space, compound units, `->` display conversion), arrays with units,
alias.name and calls; then syntax errors with their spans.
"""
from __future__ import annotations

import dataclasses

import pytest

from supersheet.engine.formula import ast as A
from supersheet.engine.formula.parser import ParseError, parse_formula


def golden(text: str) -> str:
    formula = parse_formula(text)
    out = A.to_text(formula.expr)
    return f"{out} -> {formula.display_unit}" if formula.display_unit else out


PRECEDENCE = [
    # product binds tighter than sum; both left-associative
    ("2 * 3 + 4", "((2 * 3) + 4)"),
    ("2 + 3 * 4", "(2 + (3 * 4))"),
    ("a * b / c * d", "(((a * b) / c) * d)"),
    ("10 / 4 / 5", "((10 / 4) / 5)"),
    ("10 - 4 - 3", "((10 - 4) - 3)"),
    ("a - b + c", "((a - b) + c)"),
    ("(a + b) * 2", "((a + b) * 2)"),
    ("a * (b + c)", "(a * (b + c))"),
    ("((a))", "a"),
    # power: right-associative, tighter than unary minus on its left
    ("2 ^ 3 ^ 2", "(2 ^ (3 ^ 2))"),
    ("2 ** 3 ** 2", "(2 ^ (3 ^ 2))"),
    ("a ** 3", "(a ^ 3)"),
    ("a^b*c", "((a ^ b) * c)"),
    ("a * b ^ 2", "(a * (b ^ 2))"),
    ("-a ^ 2", "(-(a ^ 2))"),
    ("-2 ^ 2", "(-(2 ^ 2))"),
    ("-2 ^ -2", "(-(2 ^ (-2)))"),
    ("a ^ -b", "(a ^ (-b))"),
    ("2 ^ -3 ^ 2", "(2 ^ (-(3 ^ 2)))"),
    ("(-a) ^ 2", "((-a) ^ 2)"),
    # unary minus
    ("-a", "(-a)"),
    ("--a", "(-(-a))"),
    ("-(a)", "(-a)"),
    ("-a * b", "((-a) * b)"),
    ("a * -b", "(a * (-b))"),
    ("-a - -b", "((-a) - (-b))"),
    ("a - -1", "(a - (-1))"),
    # comparisons: looser than sums, not chained
    ("a < b", "(a < b)"),
    ("a <= b", "(a <= b)"),
    ("a > b", "(a > b)"),
    ("a >= b + 1", "(a >= (b + 1))"),
    ("a == b", "(a == b)"),
    ("a != b", "(a != b)"),
    ("a + 1 == 2 * b", "((a + 1) == (2 * b))"),
    # not / and / or
    ("not a", "(not a)"),
    ("not not a", "(not (not a))"),
    ("not a == b", "(not (a == b))"),
    ("not a or b and c", "((not a) or (b and c))"),
    ("a and b or c and d", "((a and b) or (c and d))"),
    ("a or b or c", "((a or b) or c)"),
    ("a and b and c", "((a and b) and c)"),
    ("a < b and not (b < a)", "((a < b) and (not (b < a)))"),
    ("a == 5 or b == 3", "((a == 5) or (b == 3))"),
    ("not (a or b)", "(not (a or b))"),
    ("true and false", "(true and false)"),
    # numbers
    ("1_000_000 * 1e-6", "(1000000 * 1e-06)"),
    (".5 * 4", "(0.5 * 4)"),
    ("2.5E3 / 1e3", "(2500 / 1000)"),
    ("2.5E9", "2500000000"),
    ("1e300", "1e+300"),
    ("3.25", "3.25"),
]

UNITS = [
    ("3350 GB/s", "3350 GB/s"),
    ("3350GB/s", "3350 GB/s"),
    ("0.822 us", "0.822 us"),
    ("0.822 μs", "0.822 μs"),
    ("0.822 µs", "0.822 µs"),
    ("2 GiB", "2 GiB"),
    ("188 KiB/token", "188 KiB/token"),
    ("400 Gbit/s", "400 Gbit/s"),
    ("1 GPU*s", "1 GPU*s"),
    ("9.8 m/s^2", "9.8 m/s^2"),
    ("2.5 USD/GPU/h", "2.5 USD/GPU/h"),
    ("75 %", "75 %"),
    ("75%", "75 %"),
    ("1 kg·m", "1 kg·m"),
    ("4 m^2", "4 m^2"),
    # with spaces, * and / are arithmetic again: `/ s` divides by the cell s
    ("2 GB / s", "(2 GB / s)"),
    ("2 GB/ s", "(2 GB / s)"),
    ("2 GB * 2", "(2 GB * 2)"),
    ("2 GB*2", "(2 GB * 2)"),
    ("2^3", "(2 ^ 3)"),
    ("2 GB ^ 2", "(2 GB ^ 2)"),
    ("1 / 2 s", "(1 / 2 s)"),
    ("-3 GB", "(-3 GB)"),
    ("5 or b", "(5 or b)"),
    ("a * 1 B", "(a * 1 B)"),
    ("B * 1 B", "(B * 1 B)"),
    ("100 GB / s -> GB", "(100 GB / s) -> GB"),
    # display conversion, only at the end
    ("2 GiB -> GB", "2 GiB -> GB"),
    ("2GiB->MiB", "2 GiB -> MiB"),
    ("x -> 1/s", "x -> 1/s"),
    ("45 min -> 45*min", "45 min -> 45*min"),
    ("x -> 0.5/s", "x -> 0.5/s"),
    ("x->1e3*MB", "x -> 1e3*MB"),
    ("2 ‰ * 1000", "(2 ‰ * 1000)"),
    ("x -> ‰", "x -> ‰"),
    ("1/x -> Hz", "(1 / x) -> Hz"),
    ("(weights + kv) / gpu.hbm_bandwidth -> ms", "((weights + kv) / gpu.hbm_bandwidth) -> ms"),
    ("cost / on_time -> GPU*s", "(cost / on_time) -> GPU*s"),
    ("micro_batches / (stage_count + micro_batches - 1) -> %", "(micro_batches / ((stage_count + micro_batches) - 1)) -> %"),
]

ARRAYS_NAMES_CALLS = [
    ("[1, 2, 3] ms", "[1, 2, 3] ms"),
    ("[1,2]GB", "[1, 2] GB"),
    ("[1 ms, 2 ms]", "[1 ms, 2 ms]"),
    ("[a + 1, b * 2] GB", "[(a + 1), (b * 2)] GB"),
    ("[-1, 2]", "[(-1), 2]"),
    ("[1, 2] ms * 2", "([1, 2] ms * 2)"),
    ("gpu.hbm_bandwidth", "gpu.hbm_bandwidth"),
    ("gpu.hbm_bandwidth * 2", "(gpu.hbm_bandwidth * 2)"),
    ("-gpu.x ^ 2", "(-(gpu.x ^ 2))"),
    ("max(a, b, c)", "max(a, b, c)"),
    ("max(stages)", "max(stages)"),
    ("range(4)", "range(4)"),
    ("range(2, 5)", "range(2, 5)"),
    ("f()", "f()"),
    ("if(a > b, 1 s, 2 s)", "if((a > b), 1 s, 2 s)"),
    ("ceil(70 GB, 8 GB)", "ceil(70 GB, 8 GB)"),
    ("sum(finish <= 130 ms)", "sum((finish <= 130 ms))"),
    ("ceil((range(4) + 1) / instances) * session_time -> ms",
     "(ceil(((range(4) + 1) / instances)) * session_time) -> ms"),
    ("E * (1 - (1 - k / E) ^ m)", "(E * (1 - ((1 - (k / E)) ^ m)))"),
    ("max(1, 2) ^ 2", "(max(1, 2) ^ 2)"),
    ("-abs(x)", "(-abs(x))"),
]


@pytest.mark.parametrize("source, expected", PRECEDENCE + UNITS + ARRAYS_NAMES_CALLS,
                         ids=[s for s, _ in PRECEDENCE + UNITS + ARRAYS_NAMES_CALLS])
def test_fully_parenthesised(source, expected):
    assert golden(source) == expected


@pytest.mark.parametrize("source", [s for s, _ in PRECEDENCE + UNITS + ARRAYS_NAMES_CALLS])
def test_golden_text_parses_back_to_itself(source):
    text = golden(source)
    assert golden(text) == text


def _fields(node: A.Node) -> tuple:
    """A node's type and fields (nodes compare by identity: ast.py)."""
    return (type(node).__name__, dataclasses.astuple(node))


def test_nodes_compare_by_identity():
    """The checker keys its tables by node: the same text in two cells is two keys."""
    first, second = parse_formula("a + 1").expr, parse_formula("a + 1").expr
    assert first == first and first != second and len({first, second, first.left, second.left}) == 4


def test_literal_structure():
    number = parse_formula("3350 GB/s").expr
    assert _fields(number) == _fields(A.Number(3350.0, "GB/s", (0, 9), (5, 9)))
    tight = parse_formula("2GiB").expr
    assert _fields(tight) == _fields(A.Number(2.0, "GiB", (0, 4), (1, 4)))
    array = parse_formula("[1, 2] ms").expr
    assert isinstance(array, A.Array) and array.unit == "ms" and array.unit_span == (7, 9) and array.span == (0, 9)
    name = parse_formula("1 + gpu.hbm").expr.right
    assert _fields(name) == _fields(A.Name("hbm", "gpu", (4, 11))) and name.dotted == "gpu.hbm"
    call = parse_formula("max(a, 2)").expr
    assert isinstance(call, A.Call) and call.name_span == (0, 3) and call.span == (0, 9)
    formula = parse_formula("a -> GiB")
    assert formula.display_unit == "GiB" and formula.display_span == (5, 8)


@pytest.mark.parametrize("source, value", [("1_000", 1000.0), (".5", 0.5), ("2.5E9", 2.5e9), ("1e-6", 1e-6),
                                           ("1.", 1.0), ("0", 0.0), ("123.456", 123.456)])
def test_number_values(source, value):
    node = parse_formula(source).expr
    assert isinstance(node, A.Number) and node.value == value and node.unit is None


def test_names_are_never_units():
    # a cell called s, B, E or m is a name; only after a number is it a unit
    expr = parse_formula("s * B + E / m").expr
    assert [n.name for n in A.names(expr)] == ["s", "B", "E", "m"]


PARSE_ERRORS = [
    # source, message, (start, end), hint
    ("", "empty formula", (0, 1), None),
    ("   ", "empty formula", (0, 3), None),
    ("a * / 2", "expected a value, found '/'", (4, 5), None),
    ("(a + b * 2", "unclosed '('", (0, 1), "add ')' to close it"),
    ("(1 +", "the formula ends where a value was expected", (4, 5), None),
    ("a b", "unexpected 'b'", (2, 3), None),
    ("1 2", "unexpected '2'", (2, 3), None),
    ("a < b < c", "comparisons cannot be chained", (6, 7), "combine them with 'and': a < b and b < c"),
    ("a -> GB + 1", "unexpected '+'", (8, 9), None),
    ("a ->", "expected a unit after '->'", (2, 4), None),
    ("x -> 5", "expected a unit after '->'", (2, 4), "a numeric factor is joined to its unit with '*': -> 45*min, -> 0.5/s"),
    ("x -> 2 min", "expected a unit after '->'", (2, 4), "a numeric factor is joined to its unit with '*': -> 45*min, -> 0.5/s"),
    ("1 -> GB -> MB", "unexpected '->'", (8, 10), "'->' converts only the whole formula, at its end"),
    ("(a -> GB) + 1", "expected ')', found '->'", (3, 5), None),
    ("[]", "an array needs at least one element", (0, 2), None),
    ("[1, 2", "unclosed '['", (0, 1), "add ']' to close it"),
    ("[1, 2]]", "unexpected ']'", (6, 7), None),
    ("max(1, 2", "unclosed '('", (3, 4), "add ')' to close it"),
    ("f(1,)", "expected a value, found ')'", (4, 5), None),
    ("gpu.", "expected a cell name after 'gpu.'", (4, 5), None),
    ("a.b.c", "unexpected '.'", (3, 4), None),
    ("a $ b", "unexpected character '$'", (2, 3), None),
    ("a = b", "unexpected character '='", (2, 3), None),
    ("1_", "a number cannot end with _", (0, 2), None),
    ("-> GB", "expected a value, found '->'", (0, 2), None),
    ("2 log2(8)", "unexpected 'log2'", (2, 6), None),
    ("2 GB ms", "unexpected 'ms'", (5, 7), None),
    ("a ^", "the formula ends where a value was expected", (3, 4), None),
    ("2 ^^ 3", "expected a value, found '^'", (3, 4), None),
    ("not", "the formula ends where a value was expected", (3, 4), None),
    ("a and", "the formula ends where a value was expected", (5, 6), None),
    (")", "expected a value, found ')'", (0, 1), None),
    ("a,b", "unexpected ','", (1, 2), None),
    ("true false", "unexpected 'false'", (5, 10), None),
    ("3 GB/", "the formula ends where a value was expected", (5, 6), None),
]


@pytest.mark.parametrize("source, message, span, hint", PARSE_ERRORS, ids=[repr(c[0]) for c in PARSE_ERRORS])
def test_parse_error_and_span(source, message, span, hint):
    with pytest.raises(ParseError) as caught:
        parse_formula(source)
    assert (caught.value.message, (caught.value.start, caught.value.end), caught.value.hint) == (message, span, hint)


@pytest.mark.parametrize("source", [
    "(" * 10_000 + "1" + ")" * 10_000,
    "-" * 10_000 + "1",
    "not " * 5_000 + "true",
    "2 ^ " * 5_000 + "2",
    "[" * 10_000 + "1" + "]" * 10_000,
    "f(" * 10_000 + "1" + ")" * 10_000,
    "1 + " * 10_000 + "1",
    "(" * 10_000,
], ids=["parens", "minus", "not", "power", "arrays", "calls", "long-sum", "unclosed"])
def test_deep_nesting_is_a_parse_error_not_a_recursion_error(source):
    with pytest.raises(ParseError) as caught:
        parse_formula(source)
    assert any(m in caught.value.message for m in ("nested too deeply", "unclosed", "more than 1000 operators"))


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "and", "or"])
def test_a_flat_run_counts_as_one_level(op):
    """Only real nesting counts toward the depth limit: 1000 operands in one run parse."""
    source = f" {op} ".join(["x"] * 1000)
    assert golden(source).count(f" {op} ") == 999
    with pytest.raises(ParseError) as caught:
        parse_formula(f" {op} ".join(["x"] * 1002))
    assert caught.value.message == "formula has more than 1000 operators"


def test_moderate_nesting_still_parses():
    assert golden("(" * 50 + "1" + ")" * 50) == "1"
    assert golden("1 + " * 200 + "1").count("+") == 200
