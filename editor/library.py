"""Where the bundled sheets are: the library, and the running example that
`supersheet edit` opens without an argument. Pure Python: no UI imports.
"""
from __future__ import annotations

from pathlib import Path

from supersheet.engine.base.project import bundled_library

RUNNING_EXAMPLE = Path("supernodes") / "6.1.2-running-example.yaml"


def library_dir() -> Path:
    """The bundled library of sheets (`supersheet:`, always in the sheet root)."""
    return bundled_library()


def running_example() -> Path:
    """The sheet `supersheet edit` opens without an argument."""
    path = library_dir() / RUNNING_EXAMPLE
    if not path.is_file():
        raise FileNotFoundError(f"the bundled running example is not installed (looked for {path}); "
                                "give a sheet: supersheet edit SHEET")
    return path
