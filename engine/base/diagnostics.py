"""The one diagnostic type of every pipeline stage, and its plain-text rendering.

Stages return lists of `Diagnostic` instead of raising, so a sheet reports all
of its problems at once and the UI can keep its last good values.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from supersheet.engine.base.sheetroot import UnreadableSheet, read_sheet_text
from supersheet.engine.base.span import Span

# Every code a diagnostic can carry, each documented in docs/format.md ("Diagnostics");
# tests/engine/test_codes.py checks that every code the source writes is here and there.
CODES = (
    "E-YAML", "E-SHEET", "E-PARSE", "E-NAME", "E-UNIT", "E-TYPE",
    "E-CYCLE", "E-IMPORT", "E-SOLVE", "E-EXPECT", "E-ASSUME", "E-VALUE", "E-CHECK",
)


@dataclass(frozen=True, slots=True)
class Label:
    """A secondary place a diagnostic points at, with what to say there."""
    span: Span
    text: str = ""


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem: its code, message, place, labels and hint."""
    code: str
    message: str
    span: Span | None
    labels: tuple[Label, ...] = ()
    hint: str | None = None
    quote: bool = True      # False: never print the file's line (a file that is not a sheet)

    def headline(self) -> str:
        where = f"{self.span}: " if self.span else ""
        return f"{where}{self.code}: {bounded(self.message)}"

    @property
    def is_failed_expectation(self) -> bool:
        """An `expect:` that does not hold (E-EXPECT): the sheet is valid and computes, a value
        just differs from the one written down, so no command refuses the sheet for it."""
        return self.code == "E-EXPECT"


