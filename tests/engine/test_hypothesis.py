"""Property tests: no input makes the engine raise. Random formulas (from a
grammar-ish strategy and from raw text), random YAML documents and random
bytes only ever produce diagnostics through load, check, evaluate, the blocks
(sweeps, solve, choose) and `supersheet test`.

Example counts are modest and the runs derandomized, so the suite stays fast
and deterministic.
"""
from __future__ import annotations

import io
import itertools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from ruamel.yaml import YAML

from supersheet.engine.base.diagnostics import CODES, Diagnostic, SourceCache, render
from supersheet.engine.compile.evaluate import ErrorValue
from supersheet.engine.formula.parser import ParseError, parse_formula
from supersheet.engine.verify.blocks import validate_blocks
from supersheet.engine.verify.testing import test_workbook as run_expectations
from supersheet.engine.workbook import open_workbook

SETTINGS = dict(derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

_counter = itertools.count()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("hypothesis")
    (path / "gpu.yaml").write_text("cells:\n  bw: 3350 GB/s\n  cap: 80 GB\n", encoding="utf-8")
    return path


def fresh(workdir: Path, suffix: str = ".yaml") -> Path:
    return workdir / f"case{next(_counter)}{suffix}"


def assert_only_diagnostics(path: Path, full: bool = True) -> None:
    """Load, check, evaluate and test a sheet: anything but diagnostics is a failure."""
    workbook = open_workbook(path)
    diagnostics = workbook.diagnostics
    sources = SourceCache()
    for d in diagnostics:
        assert isinstance(d, Diagnostic) and d.code in CODES, d
        render(d, sources)
    if not workbook.ok:
        return
    scenario = workbook.evaluate()
    for value in scenario.values.values():
        items = value if isinstance(value, list) else [value]
        for item in items:
            assert item is None or isinstance(item, (float, bool, ErrorValue)), item
    if full:
        for d in validate_blocks(workbook):
            assert d.code in CODES, d
            render(d, sources)
        report = run_expectations(workbook)
        for d in report.diagnostics:
            assert d.code in CODES, d
            render(d, sources)


def dump(document) -> str:
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    out = io.StringIO()
    yaml.dump(document, out)
    return out.getvalue()


# -- formulas from a grammar ---------------------------------------------------------
UNITS = ["", " GB", "GB", " GiB", " ms", " us", " μs", " GB/s", " TFLOP", " token", " GPU*s", " USD/GPU/h", " %",
         " m^2", " m/s^2", " KiB/token", " s", " B", " experts", " GBs", " 1/s", " kg·m"]
NAMES = ["a", "b", "t", "flag", "arr", "gpu.bw", "gpu.cap", "nope", "gpu.nope", "xx.bw", "s", "B", "z"]
FUNCTIONS = ["min", "max", "sum", "mean", "count", "abs", "sqrt", "ceil", "floor", "round", "ln", "log2", "log10",
             "exp", "clamp", "if", "range", "maxx", "f"]
BINARY = ["+", "-", "*", "/", "^", "**", "<", "<=", ">", ">=", "==", "!=", "and", "or"]

numbers = st.one_of(
    st.integers(min_value=0, max_value=10**6).map(str),
    st.floats(min_value=0, max_value=1e300, allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["0", "1", "2", "0.5", ".5", "1e-300", "1e300", "1_000", "2.5E9", "1e400", "1e-400"]),
)
atoms = st.one_of(
    st.tuples(numbers, st.sampled_from(UNITS)).map("".join),
    st.sampled_from(NAMES),
    st.sampled_from(["true", "false"]),
)


def _extend(children):
    return st.one_of(
        st.tuples(children, st.sampled_from(BINARY), children).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        children.map(lambda c: f"-{c}"),
        children.map(lambda c: f"not {c}"),
        children.map(lambda c: f"({c})"),
        st.tuples(st.sampled_from(FUNCTIONS), st.lists(children, max_size=4)).map(
            lambda t: f"{t[0]}({', '.join(t[1])})"),
        st.tuples(st.lists(children, min_size=1, max_size=4), st.sampled_from(UNITS)).map(
            lambda t: f"[{', '.join(t[0])}]{t[1]}"),
    )


# Anything goes: mostly invalid formulas, every stage's diagnostics.
formulas = st.recursive(atoms, _extend, max_leaves=12)

# Dimensionless numbers only: mostly valid formulas, so evaluation (error values,
# overflow, NaN) and the blocks run too.
numeric_atoms = st.one_of(numbers, st.sampled_from(["a", "s", "B", "zero", "(-a)", "1e300", "0"]))


def _numeric(children):
    return st.one_of(
        st.tuples(children, st.sampled_from(["+", "-", "*", "/", "^"]), children).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"),
        children.map(lambda c: f"-{c}"),
        st.tuples(st.sampled_from(["abs", "sqrt", "ceil", "floor", "round", "ln", "log2", "log10", "exp"]),
                  children).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(st.sampled_from(["min", "max", "ceil", "floor"]), children, children).map(
            lambda t: f"{t[0]}({t[1]}, {t[2]})"),
        st.tuples(children, children, children).map(lambda t: f"clamp({t[0]}, {t[1]}, {t[2]})"),
        st.tuples(children, st.sampled_from(["<", "<=", "==", "!="]), children, children, children).map(
            lambda t: f"if({t[0]} {t[1]} {t[2]}, {t[3]}, {t[4]})"),
        st.lists(children, min_size=1, max_size=3).map(lambda xs: f"sum([{', '.join(xs)}])"),
        st.lists(children, min_size=1, max_size=3).map(lambda xs: f"max([{', '.join(xs)}])"),
    )


numeric_formulas = st.recursive(numeric_atoms, _numeric, max_leaves=10)
displays = st.sampled_from(["", " -> GB", " -> ms", " -> %", " -> GiB", " -> nope", " -> 1/s"])

BASE_CELLS = {"a": "2", "b": "3 GB", "t": "1.5 ms", "flag": "true", "arr": "[1, 2, 3] ms", "s": "4", "B": "2",
              "zero": "0"}


def grammar_sheet(formula: str, display: str, extra: str, blocks: bool = False) -> str:
    document = {
        "title": "generated",
        "use": {"gpu": "gpu.yaml"},
        "cells": {**BASE_CELLS, "x": f"= {formula}{display}", "y": f"= {extra}", "z": "= x"},
        "checks": {"ok": "a > 1", "positive": "y > 0"},
        "expect": {"x": "1", "y": "#DIV/0"},
    }
    if blocks:  # sweeps, goal seek and choices over the generated cells (slower: fewer examples)
        document.update({
            "sweeps": {"s1": {"vary": {"a": [1, 2, 0, -1]}, "show": ["x", "y"], "expect": {"x": [1, 2, 3, 4]}}},
            "solve": {"g1": {"vary": "a", "goal": "y == 1", "between": [0.5, 8], "expect": 1}},
            "choose": {"c1": {"vary": {"a": [1, 2, 0]}, "require": ["positive"], "minimize": "y",
                              "expect": {"a": 1}}},
        })
    return dump(document)


@settings(max_examples=150, **SETTINGS)
@given(formula=formulas, display=displays, extra=formulas)
def test_grammar_formulas_only_produce_diagnostics(formula, display, extra, workdir):
    try:
        parse_formula(formula + display)
    except ParseError as e:
        assert 0 <= e.start <= e.end <= len(formula + display) + 1
    path = fresh(workdir)
    path.write_text(grammar_sheet(formula, display, extra), encoding="utf-8")
    assert_only_diagnostics(path)


@settings(max_examples=150, **SETTINGS)
@given(formula=numeric_formulas, extra=numeric_formulas)
def test_numeric_formulas_evaluate_to_values_or_error_values(formula, extra, workdir):
    path = fresh(workdir)
    path.write_text(grammar_sheet(formula, "", extra), encoding="utf-8")
    assert_only_diagnostics(path, full=False)


@settings(max_examples=25, **SETTINGS)
@given(formula=numeric_formulas, extra=numeric_formulas)
def test_numeric_formulas_in_sweeps_solve_and_choose(formula, extra, workdir):
    path = fresh(workdir)
    path.write_text(grammar_sheet(formula, "", extra, blocks=True), encoding="utf-8")
    assert_only_diagnostics(path)


@settings(max_examples=200, **SETTINGS)
@given(text=st.lists(st.sampled_from(list("0123456789.eE_ +-*/^()[],<>=!.abgsGBKiMm%μ·->\"'#:{}|&\t\n")
                                     + ["and ", "or ", "not ", "true", "gpu.", "max(", "GB/s", "->", "**"]),
                     max_size=40).map("".join))
def test_raw_formula_text_parses_or_is_a_parse_error(text):
    try:
        parse_formula(text)
    except ParseError as e:
        assert isinstance(e.message, str) and e.message
        assert 0 <= e.start <= e.end


@settings(max_examples=80, **SETTINGS)
@given(text=st.text(max_size=40))
def test_raw_formula_text_in_a_sheet(text, workdir):
    path = fresh(workdir)
    path.write_text(dump({"cells": {"a": 1, "x": "= " + text, "y": text}, "checks": {"c": text}}), encoding="utf-8")
    assert_only_diagnostics(path)


@settings(max_examples=80, **SETTINGS)
@given(text=st.text(max_size=40))
def test_calc_of_raw_text(text):
    from supersheet.calc import calc_workbook
    workbook, diagnostics = calc_workbook(text)
    for d in diagnostics:
        assert d.code in CODES
    if workbook is not None and not diagnostics:
        workbook.evaluate()


# -- random YAML documents --------------------------------------------------------------
KEYS = ["title", "doc", "extends", "use", "cells", "checks", "sweeps", "solve", "choose", "expect", "vary", "value",
        "formula", "unit", "digits", "source", "between", "goal", "require", "minimize", "maximize", "show", "where",
        "from", "to", "times", "step", "count", "scale", "sheet", "set", "a", "b", "gpu", "x", "1", "and"]
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-10**20, max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["= a + 1", "= x * 2", "1 GB", "3350 GB/s", "[1, 2] ms", "gpu.yaml", "missing.yaml", ".",
                     "a == b", "a < 1", "= 1 / 0", "#DIV/0", "1 ms ± 1%", "4 ± 0.1", "= (", "true", "1..4",
                     "= gpu.bw", "x", "a"]),
    st.text(max_size=12),
)
documents = st.recursive(
    SCALARS,
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(st.sampled_from(KEYS), children, max_size=5)),
    max_leaves=25,
)


