"""Sorting a large list without holding the GIL for long: in slices, then merged.

`sorted()` over 100,000 tuple keys is one C call of 50-150 ms, during which no other thread (the
language server's event loop) runs. Here each slice's sort is a short C call and the merge is
Python-level, so other threads get the GIL between steps. The result is exactly `sorted()`'s
(stable: equal keys keep their input order). A process with one thread (a command-line report)
has nothing to hand the GIL to, and sorts in one call: the Python-level merge costs it more."""

from __future__ import annotations

import heapq
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
SLICE = 8192  # elements a slice: its sort takes a few milliseconds


def sorted_in_slices(items: Sequence[T], key: Callable[[T], Any], reverse: bool = False) -> list[T]:
    """`sorted(items, key=key, reverse=reverse)`, computed in slices of SLICE elements while
    another thread runs (in one call otherwise, or for at most SLICE elements)."""
    if len(items) <= SLICE or threading.active_count() == 1:
        return sorted(items, key=key, reverse=reverse)
    keys = [key(x) for x in items]  # Python calls: other threads run in between
    slices = [
        sorted(range(lo, min(lo + SLICE, len(items))), key=keys.__getitem__, reverse=reverse)
        for lo in range(0, len(items), SLICE)
    ]
    # heapq.merge keeps earlier slices first among equal keys: stable, as sorted() is; with
    # reverse=True, sorted() keeps equal keys in input order too, and so does merge(reverse=True)
    merged = heapq.merge(*slices, key=keys.__getitem__, reverse=reverse)
    return [items[i] for i in merged]
