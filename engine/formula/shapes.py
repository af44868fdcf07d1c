"""Formulas of one shape parsed once (issue 30).

Large sheets are written by programs or by filling a formula down: thousands of
formulas that differ only in the cells they read (`= max(a1, b1) + c1 / 4 -> GB`,
`= max(a2, b7) + c9 / 4 -> GB`, …), and lexing and parsing them was half of
loading a 20,000-cell sheet. A formula's *shape* is its text with each identifier
(a cell name, a function, a unit, a keyword, an alias) cut out. The first formula
of a shape is parsed in full and kept as a template, each identifier marked as a
*name* (it is exactly a cell name `Name` of the tree) or *fixed* (anything else).
A later formula of that shape whose fixed identifiers are the same and whose names
are no reserved words gets the template's tree, copied with its own names and every
position moved by how much longer or shorter the names before it are. The copy is
new nodes throughout: later stages key facts by node identity.

Why the copy is the parser's tree. The lexer decides where tokens start and end
from the characters between identifiers (the same: the shape), the extent of an
identifier (the same ASCII run on both sides), and an identifier's text only where
it is a unit, a keyword or a number's part (never a name slot: those are fixed and
equal) or is reserved (excluded). The parser reads a name token's text only into
its `Name`; everything else it reads is a token's kind, an operator's text, a
number's or unit's text (fixed) and positions (moved alike). A formula that does
not parse is never a template, so its error always comes from the parser; text
outside ASCII (the lexer's names are Unicode words) and long formulas (more
than TEMPLATE_TOKENS identifiers) are always parsed in full.
tests/engine/test_formula_shapes.py compares both ways on every formula of the
library and on generated ones."""
from __future__ import annotations

import re
from itertools import accumulate
from operator import itemgetter, sub
from typing import Callable

from supersheet.engine.base.vocabulary import RESERVED
from supersheet.engine.formula import ast as A

_IDENTIFIER = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)")   # the lexer's names, in ASCII
TEMPLATE_TOKENS = 48    # identifiers at most in a template (its tree is copied recursively)
MAX_SHAPES = 4096       # shapes kept (a process reading many sheets: the first ones)
MAX_PER_SHAPE = 4       # templates of one shape (`min(a, b)` and `max(a, b)` are one shape)

# One tuple for each (start, end) a copied tree's nodes span: a formula's positions are a few
# hundred pairs, and a tuple a node (~7 a cell) was a third of the objects a large sheet
# allocates, each walked by the cycle collector and kept (~0.4 KiB a cell; issue 30).
# A span is immutable and compared by value, so nodes share one freely.
MAX_SPANS = 1 << 16


class _SharedSpans(dict[int, tuple[int, int]]):
    """`start << 32 | end` -> the one tuple (start, end): a subscript that hits is a dict
    lookup at C speed (a builder's lambda cannot hold a statement); a miss makes the tuple."""

    def __missing__(self, key: int) -> tuple[int, int]:
        span = key >> 32, key & 0xFFFFFFFF
        if len(self) < MAX_SPANS:
            self[key] = span
        return span


_SPANS = _SharedSpans()

_seen: set[tuple[str, ...]] = set()   # shapes met once: a template is made when one comes again
_templates: dict[tuple[str, ...], list[Template]] = {}


def parse(text: str, parse_in_full: Callable[[str], A.Formula]) -> A.Formula:
    """`parse_in_full(text)` (the parser), from a template of the same shape when there is one."""
    if not text.isascii():
        return parse_in_full(text)
    parts = _IDENTIFIER.split(text)   # between, identifier, between, …, between
    shape, identifiers = tuple(parts[0::2]), parts[1::2]
    known = _templates.get(shape)
    if known is not None:
        for template in known:
            if template.fits(identifiers):
                return template.copy(identifiers)
    formula = parse_in_full(text)
    if len(identifiers) > TEMPLATE_TOKENS:
        return formula
    if shape not in _seen:   # a shape written once (a hand-written sheet's) never pays for a template
        if len(_seen) < MAX_SHAPES:
            _seen.add(shape)
    elif known is None or len(known) < MAX_PER_SHAPE:
        _templates.setdefault(shape, []).append(Template(formula, parts))
    return formula


def _picker(indices: list[int]) -> Callable[[list[str]], tuple[str, ...]]:
    """The items at `indices` of a list, as a tuple (C speed)."""
    if not indices:
        return lambda items: ()
    if len(indices) == 1:
        index = indices[0]
        return lambda items: (items[index],)
    return itemgetter(*indices)   # of two or more indices: a tuple


# A template's tree as a function: new nodes for one formula's identifiers and `moved` (how far a
# position after k identifiers moves). Built once a template, of one closure a node: copying a
# tree is then a call a node, with no dispatch on its class and no lookup of its positions (a
# 20,000-cell sheet's 18,000 copies: ~110 -> ~85 ms). A closure holds its children's, never
# itself or the template: no reference cycle (`run` pauses the cycle collector while it loads).
Builder = Callable[[list[str], list[int]], A.Node]


