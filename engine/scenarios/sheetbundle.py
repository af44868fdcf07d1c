"""A sheet and every file it reads, as text, to compile it on another machine.

Workers of a cluster do not see the driver's files, and a compiled sheet is
not something to pickle: a bundle carries the texts the driver loaded, keyed
by their absolute paths, and `materialize` writes them under a private
directory with the same layout, so relative `use:`/`extends` paths resolve
there exactly as they did on the driver.
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from supersheet.engine.base.limits import current_limits, set_limits
from supersheet.engine.base.project import library_name
from supersheet.engine.base.sheetroot import register_tree, root_for, unregister_tree
from supersheet.engine.workbook import Workbook, open_workbook


@dataclass(frozen=True)
class SheetBundle:
    sheet: str                                            # absolute path of the root sheet, as the driver saw it
    texts: dict[str, str] = field(default_factory=dict)   # absolute path -> file text
    cwd: str = "/"                                        # the driver's working directory (relative import-axis paths)
    limits: dict[str, int] = field(default_factory=dict)  # the driver's load limits (--max-file-size ...)
    libraries: dict[str, str] = field(default_factory=dict)  # library name -> its folder on the driver (format 10.1)

    @staticmethod
    def of(workbooks: list[Workbook]) -> "SheetBundle":
        """The files of these workbooks (a sweep's plans: the sheet and each import-axis variant)."""
        texts: dict[str, str] = {}
        for workbook in workbooks:
            for sheet_file in workbook.model.files.values():
                texts[os.path.abspath(sheet_file.path)] = sheet_file.text
            for table in workbook.model.tables.values():   # a CSV table travels as its text (read as it was)
                if table.path.suffix.lower() == ".csv":
                    texts[os.path.abspath(table.path)] = table.path.read_text(encoding="utf-8-sig")

        sheet = os.path.abspath(workbooks[0].model.path)
        libraries = {name: str(folder) for name, folder in root_for(Path(sheet)).project.libraries.items()}
        return SheetBundle(sheet, texts, os.getcwd(), asdict(current_limits()), libraries)


class Materialized:
    """A bundle written to a private temporary directory (removed on close)."""

    def __init__(self, bundle: SheetBundle) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="supersheet-bundle-")
        self.cwd = bundle.cwd
        set_limits(**bundle.limits)
        # The driver checked that every file is inside its sheet root; here the copy is the root, and a
        # library name (supersheet:…) names the copy of the driver's library (a worker need not have one).
        self.root = Path(self._dir.name)
        libraries = {name: self.locate(folder) for name, folder in bundle.libraries.items()}
        for folder in libraries.values():
            folder.mkdir(parents=True, exist_ok=True)
        register_tree(self.root, libraries=libraries or None)
        for path, text in bundle.texts.items():
            target = self.locate(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        self.sheet = self.locate(bundle.sheet)

    def locate(self, path: str) -> Path:
        """Where a driver path (relative to the driver's working directory) lives in this copy;
        a path by library name stays one (it resolves to the copy of that library)."""
        if library_name(path) is not None:
            return Path(path)
        return self.root / os.path.normpath(os.path.join(self.cwd, path)).lstrip(os.sep)

    def open(self) -> Workbook:
        return open_workbook(self.sheet)

    def close(self) -> None:
        unregister_tree(Path(self._dir.name))
        self._dir.cleanup()

    def __enter__(self) -> "Materialized":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
