"""A tab in a sheet's line, in a diagnostic's excerpt: shown as the spaces to the next
tab stop (it was shown as `?`, one character wide, so the excerpt was not the line a
user sees in an editor), the marks under the characters they point at, and the column
in the headline the character's own (format section 7: a 1-based column into the file,
where a tab is one character)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from supersheet.engine.base.diagnostics import SHOWN_LINE, TAB_STOP, Diagnostic, SourceCache, render
from supersheet.engine.base.span import Span

# `b` is a formula in a double-quoted scalar (YAML allows a tab there) with two tabs
# before an unknown name; `d` starts with one and adds a time to a size (a label
# under `a`, the problem under `1 s`); `e` is a long line with a tab, cut around its column.
SHEET = ('cells:\n  a: 1 GB\n  b: "= a +\t\tnonesuch * 2"\n  d: "\t= a + 1 s"  # x\n'
         '  e: "= a +\t' + "a + " * 60 + '\tnonesuch_too"\n')


def excerpts(stderr: str) -> dict[str, list[str]]:
    """Each diagnostic's headline -> its excerpt lines after the gutter (`  N | `)."""
    shown: dict[str, list[str]] = {}
    for block in stderr.strip().split("\n\n"):
        headline, *rest = block.splitlines()
        shown[headline] = [line.split("| ", 1)[1] if "| " in line else "" for line in rest if "|" in line]
    return shown


def test_a_tab_is_shown_as_spaces_and_the_marks_stay_under_their_characters(tmp_path: Path, run_cli) -> None:
    sheet = tmp_path / "s.yaml"
    sheet.write_text(SHEET, encoding="utf-8")
    result = run_cli("check", str(sheet))
    assert result.code == 2, result.output
    shown = excerpts(result.err)
    lines = SHEET.splitlines()
    checked = 0
    for headline, (line, marks, *labels) in shown.items():
        number, column = map(int, re.search(r":(\d+):(\d+): E-", headline).groups())
        written = lines[number - 1]
        assert "\t" not in line and "?" not in line, line
        # the headline's column is the character's in the file, tabs counted as one
        name = re.search(r"'(\w+)'|and (s) \(time\)", headline)
        target = next(g for g in name.groups() if g) if name else None
        if target == "s":
            target = "1 s"
        assert written[column - 1:].startswith(target), (headline, written)
        # the caret is under the same text in the excerpt as the column is in the file
        caret = marks.index("^")
        assert line[caret:].startswith(target), (line, marks)
        if len(written) <= SHOWN_LINE:     # a line shown whole is the file's line with its tabs expanded
            assert line == written.expandtabs(TAB_STOP), (line, written)
        if labels:                          # `GB` stands under `a`, as the `~` does
            assert line[marks.index("~")] == "a" and labels[0][marks.index("~"):].startswith("GB"), labels
        checked += 1
    assert checked == 3, shown


@pytest.mark.parametrize("line", ["x\ty", "\t\tz", "ab\tc\td\te"])
def test_the_marks_of_every_character_of_a_tabbed_line(line: str) -> None:
    """Every character of a tabbed line, marked alone, is marked where it is shown."""
    sources = SourceCache({"f.yaml": [line]})
    expanded = line.expandtabs(TAB_STOP)
    marked = 0
    for index, char in enumerate(line):
        span = Span("f.yaml", 1, index + 1, index + 2)
        out = render(Diagnostic("E-PARSE", "here", span), sources).splitlines()
        marks = out[2].split("| ", 1)[1]
        start = len(line[:index].expandtabs(TAB_STOP))
        width = len(line[:index + 1].expandtabs(TAB_STOP)) - start
        assert out[0].startswith(f"f.yaml:1:{index + 1}: ") and out[1].split("| ", 1)[1] == expanded
        assert marks == " " * start + "^" * width, (char, marks)
        marked += 1
    assert marked == len(line)
