"""A solve's `between` and a choice's (or sweep's) `expect` problems are reported at
their own line and column, not at the block's name (issue 12): `check` lists each
where it is written, so an editor or a CI log jumps to the right place."""
from __future__ import annotations

import re

SHEET = """\
cells:
  n: 4 GB
  t: = n / (2 GB/s)
solve:
  wrong_unit:
    vary: n
    goal: t == 3 s
    between: [1 s, 10 GB]
  reversed:
    vary: n
    goal: t == 3 s
    between: [10 GB, 1 GB]
  equal:
    vary: n
    goal: t == 3 s
    between: [2 GB, 2000 MB]
  infinite:
    vary: n
    goal: t == 3 s
    between: [1 GB, 1e400]
  overflowing:
    vary: n
    goal: t == 3 s
    between: [1 GB, 1e308 PB]
  word:
    vary: n
    goal: t == 3 s
    between: [abc, 10 GB]
  empty:
    vary: n
    goal: t == 3 s
    between: [1 GB, ~]
  one_end:
    vary: n
    goal: t == 3 s
    between: [1 GB]
  expects_time:
    vary: n
    goal: t == 3 s
    between: [1 GB, 10 GB]
    expect: 6 s
choose:
  wrong_kind:
    vary: {n: [1 GB, 2 GB]}
    minimize: t
    expect: {n: 3 s}
  unknown:
    vary: {n: [1 GB, 2 GB]}
    minimize: t
    expect: {t: 0.5 s, nosuch: 3 s}
  not_a_map:
    vary: {n: [1 GB, 2 GB]}
    minimize: t
    expect: [1]
sweeps:
  scalar_expect:
    vary: {n: [1 GB, 2 GB]}
    show: [t]
    expect: {t: 1 s}
  not_shown:
    vary: {n: [1 GB, 2 GB]}
    show: [t]
    expect: {missing: [1, 2]}
"""

EXPECTED = [   # (line:col, code, the message's start after the block's name)
    ("8:15", "E-UNIT", "solve 'wrong_unit': between: 1 s: n is information, not time"),
    ("12:22", "E-SHEET", "solve 'reversed': between: the lower end 10 GB is not below the upper end 1 GB"),
    ("16:21", "E-SHEET", "solve 'equal': between: the lower end 2 GB is not below the upper end 2000 MB"),
    ("20:21", "E-SHEET", "solve 'infinite': between: this end is not a finite number"),
    ("24:21", "E-SHEET", "solve 'overflowing': between: 1e308 PB is not a finite number in base units"),
    ("28:15", "E-SHEET", "solve 'word': between: the ends must be numbers, quantities or booleans, got 'abc'"),
    ("32:21", "E-SHEET", "solve 'empty': an end of 'between' of 'empty' is a number or a quantity, not empty"),
    ("36:5", "E-SHEET", "solve 'one_end': 'between' of 'one_end' is a list of two values"),
    ("41:13", "E-UNIT", "solve 'expects_time': expects_time.n is information, the expectation '6 s' is time"),
    ("46:17", "E-UNIT", "choice 'wrong_kind': wrong_kind.n is information, the expectation '3 s' is time"),
    ("50:24", "E-NAME", "choice 'unknown': expectation names unknown cell 'nosuch'"),
    ("54:5", "E-SHEET", "choice 'not_a_map': a choice's 'expect' maps axes or cells"),
    ("59:17", "E-SHEET", "sweep 'scalar_expect': expectation of 't' must list one value per row"),
    ("63:14", "E-NAME", "sweep 'not_shown': expectation names unknown cell 'missing'"),
]


def test_every_between_and_expect_problem_is_at_its_own_line_and_column(run_cli, write_sheet):
    path = write_sheet(SHEET)
    result = run_cli("check", str(path))
    assert result.code == 2
    found = re.findall(r"^\S*sheet\.yaml:(\d+:\d+): (E-[A-Z]+): (.*)$", result.err, re.MULTILINE)
    assert len(found) == len(EXPECTED), result.err
    found.sort(key=lambda f: tuple(int(n) for n in f[0].split(":")))   # check lists sweeps, solves, choices
    for (where, code, message), (got_where, got_code, got_message) in zip(EXPECTED, found):
        assert (got_where, got_code) == (where, code) and got_message.startswith(message), (got_where, got_message)


def test_a_reversed_between_on_the_command_line_names_the_option(run_cli, write_sheet):
    path = write_sheet(SHEET.split("solve:")[0])
    result = run_cli("solve", str(path), "--vary", "n", "--goal", "t == 3 s", "--between", "10 GB,1 GB")
    assert result.code == 2
    assert "E-SHEET: between: the lower end 10 GB is not below the upper end 1 GB" in result.err
    assert "hint: write the ends in order: --between 1 GB,10 GB" in result.err
    assert run_cli("solve", str(path), "--vary", "n", "--goal", "t == 3 s", "--between", "1 GB,10 GB").code == 0
