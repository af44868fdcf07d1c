"""Start-up cost of the unit registry with the verified disk cache (ownership,
0700, per-user HMAC of every file checked before Pint unpickles anything)
against Pint's cache unverified (as before: the cost of the checks) and no
disk cache at all (Pint parses its definitions every time), in fresh processes, paired and interleaved (ABAB...), min and median of wall and
child CPU, load average printed.

    .venv/bin/python bench/bench_registry_cache.py
"""
from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

CODE = "import supersheet.units as units; units.parse_unit('GB/s')"
UNVERIFIED = ("import pathlib, sys, supersheet.units._registry as r; "
              "r.build_registry(pathlib.Path(sys.argv[1])).parse_units('GB/s')")
REPEATS = int(sys.argv[1]) if len(sys.argv) > 1 else 15


def once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    subprocess.run([sys.executable, "-c", *argv], env=env, check=True)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    print(f"load average {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        sides = {
            "verified cache": ([CODE], {**os.environ, "SUPERSHEET_CACHE_DIR": f"{tmp}/cache",
                                        "XDG_CONFIG_HOME": f"{tmp}/config"}),
            "unverified": ([UNVERIFIED, f"{tmp}/plain"], dict(os.environ)),
            "no disk cache": ([CODE], {**os.environ, "SUPERSHEET_CACHE_DIR": ""}),
        }
        for argv, env in sides.values():      # fill the caches once
            once(argv, env)
        results: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
        for _ in range(REPEATS):
            for name, (argv, env) in sides.items():
                results[name].append(once(argv, env))
    print(f"{'':16} {'wall min':>9} {'wall med':>9} {'cpu min':>9} {'cpu med':>9}   ({REPEATS} runs each: {CODE})")
    for name, runs in results.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(f"{name:16} {min(walls) * 1e3:8.0f}ms {statistics.median(walls) * 1e3:8.0f}ms "
              f"{min(cpus) * 1e3:8.0f}ms {statistics.median(cpus) * 1e3:8.0f}ms")


if __name__ == "__main__":
    main()
