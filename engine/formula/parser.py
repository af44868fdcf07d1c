"""Precedence parser for formulas (spec §3.1).

    formula    := expr ( "->" unit )?
    expr       := or
    or         := and ( "or" and )*
    and        := not ( "and" not )*
    not        := "not" not | comparison
    comparison := sum ( ( "<" | "<=" | ">" | ">=" | "==" | "!=" ) sum )?
    sum        := product ( ( "+" | "-" ) product )*
    product    := unary ( ( "*" | "/" ) unary )*
    unary      := "-" unary | power
    power      := atom ( ( "^" | "**" ) unary )?        # right-associative
    atom       := NUMBER unit? | "[" expr ( "," expr )* "]" unit?
                | NAME "(" ( expr ( "," expr )* )? ")" | NAME ( "." NAME )?
                | "(" expr ")" | "true" | "false"

Nesting is bounded (FORMULA_NESTING while parsing, FORMULA_DEPTH for the finished
tree) so that no input can exhaust Python's stack: a too-deep formula is an
E-PARSE diagnostic like any other syntax error. A flat run of one precedence
level (`a + b - … + z`, `a * b / …`, `p and q and …`) is parsed in a loop and
counts as one level however long it is (later stages walk it in a loop too);
FORMULA_OPERATORS bounds a formula's size instead, because the evaluator's
expression engine slows down sharply on very long runs.
"""
from __future__ import annotations

import math

from supersheet.engine.base.limits import FORMULA_DEPTH, FORMULA_NESTING, FORMULA_OPERATORS
from supersheet.engine.base.vocabulary import is_formula
from supersheet.engine.formula.ast import (
    Array,
    Binary,
    Bool,
    Call,
    Formula,
    Name,
    Node,
    Number,
    Unary,
    depth,
    operators,
)
from supersheet.engine.formula import shapes
from supersheet.engine.formula.lexer import LexError, Token, key_of, scan

_COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
_COMPARISON_KEYS = frozenset(_COMPARISONS)
_SUMS = frozenset(("+", "-"))
_PRODUCTS = frozenset(("*", "/"))
_POWERS = frozenset(("^", "**"))
_LOGIC = frozenset(("or", "and", "not", *_COMPARISONS))
# A spreadsheet's suffixes after a number (`32k`, `1.5M`): the decimal and binary prefixes they stand for.
_SUFFIXES = {"k": ("k", "Ki"), "K": ("k", "Ki"), "M": ("M", "Mi"), "G": ("G", "Gi"), "T": ("T", "Ti")}
_SCALE = {"k": "1000", "Ki": "1024", "M": "10^6", "Mi": "2^20", "G": "10^9", "Gi": "2^30", "T": "10^12", "Ti": "2^40"}


# One error type for the whole formula syntax: a lexical error is a parse error.
ParseError = LexError


def formula_body(text: str) -> tuple[str, int]:
    """A formula as written (`= a * b`, or a bare `a * b`) without its leading '=' and the
    blanks before the body, and the offset in `text` where the body starts, so that spans
    into the body can be moved back onto the written text. Trailing blanks are kept."""
    stripped = text.lstrip()
    offset = len(text) - len(stripped)
    if is_formula(stripped):
        body = stripped[1:].lstrip()
        return body, offset + (len(stripped) - len(body))
    return stripped, offset


def parse_formula(text: str) -> Formula:
    """Parse a formula (without its leading '='). Raises ParseError. A formula of a shape
    parsed before (the same text but for the cells it reads) is copied from it (shapes.py)."""
    return shapes.parse(text, parse_in_full)


def parse_in_full(text: str) -> Formula:
    """`parse_formula`, always by lexing and parsing `text`."""
    tokens, keys = scan(text)
    parser = _Parser(tokens, text, keys)
    formula = parser.formula()
    if len(tokens) <= min(FORMULA_DEPTH, FORMULA_OPERATORS):
        return formula   # every node has a token of its own: a tree this small can be neither too deep nor too long
    if depth(formula.expr) > FORMULA_DEPTH:
        raise ParseError(f"formula is nested too deeply (more than {FORMULA_DEPTH} levels)", 0, len(text),
                         "split it into several cells")
    if operators(formula.expr) > FORMULA_OPERATORS:
        raise ParseError(f"formula has more than {FORMULA_OPERATORS} operators", 0, len(text),
                         "split it into several cells, or add an array's values with sum([...])")
    return formula


