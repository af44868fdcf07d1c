"""A typed value the editor reads without YAML's parser (a plain integer, a number
with a one-word unit: roundtrip.py's fast path) is what the parser makes of it,
and the YAML line written for it is the same."""
from __future__ import annotations

import io
import random

from supersheet.editor.roundtrip import (_NUMBER_AND_UNIT, _PLAIN_INT, _parsed_yaml_value, _plain_line, _scalar_yaml,
                                         _yaml_value, scalar_for)


def texts() -> list[str]:
    pick = random.Random(3)
    units = ["GB", "GiB/s", "token", "ms", "%", "TB", "GB/s", "us", "W", "e3", "h.m"]
    found = ["1", "-1", "7", "10", "-42", "123456789012345678901234567890", "1 GB", "1.5 GiB/s", "-2.5e3 token",
             "1e3 GB", "0.5 ms", "3 %", "12.0 W", "0", "-0", "007", "+5", "1_000", "0x1F", "1 GB # note", "1 a: b",
             "true", "1.5", ".5 GB", "1 GB extra", "[1, 2]"]
    for _ in range(400):
        number = pick.choice([str(pick.randint(-10**6, 10**9)), f"{pick.uniform(-1e6, 1e6):.{pick.randint(0, 6)}f}",
                              f"{pick.uniform(0, 10):.3e}"])
        found += [number, f"{number} {pick.choice(units)}"]
    return found


def test_the_fast_path_gives_what_the_parser_gives() -> None:
    yaml = _scalar_yaml()
    fast = 0
    for text in texts():
        value, parsed = _yaml_value(text), _parsed_yaml_value(text)
        assert value == parsed and type(value) is type(parsed), (text, value, parsed)
        if _PLAIN_INT.match(text) or _NUMBER_AND_UNIT.match(text):
            out = io.StringIO()
            yaml.dump({"a": scalar_for(text, None, yaml)}, out)
            assert out.getvalue() == f"a: {text}\n", (text, out.getvalue())
            fast += 1
    assert fast >= 500, fast


def test_a_line_written_without_the_emitter_is_the_emitters() -> None:
    """`key: value` for a typed value under a cell's name (roundtrip.py's `_plain_line`)
    is the line YAML's emitter writes, for names it would quote (`true`, `1e3`) too."""
    yaml = _scalar_yaml()
    names = ["x0", "a", "_a", "a_b", "decode_unit", "true", "False", "null", "NULL", "on", "yes", "y", "No", "NaN",
             "1e3", ".inf", "x" * 64, "x" * 65, "a.b", "a-b", "é"]
    written = 0
    for name in names:
        for text in texts():
            value = scalar_for(text, None, yaml)
            line = _plain_line(name, value, yaml)
            if line is None:
                continue
            out = io.StringIO()
            yaml.dump({name: value}, out)
            assert out.getvalue() == line + "\n", (name, text, out.getvalue(), line)
            written += 1
    assert written >= 500 * 11, written      # 11 of the names are written plainly
    assert _plain_line("true", 5, yaml) is None and _plain_line("1e3", 5, yaml) is None
    assert _plain_line("x", 1.5, yaml) is None and _plain_line("x", "1 GB # note", yaml) is None
