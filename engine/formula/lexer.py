"""Formula text -> tokens.

Units are lexical: a unit is the run of unit characters that directly follows a
number or a closing `]` (after at most one space), or follows `->`. A name
anywhere else is a cell name, so cells and units never compete (spec §3.3).
"""
from __future__ import annotations

import re
from typing import NamedTuple

from supersheet.engine.base.vocabulary import RESERVED


OPERATORS = ("->", "**", "<=", ">=", "==", "!=", "+", "-", "*", "/", "^", "<", ">", "(", ")", "[", "]", ",", ".")

_UNIT_START = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_%‰μµ°Ω")
_UNIT_BODY = _UNIT_START | set("0123456789")


def _is_digit(c: str) -> bool:
    """ASCII digits only: str.isdigit() accepts '²' and other characters float() rejects."""
    return "0" <= c <= "9"


class Token(NamedTuple):
    kind: str   # NUMBER UNIT NAME OP KEYWORD END
    text: str
    start: int
    end: int


class LexError(Exception):
    """A syntax error in a formula, with the character span it concerns."""

    def __init__(self, message: str, start: int, end: int, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.start = start
        self.end = end
        self.hint = hint


# The common tokens in one regular expression, scanned with finditer (tokenizing was
# a third of loading a large sheet's formulas): each group takes exactly what the
# character loop (`_one_token`) would take, and anything else (non-ASCII names, `.5`,
# exponents, `1_000`, `5e`, a unit with `*`, `/` or `^`, a unit before `(`, `5 or b`)
# is left to that loop, one token, after which the scan resumes. `\s` is str.isspace
# and `\w` is str.isalnum or `_`. A unit is taken here only where `_scan_unit` would
# end it: before a blank, `)`, `]`, `,`, an operator character that cannot continue a
# unit, or the end.
_U_START = "A-Za-z_%‰μµ°Ω"
_UNIT = rf"[{_U_START}][{_U_START}0-9]*(?=[\s)\],+\-<>=!]|\Z)"
_SCAN = re.compile(
    r"\s*(?:(\Z)"                                                     # 1 the end (after blanks)
    r"|([A-Za-z_]\w*)"                                                # 2 a name or keyword
    r"|([0-9]+(?:\.[0-9]*)?)(?![0-9_.eE])"                            # 3 a number ...
    rf"(?: ?(?!(?:and|or|not|true|false)(?=[\s)\],+\-<>=!]|\Z))({_UNIT})"  # 4 ... with its unit
    rf"|(?! ?[{_U_START}]))"                                          #   ... or plainly none
    rf"|(\*\*|<=|>=|==|!=|[+*/^<>(),\[]|-(?!>)|\.(?![0-9])|\](?! ?[{_U_START}]))"  # 5 an operator
    rf"|->( *)({_UNIT})"                                              # 6, 7 `->` and its unit
    r"|())"                                                           # 8 anything else: the loop
)
_new_token = tuple.__new__   # Token(...) without its Python-level __new__: one per token of every formula


def tokenize(text: str, common_tokens: bool = True) -> list[Token]:
    """`common_tokens=False` takes the character loop for everything (tests compare the two)."""
    return scan(text, common_tokens)[0]


def key_of(token: Token) -> str:
    """What a token is to the grammar: an operator's or keyword's text, else its kind."""
    return token[1] if token[0] == "OP" or token[0] == "KEYWORD" else token[0]


def scan(text: str, common_tokens: bool = True) -> tuple[list[Token], list[str]]:
    """The tokens of `text` and each one's `key_of` (the parser tests keys, listed as they are made)."""
    tokens: list[Token] = []
    keys: list[str] = []
    append, key = tokens.append, keys.append
    i, n = 0, len(text)
    while i < n:
        if common_tokens:
            for match in _SCAN.finditer(text, i):
                group = match.lastindex
                if group == 2:
                    word = match.group(2)
                    if word in RESERVED:
                        append(_new_token(Token, ("KEYWORD", word, *match.span(2))))
                        key(word)
                    else:
                        append(_new_token(Token, ("NAME", word, *match.span(2))))
                        key("NAME")
                elif group == 5:
                    op = match.group(5)
                    append(_new_token(Token, ("OP", op, *match.span(5))))
                    key(op)
                elif group == 3:
                    append(_new_token(Token, ("NUMBER", match.group(3), *match.span(3))))
                    key("NUMBER")
                elif group == 4:
                    append(_new_token(Token, ("NUMBER", match.group(3), *match.span(3))))
                    append(_new_token(Token, ("UNIT", match.group(4), *match.span(4))))
                    key("NUMBER")
                    key("UNIT")
                elif group == 7:
                    start = match.start(6) - 2
                    append(_new_token(Token, ("OP", "->", start, start + 2)))
                    append(_new_token(Token, ("UNIT", match.group(7), *match.span(7))))
                    key("->")
                    key("UNIT")
                elif group == 1:
                    i = n
                    break
                else:   # the loop takes this one token
                    i = match.start(8)
                    break
            if i >= n:
                break
        i = _one_token(text, i, tokens)
        keys.extend(key_of(t) for t in tokens[len(keys):])
    tokens.append(_new_token(Token, ("END", "", n, n)))
    keys.append("END")
    return tokens, keys


def _one_token(text: str, i: int, tokens: list[Token]) -> int:
    """The character loop: the token at `i` (and a unit after it) appended, or blanks skipped;
    where the scan goes on."""
    n = len(text)
    c = text[i]
    if c.isspace():
        return i + 1
    if _is_digit(c) or (c == "." and i + 1 < n and _is_digit(text[i + 1])):
        end = _scan_number(text, i)
        tokens.append(Token("NUMBER", text[i:end], i, end))
        return _maybe_unit(text, end, tokens)
    if c.isalpha() or c == "_":
        end = i + 1
        while end < n and (text[end].isalnum() or text[end] == "_"):
            end += 1
        word = text[i:end]
        tokens.append(Token("KEYWORD" if word in RESERVED else "NAME", word, i, end))
        return end
    for op in OPERATORS:
        if text.startswith(op, i):
            tokens.append(Token("OP", op, i, i + len(op)))
            i += len(op)
            if op == "]":
                i = _maybe_unit(text, i, tokens)
            elif op == "->":
                i = _arrow_unit(text, i, tokens)
            return i
    raise LexError(f"unexpected character {c!r}", i, i + 1)


def _scan_number(text: str, i: int) -> int:
    n = len(text)
    end = i
    while end < n and (_is_digit(text[end]) or text[end] == "_"):
        end += 1
    if end < n and text[end] == "." and end + 1 <= n:
        end += 1
        while end < n and (_is_digit(text[end]) or text[end] == "_"):
            end += 1
    if end < n and text[end] in "eE":
        k = end + 1
        if k < n and text[k] in "+-":
            k += 1
        if k < n and _is_digit(text[k]):
            while k < n and _is_digit(text[k]):
                k += 1
            end = k
        elif k == n or not (text[k].isalnum() or text[k] in "_·µμ°%/*^"):
            # `1e`, `2.5E+`: an exponent without digits, not the elementary charge written against the number
            raise LexError(f"the exponent of {text[i:k]!r} has no digits", i, k,
                           f"a power of ten is written with its digits: {text[i:end]}e3")
    if text[end - 1] == "_":
        raise LexError("a number cannot end with _", i, end)
    return end


def _scan_unit(text: str, i: int) -> int:
    """End of the unit starting at i: names joined by * / · and ^powers."""
    n = len(text)
    end = i
    while end < n:
        c = text[end]
        if c in _UNIT_BODY:
            end += 1
        elif c in "*/·" and end + 1 < n and (text[end + 1] in _UNIT_START or text[end + 1] == "1"):
            if c == "*" and text.startswith("**", end):
                k = end + 2
                if k < n and text[k] == "-":
                    k += 1
                if k < n and _is_digit(text[k]):
                    end = k
                    continue
                break
            end += 1
        elif c == "^" or text.startswith("**", end):
            k = end + (2 if c == "*" else 1)
            if k < n and text[k] == "-":
                k += 1
            if k < n and _is_digit(text[k]):
                while k < n and (_is_digit(text[k]) or text[k] == "."):
                    k += 1
                end = k
            else:
                break
        else:
            break
    return end


def _maybe_unit(text: str, i: int, tokens: list[Token]) -> int:
    """A unit right after a number or `]`, with at most one space between."""
    j = i + 1 if i < len(text) and text[i] == " " else i
    if j >= len(text) or text[j] not in _UNIT_START:
        return i
    end = _scan_unit(text, j)
    word_end = j
    while word_end < len(text) and (text[word_end].isalnum() or text[word_end] == "_"):
        word_end += 1
    if text[j:word_end] in RESERVED and end == word_end:
        return i  # `5 or b`: a keyword, not a unit
    if end < len(text) and text[end] == "(":
        return i  # `2 log2(x)` is a function call after a number; the parser reports it
    tokens.append(Token("UNIT", text[j:end], j, end))
    return end


def _arrow_unit(text: str, i: int, tokens: list[Token]) -> int:
    """The unit after `->`: everything `unit:` accepts, including a leading
    numeric factor (`-> 45*min`, `-> 0.5/s`, `-> 1/s`)."""
    j = i
    while j < len(text) and text[j] == " ":
        j += 1
    if j >= len(text):
        return i
    if _is_digit(text[j]) or (text[j] == "." and j + 1 < len(text) and _is_digit(text[j + 1])):
        number_end = _scan_number(text, j)
        end = _scan_unit(text, number_end) if text[number_end:number_end + 1] in ("*", "/", "·") else number_end
        if end == number_end:
            return i   # a bare number is no unit: the parser says a unit is expected
    elif text[j] in _UNIT_START:
        end = _scan_unit(text, j)
    else:
        return i
    tokens.append(Token("UNIT", text[j:end], j, end))
    return end
