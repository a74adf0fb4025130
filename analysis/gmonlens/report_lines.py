"""`-l`: gprof's line-granularity symbol table (and the names it prints for it).

With `-l` (and with `-s`, which switches it on) gprof's symbol table holds, besides the routines,
one *line symbol* for every run of consecutive bytes for which BFD reports the same source file,
line and innermost (possibly inlined) function. Established by running gprof 2.40 on -O0 and -O2
C and C++ programs:

- A line symbol is named after that function (the DWARF linkage name, else the name; so code of a
  clone such as `refresh.part.0`, which the static-name filter drops as a routine, shows as
  `refresh`, and code inlined from `sq` shows as `sq`; but in C++ a function without a linkage
  name, e.g. `static`, is named by the ELF symbol at its start: scopes.function_scopes). It is not a function (`is_func` false):
  arcs into it step back to the routine, as for any non-function symbol, and the call graph never
  prints its entry, although it is numbered, sorted and listed in the index like any symbol.
- A routine keeps its own symbol; a line symbol starting at a routine's address is dropped, and a
  routine start splits a run of equal lines. Bytes without line information belong to the symbol
  before them (gprof's ranges run to the next symbol).
- Every symbol with a known source line is printed `name (basename:line @ hexaddr)`; routines
  without line information (crt code) keep their bare name; the index's ` (file)` suffix for
  static routines is not added.
- Everything else (samples, arcs, cycles, propagation, sorting) runs unchanged over this table, so
  time lands on line symbols, calls on routines, and callers are the lines holding the call.
"""

from __future__ import annotations

import os
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .linetable import LineTable
from .model import ElfSymbol, Symbol
from .symbols import SymbolTable

if TYPE_CHECKING:  # scopes imports pyelftools: only -l needs it, and load() imports it then
    from .scopes import FunctionScopes


class FunctionNames:
    """BFD's function name at an address: the innermost DWARF function, else the nearest ELF code
    symbol at or below it (any, also those gprof's routine rules reject, e.g. `refresh.part.0`;
    seen on the padding after a function, which the line table covers and no DIE does)."""

    def __init__(self, scopes: FunctionScopes | None, elf_symbols: Sequence[ElfSymbol]) -> None:
        self.scopes = scopes
        code = sorted(
            (
                (s.value, i, s.name)
                for i, s in enumerate(elf_symbols)
                if s.class_letter in ("T", "t") and s.name
            ),
        )
        self.addrs = [a for a, _, _ in code]
        self.names = [n for _, _, n in code]

    def at(self, address: int) -> str:
        sc = self.scopes
        if sc is not None:
            j = bisect_right(sc.bounds, address) - 1
            if 0 <= j < len(sc.names) and sc.names[j] is not None:
                return sc.names[j] or ""
        k = bisect_right(self.addrs, address) - 1
        if k < 0:
            return ""
        a = self.addrs[k]
        while k > 0 and self.addrs[k - 1] == a:  # aliases: the first in .symtab order
            k -= 1
        return self.names[k]


def line_runs(lines: LineTable, names: FunctionNames, lo: int, hi: int) -> list[tuple[int, str, int, str]]:
    """(start, file, line, function) of every run of equal (file, line, function) in [lo, hi)."""
    scopes = names.scopes
    points: set[int] = set()
    for addrs, _fids, _lines in lines.sequences:
        if addrs[-1] <= lo or addrs[0] >= hi:
            continue
        points.update(addrs[bisect_left(addrs, lo) : bisect_left(addrs, hi)])  # ascending in a sequence
    if scopes is not None:
        k = bisect_right(scopes.bounds, lo)
        while k < len(scopes.bounds) and scopes.bounds[k] < hi:
            points.add(scopes.bounds[k])
            k += 1
    runs: list[tuple[int, str, int, str]] = []
    prev: tuple[str, int, str] | None = None
    for a in sorted(points):
        hit = lines.lookup(a)
        if hit is None:
            prev = None
            continue
        key = (hit[0], hit[1], names.at(a))
        if key != prev:
            runs.append((a, *key))
        prev = key
    return runs


def in_code(symtab: SymbolTable, code_end: int) -> SymbolTable:
    """-l without line information: the routines up to the end of the code (`data_start` goes)."""
    text_end = symtab.symbols[-1].end_address + 1 if symtab.symbols else 0
    kept = [s for s in symtab.symbols if s.address <= code_end]
    if len(kept) == len(symtab.symbols) or not kept:
        return symtab
    last = kept[-1]
    kept[-1] = Symbol(
        last.name, last.address, text_end - 1, last.is_function, last.is_static, last.file, last.line
    )
    return SymbolTable(tuple(kept), tuple(s.address for s in kept))


def with_line_symbols(
    symtab: SymbolTable,
    lines: LineTable,
    scopes: FunctionScopes | None,
    elf_symbols: Sequence[ElfSymbol],
    code_end: int,
) -> SymbolTable:
    """The routines (each with the file:line of its address) plus gprof's line symbols.

    Routines past the end of the code (`code_end`, exclusive end of the last executable section:
    `data_start`) are not in gprof's -l table; one at the very end (`etext`) is.
    """
    text_end = symtab.symbols[-1].end_address + 1 if symtab.symbols else 0
    routines = tuple(s for s in symtab.symbols if s.address <= code_end)
    if not routines:
        return symtab
    starts = {s.address for s in routines}
    lo, hi = routines[0].address, max(text_end, routines[-1].address + 1)
    # (address, 0 for a routine / 1 for a line symbol, name, is_function, is_static, file, line):
    # each Symbol is built once, its end known (tens of thousands of line symbols on a real program)
    merged: list[tuple[int, int, str, bool, bool, str | None, int]] = []
    for s in routines:
        hit = lines.lookup(s.address)
        file, line = hit if hit is not None else (None, 0)
        merged.append((s.address, 0, s.name, s.is_function, s.is_static, file, line))
    for start, file, line, func in line_runs(lines, FunctionNames(scopes, elf_symbols), lo, hi):
        if start not in starts:
            merged.append((start, 1, func, False, True, file, line))
    merged.sort(key=lambda m: (m[0], m[1]))
    ends = [m[0] - 1 for m in merged[1:]]
    ends.append(text_end - 1)
    out = tuple(
        Symbol(name, a, end, fn, st, file, line, kind == 1)
        for (a, kind, name, fn, st, file, line), end in zip(merged, ends, strict=True)
    )
    return SymbolTable(out, tuple(m[0] for m in merged))


def line_suffix(file: str | None, line: int, address: int, full_path: bool = False) -> str:
    """` (file.c:12 @ 11db)`, as -l prints a symbol with a known line; "" without one."""
    if file is None:
        return ""
    return " (%s:%d @ %x)" % (file if full_path else os.path.basename(file), line, address)
