"""The one Pint registry of supersheet: built once per process, cached on disk.

Pint's ``default_en.txt`` is loaded first, then ``definitions.txt`` (this
package's domain units), which may replace default names (``bit``, ``b``,
``Gb`` ...).  Parsing both files takes ~100 ms; Pint can pickle the parsed
files into a cache folder, after which a fresh process needs ~15 ms.  The
folder is ``$SUPERSHEET_CACHE_DIR`` if set (empty string: no disk cache), else
the user cache dir (``platformdirs``).  An unusable folder silently means no
disk cache.  Unpickling runs code, so the folder is used only when it is
private and every file in it matches an HMAC keyed per user (``_trust.py``).
A cache that fails to load (a parsed file remembers the Pint installation that
wrote it, and a deleted virtualenv leaves its `@import`s dangling) is emptied
and written again, so it is never silently off for every later process.

Pint's own unit-resolution cache is filled lazily, as on Pint's cache-hit
path, instead of being built eagerly (~45 ms) for a thousand units nobody uses.
"""

from __future__ import annotations

import functools
import os
import pathlib
from typing import TYPE_CHECKING

from ._trust import empty, private_folder, sign, user_key, verify
import platformdirs

if TYPE_CHECKING:
    import pint

DEFINITIONS: pathlib.Path = pathlib.Path(__file__).with_name("definitions.txt")
CACHE_ENV: str = "SUPERSHEET_CACHE_DIR"


def cache_folder() -> pathlib.Path | None:
    """The folder for Pint's parsed-definitions cache, or None when unusable."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None:
        if not configured.strip():
            return None
        folder = pathlib.Path(configured)
    else:
        try:

            folder = platformdirs.user_cache_path("supersheet", appauthor=False) / "pint"
        except Exception:
            return None
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not private_folder(folder):
            return None
        # os.access is not enough (root, read-only mounts): really try a write.
        import tempfile   # deferred: tempfile (~3 ms): only a process that builds the registry asks
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError:
        return None
    return folder


def build_registry(folder: pathlib.Path | None) -> pint.UnitRegistry:
    """A fresh registry with Pint's defaults and our definitions (uncached)."""
    import pint   # deferred: numpy, pint

    ureg: pint.UnitRegistry = pint.UnitRegistry(None, cache_folder=folder, on_redefinition="ignore")
    ureg.load_definitions(pathlib.Path(pint.__file__).with_name("default_en.txt"))
    ureg.load_definitions(DEFINITIONS)
    return ureg


@functools.cache
def registry() -> pint.UnitRegistry:
    """The process-wide registry (``functools.cache``: built on first call)."""
    folder = cache_folder()
    key = user_key() if folder is not None else None
    if folder is not None and key is not None:
        for _ in range(2):   # a cache that fails to load is emptied and written again, once
            try:
                verify(folder, key)        # a file not as we signed it empties the folder first
                ureg = build_registry(folder)
                sign(folder, key)
                return ureg
            except Exception:
                # A corrupt or unwritable cache must never stop a sheet loading.
                empty(folder)
    return build_registry(None)
