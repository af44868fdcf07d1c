"""Type-check the package as it is installed: `python tools/typecheck.py` (run by .ci/run).

In the repository the package's folders are mapped into `supersheet` by pyproject.toml
(`engine/` is `supersheet.engine`, …), a layout mypy cannot read from the checkout. This
builds it in a temporary folder out of links to the checkout's folders and files, and runs
mypy there with the configuration of pyproject.toml ([tool.mypy]). Exits with mypy's code."""
from __future__ import annotations

import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def package_tree(target: Path) -> Path:
    """`target/supersheet` laid out as the wheel lays it out, of links into the checkout."""
    dirs = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    root = target / "supersheet"
    root.mkdir()
    for entry in (REPO / dirs["supersheet"]).iterdir():
        (root / entry.name).symlink_to(entry)
    for package, folder in dirs.items():
        if package != "supersheet" and package.count(".") == 1:
            (root / package.split(".")[1]).symlink_to(REPO / folder)
    return root


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="supersheet-types-") as folder:
        package_tree(Path(folder))
        command = [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"),
                   "--cache-dir", str(REPO / ".mypy_cache"), "-p", "supersheet"] + sys.argv[1:]
        return subprocess.run(command, cwd=folder).returncode


if __name__ == "__main__":
    sys.exit(main())
