"""git's textconv output changes one line per changed cell (issue 29, item 7): a value that grows
wider does not re-align the other cells, and no line differs between two versions but theirs."""
from __future__ import annotations

import difflib

from supersheet.compare import textconv

SHEET = """title: widths
cells:
  a: {a}
  b: = a * 1000
  c: 5
  d: = c + 1
  longer_name_here: = c * 2
checks:
  small: c < 10
"""


def evaluated(text: str) -> list[str]:
    return text.split("# --- evaluated by supersheet ---\n", 1)[1].splitlines()


def test_a_wider_value_changes_only_its_own_lines(tmp_path):
    path = tmp_path / "sheet.yaml"
    path.write_text(SHEET.format(a=1), encoding="utf-8")
    before = textconv(path, tmp_path)
    path.write_text(SHEET.format(a=123456), encoding="utf-8")
    after = textconv(path, tmp_path)
    changed = [line for line in difflib.ndiff(evaluated(before), evaluated(after)) if line[:2] in ("- ", "+ ")]
    names = sorted({line[2:].split()[1] for line in changed})
    assert names == ["a", "b"] and len(changed) == 4      # a and b (a * 1000), each one line out, one in
    # the unchanged cells keep their columns: the names' from the section's names, the values' own
    rows = {line.split()[1]: line for line in evaluated(after) if line.startswith("#   ")}
    assert rows["c"].index("5") == rows["d"].index("6") == rows["longer_name_here"].index("10")
    assert not before.startswith("# supersheet:")   # a sheet without imports has no first line to differ
