"""The registry factory: definitions loaded, disk cache optional, import hygiene."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

from supersheet.units import registry
from supersheet.units._registry import CACHE_ENV, DEFINITIONS, build_registry, cache_folder
from repo_paths import REPO



def run_python(code: str, **env: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env={**os.environ, **env},
        capture_output=True, text=True, check=True,
    )
    return result.stdout.strip()


def test_registry_is_cached_and_has_domain_units() -> None:
    ureg = registry()
    assert registry() is ureg
    assert DEFINITIONS.is_file()
    assert str(ureg.get_dimensionality("GB")) == "[information]"
    assert str(ureg.get_dimensionality("TFLOP")) == "[FLOP]"


def test_import_units_does_not_import_textual_tui_or_engine() -> None:
    out = run_python(
        "import sys, units; units.parse_unit('GB/s'); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'textual', 'tui', 'engine'}))"
    )
    assert out == "[]"


def test_unusable_cache_folder_falls_back(tmp_path: pathlib.Path, monkeypatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(CACHE_ENV, str(blocker / "cache"))
    assert cache_folder() is None
    out = run_python("import units; print(units.parse_unit('GB/s').factor)", **{CACHE_ENV: str(blocker / "cache")})
    assert out == "1000000000.0"


def test_cache_disabled_by_empty_env(monkeypatch) -> None:
    monkeypatch.setenv(CACHE_ENV, "")
    assert cache_folder() is None


def test_disk_cache_is_used(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "cache"
    code = "import units; print(units.parse_unit('USD/GPU/h').factor, units.registry().cache_folder is not None)"
    env = {CACHE_ENV: str(folder), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    first = run_python(code, **env)
    assert any(folder.iterdir())
    second = run_python(code, **env)
    assert first == second == f"{1 / 3600!r} True"


def test_build_registry_without_cache() -> None:
    ureg = build_registry(None)
    assert ureg.cache_folder is None
    assert str(ureg.get_dimensionality("Gbps")) == "[information] / [time]"


PAYLOAD = """
import os, pickle, sys
class Payload:
    def __reduce__(self):
        return (os.system, ("touch " + sys.argv[1],))
