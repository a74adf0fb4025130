"""How a long-running process asks the C allocator to give memory back (glibc only; elsewhere a
no-op).

glibc's defaults cost a multi-threaded process a lot of resident memory that Python has freed:
each thread that allocates gets an arena of its own (up to 8 per core), and freed memory in one
arena is not reused by the others; and after a large block (a cache entry's payload, a column of
100,000 values) is freed, glibc raises its mmap threshold up to 32 MB, so later large blocks come
from the arenas and stay resident when freed. The language server allocates from its load thread,
its `asyncio.to_thread` workers and its event loop; at 100,000 routines its peak RSS (VmHWM) after
the background work was 381-405 MB with the defaults, 317 MB with two arenas and a fixed 256 KB
mmap threshold (`bench/scale_bench.py`, one cold session each; first lenses no slower).

`apply()` sets both through `mallopt` before the process starts threads. The environment's
`MALLOC_ARENA_MAX` / `MALLOC_MMAP_THRESHOLD_` (glibc's own tunables), when set, win.
"""

from __future__ import annotations

import os
import sys

ARENAS = 2  # malloc arenas the process may use
MMAP_THRESHOLD = 256 * 1024  # bytes: blocks this large are mmap'd (returned to the OS when freed)
_M_MMAP_THRESHOLD = -3  # mallopt parameters (malloc.h)
_M_ARENA_MAX = -8


def apply() -> bool:
    """Set the arena count and mmap threshold (module docstring); True when glibc took both."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
        libc.gnu_get_libc_version  # noqa: B018 (glibc, not musl: only glibc has these tunables)
    except (OSError, AttributeError):
        return False
    ok = True
    if "MALLOC_ARENA_MAX" not in os.environ:
        ok = bool(mallopt(_M_ARENA_MAX, ARENAS)) and ok
    if "MALLOC_MMAP_THRESHOLD_" not in os.environ:
        ok = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and ok
    return ok
