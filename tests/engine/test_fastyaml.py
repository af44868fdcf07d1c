"""The fast read path (engine/load/fastyaml.py) builds exactly the document the
round-trip loader builds — values, their YAML 1.2 types, positions — or
declines, and the round-trip loader reads the text."""
from __future__ import annotations


import re

import pytest
from hypothesis import given, strategies as st
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from supersheet.engine.load import fastyaml
from supersheet.engine.load.sheet import yaml_loader
from repo_paths import REPO

pytestmark = pytest.mark.skipif(not fastyaml.available(), reason="PyYAML's libyaml parser is not installed")


def same(a, b, path: str = "$") -> str | None:
    """None when a and b are the same document (types, values, positions, flow style)."""
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, CommentedMap):
        if list(a) != list(b) or (a.lc.line, a.lc.col) != (b.lc.line, b.lc.col):
            return f"{path}: keys or position"
        for k in a:
            if a.lc.key(k) != b.lc.key(k) or a.lc.value(k) != b.lc.value(k):
                return f"{path}.{k}: position"
            if found := same(a[k], b[k], f"{path}.{k}"):
                return found
        return None
    if isinstance(a, CommentedSeq):
        if len(a) != len(b) or a.fa.flow_style() != b.fa.flow_style():
            return f"{path}: length or style"
        for i, (x, y) in enumerate(zip(a, b)):
            if a.lc.item(i) != b.lc.item(i):
                return f"{path}[{i}]: position"
            if found := same(x, y, f"{path}[{i}]"):
                return found
        return None
    return None if a == b or (a != a and b != b) else f"{path}: {a!r} vs {b!r}"


TRICKY = """\
a: yes
b: no
c: on
d: 0o17
e: 017
f: 1_000
g: .inf
h: ~
i: 2001-12-14
j: 'single ''quoted'''
k: "double"
l: |
  block
  two
m: >
  folded
n: [1, 2.5, x, {p: 1}]
o: 0x1F
q: 1e3
r: +1
s: True
t: 12:30
u: é ü
v: = a != b
w: 5 %
cells:
  a: 1 GB
  b: = a * 2 -> GB
"""


@pytest.mark.parametrize("text", [TRICKY, "\ufeffcells:\r\n  a: 1 GB\r\n  b: = a * 2\r\n", "- 1\n- [2,\n  3]\n"])
def test_tricky_documents_are_identical(text):
    fast = fastyaml.load_fast(text, yaml_loader())
    assert fast is not None
    assert same(fast, yaml_loader().load(text)) is None


@pytest.mark.parametrize("text", ["a: 1\n2: x\n", "'q': 1\nb: {c: d}\n", "a:\n  b: 1\n  true: 2\n",
                                  "a: {}\nb: []\nc: {x: [1, {y: z}]}\n", "a: {b: c, d: 1.50}\n",
                                  "a: ~\nb: ''\nc: 'x'\nd: \"y\"\ne: null\nf: = g\n"])
def test_mappings_with_keys_that_are_not_plain_text_are_identical(text):
    """The direct builder (_Direct) takes plain keys only; a document with another key is
    converted whole, and reads the same either way."""
    fast = fastyaml.load_fast(text, yaml_loader())
    assert fast is not None
    assert same(fast, yaml_loader().load(text)) is None


def test_every_sheet_in_the_repository_reads_the_same():
    paths = [p for p in REPO.rglob("*.yaml") if ".venv" not in p.parts]
    assert len(paths) > 50
    fast_count = 0
    for path in paths:
        text = path.read_text(encoding="utf-8")
        fast = fastyaml.load_fast(text, yaml_loader())
        if fast is None:
            continue
        fast_count += 1
        assert same(fast, yaml_loader().load(text)) is None, path
    assert fast_count > len(paths) * 0.8


@pytest.mark.parametrize("text", [
    "a: !!python/object/apply:os.system [ls]\n",   # tags: refused by the round-trip path with a position
    "base: &b {x: 1}\nc:\n  <<: *b\n",              # merge keys: refused there too
    "%YAML 1.1\n---\na: yes\n",                     # a directive changes what scalars mean
    "x: &a {b: 1}\ny: *a\n",                        # aliases: only the bounded loader counts their expansion
    "a: 1\na: 2\n",                                 # duplicate keys: the round-trip loader words it
    "cells:\n\ta: 1\n",                             # invalid YAML
    "cells:\n  a:\t1\n",                            # a tab libyaml takes and the round-trip loader refuses
    "cells:\n  c: = a +\tb\n",                      # the same, inside a plain scalar
    "",
])
def test_declines_what_the_round_trip_loader_must_read(text):
    assert fastyaml.load_fast(text, yaml_loader()) is None


