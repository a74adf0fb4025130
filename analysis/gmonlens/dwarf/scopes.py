"""Which function BFD names at each address: the innermost subprogram or inlined subroutine.

gprof's line-granularity symbols (used by `-s`) start wherever the (file, line, function) that
BFD reports for consecutive bytes changes; the function is the DIE whose code range holding the
address is smallest (DWARF 5 §3.3, §3.3.8.2), later DIEs winning ties.
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gmonlens.common.model import ElfSymbol

if TYPE_CHECKING:  # pyelftools: imported by whoever builds the index, not by cached scopes' readers
    from gmonlens.dwarf.declarations import DwarfIndex

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
        n = len(scopes)
        lows = [s[0] for s in scopes]
        bounds = sorted(set(lows).union([s[1] for s in scopes]))
        order = sorted(range(n), key=lows.__getitem__)  # stable: DIE order among equal lows
        heap: list[tuple[int, int, int, str]] = []  # (size, -DIE order, high, name)
        push, pop = heapq.heappush, heapq.heappop
        names: list[str | None] = []
        k = 0
        for b in bounds[:-1]:
            while k < n and lows[order[k]] <= b:
                i = order[k]
                lo, hi, name = scopes[i]
                push(heap, (hi - lo, -i, hi, name))
                k += 1
            while heap and heap[0][2] <= b:
                pop(heap)
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


# DW_LANG_* of languages whose names BFD demangles (C++, ObjC++, D, Rust): there a bare DW_AT_name
# is not taken as the symbol's name
_MANGLED_LANGUAGES = frozenset({0x4, 0x11, 0x13, 0x19, 0x1A, 0x1C, 0x21})


def elf_code_names(symbols: Iterable[ElfSymbol]) -> dict[int, str]:
    """The first code symbol's name at each address, in .symtab order (`function_scopes`)."""
    names: dict[int, str] = {}
    for s in symbols:
        if s.class_letter in ("T", "t", "W") and s.name:
            names.setdefault(s.value, s.name)
    return names


def function_scopes(index: DwarfIndex, elf_names: Mapping[int, str] | None = None) -> FunctionScopes:
    """Every subprogram and inlined subroutine with code, from all units (reads all DIEs).

    With `elf_names` (ELF code symbol name by address), gprof -l's names: a function of a mangling
    language without a linkage name (a C++ `static` function, or a clone of one) whose first code
    range starts at an ELF symbol is named by that symbol (`_ZL10lib_helperj`, printed
    `lib_helper(unsigned int)`); its inlined copies keep the bare DW_AT_name (`lib_helper`).
    Found on gprof 2.40 with C++ static functions; C names stay DWARF's (`refresh` for
    `refresh.part.0`). Read by `info_reader` (only the attributes needed), else by pyelftools."""
    from gmonlens.dwarf.info_reader import Unsupported

    reader = index.own_reader()
    if reader is not None:
        try:
            return FunctionScopes.build(reader.code_scopes(elf_names))
        except Unsupported:
            pass
    return _pyelftools_scopes(index, elf_names)


def function_scope_pair(
    index: DwarfIndex, elf_names: Mapping[int, str]
) -> tuple[FunctionScopes, FunctionScopes]:
    """`(function_scopes(index), function_scopes(index, elf_names))` from one walk over the
    entries (the same object twice where the ELF names rename nothing: every C program)."""
    from gmonlens.dwarf.info_reader import Unsupported

    reader = index.own_reader()
    if reader is not None:
        try:
            plain, gprof = reader.code_scope_pair(elf_names)
        except Unsupported:
            pass
        else:
            first = FunctionScopes.build(plain)
            return first, first if gprof is plain else FunctionScopes.build(gprof)
    return _pyelftools_scopes(index, None), _pyelftools_scopes(index, elf_names)


def _pyelftools_scopes(index: DwarfIndex, elf_names: Mapping[int, str] | None) -> FunctionScopes:
    scopes: list[tuple[int, int, str]] = []
    names: dict[int, tuple[str, bool]] = {}
    for unit in index.units():
        cu = index.cu(unit.offset)
        if cu is None:
            continue
        mangled_language = False
        for die in cu.iter_DIEs():
            if die.tag == "DW_TAG_compile_unit" or die.tag == "DW_TAG_partial_unit":
                lang = die.attributes.get("DW_AT_language")
                mangled_language = lang is not None and lang.value in _MANGLED_LANGUAGES
            elif die.tag in _CODE_TAGS:
                ranges = index.code_ranges(die)
                if ranges:
                    name, linkage = _name(die, names)
                    if elf_names is not None and mangled_language and not linkage:
                        name = elf_names.get(ranges[0][0], name)
                    scopes.extend((lo, hi, name) for lo, hi in ranges)
    return FunctionScopes.build(scopes)


def _name(die: Any, cache: dict[int, tuple[str, bool]]) -> tuple[str, bool]:
    """The linkage name, else the name, following abstract_origin/specification links (and whether
    it was a linkage name)."""
    hit = cache.get(die.offset)
    if hit is not None:
        return hit
    current: Any = die
    found, linkage = "", False
    for _ in range(8):
        attrs = current.attributes
        for key in ("DW_AT_linkage_name", "DW_AT_MIPS_linkage_name", "DW_AT_name"):
            if key in attrs:
                value = attrs[key].value
                found = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
                linkage = key != "DW_AT_name"
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
    cache[die.offset] = (found, linkage)
    return found, linkage
