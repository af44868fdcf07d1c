"""Format 9.4, differential: axis values typed by the user come back byte-exact
in a sweep's CSV (`alpha=0.1us,0.2us` writes 0.1 and 0.2, never
0.09999999999999999), compared against the typed text itself."""
from __future__ import annotations

import csv
from decimal import Decimal

from hypothesis import HealthCheck, given, settings, strategies as st

from supersheet.units import parse_unit

UNITS = ["us", "ms", "ns", "min", "h", "GB", "GiB", "KiB/token", "Gbps", "%", "‰", "USD/h", "TFLOP/s", "kW",
         "kWh", "GHz", "ktoken", "token/s"]

# Typed numbers in plain positional notation (as Polars and Python both print them).
typed = st.builds(lambda digits, exponent: Decimal(digits).scaleb(exponent),
                  st.integers(min_value=1, max_value=10**9), st.integers(min_value=-6, max_value=3))


def canonical(number: Decimal) -> str:
    return repr(float(number))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(UNITS), st.lists(typed, min_size=1, max_size=12, unique=True))
def test_typed_axis_values_come_back_byte_exact(tmp_path, run_cli, unit, numbers):
    texts = [canonical(n) for n in numbers]
    if any("e" in t for t in texts):    # exponent notation differs between printers; covered by units tests
        return
    sheet = tmp_path / "axis.yaml"
    sheet.write_text(f"title: axis\ncells:\n  x: 1 {unit}\n  y: = x * 3\n", encoding="utf-8")
    out = tmp_path / "out.csv"
    result = run_cli("sweep", str(sheet), "--vary", "x=" + ",".join(f"{t}{unit}" for t in texts), "-o", str(out))
    assert result.code == 0, result.output
    with out.open(encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0][0] == f"x [{parse_unit(unit).text}]"
    assert [row[0] for row in rows[1:]] == texts


def test_the_issue_example(tmp_path, run_cli):
    sheet = tmp_path / "alpha.yaml"
    sheet.write_text("title: a\ncells:\n  alpha: 0.5 us\n  twice: = 2 * alpha\n", encoding="utf-8")
    out = tmp_path / "out.csv"
    assert run_cli("sweep", str(sheet), "--vary", "alpha=0.1us,0.2us", "-o", str(out)).code == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [line.split(",")[0] for line in lines] == ["alpha [μs]", "0.1", "0.2"]


def test_an_arithmetic_range_steps_through_the_written_decimals(tmp_path, run_cli):
    """`0.1us..0.5us+0.1us` holds the numbers a user would type: 0.3, not
    0.30000000000000004; a range through zero holds 0, not 5.55e-17; a step
    that is no short decimal (1/3) is left as computed."""
    sheet = tmp_path / "alpha.yaml"
    sheet.write_text("title: a\ncells:\n  alpha: 0.5 us\n", encoding="utf-8")

    def column(spec: str) -> list[str]:
        out = tmp_path / "out.csv"
        assert run_cli("sweep", str(sheet), "--vary", spec, "-o", str(out)).code == 0
        return [line.split(",")[0] for line in out.read_text(encoding="utf-8").splitlines()[1:]]

    assert column("alpha=0.1us..0.5us+0.1us") == ["0.1", "0.2", "0.3", "0.4", "0.5"]
    assert column("alpha=-0.3us..0.3us+0.1us") == ["-0.3", "-0.2", "-0.1", "0.0", "0.1", "0.2", "0.3"]
    assert column("alpha=0us..0.3us:4") == ["0.0", "0.1", "0.2", "0.3"]
    assert column("alpha=0us..1us:4") == ["0.0", "0.3333333333333333", "0.6666666666666666", "1.0"]
