"""The registry factory: definitions loaded, disk cache optional, import hygiene."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

from units import registry
from units._registry import CACHE_ENV, DEFINITIONS, build_registry, cache_folder

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run_python(code: str, **env: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={**os.environ, **env},
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
    first = run_python(code, **{CACHE_ENV: str(folder)})
    assert any(folder.iterdir())
    second = run_python(code, **{CACHE_ENV: str(folder)})
    assert first == second == f"{1 / 3600!r} True"


def test_build_registry_without_cache() -> None:
    ureg = build_registry(None)
    assert ureg.cache_folder is None
    assert str(ureg.get_dimensionality("Gbps")) == "[information] / [time]"
