"""Arrays a sweep's chunks are built in where they are whole columns (`Grid.chunk`'s axis
columns: a sweep with random draws, the rows a choice tallies; a sweep's own chunks are
tiles that repeat, tiling.py), kept for the next chunk of the sweep. An array new from
the system costs a page fault and a cleared page per 4 KiB (~2 ms for 10^6 rows of floats, as much as several passes over memory in use; Polars'
own buffers are reused by its allocator). One is handed out again only when nothing else
holds it any more: a chunk's frame, or a result that shows the column, keeps a reference.
A sweep that ends lets them go (`release`): a process keeps no memory for the next one."""
from __future__ import annotations

import sys
import threading

import numpy as np

_kept: dict[int, list[np.ndarray]] = {}
_kept_lock = threading.Lock()
KEPT_BYTES = 64 << 20


def kept_array(length: int) -> np.ndarray:
    """An array of `length` float64 to overwrite: a kept one nothing holds, else a new one
    (kept while the arrays kept stay under KEPT_BYTES)."""
    with _kept_lock:
        arrays = _kept.setdefault(length, [])
        for array in arrays:
            if _free(array):
                return array
        array = np.empty(length)
        for other in _kept.values():   # room for it: the free arrays of other lengths go first
            if _kept_bytes() + array.nbytes <= KEPT_BYTES:
                break
            other[:] = [a for a in other if not _free(a)]
        if _kept_bytes() + array.nbytes <= KEPT_BYTES:
            arrays.append(array)
        return array


def _free(array: np.ndarray) -> bool:
    """Nothing but the pool holds it: four references, the pool's list, the caller's loop
    name, this parameter and getrefcount's own argument."""
    return sys.getrefcount(array) <= 4


def _kept_bytes() -> int:
    return sum(a.nbytes for arrays in _kept.values() for a in arrays)


def release() -> None:
    """Keep none any more (a sweep ended): those still held live on with their holders."""
    with _kept_lock:
        _kept.clear()
