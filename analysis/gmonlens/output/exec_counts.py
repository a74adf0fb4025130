"""`-C`: execution counts, one line per routine, as `gprof -b -C` prints them.

Observed on gprof 2.40 (no basic-block records, which gcc no longer writes, so the counts are the
routines' call counts):
- `FILE:LINE: (NAME:0xADDR) N executions`, FILE as recorded in DWARF (`<unknown>` and line 0
  without one), the raw (mangled) name, N the calls from other routines (self-recursive calls are
  not counted, as in the flat profile's calls column). With -l, line symbols are listed too.
- Order: the whole symbol table, in address order, goes through glibc's merge sort with a
  comparator that calls two symbols equal when either has no file, and otherwise compares the file
  names (strcmp) and then the lines. That is not a consistent order; the merge decides, which is
  why crt routines without debug information can end up between files (emulated: `_msort`).
- The symbols sorted are those the symspecs let through (`-CSPEC` lists only matching routines,
  `-ZSPEC` leaves matching ones out, an -C match wins; all of them without a symspec); since the
  order is not consistent, sorting that subset is not filtering the whole sorted table (a routine
  without a file among those left out changes where the others go). Only then are routines without
  calls dropped (kept with -z). `-Z` alone prints nothing extra.
- The section comes after the flat profile, call graph and index, after a form feed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from gmonlens.common.model import Profile, Routine, Symbol
from gmonlens.common.options import SymSpec, table

T = TypeVar("T")


def _msort(items: list[T], cmp: Callable[[T, T], int]) -> list[T]:
    """glibc's qsort for these sizes: top-down merge sort, the left element first on `cmp <= 0`."""
    if len(items) <= 1:
        return items
    half = len(items) // 2
    left, right = _msort(items[:half], cmp), _msort(items[half:], cmp)
    out: list[T] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if cmp(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    out.extend(left[i:])
    out.extend(right[j:])
    return out


def _by_file_line(a: Routine, b: Routine) -> int:
    if a.file is None or b.file is None:
        return 0
    fa, fb = a.file.encode("utf-8", "surrogateescape"), b.file.encode("utf-8", "surrogateescape")
    if fa != fb:
        return -1 if fa < fb else 1
    return (a.line > b.line) - (a.line < b.line)


def selected(
    p: Profile, include: Sequence[SymSpec], exclude: Sequence[SymSpec], files: Sequence[str] | None = None
) -> frozenset[int]:
    """Routine ids -C/-Z (or -A/-J) let through (gprof's symspec tables, matched as the other
    options do; `files`: gprof's source-file list, as `options.table` takes it)."""
    syms = [
        Symbol(r.name, r.address, r.end_address, r.is_function, r.is_static, r.file, r.line)
        for r in p.routines
    ]
    names = [r.display_name for r in p.routines]
    inc, exc = table(include, syms, names, files=files), table(exclude, syms, names, files=files)
    return frozenset(r.id for r in p.routines if r.id in inc or (not inc and r.id not in exc))


def exec_counts(p: Profile, chosen: frozenset[int], zero: bool) -> str:
    out: list[str] = []
    for r in _msort([r for r in p.routines if r.id in chosen], _by_file_line):
        if not (zero or r.calls):
            continue
        out.append(
            "%s:%d: (%s:0x%x) %d executions\n" % (r.file or "<unknown>", r.line, r.name, r.address, r.calls)
        )
    return "".join(out)