class _Parser:
    def __init__(self, tokens: list[Token], text: str, keys: list[str] | None = None) -> None:
        self.tokens = tokens
        # what each token is to the grammar: an operator's or keyword's text, else its kind
        # (one list lookup per test: the precedence levels test every token several times)
        self.keys = keys if keys is not None else [key_of(t) for t in tokens]
        # A formula without `or`, `and`, `not` or a comparison anywhere is a sum at every level
        # (each of those levels would only pass its operand through): skip them.
        self.arithmetic = _LOGIC.isdisjoint(self.keys)
        self.text = text
        self.pos = 0
        self.nesting = 0

    # -- helpers -------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def advance(self) -> Token:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def at(self, kind: str, *texts: str) -> bool:
        tok = self.tok
        return tok.kind == kind and (not texts or tok.text in texts)

    def expect_op(self, text: str, opener: Token | None = None) -> Token:
        if self.at("OP", text):
            return self.advance()
        tok = self.tok
        if opener is not None and tok.kind == "END":
            raise ParseError(f"unclosed {opener.text!r}", opener.start, opener.end,
                             f"add {text!r} to close it")
        raise ParseError(f"expected {text!r}, found {self._describe(tok)}", tok.start, max(tok.end, tok.start + 1))

    def _describe(self, tok: Token) -> str:
        return "the end of the formula" if tok.kind == "END" else repr(tok.text)

    def enter(self, tok: Token) -> None:
        self.nesting += 1
        if self.nesting > FORMULA_NESTING:
            raise ParseError(f"formula is nested too deeply (more than {FORMULA_NESTING} levels)",
                             tok.start, tok.end, "split it into several cells")

    # -- grammar -------------------------------------------------------
    def formula(self) -> Formula:
        keys = self.keys
        if keys[self.pos] == "END":
            raise ParseError("empty formula", 0, max(len(self.text), 1))
        expr = self.expr()
        display, display_span = None, None
        if keys[self.pos] == "->" and keys[self.pos + 1] == "UNIT":   # the common case: `-> unit` and the end
            unit = self.tokens[self.pos + 1]
            self.pos += 2
            display, display_span = unit.text, (unit.start, unit.end)
        elif keys[self.pos] == "->":
            arrow = self.advance()
            if self.at("NUMBER") and self.tok.text == "1":     # `-> 1`: a plain number (format 10.4)
                one = self.advance()
                display, display_span = "1", (one.start, one.end)
            elif not self.at("UNIT"):
                hint = "a numeric factor is joined to its unit with '*': -> 45*min, -> 0.5/s" \
                    if self.at("NUMBER") else None
                raise ParseError("expected a unit after '->'", arrow.start, arrow.end, hint)
            else:
                unit = self.advance()
                display, display_span = unit.text, (unit.start, unit.end)
        if not self.at("END"):
            tok = self.tok
            if tok.kind == "OP" and tok.text == "->":
                hint = "'->' converts only the whole formula, at its end"
            else:
                hint = None
            raise ParseError(f"unexpected {self._describe(tok)}", tok.start, tok.end, hint)
        return Formula(expr, display, display_span)

    def expr(self) -> Node:
        return self.sum() if self.arithmetic else self.or_()

    def or_(self) -> Node:
        left = self.and_()
        while self.keys[self.pos] == "or":
            self.advance()
            right = self.and_()
            left = Binary("or", left, right, (left.span[0], right.span[1]))
        return left

    def and_(self) -> Node:
        left = self.not_()
        while self.keys[self.pos] == "and":
            self.advance()
            right = self.not_()
            left = Binary("and", left, right, (left.span[0], right.span[1]))
        return left

    def not_(self) -> Node:
        if self.keys[self.pos] == "not":
            tok = self.advance()
            self.enter(tok)
            operand = self.not_()
            self.nesting -= 1
            return Unary("not", operand, (tok.start, operand.span[1]))
        return self.comparison()

    def comparison(self) -> Node:
        left = self.sum()
        if self.keys[self.pos] in _COMPARISON_KEYS:
            op = self.advance().text
            right = self.sum()
            left = Binary(op, left, right, (left.span[0], right.span[1]))
            if self.keys[self.pos] in _COMPARISON_KEYS:
                tok = self.tok
                raise ParseError("comparisons cannot be chained", tok.start, tok.end,
                                 "combine them with 'and': a < b and b < c")
        return left

    # sum, product and factor run for every operand of every formula: an operator's
    # key is its text, so they read `keys` and step `pos` themselves
    def sum(self) -> Node:
        left = self.product()
        keys = self.keys
        while keys[self.pos] in _SUMS:
            op = keys[self.pos]
            self.pos += 1
            right = self.product()
            left = Binary(op, left, right, (left.span[0], right.span[1]))
        return left

    def product(self) -> Node:
        left = self.factor()
        keys = self.keys
        while keys[self.pos] in _PRODUCTS:
            op = keys[self.pos]
            self.pos += 1
            right = self.factor()
            left = Binary(op, left, right, (left.span[0], right.span[1]))
        return left

    def factor(self) -> Node:
        """unary := "-" unary | power;  power := atom ( ("^" | "**") unary )?  (right-associative)

        One method for both levels, and a plain cell name (the most common operand) taken here:
        every operand of every formula passes through it."""
        keys, pos = self.keys, self.pos
        key = keys[pos]
        if key == "-":
            tok = self.advance()
            self.enter(tok)
            operand = self.factor()
            self.nesting -= 1
            return Unary("-", operand, (tok.start, operand.span[1]))
        if key == "NAME" and keys[pos + 1] != "(" and keys[pos + 1] != ".":   # name_or_call's first case
            self.pos = pos + 1
            _kind, text, start, end = self.tokens[pos]
            base: Node = Name(text, None, (start, end))
        else:
            base = self.name_or_call() if key == "NAME" else self.atom()
        if keys[self.pos] in _POWERS:
            tok = self.advance()
            self.enter(tok)
            exponent = self.factor()
            self.nesting -= 1
            return Binary("^", base, exponent, (base.span[0], exponent.span[1]))
        return base

    def atom(self) -> Node:
        tok = self.tokens[self.pos]
        if tok.kind == "NUMBER":
            self.advance()
            value = float(tok.text.replace("_", ""))
            if not math.isfinite(value):  # 1e400, a 400-digit integer: no 64-bit float holds it
                raise ParseError(f"the number {_abridged(tok.text)} is out of range (a 64-bit float holds up to "
                                 "about 1.8e308)", tok.start, tok.end, "write it in a larger unit")
            if self.keys[self.pos] == "UNIT":
                unit = self.advance()
                self.spreadsheet_suffix(tok, unit)
                return Number(value, unit.text, (tok.start, unit.end), (unit.start, unit.end))
            return Number(value, None, (tok.start, tok.end))
        if tok.kind == "KEYWORD" and tok.text in ("true", "false"):
            self.advance()
            return Bool(tok.text == "true", (tok.start, tok.end))
        if tok.kind == "OP" and tok.text == "(":
            self.advance()
            self.enter(tok)
            inner = self.expr()
            self.expect_op(")", tok)
            self.nesting -= 1
            return inner
        if tok.kind == "OP" and tok.text == "[":
            return self.array()
        if tok.kind == "NAME":
            return self.name_or_call()
        if tok.kind == "UNIT":
            raise ParseError(f"unit {tok.text!r} here needs a number before it", tok.start, tok.end,
                             f"write 1 {tok.text}")
        if tok.kind == "END":
            raise ParseError("the formula ends where a value was expected", tok.start, tok.start + 1)
        raise ParseError(f"expected a value, found {tok.text!r}", tok.start, tok.end)

    def spreadsheet_suffix(self, number: Token, unit: Token) -> None:
        """`32k token`, `1.5M`: a spreadsheet's thousand or million glued to a number
        (format 10.4). The prefix belongs on the unit; the hint spells it both ways.
        `128k`/`128K` alone stay the unit slips of format 9.3 (Boltzmann, kelvin)."""
        if unit.text not in _SUFFIXES:
            return
        after = self.tok
        followed = after.kind in ("UNIT", "NAME") and after.start > unit.end
        if not followed and (unit.start != number.end or unit.text in ("k", "K")):
            return
        decimal, binary = _SUFFIXES[unit.text]
        written = number.text
        if followed:
            hint = (f"write the prefix on the unit: {written} {decimal}{after.text} or {written} {binary}{after.text} "
                    f"({decimal}- is {_SCALE[decimal]}, {binary}- is {_SCALE[binary]})")
            end = after.end
        else:
            hint = (f"write the prefix on a unit: {written} {decimal}token, {written} {decimal}B or "
                    f"{written} {binary}B ({decimal}- is {_SCALE[decimal]}, {binary}- is {_SCALE[binary]})")
            end = unit.end
        raise ParseError(f"{self.text[number.start:end]!r} has a spreadsheet suffix ({unit.text}) after the number; "
                         "a prefix is written on the unit", number.start, end, hint)

    def array(self) -> Node:
        opener = self.advance()
        self.enter(opener)
        if self.at("OP", "]"):
            raise ParseError("an array needs at least one element", opener.start, self.tok.end)
        items = [self.expr()]
        while self.at("OP", ","):
            self.advance()
            items.append(self.expr())
        close = self.expect_op("]", opener)
        self.nesting -= 1
        if self.at("UNIT"):
            unit = self.advance()
            return Array(tuple(items), unit.text, (opener.start, unit.end), (unit.start, unit.end))
        return Array(tuple(items), None, (opener.start, close.end))

    def name_or_call(self) -> Node:
        keys, pos = self.keys, self.pos
        if keys[pos + 1] != "(" and keys[pos + 1] != ".":   # a plain cell name, the most common operand
            self.pos = pos + 1
            _kind, text, start, end = self.tokens[pos]
            return Name(text, None, (start, end))
        tok = self.advance()
        if keys[self.pos] == "(":
            opener = self.advance()
            self.enter(opener)
            args: list[Node] = []
            if keys[self.pos] != ")":
                args.append(self.expr())
                while keys[self.pos] == ",":
                    self.pos += 1
                    args.append(self.expr())
            close = self.expect_op(")", opener)
            self.nesting -= 1
            return Call(tok.text, tuple(args), (tok.start, close.end), (tok.start, tok.end))
        if self.keys[self.pos] == ".":
            self.advance()
            if not self.at("NAME"):
                bad = self.tok
                raise ParseError(f"expected a cell name after '{tok.text}.'", bad.start, max(bad.end, bad.start + 1))
            member = self.advance()
            return Name(member.text, tok.text, (tok.start, member.end))
        return Name(tok.text, None, (tok.start, tok.end))


def _abridged(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:10]}…{text[-4:]} ({len(text)} characters)"
