"""DWARF (.debug_info) -> where each routine is declared: file, 1-based line and column of its name.

Contract:
- A *declaration* (`SourceDecl`) describes one concrete subprogram DIE (one with code: DW_AT_low_pc
  or DW_AT_ranges). Its name, file, line and column come from the DIE itself, completed through
  DW_AT_specification / DW_AT_abstract_origin (DWARF 5 §3.3.8, §3.3.8.3): so an out-of-class C++
  method definition, an out-of-line copy of an inline function, and compiler clones (`.part.N`,
  `.constprop.N`, `.isra.N`; `.cold` parts are extra DW_AT_ranges of their parent) all land on their
  origin's source. Static functions of the same name in different files stay apart (different DIEs).
- Paths are as recorded by the compiler: the line-program file entry joined with its directory and
  the unit's DW_AT_comp_dir when relative (DWARF 5 §6.2.4); they need not exist on this machine.
- Units are decoded lazily and cached per unit (`decls_of_unit`); `units` only reads the
  line-program headers, so callers can pick the units that mention a given source file.
- Addresses are link-time addresses; `ranges` are half-open [low, high).
- A subprogram DIE *without* code (a static function whose code gcc folded into an identical one,
  -fipa-icf, leaves its DIE without DW_AT_low_pc; abstract origins of inlined functions) is kept
  with empty `ranges`: `decl_named` places a routine by name when no DIE with code covers it.

`DwarfIndex` here chooses and caches units and answers lookups; reading the DIEs (which ones
count, code ranges, the specification/origin chain, file tables) is `info_reader`'s (an own reader
that skips what it does not need), and `info_fallback`'s over pyelftools for a file or unit
`info_reader` does not read (`Unsupported`): the same rules either way.
"""

from __future__ import annotations

import marshal
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from elftools.common.exceptions import ELFError as _PyElfError

from gmonlens.binary.elffile import ElfFile
from gmonlens.common.errors import ElfError, one_line
from gmonlens.dwarf.info_fallback import (
    SourceDecl,
    UnitInfo,
    attr_text,
    code_ranges,
    declaration,
    file_table,
    join_path,
    subprograms,
)
from gmonlens.dwarf.info_reader import DieReader, Unsupported

__all__ = ["EXPORT_FORMAT", "DwarfIndex", "SourceDecl", "UnitInfo"]

# 2: subprograms without code kept; 3: each unit's declarations packed (`_pack`); an older export
# is dropped
EXPORT_FORMAT = 3


def _pack(decls: tuple[SourceDecl, ...]) -> bytes:
    """A unit's declarations as one marshal blob (their file names, one object per file, are
    stored once each)."""
    return marshal.dumps([(d.name, d.linkage_name, d.file, d.line, d.column, d.ranges) for d in decls])


def _unpack(unit: int, blob: bytes) -> tuple[SourceDecl, ...] | None:
    """`_pack`'s declarations of the unit at `unit`, shape-checked (None: the wrong shape)."""
    try:
        rows = marshal.loads(blob)
    except (ValueError, EOFError, TypeError):
        return None
    if not isinstance(rows, list):
        return None
    out = []
    for row in rows:
        if not (isinstance(row, tuple) and len(row) == 6):
            return None
        name, linkage, file, line, column, ranges = row
        if not (
            isinstance(name, str)
            and isinstance(linkage, (str, type(None)))
            and isinstance(file, (str, type(None)))
            and type(line) is int
            and type(column) is int
            and isinstance(ranges, tuple)
            and all(isinstance(r, tuple) and len(r) == 2 and type(r[0]) is type(r[1]) is int for r in ranges)
        ):
            return None
        out.append(SourceDecl(name, linkage, file, line, column, ranges, unit))
    return tuple(out)