pickle.dump(Payload(), open(sys.argv[2], "wb"))
"""


def _cached(folder: pathlib.Path, config: pathlib.Path) -> str:
    code = "import units; print(units.parse_unit('USD/GPU/h').factor, units.registry().cache_folder is not None)"
    return run_python(code, **{CACHE_ENV: str(folder), "XDG_CONFIG_HOME": str(config)})


def test_a_planted_pickle_never_runs(tmp_path: pathlib.Path) -> None:
    """Anyone who could write the cache folder could run code as the user through
    a pickle: files are used only when they match the per-user HMAC."""
    folder, config, marker = tmp_path / "cache", tmp_path / "config", tmp_path / "PWNED"
    assert _cached(folder, config) == f"{1 / 3600!r} True"
    assert oct(folder.stat().st_mode & 0o777) == "0o700"
    assert oct((config / "supersheet" / "cache.key").stat().st_mode & 0o777) == "0o600"
    pickles = sorted(folder.glob("*.pickle"))
    assert pickles
    for target in pickles:
        subprocess.run([sys.executable, "-c", PAYLOAD, str(marker), str(target)], check=True)
    assert _cached(folder, config) == f"{1 / 3600!r} True"
    assert not marker.exists()
    assert _cached(folder, config) == f"{1 / 3600!r} True" and not marker.exists()


def test_a_cache_folder_others_could_write_is_emptied_and_made_private(tmp_path: pathlib.Path) -> None:
    folder, config, marker = tmp_path / "cache", tmp_path / "config", tmp_path / "PWNED"
    folder.mkdir()
    folder.chmod(0o777)
    planted = folder / "d4a4b28010835d6997ff3232c541ae04012d1e78.pickle"
    subprocess.run([sys.executable, "-c", PAYLOAD, str(marker), str(planted)], check=True)
    assert _cached(folder, config) == f"{1 / 3600!r} True"
    assert not marker.exists() and oct(folder.stat().st_mode & 0o777) == "0o700"


def test_the_cache_is_reused_when_it_is_as_signed(tmp_path: pathlib.Path) -> None:
    folder, config = tmp_path / "cache", tmp_path / "config"
    _cached(folder, config)
    before = {p.name: p.stat().st_mtime_ns for p in folder.glob("*.pickle")}
    _cached(folder, config)
    assert {p.name: p.stat().st_mtime_ns for p in folder.glob("*.pickle")} == before


STALE = """
import pathlib, shutil, sys, pint
from supersheet.units._registry import DEFINITIONS
from supersheet.units._trust import sign, user_key
copy, folder = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
shutil.copytree(pathlib.Path(pint.__file__).parent, copy)
ureg = pint.UnitRegistry(None, cache_folder=folder, on_redefinition="ignore")
ureg.load_definitions(copy / "default_en.txt")
ureg.load_definitions(DEFINITIONS)
sign(folder, user_key())
shutil.rmtree(copy)
"""


def test_a_cache_written_by_a_deleted_installation_is_rebuilt(tmp_path: pathlib.Path) -> None:
    """Pint's parsed `default_en.txt` is named by its content but remembers the
    installation that wrote it; once that virtualenv is deleted, loading it fails.
    The cache is then written again (not silently off for every later process)."""
    folder, config = tmp_path / "cache", tmp_path / "config"
    _cached(folder, config)   # the folder and the key, as a first run leaves them
    env = {**os.environ, CACHE_ENV: str(folder), "XDG_CONFIG_HOME": str(config)}
    for path in folder.glob("*.pickle"):
        path.unlink()
    subprocess.run([sys.executable, "-c", STALE, str(tmp_path / "old-venv"), str(folder)], env=env, check=True)
    stale = {p.name: p.stat().st_mtime_ns for p in folder.glob("*.pickle")}
    assert stale
    assert _cached(folder, config) == f"{1 / 3600!r} True"
    rebuilt = {p.name: p.stat().st_mtime_ns for p in folder.glob("*.pickle")}
    assert rebuilt != stale
    assert _cached(folder, config) == f"{1 / 3600!r} True"
    assert {p.name: p.stat().st_mtime_ns for p in folder.glob("*.pickle")} == rebuilt   # used, not rebuilt again


RESOLVE = ("import sys; from supersheet.units import parse_unit; u = parse_unit('USD/GPU/h'); "
           "print(u.factor, 'pint' in sys.modules)")


def _resolve(folder: pathlib.Path, config: pathlib.Path) -> str:
    return run_python(RESOLVE, **{CACHE_ENV: str(folder), "XDG_CONFIG_HOME": str(config)})


def test_names_resolved_before_need_no_pint(tmp_path: pathlib.Path) -> None:
    """A process whose unit names were all resolved by an earlier one does not import Pint."""
    folder, config = tmp_path / "cache", tmp_path / "config"
    assert _resolve(folder, config) == f"{1 / 3600!r} True"
    assert len(list(folder.glob("resolved-units-*.json"))) == 1
    assert _resolve(folder, config) == f"{1 / 3600!r} False"


def test_each_installation_keeps_its_own_resolved_names(tmp_path: pathlib.Path) -> None:
    """Another installation's file (another fingerprint: another version, virtual environment or
    work tree) sits beside ours: neither overwrites the other, so neither goes back to Pint."""
    folder, config = tmp_path / "cache", tmp_path / "config"
    _resolve(folder, config)
    ours = next(folder.glob("resolved-units-*.json"))
    other = folder / "resolved-units-0123456789abcdef.json"
    other.write_text(ours.read_text().replace('"fingerprint": "', '"fingerprint": "other'))
    env = {**os.environ, "XDG_CONFIG_HOME": str(config)}
    subprocess.run([sys.executable, "-c", "import pathlib, sys; from supersheet.units._trust import sign, user_key; "
                    "sign(pathlib.Path(sys.argv[1]), user_key())", str(folder)], env=env, check=True)
    assert _resolve(folder, config) == f"{1 / 3600!r} False"
    assert other.is_file() and '"fingerprint": "other' in other.read_text()


def test_a_resolved_name_changed_on_disk_is_not_used(tmp_path: pathlib.Path) -> None:
    """The file is trusted only as signed (a changed factor would silently change every number)."""
    folder, config = tmp_path / "cache", tmp_path / "config"
    _resolve(folder, config)
    path = next(folder.glob("resolved-units-*.json"))
    path.write_text(path.read_text().replace("3600.0", "7200.0"))
    assert _resolve(folder, config) == f"{1 / 3600!r} True"


def test_resolved_names_of_other_definitions_are_not_used(tmp_path: pathlib.Path) -> None:
    """Entries written with other definitions or resolving code (another fingerprint) go to Pint."""
    import json

    folder, config = tmp_path / "cache", tmp_path / "config"
    _resolve(folder, config)
    path = next(folder.glob("resolved-units-*.json"))
    data = json.loads(path.read_text())
    data["fingerprint"] = "other"
    data["names"]["h"][0] = 7200.0
    path.write_text(json.dumps(data))
    env = {**os.environ, "XDG_CONFIG_HOME": str(config)}
    subprocess.run([sys.executable, "-c", "import pathlib, sys; from supersheet.units._trust import sign, user_key; "
                    "sign(pathlib.Path(sys.argv[1]), user_key())", str(folder)], env=env, check=True)
    # signed as ours again: only the fingerprint refuses it
    assert _resolve(folder, config) == f"{1 / 3600!r} True"
