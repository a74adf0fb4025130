"""DWARF line tables: address -> (source file, line), and BFD's reading of them for gprof.

An I/O module: `from_elf` and `lines_at` read the ELF's line programs (`line_headers` finds each
unit's program and file names, `line_opcodes` decodes its opcodes; both imported only then, so a
report whose lines are cached loads neither)."""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gmonlens.binary.budget import Budget
    from gmonlens.binary.elffile import ElfFile


@dataclass(frozen=True)
class LineTable:
    """All line programs of an executable as address-sorted sequences.

    `lookup` gives the row covering an address: the last row at or below it within a sequence
    (later rows at one address supersede earlier ones), nothing past a sequence's end. Files are
    paths as recorded in DWARF (directory joined, made absolute with the CU's comp_dir when
    relative): in BFD's reading spelt as BFD joins them (`/b/build/../src/t.c`, what gprof
    prints), otherwise normalised (`/b/src/t.c`, what an editor opens); lines are 1-based.
    """

    starts: tuple[int, ...]  # first address of each sequence, ascending
    # (addresses, file ids, lines) of each sequence: machine arrays of the narrowest type that
    # holds them (u32 or u64 addresses, u16 or u32 file ids, u32 or i64 lines: 10 bytes a row in
    # a usual program, where lists of ints take about 80; a large program has millions of rows),
    # or read-only views of the disk cache's bytes (`from_plain`), lists where a value fits none
    sequences: tuple[tuple[Sequence[int], Sequence[int], Sequence[int]], ...]
    files: tuple[str, ...]

    def lookup(self, address: int) -> tuple[str, int] | None:
        i = bisect_right(self.starts, address) - 1
        if i < 0:
            return None
        addrs, fids, lines = self.sequences[i]
        if address >= addrs[-1]:  # the last entry is the end of the sequence
            return None
        j = bisect_right(addrs, address) - 1
        return self.files[fids[j]], lines[j]

    def run_start(self, address: int) -> int | None:
        """Start of the run of bytes around `address` that map to the same (file, line): where
        gprof's line-granularity symbol for `address` begins. None without line information."""
        i = bisect_right(self.starts, address) - 1
        if i < 0:
            return None
        addrs, fids, lines = self.sequences[i]
        if address >= addrs[-1]:
            return None
        j = bisect_right(addrs, address) - 1
        key = (fids[j], lines[j])
        while True:
            a = addrs[j]
            if a == addrs[0]:
                return a
            k = bisect_right(addrs, a - 1) - 1  # the row covering the byte before this row
            if (fids[k], lines[k]) != key:
                return a
            j = k

    def to_plain(self) -> tuple[Any, ...] | None:
        """Compact plain data for the disk cache (`from_plain` reads it back): each sequence as
        its columns' type codes and their bytes. None when a value fits no machine type (a
        damaged line program): such a table is not cached."""
        seqs = []
        for seq in self.sequences:
            cols = [
                c if isinstance(c, (array, memoryview)) else _column(c, codes)
                for c, codes in zip(seq, _CODES, strict=True)
            ]
            if not all(isinstance(c, (array, memoryview)) for c in cols):
                return None
            codes = "".join(c.typecode if isinstance(c, array) else c.format for c in cols)  # type: ignore[union-attr]
            seqs.append((codes, *(c.tobytes() for c in cols)))  # type: ignore[union-attr]
        return (self.starts, tuple(seqs), self.files)

    @classmethod
    def from_plain(cls, value: Any) -> LineTable:
        """A table from `to_plain` data after checking its shape: types, type codes, equal column
        lengths, file ids in range (raises ValueError). The columns are read-only views of the
        entry's bytes (no copy), so every element is an int by construction."""

        def ok(cond: bool) -> None:
            if not cond:
                raise ValueError("line table of the wrong shape")

        ok(isinstance(value, tuple) and len(value) == 3)
        starts, plain, files = value
        ok(isinstance(starts, tuple) and isinstance(plain, tuple) and isinstance(files, tuple))
        ok(set(map(type, files)) <= {str} and set(map(type, plain)) <= {tuple})
        ok(set(map(type, starts)) <= {int} and len(starts) == len(plain) and list(starts) == sorted(starts))
        seqs: list[tuple[Sequence[int], Sequence[int], Sequence[int]]] = []
        for seq, start in zip(plain, starts, strict=True):
            ok(
                len(seq) == 4
                and type(seq[0]) is str
                and len(seq[0]) == 3
                and set(map(type, seq[1:])) <= {bytes}
            )
            cols = []
            for code, codes, raw in zip(seq[0], _CODES, seq[1:], strict=True):
                ok(code in codes and len(raw) % array(code).itemsize == 0)
                cols.append(memoryview(raw).cast(code))
            addrs, fids, lines = cols
            ok(0 < len(addrs) == len(fids) == len(lines) and addrs[0] == start and max(fids) < len(files))
            seqs.append((addrs, fids, lines))
        return cls(starts, tuple(seqs), files)

    @classmethod
    def empty(cls) -> LineTable:
        return cls((), (), ())

    @classmethod
    def from_elf(cls, elf: ElfFile, *, bfd: bool = False) -> LineTable:
        """Every CU's line program of the open file `elf`; an ELF without `.debug_line` gives an
        empty table.

        `bfd=True`: BFD 2.40's answers (see `lines_at`): DWARF 5's default file register names
        the unit's main file, and where units' sequences overlap, the earliest unit's is kept whole
        (later units' sequences are dropped where they start inside it).
        """
        return _build_tables(elf, (bfd,))[0]

    @classmethod
    def pair_from_elf(cls, elf: ElfFile) -> tuple[LineTable, LineTable]:
        """`(from_elf(bfd=False), from_elf(bfd=True))` from one decoding of each line program:
        the two tables share their address and line columns (and their file columns where the
        rule for DWARF 5's default file changes nothing)."""
        plain, bfd = _build_tables(elf, (False, True))
        return plain, bfd

    @classmethod
    def from_programs(
        cls, progs: Iterable[tuple[Any, list[str], int, bytes, Budget]], *, bfd: bool = False
    ) -> LineTable:
        """The table of the line programs `progs` (`line_headers.programs`' items, in section
        order): `from_elf` over a subset of the units. For an address that only these units'
        sequences cover, `lookup` answers as the whole table's does."""
        return _tables_of(progs, (bfd,))[0]


