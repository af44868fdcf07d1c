"""Cold start-up of the command, `supersheet calc "1 GB -> GiB"` in a fresh
process, with and without the verified unit-registry cache (units/_trust.py:
ownership, 0700 and a per-user HMAC of every file checked before Pint
unpickles anything), each with and without Python's byte-code cache, paired
and interleaved (every side once per round, the order flipped each round):
min and median of wall and CPU time, load average printed.

    .venv/bin/python bench/bench_startup.py [ROUNDS]

Every side uses its own temporary folders: the registry cache and its key
(filled by one warm-up run), and a byte-code folder (PYTHONPYCACHEPREFIX)
that is filled by the warm-up for the ".pyc" sides and stays empty with
PYTHONDONTWRITEBYTECODE for the "no .pyc" sides, so every module is compiled
from source in every run. The repository's own __pycache__ is never used.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paired import child, interleave, load_average, table  # noqa: E402

COMMAND = [str(Path(sys.executable).with_name("supersheet")), "calc", "1 GB -> GiB"]


def environment(tmp: Path, disk_cache: bool, bytecode: bool) -> dict[str, str]:
    name = f"{'cache' if disk_cache else 'nocache'}-{'pyc' if bytecode else 'nopyc'}"
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(tmp / name / "pyc"), "XDG_CONFIG_HOME": str(tmp / name / "config"),
           "SUPERSHEET_CACHE_DIR": str(tmp / name / "units") if disk_cache else ""}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    shown = subprocess.run(COMMAND, capture_output=True, text=True, check=True).stdout.strip()
    print(f"{' '.join(COMMAND[1:2])} {COMMAND[2]!r} prints {shown!r}; {rounds} rounds; {load_average()}")
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        sides = {}
        for disk_cache in (True, False):
            for bytecode in (True, False):
                env = environment(tmp, disk_cache, bytecode)
                label = f"{'verified unit cache' if disk_cache else 'no unit cache'}, {'.pyc' if bytecode else 'no .pyc'}"
                sides[label] = (lambda env=env: child(COMMAND, env=env))
        series = interleave(sides, rounds, warm=1)      # the warm-up fills each side's caches
        cached = tmp / "cache-pyc" / "units"
        assert (cached / ".supersheet-hmac.json").exists(), "the unit cache was not written and signed"
        no_pyc = tmp / "cache-nopyc" / "pyc"
        assert not no_pyc.exists() or not any(no_pyc.rglob("*.pyc")), "a no-.pyc side wrote byte code"
    print(table(series, baseline="verified unit cache, .pyc"))
    print(load_average())


if __name__ == "__main__":
    main()