def sheet_problems(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics that make a sheet invalid: all but its failing expectations."""
    return [d for d in diagnostics if not d.is_failed_expectation]


def unknown_cell(name: str, hint: str | None = None, span: Span | None = None, by: str = "") -> Diagnostic:
    """E-NAME for a name that is no cell of the sheet, with its did-you-mean `hint`; `by` says
    what names it (`expectation`, `'show'`): `expectation names unknown cell 'x'`."""
    return Diagnostic("E-NAME", f"{by} names unknown cell {name!r}" if by else f"unknown cell {name!r}", span,
                      hint=hint)


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """The closest candidate to a misspelt word, as a hint, or None."""
    import difflib   # deferred: difflib (~1 ms at every start of the command): only a misspelling needs it
    pool = sorted(set(candidates))
    match = difflib.get_close_matches(word, pool, n=1, cutoff=0.6)
    if not match:
        lowered = {c.lower(): c for c in pool}
        match = [lowered[word.lower()]] if word.lower() in lowered else []
    return f"did you mean {match[0]}?" if match else None


def escaped(text: object, limit: int = 120) -> str:
    """`text` with control and other unprintable characters escaped, cut at `limit`."""
    text = str(text)
    short = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text[:limit])
    return short + ("…" if len(text) > limit else "")


# How much of what a message quotes is shown (docs/security.md): a name or value in quotes,
# any other word (a path, an unquoted name or number), and a whole message or hint.
QUOTED_LIMIT = 40
WORD_LIMIT = 200
MESSAGE_LIMIT = 2000
_QUOTED = re.compile(r"'[^'\s]{%d,}'|\"[^\"\s]{%d,}\"" % (QUOTED_LIMIT + 1, QUOTED_LIMIT + 1))
_WORD = re.compile(r"\S{%d,}" % (WORD_LIMIT + 1))


def bounded(message: str) -> str:
    """A message with what it quotes cut to size, whatever a sheet or a command line put
    into it (a 20,000-character name is shown by its first 40 characters and its length)."""
    if len(message) <= QUOTED_LIMIT:
        return message
    message = _QUOTED.sub(lambda m: _cut(m.group(0)[1:-1], QUOTED_LIMIT, m.group(0)[0]), message)
    message = _WORD.sub(lambda m: _cut(m.group(0), WORD_LIMIT), message)
    if len(message) > MESSAGE_LIMIT:
        message = message[:MESSAGE_LIMIT] + f"… (message cut at {MESSAGE_LIMIT:,} of {len(message):,} characters)"
    return message


def _cut(text: str, limit: int, quote: str = "") -> str:
    return f"{quote}{text[:limit]}…{quote} ({len(text):,} characters)"


def excerpt(value: object, limit: int = 40) -> str:
    """A value from a file, quoted for a message: short and escaped."""
    return f"'{escaped(value, limit)}'" if isinstance(value, str) else escaped(repr(value), limit)


SHOWN_LINE = 160     # characters of a source line a diagnostic shows around its column


@dataclass
class SourceCache:
    """Lines of the files diagnostics point into, read once."""

    texts: dict[str, list[str]] = field(default_factory=dict)

    def line(self, file: str, line: int) -> str | None:
        if file not in self.texts:
            try:
                self.texts[file] = read_sheet_text(Path(file)).splitlines()
            except (OSError, UnreadableSheet):
                self.texts[file] = []
        lines = self.texts[file]
        return lines[line - 1] if 0 < line <= len(lines) else None


def render(diagnostic: Diagnostic, sources: SourceCache | None = None) -> str:
    """`path:line:col: CODE: message`, the source line with the span
    underlined (^ for the problem, ~ for secondary labels), label texts, hint."""
    sources = sources or SourceCache()
    out = [diagnostic.headline()]
    span = diagnostic.span
    if span is not None and diagnostic.quote:
        text = sources.line(span.file, span.line)
        if text is not None:
            text, shift, place = _shown(text, span.col)
            gutter = f"{span.line:>5} | "
            out.append(gutter + text)
            marks = [" "] * (len(text) + 1)     # one past the end: a span at the end of the line

            def underline(start: Span, mark: str, over: bool) -> None:
                for i in range(place(max(0, start.col - 1 - shift)), place(max(0, start.end_col - 1 - shift))):
                    if i < len(marks) and (over or marks[i] == " "):
                        marks[i] = mark
            same_line = [l for l in diagnostic.labels
                         if l.span.file == span.file and l.span.line == span.line]
            for label in same_line:
                underline(label.span, "~", over=False)
            underline(span, "^", over=True)
            out.append(" " * (len(gutter) - 2) + "| " + "".join(marks).rstrip())
            notes = _label_row(same_line, place) if not shift else ""
            if notes:
                out.append(" " * (len(gutter) - 2) + "| " + notes)
    for label in diagnostic.labels:
        if label.text and span is not None and (label.span.line != span.line or label.span.file != span.file):
            out.append(f"note: {label.span}: {bounded(label.text)}")
    if diagnostic.hint:
        out.append(f"hint: {bounded(diagnostic.hint)}")
    return "\n".join(out)


TAB_STOP = 8     # a tab in a shown line: spaces to the next multiple of 8, as a terminal shows it


def _shown(text: str, col: int) -> tuple[str, int, Callable[[int], int]]:
    """The line as shown, how many characters were cut from its start, and where its
    character at an index is shown (`place`): a long line cut to a window around column
    `col`; a tab expanded to the next tab stop and other control characters shown as `?`,
    so the marks under the line stay under the characters they point at. The column a
    diagnostic reports stays the character's (format: a 1-based column into the file;
    a tab is one)."""
    shift = 0
    if len(text) > SHOWN_LINE:
        shift = max(0, min(col - 1 - SHOWN_LINE // 4, len(text) - SHOWN_LINE))
        text = text[shift:shift + SHOWN_LINE]
    if text.isprintable():
        return text, shift, lambda i: i
    shown: list[str] = []
    starts: list[int] = []
    for c in text:
        starts.append(len(shown))
        if c == "\t":
            shown.extend(" " * (TAB_STOP - len(shown) % TAB_STOP))
        else:
            shown.append(c if c.isprintable() else "?")
    end = len(text)
    return "".join(shown), shift, lambda i: starts[i] if i < end else len(shown) + i - end


def _label_row(labels: list[Label], place: Callable[[int], int]) -> str:
    """Label texts placed under their spans where they do not collide."""
    row = ""
    for label in sorted((l for l in labels if l.text), key=lambda l: l.span.col):
        start = place(label.span.col - 1)
        if len(row) > start - 1 and row:
            row += "  " + label.text
        else:
            row = row.ljust(start) + label.text
    return row


def render_all(diagnostics: Iterable[Diagnostic], sources: SourceCache | None = None) -> str:
    sources = sources or SourceCache()
    return "\n\n".join(render(d, sources) for d in diagnostics)


def sort_key(d: Diagnostic) -> tuple:
    if d.span is None:
        return ("", 0, 0, d.code)
    return (d.span.file, d.span.line, d.span.col, d.code)