# A file register no line program can hold (its values are ULEB128s): the row's file is the
# sequence's default, which `from_elf`'s two readings take differently.
_DEFAULT_FILE = -1
Columns = tuple[Sequence[int], Sequence[int], Sequence[int]]


def _build_tables(elf: ElfFile, readings: tuple[bool, ...]) -> list[LineTable]:
    """One `LineTable` per reading in `readings` (True: BFD's, see `LineTable.from_elf`), each
    line program decoded once for all of them."""
    from gmonlens.dwarf.line_headers import programs

    return _tables_of(programs(elf), readings)


def _tables_of(
    progs: Iterable[tuple[Any, list[str], int, bytes, Budget]], readings: tuple[bool, ...]
) -> list[LineTable]:
    """`_build_tables` of the line programs `progs` (`line_headers.programs`' items)."""
    from gmonlens.dwarf.line_opcodes import decode_sequences

    builders = [_TableBuilder(bfd) for bfd in readings]
    for prog, names, base, data, budget in progs:
        decoded = decode_sequences(prog, data, default_file=_DEFAULT_FILE, budget=budget)
        shared: dict[int, Columns] = {}
        for b in builders:
            b.add_unit(names, base, decoded, shared)
    return [b.table() for b in builders]


class _TableBuilder:
    """One reading's files and sequences, unit after unit (`_build_tables`)."""

    def __init__(self, bfd: bool) -> None:
        self.bfd = bfd
        self.files: list[str] = []
        self.file_ids: dict[str, int] = {}
        self.seqs: list[Columns] = []
        self.plain: dict[str, str] = {}  # BFD's spelling -> normalised (`line_headers.plain_path`)

    def add_unit(
        self,
        names: list[str],
        base: int,
        decoded: list[tuple[list[int], list[int], list[int]]],
        shared: dict[int, Columns],
    ) -> None:
        """The unit's sequences; `shared` holds the columns an earlier reading made of the same
        sequence (by index), reused where equal."""
        default = 0 if self.bfd and base == 0 else 1
        if not self.bfd:
            names = _plain_names(names, self.plain)
        local: dict[int, int] = {}
        for k, (addrs, fnums, lines) in enumerate(decoded):
            for f in dict.fromkeys(fnums):  # in order of first use: ids as a row-by-row loop gives
                if f not in local:
                    local[f] = self._file_id(names, base, default if f == _DEFAULT_FILE else f)
            fids = list(map(local.__getitem__, fnums))
            made = shared.get(k)
            if made is None:
                shared[k] = made = _compact(addrs, fids, lines)
            else:
                fcol = made[1] if list(made[1]) == fids else _column(fids, _CODES[1])
                made = (made[0], fcol, made[2])
            self.seqs.append(made)

    def _file_id(self, names: list[str], base: int, f: int) -> int:
        idx = f - base
        name = names[idx] if 0 <= idx < len(names) else "??"
        fid = self.file_ids.get(name)
        if fid is None:
            fid = self.file_ids[name] = len(self.files)
            self.files.append(name)
        return fid

    def table(self) -> LineTable:
        seqs = _first_units_only(self.seqs) if self.bfd else self.seqs
        seqs.sort(key=lambda q: q[0][0])
        return LineTable(tuple(q[0][0] for q in seqs), tuple(seqs), tuple(self.files))


