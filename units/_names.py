"""Unit names already resolved, kept on disk: a process whose units were all
resolved before never imports Pint (its import and registry cost ~100-150 ms of
CPU at every start of `run`, `sweep`, `check` …; issue 14).

One JSON file per installation (named by its fingerprint, below) in the folder
of Pint's cache (``_registry.cache_folder``), so that installations of other
versions beside it (other virtual environments, work trees) keep theirs instead
of overwriting one shared file at every start of each: for each name, what resolving it against the registry gave (factor to base units,
dimensions, spelling shown, the prefix's and the unit's names). It holds only
names that resolved; an unknown or refused name always goes to Pint, which
words the error. Trust is that of the pickles beside it (``_trust.py``): the
file is read only when the folder is private and the file matches the per-user
HMAC manifest, and only when its fingerprint matches this installation (the
bytes of definitions.txt, of Pint's definition files and of the code that
resolves a name), so a changed definition or trap is never answered from an
old entry. Anything unusable means Pint, as before.
"""
from __future__ import annotations

import hashlib
import json
import os
import pathlib
from typing import Any
import importlib.util
from ._registry import cache_folder
from ._trust import user_key
from ._trust import MANIFEST, trusted
from ._trust import sign

PREFIX = "resolved-units-"
Entry = tuple[float, tuple[tuple[str, float], ...], str, str, str]   # factor, dims, shown, prefix, unit

_known: dict[str, Entry] | None = None


def _fingerprint() -> str:
    """What a resolved name depends on: our definitions and resolving code, Pint's definitions."""
    here = pathlib.Path(__file__).parent
    digest = hashlib.sha256()
    paths = [here / "definitions.txt", here / "parse.py", here / "traps.py", here / "dimensions.py"]
    spec = importlib.util.find_spec("pint")   # located, not imported
    if spec is None or spec.origin is None:
        return ""
    pint_dir = pathlib.Path(spec.origin).parent
    paths += [pint_dir / "default_en.txt", pint_dir / "constants_en.txt", pint_dir / "__init__.py"]
    for path in paths:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _place() -> tuple[pathlib.Path, bytes] | None:
    folder = cache_folder()
    key = user_key() if folder is not None else None
    return (folder, key) if folder is not None and key is not None else None


def _file_name(fingerprint: str) -> str:
    return f"{PREFIX}{fingerprint[:16]}.json"


def known() -> dict[str, Entry]:
    """The names resolved before (read once per process; {} when there is no usable file)."""
    global _known
    if _known is None:
        _known = {}
        try:
            _known = _read()
        except Exception:  # noqa: BLE001 - an unusable file only means Pint resolves the names
            _known = {}
    return _known


def _read() -> dict[str, Entry]:
    place = _place()
    if place is None:
        return {}
    folder, key = place
    fingerprint = _fingerprint()
    path = folder / _file_name(fingerprint)
    if not path.exists():
        return {}
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    if not trusted(path, key, manifest):
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("fingerprint") != fingerprint:
        return {}
    return {name: (float(e[0]), tuple((str(d), float(x)) for d, x in e[1]), str(e[2]), str(e[3]), str(e[4]))
            for name, e in data["names"].items()}


def remember(name: str, entry: Entry) -> None:
    """Add a name Pint resolved, to this process's table and the file (then signed)."""
    table = known()
    if table.get(name) == entry:
        return
    table[name] = entry
    try:
        _write(table)
    except Exception:  # noqa: BLE001 - not written: the next process asks Pint again
        pass


def _write(table: dict[str, Any]) -> None:
    place = _place()
    if place is None:
        return
    folder, key = place
    fingerprint = _fingerprint()
    data = {"fingerprint": fingerprint, "names": {n: [e[0], [list(d) for d in e[1]], *e[2:]]
                                                     for n, e in table.items()}}
    import tempfile   # deferred: tempfile (~3 ms): only a process that resolves new units writes them
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".resolved-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        os.chmod(tmp, 0o600)
        os.replace(tmp, folder / _file_name(fingerprint))
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    sign(folder, key)