class Template:
    """A parsed formula and where its identifiers are: which are cell names, which fixed."""

    __slots__ = ("formula", "lengths", "fixed", "fixed_texts", "names", "name_slot", "slots_before", "build")

    def __init__(self, formula: A.Formula, parts: list[str]) -> None:
        self.formula = formula
        identifiers = parts[1::2]
        spans, position = [], 0
        for i, part in enumerate(parts):
            if i % 2:
                spans.append((position, position + len(part)))
            position += len(part)
        plain_names = {node.span for node in A.names(formula.expr) if node.alias is None}
        slots = range(len(identifiers))
        name_slots = [i for i in slots if spans[i] in plain_names]
        fixed = [i for i in slots if spans[i] not in plain_names]
        self.lengths = [len(identifier) for identifier in identifiers]
        self.fixed, self.fixed_texts = _picker(fixed), tuple(identifiers[i] for i in fixed)
        self.names = _picker(name_slots)
        self.name_slot = {spans[i][0]: i for i in name_slots}   # a name's start -> its identifier
        # for each position a span of the tree starts or ends at: how many identifiers end at or before it
        ends = [end for _start, end in spans]
        self.slots_before = {p: sum(1 for end in ends if end <= p) for p in _positions(formula)}
        self.build = self._builder(formula.expr)

    def fits(self, identifiers: list[str]) -> bool:
        return len(identifiers) == len(self.lengths) and self.fixed(identifiers) == self.fixed_texts \
            and RESERVED.isdisjoint(self.names(identifiers))

    def copy(self, identifiers: list[str]) -> A.Formula:
        """The template's tree with `identifiers`' names, every position moved with them."""
        moved = list(accumulate(map(sub, map(len, identifiers), self.lengths), initial=0))
        formula = self.formula
        display_span = formula.display_span
        return A.Formula(self.build(identifiers, moved), formula.display_unit,
                         display_span and self._span(display_span, moved))

    def _span(self, span: tuple[int, int], moved: list[int]) -> tuple[int, int]:
        before = self.slots_before
        return _SPANS[(span[0] + moved[before[span[0]]]) << 32 | (span[1] + moved[before[span[1]]])]

    def _builder(self, n: A.Node) -> Builder:
        """The function that makes `n` anew (its children's builders made first, once)."""
        before = self.slots_before
        start, end = n.span
        k_start, k_end = before[start], before[end]   # the span moves as the identifiers before its ends
        if isinstance(n, A.Name):   # (isinstance, not the exact class: once a template's node, and mypy narrows it)
            if n.alias is None:
                slot = self.name_slot[start]
                return lambda ids, m: A.Name(ids[slot], None, _SPANS[(start + m[k_start]) << 32 | (end + m[k_end])])
            name, alias = n.name, n.alias
            return lambda ids, m: A.Name(name, alias, _SPANS[(start + m[k_start]) << 32 | (end + m[k_end])])
        if isinstance(n, A.Binary):
            op, left, right = n.op, self._builder(n.left), self._builder(n.right)
            return lambda ids, m: A.Binary(op, left(ids, m), right(ids, m),
                                           _SPANS[(start + m[k_start]) << 32 | (end + m[k_end])])
        if isinstance(n, A.Number):
            value, unit, unit_span = n.value, n.unit, n.unit_span
            if unit_span is None:
                return lambda ids, m: A.Number(value, unit, _SPANS[(start + m[k_start]) << 32 | (end + m[k_end])])
            u_start, u_end = unit_span
            k_u_start, k_u_end = before[u_start], before[u_end]
            return lambda ids, m: A.Number(value, unit, _SPANS[(start + m[k_start]) << 32 | (end + m[k_end])],
                                           _SPANS[(u_start + m[k_u_start]) << 32 | (u_end + m[k_u_end])])
        if isinstance(n, A.Call):
            func, args = n.func, [self._builder(a) for a in n.args]
            f_start, f_end = n.name_span
            k_f_start, k_f_end = before[f_start], before[f_end]
            return lambda ids, m: A.Call(func, tuple([arg(ids, m) for arg in args]),
                                         _SPANS[(start + m[k_start]) << 32 | (end + m[k_end])],
                                         _SPANS[(f_start + m[k_f_start]) << 32 | (f_end + m[k_f_end])])
        if isinstance(n, A.Unary):
            op, operand = n.op, self._builder(n.operand)
            return lambda ids, m: A.Unary(op, operand(ids, m), _SPANS[(start + m[k_start]) << 32 | (end + m[k_end])])
        if isinstance(n, A.Array):
            items, unit, unit_span = [self._builder(i) for i in n.items], n.unit, n.unit_span
            u_span = unit_span or (0, 0)
            k_u = (before[u_span[0]], before[u_span[1]]) if unit_span is not None else (0, 0)
            return lambda ids, m: A.Array(tuple([item(ids, m) for item in items]), unit,
                                          _SPANS[(start + m[k_start]) << 32 | (end + m[k_end])],
                                          unit_span and _SPANS[(u_span[0] + m[k_u[0]]) << 32 | (u_span[1] + m[k_u[1]])])
        assert isinstance(n, A.Bool)   # the one class left
        value = n.value
        return lambda ids, m: A.Bool(value, _SPANS[(start + m[k_start]) << 32 | (end + m[k_end])])


def _positions(formula: A.Formula) -> set[int]:
    """Every position a span of the tree (or of its `-> unit`) starts or ends at."""
    found: set[int] = set(formula.display_span or ())
    stack: list[A.Node] = [formula.expr]
    while stack:
        node = stack.pop()
        found.update(node.span)
        for extra in ("unit_span", "name_span"):
            found.update(getattr(node, extra, None) or ())
        stack.extend(A.children(node))
    return found
