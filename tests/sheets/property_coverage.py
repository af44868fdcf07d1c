"""How many sheets and comparisons each property of test_properties.py covered
in this session; tests/conftest.py prints it at the end of the run."""
from __future__ import annotations

from pathlib import Path

COVERED: dict[str, dict[Path, int]] = {}


def record(name: str, path: Path, comparisons: int) -> None:
    COVERED.setdefault(name, {})[path] = comparisons


def lines() -> list[str]:
    return [f"{name}: {len(sheets)} sheets, {sum(sheets.values())} comparisons"
            for name, sheets in sorted(COVERED.items())]
