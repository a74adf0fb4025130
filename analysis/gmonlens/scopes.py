"""Which function BFD names at each address: the innermost subprogram or inlined subroutine.

gprof's line-granularity symbols (used by `-s`) start wherever the (file, line, function) that
BFD reports for consecutive bytes changes; the function is the DIE whose code range holding the
address is smallest (DWARF 5 §3.3, §3.3.8.2), later DIEs winning ties.
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .dwarf import DwarfIndex

_CODE_TAGS = ("DW_TAG_subprogram", "DW_TAG_inlined_subroutine")


@dataclass(frozen=True)
class FunctionScopes:
    """Address segments [bounds[i], bounds[i+1]) and the function named in each (None: none)."""

    bounds: tuple[int, ...]
    names: tuple[str | None, ...]

    @classmethod
    def from_plain(cls, value: Any) -> FunctionScopes:
        """Scopes from cached `(bounds, names)`, shape-checked (raises ValueError)."""
        if not (isinstance(value, tuple) and len(value) == 2):
            raise ValueError("scopes of the wrong shape")
        bounds, names = value
        if not (
            isinstance(bounds, tuple)
            and isinstance(names, tuple)
            and set(map(type, bounds)) <= {int}
            and set(map(type, names)) <= {str, type(None)}
            and len(names) == max(len(bounds) - 1, 0)
            and list(bounds) == sorted(bounds)
        ):
            raise ValueError("scopes of the wrong shape")
        return cls(bounds, names)

    @classmethod
    def build(cls, scopes: Sequence[tuple[int, int, str]]) -> FunctionScopes:
        """From (low, high, name) code ranges in DIE order (high exclusive)."""
        bounds = sorted({b for lo, hi, _ in scopes for b in (lo, hi)})
        order = sorted(range(len(scopes)), key=lambda i: scopes[i][0])
        heap: list[tuple[int, int, int, str]] = []  # (size, -DIE order, high, name)
        names: list[str | None] = []
        k = 0
        for b in bounds[:-1]:
            while k < len(order) and scopes[order[k]][0] <= b:
                lo, hi, name = scopes[order[k]]
                heapq.heappush(heap, (hi - lo, -order[k], hi, name))
                k += 1
            while heap and heap[0][2] <= b:
                heapq.heappop(heap)
            names.append(heap[0][3] if heap else None)
        return cls(tuple(bounds), tuple(names))

    def name_at(self, address: int) -> str | None:
        """The innermost function at `address` (None: no function covers it)."""
        j = bisect_right(self.bounds, address) - 1
        return self.names[j] if 0 <= j < len(self.names) else None

    def run_start(self, address: int) -> int | None:
        """Start of the run of bytes around `address` that name the same function."""
        j = bisect_right(self.bounds, address) - 1
        if j < 0 or j >= len(self.names) or self.names[j] is None:
            return None
        name = self.names[j]
        while j > 0 and self.names[j - 1] == name:
            j -= 1
        return self.bounds[j]


def function_scopes(index: DwarfIndex) -> FunctionScopes:
    """Every subprogram and inlined subroutine with code, from all units (reads all DIEs)."""
    scopes: list[tuple[int, int, str]] = []
    names: dict[int, str] = {}
    for unit in index.units():
        cu = index.cu(unit.offset)
        if cu is None:
            continue
        for die in cu.iter_DIEs():
            if die.tag in _CODE_TAGS:
                ranges = index.code_ranges(die)
                if ranges:
                    name = _name(die, names)
                    scopes.extend((lo, hi, name) for lo, hi in ranges)
    return FunctionScopes.build(scopes)


def _name(die: Any, cache: dict[int, str]) -> str:
    """The linkage name, else the name, following abstract_origin/specification links."""
    hit = cache.get(die.offset)
    if hit is not None:
        return hit
    current: Any = die
    found = ""
    for _ in range(8):
        attrs = current.attributes
        for key in ("DW_AT_linkage_name", "DW_AT_MIPS_linkage_name", "DW_AT_name"):
            if key in attrs:
                value = attrs[key].value
                found = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
                break
        if found:
            break
        link = next((k for k in ("DW_AT_abstract_origin", "DW_AT_specification") if k in attrs), None)
        if link is None:
            break
        try:
            current = current.get_DIE_from_attribute(link)
        except Exception:  # a broken reference: the function stays unnamed
            break
    cache[die.offset] = found
    return found
