"""Trusting the disk cache before Pint reads it.

Pint keeps its parsed definitions as pickles, and unpickling runs code: anyone
who can write the cache folder could run code as the user. So the folder is
used only when it is ours and private (owned by this user, mode 0700 —
tightened when we own it; emptied first if others could write it), every file
in it is ours and not writable by others, and every file matches an HMAC
manifest keyed by a per-user secret kept apart from the cache (in the user
config folder, mode 0600). A file that does not match empties the folder and
Pint rebuilds it; anything unusable means no disk cache for this run.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import pathlib
import stat
import platformdirs

MANIFEST = ".supersheet-hmac.json"
KEY_NAME = "cache.key"


def private_folder(folder: pathlib.Path) -> bool:
    """Make `folder` private to this user when we own it; whether it is."""
    st = folder.lstat()
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        return False
    if stat.S_IMODE(st.st_mode) & 0o077:
        if stat.S_IMODE(st.st_mode) & 0o022:     # others could write: what is there is not ours to trust
            empty(folder)
        folder.chmod(0o700)
    return stat.S_IMODE(folder.lstat().st_mode) & 0o077 == 0


def verify(folder: pathlib.Path, key: bytes) -> None:
    """Empty `folder` (Pint writes it again) unless every file in it is ours,
    not writable by others, and as signed."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        manifest = {}
    files = [p for p in folder.iterdir() if p.name != MANIFEST and not p.name.startswith(".")]   # not a writer's temp
    ok = isinstance(manifest, dict) and all(trusted(p, key, manifest) for p in files) and \
        set(manifest) <= {p.name for p in files}
    if not ok:
        empty(folder)


def sign(folder: pathlib.Path, key: bytes) -> None:
    """Record the HMAC of every file Pint left in `folder`."""
    entries = {}
    for path in folder.iterdir():
        if path.name == MANIFEST or path.name.startswith(".") or not path.is_file():
            continue
        path.chmod(0o600)
        entries[path.name] = _mac(path.read_bytes(), key)
    tmp = folder / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps(entries, sort_keys=True), encoding="utf-8")
    tmp.chmod(0o600)
    os.replace(tmp, folder / MANIFEST)


def user_key() -> bytes | None:
    """The per-user secret (created on first use), or None when there is nowhere private to keep it."""
    try:
        folder = platformdirs.user_config_path("supersheet", appauthor=False)
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = folder / KEY_NAME
        if not path.exists():
            import secrets   # deferred: secrets (~2 ms at every start): the key is made once per user
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(secrets.token_bytes(32))
        st = path.lstat()
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & 0o077:
            return None
        key = path.read_bytes()
        return key if len(key) >= 32 else None
    except Exception:  # noqa: BLE001 - no key: no disk cache, never a failure
        return None


def trusted(path: pathlib.Path, key: bytes, manifest: dict) -> bool:
    """Whether `path` is ours, not writable by others, and as the manifest signed it."""
    try:
        st = path.lstat()
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & 0o022:
            return False
        expected = manifest.get(path.name)
        return isinstance(expected, str) and hmac.compare_digest(expected, _mac(path.read_bytes(), key))
    except OSError:
        return False


def _mac(data: bytes, key: bytes) -> str:
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def empty(folder: pathlib.Path) -> None:
    """Remove the files of `folder` (Pint writes them again)."""
    for path in folder.iterdir():
        try:
            if path.is_dir() and not path.is_symlink():
                continue
            path.unlink()
        except OSError:
            pass
