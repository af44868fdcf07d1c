"""A typed value the editor reads without YAML's parser (a plain integer, a number
with a one-word unit: roundtrip.py's fast path) is what the parser makes of it,
and the YAML line written for it is the same."""
from __future__ import annotations

import io
import random

from supersheet.editor.roundtrip import _NUMBER_AND_UNIT, _PLAIN_INT, _parsed_yaml_value, _scalar_yaml, _yaml_value, scalar_for


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
