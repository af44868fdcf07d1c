"""Format 9.4: without `->`, a result is shown in the unit family of its operands."""
from __future__ import annotations

import json

import pytest


@pytest.mark.parametrize(("formula", "shown"), [
    ("80 % + 5 %", "85 %"),
    ("80 % - 5 % - 5 %", "70 %"),
    ("-(5 %) + 80 %", "75 %"),
    ("2 ‰ + 3 ‰", "5 ‰"),
    ("80 % + 0.05", "0.85"),            # a plain number is not a share: no %
    ("80 % * 2", "1.6"),                # a product of shares is not a share
    ("1024 * 1 KiB", "1 MiB"),
    ("131072 token * 320 KiB/token", "40 GiB"),
    ("1 GiB + 1 GB", "2.074 GB"),       # both families: decimal
    ("1024 * 1 B", "1.024 kB"),         # no prefix: decimal
    ("1024 * 1 kB", "1.024 MB"),
    ("1 GiB -> GB", "1.074 GB"),        # `->` decides
])
def test_calc_display_follows_operands(run_cli, formula, shown):
    result = run_cli("calc", formula)
    assert result.code == 0, result.output
    assert result.out.strip() == shown


def test_family_carries_through_cells(run_cli, write_sheet):
    path = write_sheet("""
        title: t
        cells:
          context: 131072 token
          per_token: 320 KiB/token
          util: 80 %
          kv: = context * per_token
          doubled: = 2 * kv
          headroom: = util + 5 %
          decimal_kv: = kv -> GB
          from_decimal: = decimal_kv * 2
        """)
    result = run_cli("run", str(path), "--format", "json")
    assert result.code == 0, result.output
    shown = {c["name"]: c["display"] for c in json.loads(result.out)["cells"]}
    assert shown["kv"] == "40 GiB"
    assert shown["doubled"] == "80 GiB"
    assert shown["headroom"] == "85 %"
    assert shown["decimal_kv"] == "42.95 GB"
    assert shown["from_decimal"] == "85.9 GB"    # a cell shown in GB is a decimal operand