class DwarfIndex:
    """Lazy index of an ELF file's DWARF subprograms. Not thread-safe: use from one thread."""

    def __init__(self, path: str, elf: Callable[[], ElfFile]) -> None:
        """Index of the ELF file `path`, read through `elf()` (the file already open, with a budget
        of its own for each call: `Program._reader`). Nothing is decoded until asked; a seeded
        index (`from_export`) reads the file only for what it lacks. What the DWARF makes us
        decode is bounded by the file's budget (`pyelftools_info`): past it, lookups raise
        `budget.LimitError`."""
        self.path = path
        self._elf = elf
        self._opened = False
        self._dwarf: Any = None
        self._units: tuple[UnitInfo, ...] | None = None
        self._cu_by_offset: dict[int, Any] = {}
        self._decls: dict[int, tuple[SourceDecl, ...]] = {}
        self._code_ranges: dict[int, _CodeRanges] = {}  # unit -> its decls' ranges, for decl_at
        self._files: dict[int, list[str]] = {}
        self._unit_ranges: list[tuple[int, int, int]] | None = None  # (low, high, unit offset)
        self._reader: DieReader | None = None
        self._reader_tried = False
        self._packed: dict[int, bytes] = {}  # unit -> declarations from the disk cache (`_pack`)

    def opened_file(self) -> ElfFile:
        """The open file this index reads through (`Program.elf`): readers of other DWARF facts
        share it instead of opening the file again."""
        return self._elf()

    def _elftools(self) -> Any:
        """The pyelftools DWARFInfo (None without .debug_info); raises ElfError."""
        if self._opened:
            return self._dwarf
        self._opened = True
        from gmonlens.dwarf.pyelftools_info import (
            dwarf_info,  # here: pyelftools' DWARF modules, which dwarfread spares most runs
        )

        try:
            self._dwarf = dwarf_info(self._elf())
        except ElfError:
            raise
        except MemoryError:
            raise ElfError(self.path, "cannot read DWARF: out of memory") from None
        except Exception as exc:  # pyelftools raises many types on malformed input
            raise ElfError(self.path, f"cannot read DWARF: {one_line(exc)}") from exc
        return self._dwarf

    def _own(self) -> DieReader | None:
        """The own reader (`info_reader`), None when the file has no `.debug_info` or one it does
        not read (pyelftools reads it then); raises ElfError."""
        if not self._reader_tried:
            self._reader_tried = True
            try:
                self._reader = DieReader(self._elf())
            except Unsupported:
                self._reader = None
            except MemoryError:
                raise ElfError(self.path, "cannot read DWARF: out of memory") from None
        return self._reader

    def own_reader(self) -> DieReader | None:
        """The own `.debug_info` reader of this index's file (`info_reader`), None where
        pyelftools reads it; raises ElfError."""
        return self._own()

    def cu(self, offset: int) -> Any:
        """The pyelftools CU at `offset` (None without DWARF)."""
        return self._cu(offset)

    def code_ranges(self, die: Any) -> list[tuple[int, int]]:
        """A DIE's code ranges (DW_AT_low_pc/high_pc or DW_AT_ranges), half-open, sorted."""
        return code_ranges(self._dwarf, die)

    def _cu(self, offset: int) -> Any:
        if offset not in self._cu_by_offset:
            dwarf = self._elftools()
            if dwarf is None:
                return None
            self._cu_by_offset[offset] = dwarf.get_CU_at(offset)
        return self._cu_by_offset[offset]

    # ---- cache support -------------------------------------------------------------------------

    def export(self) -> dict[str, Any]:
        """Units, the declarations decoded so far (each unit's packed: `_pack`) and the unit
        ranges, as plain data for the disk cache (`from_export` reads it)."""
        decls = {str(unit): _pack(d) for unit, d in self._decls.items()}
        decls.update((str(unit), blob) for unit, blob in self._packed.items())
        return {
            "format": EXPORT_FORMAT,
            "units": [[u.offset, u.name, u.comp_dir, list(u.files)] for u in self.units()],
            "decls": decls,
            "unit_ranges": [list(r) for r in self._unit_ranges] if self._unit_ranges is not None else None,
        }

    @classmethod
    def from_export(cls, path: str, data: Any, elf: Callable[[], ElfFile]) -> DwarfIndex:
        """An index seeded from a *complete* `export()` (every unit's declarations and the unit
        ranges), shape-checked (raises ValueError); `elf` as in `__init__`. A unit's declarations
        stay packed until asked for (`decls_of_unit` checks and unpacks them then): a warm start
        of a program of 100,000 routines reads a few units, not all."""

        def ok(cond: bool) -> None:
            if not cond:
                raise ValueError("DWARF index export of the wrong shape")

        def ints(values: Any, n: int) -> bool:
            return isinstance(values, list) and len(values) == n and set(map(type, values)) <= {int}

        ok(
            isinstance(data, dict)
            and data.get("format") == EXPORT_FORMAT
            and isinstance(data.get("units"), list)
            and isinstance(data.get("decls"), dict)
        )
        index = cls(path, elf)
        units = []
        for u in data["units"]:
            ok(isinstance(u, list) and len(u) == 4 and type(u[0]) is int)
            ok(isinstance(u[1], str) and isinstance(u[2], str) and isinstance(u[3], list))
            ok(set(map(type, u[3])) <= {str})
            units.append(UnitInfo(u[0], u[1], u[2], tuple(u[3])))
        index._units = tuple(units)
        for unit, blob in data["decls"].items():
            ok(isinstance(unit, str) and unit.isdigit() and isinstance(blob, bytes))
            index._packed[int(unit)] = blob
        unit_ranges = data.get("unit_ranges")
        ok(isinstance(unit_ranges, list) and all(ints(r, 3) for r in unit_ranges))
        ok([r[0] for r in unit_ranges] == sorted(r[0] for r in unit_ranges))
        # complete: every unit's declarations present, so no unit is decoded from the ELF on the
        # word of the export (a planted unit offset cannot send pyelftools astray)
        offsets = {u.offset for u in units}
        ok(set(index._packed) == offsets and {r[2] for r in unit_ranges} <= offsets)
        index._unit_ranges = [(a, b, c) for a, b, c in unit_ranges]
        return index

    def complete(self) -> bool:
        """Whether every unit's declarations are decoded (an export then needs no ELF)."""
        done = self._decls.keys() | self._packed.keys()
        return all(u.offset in done for u in self.units()) and self._unit_ranges is not None

    @property
    def has_debug_info(self) -> bool:
        if self._units is not None:
            return bool(self._units)
        return self._own() is not None or self._elftools() is not None

    # ---- units ---------------------------------------------------------------------------------

    def units(self) -> tuple[UnitInfo, ...]:
        """Every compilation unit, reading only unit and line-program headers."""
        if self._units is None:
            fast = self._own()
            if fast is not None:
                try:
                    self._units = tuple(fast.unit_info(o, self._fast_files(fast, o)) for o in fast.units)
                    return self._units
                except Unsupported:
                    self._files.clear()
                    self._reader = None
            units: list[UnitInfo] = []
            dwarf = self._elftools()
            if dwarf is not None:
                for cu in dwarf.iter_CUs():
                    self._cu_by_offset[cu.cu_offset] = cu
                    top = cu.get_top_DIE().attributes
                    comp_dir = attr_text(top, "DW_AT_comp_dir")
                    name = attr_text(top, "DW_AT_name")
                    files = self._file_table(cu)
                    units.append(
                        UnitInfo(
                            offset=cu.cu_offset,
                            name=join_path(comp_dir, name) if name else "",
                            comp_dir=comp_dir,
                            files=tuple(dict.fromkeys(f for f in files if f)),
                        )
                    )
            self._units = tuple(units)
        return self._units

    def _file_table(self, cu: Any) -> list[str]:
        """The unit's line-program file names (`info_fallback.file_table`), read once."""
        out = self._files.get(cu.cu_offset)
        if out is None:
            comp_dir = attr_text(cu.get_top_DIE().attributes, "DW_AT_comp_dir")
            out = self._files[cu.cu_offset] = file_table(self._elftools(), cu, comp_dir)
        return out

    def _fast_files(self, fast: DieReader, offset: int) -> list[str]:
        """The unit's file table read by `fast` (raises Unsupported), read once."""
        out = self._files.get(offset)
        if out is None:
            out = self._files[offset] = fast.file_table(offset)
        return out

    def units_naming(self, wanted: set[str]) -> list[int]:
        """Offsets of the units whose line-program file table names any path in `wanted`."""
        return [u.offset for u in self.units() if u.name in wanted or not wanted.isdisjoint(u.files)]

    # ---- declarations --------------------------------------------------------------------------

    def decls_of_unit(self, offset: int) -> tuple[SourceDecl, ...]:
        """Concrete subprograms of one unit, sorted by low address (decoded once, then cached)."""
        cached = self._decls.get(offset)
        if cached is not None:
            return cached
        blob = self._packed.pop(offset, None)
        if blob is not None:
            unpacked = _unpack(offset, blob)
            if unpacked is not None:
                self._decls[offset] = unpacked
                return unpacked
        if blob is not None:
            # a unit the export named but packed wrongly is read from the file only by the own
            # reader, which knows the file's units (pyelftools would take any offset for one)
            try:
                decls = self._fast_decls(offset) or []
            except ElfError:
                decls = []
        else:
            fast = self._fast_decls(offset)
            decls = fast if fast is not None else self._pyelftools_decls(offset)
        decls.sort(key=lambda d: d.low_pc)
        result = tuple(decls)
        self._decls[offset] = result
        return result

    def pack_unit(self, offset: int) -> None:
        """Hold the unit's decoded declarations packed, as an export holds them (`_pack`), not
        as records: `decls_of_unit` unpacks them when asked again. For a pass over every unit
        (`Program.complete_dwarf`), whose peak is then one unit's records, not all of them."""
        decls = self._decls.pop(offset, None)
        if decls is not None:
            self._packed[offset] = _pack(decls)

    def _fast_decls(self, offset: int) -> list[SourceDecl] | None:
        """`decls_of_unit` by the own reader (unsorted), None when it does not read the unit."""
        fast = self._own()
        if fast is None or offset not in fast.units:
            return None
        try:
            return fast.declarations(
                offset, self._fast_files(fast, offset), lambda o: self._fast_files(fast, o)
            )
        except Unsupported:
            return None

    def _pyelftools_decls(self, offset: int) -> list[SourceDecl]:
        cu = self._cu(offset)
        decls: list[SourceDecl] = []
        if cu is not None:
            files = self._file_table(cu)
            for die in subprograms(cu, cu.get_top_DIE()):
                decl = declaration(self._dwarf, die, offset, files, self._file_table)
                if decl is not None:
                    decls.append(decl)
        return decls

    def all_decls(self) -> Iterator[SourceDecl]:
        for unit in self.units():
            yield from self.decls_of_unit(unit.offset)

    def decl_at(self, address: int) -> SourceDecl | None:
        """The concrete subprogram whose code contains `address`, if any."""
        for offset in self._units_at(address):
            ranges = self._code_ranges.get(offset)
            if ranges is None:
                ranges = self._code_ranges[offset] = _CodeRanges(self.decls_of_unit(offset))
            hit = ranges.first_at(address)
            if hit is not None:
                return hit
        return None

    def pending_bytes(self, address: int) -> int:
        """Bytes of `.debug_info` that `decl_at(address)` would still decode (0 when the units
        covering `address` are decoded): a caller in a hurry can tell a cheap lookup from one that
        walks a unit of tens of thousands of entries."""
        total = 0
        fast = self._own()
        for offset in self._units_at(address):
            if offset in self._decls or offset in self._packed:
                continue
            if fast is not None and offset in fast.units:
                total += fast.size(offset)
            else:
                cu = self._cu(offset)
                total += int(cu.size) if cu is not None else 0
        return total

    def decl_named(self, names: tuple[str, ...], address: int) -> SourceDecl | None:
        """A subprogram without code named one of `names` (DW_AT_linkage_name, else DW_AT_name),
        for a routine at `address` that no DIE with code covers (gcc's identical-code folding
        leaves the folded copy's DIE without code). Several units may declare a static of that
        name: the one whose address ranges cover `address` wins, else the only one, else None."""
        wanted = set(names)

        def matches(offsets: Any) -> list[SourceDecl]:
            return [
                d
                for offset in offsets
                for d in self.decls_of_unit(offset)
                if not d.ranges and d.line and (d.linkage_name or d.name) in wanted
            ]

        here = matches(self._units_at(address))
        if len({d.unit for d in here}) == 1:
            return here[0]
        found = matches(u.offset for u in self.units())
        return found[0] if len({d.unit for d in found}) == 1 else None

    def prepare_ranges(self) -> None:
        """Build the address -> unit table now (it is part of `export`)."""
        if self._unit_ranges is None:
            self._unit_ranges = self._build_unit_ranges()

    def line_programs_at(self, address: int) -> list[int] | None:
        """`.debug_line` offsets of the line programs of the units whose code ranges hold
        `address` (the address -> unit table), in unit order; None when no unit holds it, or one
        that does has no program or is not read by the own reader: callers read every program."""
        units = self._units_at(address)
        fast = self._own() if units else None
        if fast is None:
            return None
        out = []
        for unit in units:
            try:
                offset = fast.stmt_list(unit)
            except Unsupported:
                return None
            if offset is None:
                return None
            out.append(offset)
        return out

    def holds(self, address: int) -> bool:
        """Whether any unit's code ranges (the address -> unit table) hold `address`."""
        return bool(self._units_at(address))

    def unit_code_ranges(self, units: Iterable[int]) -> list[tuple[int, int]]:
        """The code ranges [low, high) of the units at offsets `units` (the address -> unit
        table's), in address order."""
        if self._unit_ranges is None:
            self._unit_ranges = self._build_unit_ranges()
        wanted = set(units)
        return [(lo, hi) for lo, hi, unit in self._unit_ranges if unit in wanted]

    def _units_at(self, address: int) -> list[int]:
        if self._unit_ranges is None:
            self._unit_ranges = self._build_unit_ranges()
        ranges = self._unit_ranges
        i = bisect_right(ranges, (address, float("inf"), 0))
        hits = [unit for lo, hi, unit in ranges[max(0, i - 64) : i] if lo <= address < hi]
        return list(dict.fromkeys(hits))

    def _build_unit_ranges(self) -> list[tuple[int, int, int]]:
        fast = self._own()
        if fast is not None:
            try:
                return fast.unit_ranges()
            except Unsupported:
                pass
        out: list[tuple[int, int, int]] = []
        dwarf = self._elftools()
        if dwarf is None:
            return out
        aranges = None
        try:
            aranges = dwarf.get_aranges()
        except (_PyElfError, ValueError, KeyError, AssertionError):
            aranges = None
        if aranges is not None:
            for entry in aranges.entries:
                if entry.length:
                    out.append((entry.begin_addr, entry.begin_addr + entry.length, entry.info_offset))
        covered = {unit for _, _, unit in out}
        for unit in self.units():
            if unit.offset in covered:
                continue
            cu = self._cu(unit.offset)
            for lo, hi in code_ranges(self._dwarf, cu.get_top_DIE()):
                out.append((lo, hi, unit.offset))
        out.sort()
        return out


class _CodeRanges:
    """One unit's subprogram code ranges, for `decl_at` by bisection (a unit of thousands of
    functions, SQLite's amalgamation, made a scan per lookup quadratic over a file's lenses):
    the answer is the first decl (in the unit's order) whose ranges hold the address."""

    def __init__(self, decls: tuple[SourceDecl, ...]) -> None:
        rows = sorted((lo, hi, k) for k, d in enumerate(decls) for lo, hi in d.ranges)
        self._decls = decls
        self._starts = [lo for lo, _hi, _k in rows]
        self._rows = rows
        reach: list[int] = []  # the furthest end among rows[0..j]
        for _lo, hi, _k in rows:
            reach.append(max(hi, reach[-1]) if reach else hi)
        self._reach = reach

    def first_at(self, address: int) -> SourceDecl | None:
        j = bisect_right(self._starts, address) - 1
        best = -1
        while j >= 0 and self._reach[j] > address:
            _lo, hi, k = self._rows[j]
            if address < hi and (best < 0 or k < best):
                best = k
            j -= 1
        return self._decls[best] if best >= 0 else None
