"""docs/architecture.md is the map of the code: every folder and module it names exists,
and every package of the code is on it (issue 32)."""
from __future__ import annotations

import re

from repo_paths import DOCS, PACKAGE_FOLDERS, REPO

MAP = (DOCS / "architecture.md").read_text(encoding="utf-8")
# a path as the map writes it: `engine/load/`, engine/load/sheet.py, supersheet/sheet.py
NAMED = re.compile(r"(?<![\w./-])((?:%s)(?:/[a-z_]+)*(?:/|\.py\b))" % "|".join(PACKAGE_FOLDERS))


def packages() -> set[str]:
    """Every folder of the code that is a package (has an __init__.py), as `engine/load/`."""
    found = set()
    for folder in PACKAGE_FOLDERS:
        for init in (REPO / folder).rglob("__init__.py"):
            found.add(init.parent.relative_to(REPO).as_posix() + "/")
    return found


def test_every_folder_and_module_the_map_names_exists() -> None:
    named = set(NAMED.findall(MAP))
    assert len(named) > 50                       # the pattern reads the map (it names ~150 paths)
    assert sorted(p for p in named if not (REPO / p).exists()) == []


def test_every_package_of_the_code_is_on_the_map() -> None:
    named = set(NAMED.findall(MAP))
    found = packages()
    assert len(found) >= 15
    assert sorted(found - named) == []