def _plain_names(names: list[str], memo: dict[str, str]) -> list[str]:
    """A unit's file names (BFD's spelling) normalised, each distinct name once (`memo`)."""
    from gmonlens.dwarf.line_headers import plain_path

    out = []
    for n in names:
        p = memo.get(n)
        if p is None:
            p = memo[n] = plain_path(n)
        out.append(p)
    return out


# the type codes each column may have, narrowest first: addresses, file ids, lines
_CODES = ("IQ", "HI", "Iq")


def _column(values: Sequence[int], codes: str) -> Sequence[int]:
    """`values` as a machine array of the first type code in `codes` that holds them all (the
    list as given when none does)."""
    for code in codes:
        try:
            return array(code, values)
        except OverflowError:
            continue
    return values


def _compact(
    addrs: list[int], fids: list[int], lines: list[int]
) -> tuple[Sequence[int], Sequence[int], Sequence[int]]:
    """One sequence's columns as the narrowest machine arrays that hold them."""
    return _column(addrs, _CODES[0]), _column(fids, _CODES[1]), _column(lines, _CODES[2])


def lines_at(elf: ElfFile, wanted: set[int], *, bfd: bool = False) -> dict[int, tuple[str, int]]:
    """(file, line) of each address in `wanted` that a line-table row covers, as `lookup` gives.

    Cheaper than a whole LineTable: only rows at wanted addresses are kept. An address covered by
    a sequence without a row of its own (rare: code entered mid-row) falls back to a full table.

    `bfd=True` answers as GNU BFD 2.40 does (so gprof and `addr2line`): in DWARF 5, rows under
    the default file register (no DW_LNS_set_file since the sequence began) name the unit's main
    file (entry 0), not entry 1; and an address that several units' sequences cover is answered
    from the first unit; files are spelt as BFD joins them (not normalised). The default gives
    the true source position (what editors show), its path normalised.
    """
    from gmonlens.dwarf.line_headers import programs
    from gmonlens.dwarf.line_opcodes import decode_sequences

    out: dict[int, tuple[str, int]] = {}
    giver: dict[int, int] = {}
    spans: list[tuple[int, int]] = []
    unit_spans: list[tuple[int, int, int]] = []
    plain: dict[str, str] = {}
    for unit, (prog, recorded, base, data, budget) in enumerate(programs(elf)):
        names = recorded if bfd else _plain_names(recorded, plain)
        first = len(spans)
        default_file = 0 if bfd and base == 0 else 1
        for addrs, fnums, lines in decode_sequences(prog, data, wanted, spans, default_file, budget):
            for address, f, line in zip(addrs[:-1], fnums[:-1], lines[:-1], strict=True):
                if address >= addrs[-1]:
                    continue  # a row at the sequence's end covers no byte (as in `lookup`)
                if bfd and address in giver and giver[address] != unit:
                    continue  # an earlier unit has a row here: BFD answers from that one
                idx = f - base
                out[address] = (names[idx] if 0 <= idx < len(names) else "??", line)
                giver[address] = unit
        unit_spans.extend((lo, hi, unit) for lo, hi in spans[first:])
    missing = [a for a in wanted if a not in out and any(lo <= a < hi for lo, hi in spans)]
    if bfd:
        missing += _claimed_by_earlier_unit(unit_spans, giver)
    if missing:
        table = LineTable.from_elf(elf, bfd=bfd)
        for a in missing:
            hit = table.lookup(a)
            if hit is not None:
                out[a] = hit
    return out


def _claimed_by_earlier_unit(unit_spans: list[tuple[int, int, int]], giver: dict[int, int]) -> list[int]:
    """Addresses answered from one unit while an earlier unit's sequence also covers them.

    Sequences of different units rarely overlap (a linker-discarded copy left at address 0 is the
    usual case), so only addresses inside overlaps are examined one by one.
    """
    ordered = sorted(unit_spans)
    overlaps: list[tuple[int, int]] = []
    reach = -1
    for lo, hi, _ in ordered:
        if lo < reach:
            overlaps.append((lo, min(hi, reach)))
        reach = max(reach, hi)
    if not overlaps:
        return []
    out = []
    for a, unit in giver.items():
        if any(lo <= a < hi for lo, hi in overlaps) and any(
            lo <= a < hi and u < unit for lo, hi, u in unit_spans
        ):
            out.append(a)
    return out


def _first_units_only(
    seqs: list[tuple[Sequence[int], Sequence[int], Sequence[int]]],
) -> list[tuple[Sequence[int], Sequence[int], Sequence[int]]]:
    """Sequences (in unit order) without those that start inside an earlier-kept one."""
    kept: list[tuple[Sequence[int], Sequence[int], Sequence[int]]] = []
    covered: list[tuple[int, int]] = []
    for q in seqs:
        lo, hi = q[0][0], q[0][-1]
        if any(a <= lo < b for a, b in covered):
            continue
        kept.append(q)
        covered.append((lo, hi))
    return kept
