"""Registry build time in a fresh process: without a disk cache, with a cold
disk cache (first run fills it) and with a warm one; plus parse_unit timings.

Run: python bench/bench_units.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

CHILD = r"""
import time
t0 = time.perf_counter()
import pint
t1 = time.perf_counter()
import supersheet.units
t2 = time.perf_counter()
units.registry()
t3 = time.perf_counter()
units.parse_unit("GB/s")
t4 = time.perf_counter()
print(f"{(t1 - t0) * 1e3:.1f} {(t3 - t2) * 1e3:.1f} {(t4 - t3) * 1e3:.1f}")
"""

RUNS = 5


def child(cache_dir: str) -> tuple[float, float, float]:
    env = {**os.environ, "SUPERSHEET_CACHE_DIR": cache_dir}
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
    pint_ms, registry_ms, first_parse_ms = (float(v) for v in out.stdout.split())
    return pint_ms, registry_ms, first_parse_ms


def best(cache_dir: str, fresh: bool) -> tuple[float, float, float]:
    results = []
    for _ in range(RUNS):
        if fresh:
            cache_dir = tempfile.mkdtemp(prefix="units-bench-")
        results.append(child(cache_dir))
    return min(results, key=lambda r: r[1])


def main() -> None:
    import timeit

    import supersheet.units

    print(f"registry() in a fresh process, best of {RUNS} (import pint itself not included):")
    for label, cache, fresh in (
        ("no disk cache         ", "", False),
        ("disk cache, cold      ", "", True),
        ("disk cache, warm      ", tempfile.mkdtemp(prefix="units-bench-"), False),
    ):
        if label.startswith("disk cache, warm"):
            child(cache)  # fill it
        pint_ms, registry_ms, parse_ms = best(cache, fresh)
        print(f"  {label} registry {registry_ms:6.1f} ms   first parse_unit {parse_ms:5.2f} ms   (import pint {pint_ms:.0f} ms)")

    units.parse_unit("USD/GPU/h")
    n = 200_000
    hit = timeit.timeit(lambda: units.parse_unit("USD/GPU/h"), number=n) / n
    print(f"parse_unit cache hit: {hit * 1e6:.2f} µs")
    texts = [f"GB/s^{i}" for i in range(2000)]
    miss = timeit.timeit(lambda: [units.parse_unit(t) for t in texts], number=1) / len(texts)
    print(f"parse_unit cache miss: {miss * 1e6:.1f} µs")


if __name__ == "__main__":
    main()