# what sends a sheet to the round-trip loader, as one regex: an explicit tag ('!' not in '!='),
# a merge key, a directive line, an anchor, a tab
UNLIKE = re.compile(r"!(?!=)|<<|^%|&|\t", re.MULTILINE)


@given(st.text(alphabet="!=<%&\n\r \ta", max_size=12))
def test_what_declines_is_found_as_the_regex_finds_it(text):
    """`_unlike` (substrings, for speed on a large sheet) says what the regex says, on every
    arrangement of the characters its alternatives are made of."""
    assert fastyaml._unlike(text) == (UNLIKE.search(text) is not None)


def test_small_sheets_are_read_without_importing_pyyaml_until_they_add_up(tmp_path):
    """A process reads its first sheets with the round-trip loader until they reach BREAK_EVEN
    bytes (importing PyYAML costs more than that); then libyaml reads this one and every later one."""
    import json
    import subprocess
    import sys
    small = "cells:\n  a: 1 GB\n  b: = a * 2 -> GB\n" + "".join(f"  c{i}: {i} s\n" for i in range(40))
    (tmp_path / "small.yaml").write_text(small, encoding="utf-8")
    probe = (
        "import json, sys\n"
        "from supersheet.engine.load import fastyaml\n"
        "from supersheet.engine.load.sheet import load_sheet\n"
        "seen, read = [], 0\n"
        f"while read < fastyaml.BREAK_EVEN + {len(small)}:\n"
        f"    sheet = load_sheet({str(tmp_path / 'small.yaml')!r})\n"
        "    assert not sheet.diagnostics and len(sheet.cells) == 42\n"
        f"    read += {len(small)}\n"
        "    seen.append([read, 'yaml' in sys.modules])\n"
        "print(json.dumps(seen))\n")
    result = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert [imported for read, imported in seen] == [read >= fastyaml.BREAK_EVEN for read, _ in seen]
    assert seen[0] == [len(small), False] and seen[-1][1] is True


@pytest.mark.parametrize("head, imported", [("use:\n  b: base.yaml\n", True), ("extends: base.yaml\n", True),
                                            ("title: uses\n", False)])
def test_a_small_sheet_that_names_others_is_read_by_libyaml_at_once(head, imported, tmp_path):
    """A sheet with `use:` or `extends:` will have its imports read too: libyaml is imported for it
    at once instead of after BREAK_EVEN bytes (the same document either way)."""
    import json
    import subprocess
    import sys
    (tmp_path / "s.yaml").write_text(head + "cells:\n  a: 1 GB\n", encoding="utf-8")
    probe = ("import json, sys\n"
             "from supersheet.engine.load.sheet import load_sheet\n"
             f"sheet = load_sheet({str(tmp_path / 's.yaml')!r})\n"
             "print(json.dumps([len(sheet.cells), 'yaml' in sys.modules]))\n")
    result = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [1, imported]


def test_a_tab_is_read_the_same_whatever_the_process_read_before(tmp_path):
    """libyaml takes a tab after a key's colon or inside a plain scalar, which the round-trip
    loader refuses: a sheet with one was E-YAML when read first (`supersheet check tab.yaml`)
    and checked, or reported E-UNIT, once a sheet with `use:` had brought libyaml in
    (`supersheet check decode.yaml tab.yaml`). Either way it is now the round-trip loader's E-YAML."""
    import json
    import subprocess
    import sys
    tabbed = "title: tabs\ncells:\n  a: 3 GB\n  b: 2 s\n  c: = a +\tb\n"
    for name in ("first.yaml", "again.yaml"):   # two files: no cache of the first read answers the second
        (tmp_path / name).write_text(tabbed, encoding="utf-8")
    (tmp_path / "base.yaml").write_text("title: base\ncells:\n  x: 1 GB\n", encoding="utf-8")
    (tmp_path / "user.yaml").write_text("title: user\nuse:\n  b: base.yaml\ncells:\n  y: = b.x\n",
                                        encoding="utf-8")
    probe = ("import json, sys\n"
             "from supersheet.engine.load.sheet import load_sheet\n"
             "def said(name):\n"
             f"    sheet = load_sheet({str(tmp_path)!r} + '/' + name)\n"
             "    return [[d.code, d.span.line, d.span.col] for d in sheet.diagnostics]\n"
             "first = said('first.yaml')\n"
             "assert not said('user.yaml') and 'yaml' in sys.modules   # libyaml is in now\n"
             "print(json.dumps([first, said('again.yaml')]))\n")
    result = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    first, again = json.loads(result.stdout)
    assert first == again
    assert [code for code, *_ in first] == ["E-YAML"]
