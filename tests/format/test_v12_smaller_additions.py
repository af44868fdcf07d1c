"""Format 10.4: `-> 1` converts to a plain number; a spreadsheet suffix after a
number (`32k token`, `1.5M`) is E-PARSE with a hint that spells the unit prefix;
`128K` (kelvin) hints `131072 token` or `128 Kitoken`."""
from __future__ import annotations

import pytest


def test_to_one_is_a_plain_number_in_every_output(write_sheet, run_cli):
    sheet = write_sheet("cells:\n  share: = 3 GiB / 12 GiB -> 1\n  ratio: = 1 GB / 1 GiB -> 1\n"
                        "  rate: = 3 ms * 2 kHz -> 1\n")
    text = run_cli("run", str(sheet))
    assert text.code == 0
    assert [line.split()[:2] for line in text.out.splitlines() if line.startswith("  ")] == \
        [["share", "0.25"], ["ratio", "0.9313"], ["rate", "6"]]
    json = run_cli("run", str(sheet), "--format", "json").out
    assert '"unit": null' in json and '"display": "0.9313"' in json and '"unit": "1"' not in json
    assert run_cli("calc", "1 GB / 1 GiB -> 1").out.strip() == "0.9313"


def test_to_one_of_a_quantity_with_a_dimension_is_a_unit_error(write_sheet, run_cli):
    result = run_cli("check", str(write_sheet("cells:\n  a: = 1 GB -> 1\n")))
    assert result.code == 2 and ":2:16: E-UNIT: cannot show information in 1" in result.err, result.err


@pytest.mark.parametrize(("written", "col", "hint"), [
    ("32k token", 6, "write the prefix on the unit: 32 ktoken or 32 Kitoken (k- is 1000, Ki- is 1024)"),
    ("= 32k token * 2", 8, "write the prefix on the unit: 32 ktoken or 32 Kitoken"),
    ("32 k token", 6, "32 ktoken or 32 Kitoken"),
    ("1.5M", 6, "write the prefix on a unit: 1.5 Mtoken, 1.5 MB or 1.5 MiB (M- is 10^6, Mi- is 2^20)"),
    ("1.5M token", 6, "1.5 Mtoken or 1.5 Mitoken"),
    ("= 2G * 1 B", 8, "2 GB or 2 GiB"),
])
def test_a_spreadsheet_suffix_is_a_parse_error_that_spells_the_prefix(written, col, hint, write_sheet, run_cli):
    result = run_cli("check", str(write_sheet(f"cells:\n  a: {written}\n")))
    assert result.code == 2 and f":2:{col}: E-PARSE: " in result.err and "spreadsheet suffix" in result.err, \
        result.err
    assert hint in result.err
    assert "unexpected 'token'" not in result.err


def test_128k_stays_the_kelvin_slip_with_the_binary_hint(write_sheet, run_cli):
    result = run_cli("check", str(write_sheet("cells:\n  context: 128K\n")))
    assert "E-UNIT" in result.err
    assert 'for a context length write "131072 token" or "128 Kitoken" ("128 ktoken" is 128,000)' in result.err
    both = run_cli("run", str(write_sheet("cells:\n  a: = 128 Kitoken -> token\n  b: = 128 ktoken -> token\n",
                                          "ok.yaml")), "--format", "json").out
    assert '"display": "131072 token"' in both and '"display": "128000 token"' in both, both
