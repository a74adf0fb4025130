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
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from gmonlens.binary.image import is_mapping_symbol
from gmonlens.common.model import ElfSymbol, Symbol
from gmonlens.common.records import maker
from gmonlens.dwarf.line_table import LineTable
from gmonlens.profile.symbols import SymbolTable

if TYPE_CHECKING:  # scopes imports pyelftools: only -l needs it, and load() imports it then
    from gmonlens.dwarf.scopes import FunctionScopes


class FunctionNames:
    """BFD's function name at an address: the innermost DWARF function, else the nearest ELF code
    symbol at or below it (any, also those gprof's routine rules reject, e.g. `refresh.part.0`;
    seen on the padding after a function, which the line table covers and no DIE does), mapping
    symbols (`$t`, `$x`, `$d`) left out as BFD leaves them out."""

    def __init__(self, scopes: FunctionScopes | None, elf_symbols: Sequence[ElfSymbol]) -> None:
        self.scopes = scopes
        code = sorted(
            (
                (s.value, i, s.name)
                for i, s in enumerate(elf_symbols)
                if s.class_letter in ("T", "t") and s.name and not is_mapping_symbol(s.name)
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
    """(start, file, line, function) of every run of equal (file, line, function) in [lo, hi)
    (`iter_line_runs`), ascending."""
    return list(iter_line_runs(lines, names, lo, hi))


def iter_line_runs(
    lines: LineTable, names: FunctionNames, lo: int, hi: int
) -> Iterator[tuple[int, str, int, str]]:
    """(start, file, line, function) of every run of equal (file, line, function) in [lo, hi),
    ascending.

    The runs break only at the line table's row addresses and the scopes' bounds in [lo, hi) (the
    points): at each point, in address order, the row `lines.lookup` gives and the function
    `names.at` gives are read, and a point whose (file, line, function) differs from the point
    before starts a run (a point without a row ends one). Both are read here as they do, with the
    sequence and the scope of the last point kept: points ascend, so most stay in them."""
    scopes = names.scopes
    points: list[int] = []  # sorted below; an address met twice is read once
    for column, _fids, _lines in lines.sequences:
        if column[-1] <= lo or column[0] >= hi:
            continue
        points.extend(column[bisect_left(column, lo) : bisect_left(column, hi)])
    bounds: Sequence[int] = ()
    snames: Sequence[str | None] = ()
    if scopes is not None:
        bounds, snames = scopes.bounds, scopes.names
        k = bisect_right(bounds, lo)
        while k < len(bounds) and bounds[k] < hi:
            points.append(bounds[k])
            k += 1
    starts, seqs, files = lines.starts, lines.sequences, lines.files
    nseq, nb = len(starts), len(snames)
    prev_file: str | None = None  # None: the point before had no row
    prev_line, prev_name = 0, ""
    seq_lo = seq_hi = 0  # the last point's sequence is the one for [seq_lo, seq_hi)
    addrs: Sequence[int] = ()
    fids: Sequence[int] = ()
    nums: Sequence[int] = ()
    end = 0
    sc_lo = sc_hi = 0  # the last point's scope segment: [sc_lo, sc_hi) named sc_name
    sc_name: str | None = None
    points.sort()
    last = -1
    for a in points:
        if a == last:
            continue
        last = a
        if not seq_lo <= a < seq_hi:  # LineTable.lookup's sequence: the last starting at or below a
            i = bisect_right(starts, a) - 1
            if i < 0:
                prev_file = None
                continue
            addrs, fids, nums = seqs[i]
            end = addrs[-1]
            seq_lo, seq_hi = starts[i], starts[i + 1] if i + 1 < nseq else end + 1
        if a >= end:  # past the sequence's last row: no line
            prev_file = None
            continue
        j = bisect_right(addrs, a) - 1
        file, line = files[fids[j]], nums[j]
        if not sc_lo <= a < sc_hi:  # FunctionNames.at's scope segment
            sj = bisect_right(bounds, a) - 1
            sc_name = snames[sj] if 0 <= sj < nb else None
            sc_lo = bounds[sj] if sj >= 0 else -1
            sc_hi = bounds[sj + 1] if 0 <= sj + 1 < len(bounds) else (1 << 64)
        name = (sc_name or "") if sc_name is not None else names.at(a)
        if prev_file is None or file != prev_file or line != prev_line or name != prev_name:
            yield a, file, line, name
        prev_file, prev_line, prev_name = file, line, name


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


# (address, name, is_function, is_static, file, line, is_line): a Symbol but for its end
_Entry = tuple[int, str, bool, bool, str | None, int, bool]


def with_line_symbols(
    symtab: SymbolTable,
    lines: LineTable,
    scopes: FunctionScopes | None,
    elf_symbols: Sequence[ElfSymbol],
    code_end: int,
    text: tuple[int, int] | None = None,
) -> SymbolTable:
    """The routines (each with the file:line of its address) plus gprof's line symbols.

    Routines past the end of the code (`code_end`, exclusive end of the last executable section:
    `data_start`) are not in gprof's -l table; one at the very end (`etext`) is, unless it is a
    static label at the end of `.text` itself. Line symbols
    are made only inside `text` ([start, end) of `.text`; None: everywhere): a routine in another
    section (firmware's RAM code, `.iram`; `.init`) stays whole, with the file:line of its address,
    as arm-none-eabi-gprof prints it.
    """
    text_end = symtab.symbols[-1].end_address + 1 if symtab.symbols else 0
    # a static label at `.text`'s very end (a linker script's hidden `__text_end`) is not in
    # gprof's -l table (arm-none-eabi-gprof); a function there (i386's `_fini`, first in `.fini`)
    # and a global label (`etext` where no `.fini` follows: RISC-V) are
    at_end = text[1] if text is not None else -1
    routines = tuple(
        s
        for s in symtab.symbols
        if s.address <= code_end and (s.address != at_end or s.is_function or not s.is_static)
    )
    if not routines:
        return symtab
    lo, hi = routines[0].address, max(text_end, routines[-1].address + 1)
    if text is not None:
        lo, hi = max(lo, text[0]), min(hi, text[1])
    runs = iter_line_runs(lines, FunctionNames(scopes, elf_symbols), lo, hi)
    # each Symbol is made when the next one's address (its end + 1) is known, from entries made
    # one at a time: no table of tens of thousands of tuples beside the symbols; made by
    # `records.maker` (a frozen dataclass's __init__ would take twice as long)
    make = maker(Symbol)
    out: list[Symbol] = []
    addresses: list[int] = []
    before: _Entry | None = None
    for entry in _entries(routines, runs, lines):
        if before is not None:
            a, name, fn, st, file, line, is_line = before
            out.append(make(name, a, entry[0] - 1, fn, st, file, line, is_line))
        addresses.append(entry[0])
        before = entry
    if before is not None:
        a, name, fn, st, file, line, is_line = before
        # the last routine keeps its range up to the next symbol, left out of the table (a
        # bare-metal `_edata` past the code): an arc from just past .text's end lands on it
        end = text_end - 1 if is_line else max(text_end - 1, routines[-1].end_address)
        out.append(make(name, a, end, fn, st, file, line, is_line))
    return SymbolTable(tuple(out), tuple(addresses))


def _entries(
    routines: Sequence[Symbol], runs: Iterator[tuple[int, str, int, str]], lines: LineTable
) -> Iterator[_Entry]:
    """The routines (ascending, each with the row of its address) and the line runs (ascending)
    merged in address order; a run starting at a routine's address is dropped."""
    starts = {s.address for s in routines}
    run = next(runs, None)
    for s in routines:
        while run is not None and run[0] < s.address:
            if run[0] not in starts:
                yield run[0], run[3], False, True, run[1], run[2], True
            run = next(runs, None)
        file, line = lines.lookup(s.address) or (None, 0)
        yield s.address, s.name, s.is_function, s.is_static, file, line, False
    while run is not None:
        if run[0] not in starts:
            yield run[0], run[3], False, True, run[1], run[2], True
        run = next(runs, None)


def line_suffix(file: str | None, line: int, address: int, full_path: bool = False) -> str:
    """` (file.c:12 @ 11db)`, as -l prints a symbol with a known line; "" without one."""
    if file is None:
        return ""
    return " (%s:%d @ %x)" % (file if full_path else os.path.basename(file), line, address)
