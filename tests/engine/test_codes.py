"""The diagnostic codes are one list (`CODES`): every code the source writes is in it, and
every code in it is written somewhere and documented in docs/format.md's "Diagnostics"."""
from __future__ import annotations

import re

from supersheet.engine.base.diagnostics import CODES
from repo_paths import PACKAGE_FOLDERS, REPO

CODE = re.compile(r"""["'](E-[A-Z]+)["']""")


def codes_written() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for folder in PACKAGE_FOLDERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for code in CODE.findall(line):
                    found.setdefault(code, []).append(f"{path.relative_to(REPO)}:{n}")
    return found


def test_every_code_the_source_writes_is_listed_and_every_listed_code_is_written() -> None:
    written = codes_written()
    assert len(written) >= 10          # the scan found the codes (it would pass vacuously on a wrong folder)
    unlisted = {code: places for code, places in written.items() if code not in CODES}
    assert unlisted == {}
    assert sorted(set(CODES) - set(written)) == []
    assert len(set(CODES)) == len(CODES)


def test_every_code_is_documented_in_the_format() -> None:
    text = (REPO / "docs" / "format.md").read_text(encoding="utf-8")
    section = text[text.index("## Diagnostics"):]
    section = section[:section.index("\n## ", 1)]
    assert [code for code in CODES if f"`{code}`" not in section] == []