@settings(max_examples=150, **SETTINGS)
@given(document=st.dictionaries(st.sampled_from(KEYS), documents, max_size=6))
def test_random_yaml_documents_only_produce_diagnostics(document, workdir):
    path = fresh(workdir)
    path.write_text(dump(document), encoding="utf-8")
    assert_only_diagnostics(path)


BLOCKS = st.fixed_dictionaries({
    "cells": st.dictionaries(st.sampled_from(["a", "b", "x", "tp"]),
                             st.sampled_from(["1", "2 GB", "= a * 2", "= b / a", "= tp + 1", "[1, 2]", "true",
                                              "= 1 / 0", "= a > 1"]), min_size=1, max_size=4),
    "sweeps": st.dictionaries(st.sampled_from(["s1", "s2"]), documents, max_size=2),
    "solve": st.dictionaries(st.sampled_from(["g1"]), st.fixed_dictionaries(
        {"vary": st.sampled_from(["a", "b", "x", "nope", 1]), "goal": st.sampled_from(["a == 2", "x == b", "a < 1", 5]),
         "between": st.one_of(st.lists(SCALARS, max_size=3), SCALARS)}), max_size=1),
    "choose": st.dictionaries(st.sampled_from(["c1"]), st.fixed_dictionaries(
        {"vary": documents, "require": st.one_of(SCALARS, st.lists(SCALARS, max_size=2)),
         "minimize": st.sampled_from(["a", "x", "a > 1", "nope"])}), max_size=1),
})


