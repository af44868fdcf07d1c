"""Quick fixes: the hints that name a replacement (`did you mean "GB/s"?`,
`did you mean hbm_bandwidth?`, `write "131072 token" or "128 Kitoken"`) as
edits of the text — offered only when the edit is checked to fix the problem.

A hint names a replacement in words, not a range: `128K` is reported at `K`
while its fix replaces `128K`. So each candidate edit (the reported text
replaced, or the number before it too) is applied to a copy of the sheet and
the copy checked again; only an edit after which that diagnostic is gone, and
no new problem has come, is offered. Pure Python: no UI or protocol imports.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from supersheet.editor.language import Snapshot

__all__ = ["Fix", "quick_fixes"]

_QUOTED = re.compile(r'"([^"\n]{1,80})"')
_MEANT = re.compile(r"did you mean `?([A-Za-z_][\w.]*)`?\?")
_NUMBER_BEFORE = re.compile(r"\d[\d_.]*(?:[eE][+-]?\d+)?\s*$")
MAX_CANDIDATES = 4      # each costs a check of the sheet


@dataclass(frozen=True)
class Fix:
    title: str
    line: int       # 1-based
    start: int      # 1-based character columns of the text replaced, end exclusive
    end: int
    text: str


def quick_fixes(snapshot: Snapshot, code: str, line: int, start: int, end: int, hint: str) -> list[Fix]:
    """The verified fixes of the diagnostic `code` at line:start-end whose hint is `hint`."""
    primary = re.split(r"[(;]", hint, maxsplit=1)[0]     # the fix itself, not its asides ("128 ktoken" is 128,000)
    words = [m.group(1) for m in _QUOTED.finditer(primary)] + [m.group(1) for m in _MEANT.finditer(primary)]
    lines = snapshot.text().split("\n")
    if not words or not 1 <= line <= len(lines):
        return []
    row = lines[line - 1]
    candidates: list[Fix] = []
    for word in dict.fromkeys(words):
        number = _NUMBER_BEFORE.search(row[:start - 1])
        if number is not None and word[:1].isdigit():     # `128K` -> `131072 token`: the number goes too
            candidates.append(Fix(f"Replace {row[number.start():end - 1]} with {word}", line, number.start() + 1,
                                  end, word))
        else:
            candidates.append(Fix(f"Replace with {word}", line, start, end, word))
    before = _problems(snapshot)
    return [fix for fix in candidates[:MAX_CANDIDATES] if _fixes(snapshot, fix, code, before)]


def _fixes(snapshot: Snapshot, fix: Fix, code: str, before: set[tuple[str, int]]) -> bool:
    lines = snapshot.text().split("\n")
    row = lines[fix.line - 1]
    if not (0 < fix.start <= fix.end <= len(row) + 1):
        return False
    lines[fix.line - 1] = row[:fix.start - 1] + fix.text + row[fix.end - 1:]
    try:
        after = _problems(Snapshot(snapshot.path, "\n".join(lines)))
    except Exception:  # noqa: BLE001 - an edit that breaks the sheet is no fix
        return False
    return (code, fix.line) not in after and after <= before


def _problems(snapshot: Snapshot) -> set[tuple[str, int]]:
    return {(d.code, span.line) for d, span in snapshot.located_problems()}
