"""Automatic garbage collection paused while whole-program work allocates (a load, the certainty,
the line heat, a file's lenses): at 100,000 routines such work makes hundreds of thousands of
long-lived objects, and each collection pass it triggers (20-280 ms, measured with
bench/loopwatch.py; nothing collected) holds the GIL, so the event loop waits. When the last
paused step ends, what it made is frozen out of later passes (`gc.freeze`, as a loaded profile
is) and collection resumes."""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")
_lock = threading.Lock()
_active = [0]  # paused steps running now (any thread)


@contextlib.contextmanager
def paused() -> Iterator[None]:
    with _lock:
        _active[0] += 1
        if _active[0] == 1:
            gc.disable()
    try:
        yield
    finally:
        with _lock:
            _active[0] -= 1
            if _active[0] == 0:
                gc.freeze()
                gc.enable()


def run_paused(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` with collection paused (for `asyncio.to_thread` and `reload.in_thread`)."""
    with paused():
        return fn(*args)