@settings(max_examples=120, **SETTINGS)
@given(document=BLOCKS)
def test_random_blocks_only_produce_diagnostics(document, workdir):
    path = fresh(workdir)
    path.write_text(dump(document), encoding="utf-8")
    assert_only_diagnostics(path)


@settings(max_examples=60, **SETTINGS)
@given(data=st.binary(max_size=200))
def test_random_bytes(data, workdir):
    path = fresh(workdir)
    path.write_bytes(data)
    assert_only_diagnostics(path)


@settings(max_examples=60, **SETTINGS)
@given(text=st.text(max_size=200))
def test_random_text_files(text, workdir):
    path = fresh(workdir)
    path.write_text(text, encoding="utf-8")
    assert_only_diagnostics(path)


# -- the explicit extremes ------------------------------------------------------------------
@pytest.mark.parametrize("formula", [       # deep past Python's recursion limit, within the line limit
    "(" * 4_900 + "1" + ")" * 4_900,
    "-" * 9_000 + "1",
    "1" + " + 1" * 10_000,
    "[" * 4_900 + "1" + "]" * 4_900,
    "not " * 2_400 + "true",
], ids=["parens", "minus", "long-sum", "arrays", "not"])
def test_deep_formulas_in_a_sheet_are_e_parse(formula, workdir):
    path = fresh(workdir)
    path.write_text(dump({"cells": {"x": "= " + formula}}), encoding="utf-8")
    workbook = open_workbook(path)
    assert [d.code for d in workbook.diagnostics] == ["E-PARSE"]
