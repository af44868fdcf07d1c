"""Where things are in the repository, for every test: import these
(`from repo_paths import REPO, SHEETS`) instead of computing the root again or
importing a conftest (two conftests are both named `conftest`)."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHEETS = REPO / "sheets"                                      # the bundled library of sheets
RUNNING_EXAMPLE = Path("sheets") / "supernodes" / "6.1.2-running-example.yaml"   # relative to REPO
DOCS = REPO / "docs"
BENCH = REPO / "bench"
TOOLS = REPO / "tools"
CONFORMANCE = (REPO.parent / "shared" / "conformance").resolve()   # the format's executable cases

# The folders pyproject.toml maps into the `supersheet` package (the package's source)
PACKAGE_FOLDERS = ("supersheet", "engine", "cli", "editor", "lsp", "tui", "units")
RUNNING = REPO / RUNNING_EXAMPLE                              # the chapter's running example, the tests' usual sheet
