"""An own reader of `.debug_info` for the DWARF index (`declarations.DwarfIndex`): the units, each unit's
top entry and line-program file table, each unit's subprogram declarations (`SourceDecl`), the
address -> unit table, and the code scopes (`scopes.function_scopes`), read from the section bytes
without pyelftools (sections in: an `ElfFile` hands them over).

pyelftools builds an object per DIE and per attribute and keeps them with their unit (some
microseconds and a kilobyte a DIE); the index needs a few attributes of a few DIEs. Here each
unit's abbreviations (DWARF 5 §7.5.3) are compiled into plans: an entry nobody needs is skipped by
its forms' sizes (§7.5.6), a subtree nobody needs by its DW_AT_sibling (§2.3), and only the
subprograms `info_fallback.subprograms` visits are decoded; a reference is followed by decoding the
one entry it points to. Nothing but the answers is kept.

The answers are `info_fallback`'s and `die_primitives`'s, rule for rule (tests/integration/test_dwarfread.py
and test_dieparse.py compare them with pyelftools' on C and C++ builds, tests/realprogs on the
real programs). Whatever this reader does not read the
way pyelftools does (split DWARF, a form it does not expect, a reference it cannot follow, a
malformed entry) raises `die_primitives.Unsupported`, and `DwarfIndex` reads that unit (or the whole
file) with pyelftools instead. Every entry whose abbreviation is read is charged to the file's
budget as `pyelftools_info` charges it (1 + its attributes), and so are unit headers, abbreviation
tables and decoded strings, so a hostile file stops at the file's limits (`budget.LimitError`);
every loop advances through the section or stops.
"""

from __future__ import annotations

import struct
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from gmonlens.binary.budget import Budget
from gmonlens.binary.elffile import SHT_NOBITS, ElfFile
from gmonlens.dwarf.die_primitives import (
    _FIXED,
    _MANGLED_LANGUAGES,
    Abbrev,
    Unsupported,
    _abbrev_entries,
    _address,
    _code_ranges,
    _record,
    _rnglist,
    _string,
    _tombstone,
    _units,
    _value,
)
from gmonlens.dwarf.die_primitives import _Reader as Reader
from gmonlens.dwarf.die_primitives import _Unit as Unit
from gmonlens.dwarf.info_fallback import SourceDecl, UnitInfo, join_path
from gmonlens.dwarf.line_opcodes import text, uleb

__all__ = ["DieReader", "Unsupported"]

SECTIONS = (
    ".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str", ".debug_str_offsets",
    ".debug_addr", ".debug_ranges", ".debug_rnglists", ".debug_line", ".debug_aranges",
)  # fmt: skip

# tags
_SUBPROGRAM = 0x2E
_CONTAINERS = frozenset({0x39, 0x1E, 0x13, 0x02, 0x17})  # namespace, module, structure, class, union
# attributes
_SIBLING, _NAME, _LOW, _HIGH, _RANGES, _COMP_DIR, _STMT_LIST = 0x01, 0x03, 0x11, 0x12, 0x55, 0x1B, 0x10
_COLUMN, _FILE, _LINE, _DECLARATION = 0x39, 0x3A, 0x3B, 0x3C
_ORIGIN, _SPEC, _LINKAGE, _MIPS_LINKAGE = 0x31, 0x47, 0x6E, 0x2007
_STR_OFFSETS_BASE, _ADDR_BASE = 0x72, 0x73
_DECL_ATTRS = frozenset({_SIBLING, _NAME, _LOW, _HIGH, _RANGES, _COLUMN, _FILE, _LINE, _DECLARATION,
                         _ORIGIN, _SPEC, _LINKAGE, _MIPS_LINKAGE})  # fmt: skip
_INLINED, _CU, _PARTIAL, _LANGUAGE = 0x1D, 0x11, 0x3C, 0x13
_SCOPE_ATTRS = frozenset({_NAME, _LOW, _HIGH, _RANGES, _ORIGIN, _SPEC, _LINKAGE, _MIPS_LINKAGE})
_TOP_ATTRS = frozenset({_NAME, _LOW, _HIGH, _RANGES, _COMP_DIR, _STMT_LIST, _STR_OFFSETS_BASE, _ADDR_BASE})
# forms
_STRINGS = frozenset({0x08, 0x0E, 0x1F, 0x1A, 0x25, 0x26, 0x27, 0x28})
_STRX = frozenset({0x1A, 0x25, 0x26, 0x27, 0x28})
_ADDRX = frozenset({0x1B, 0x29, 0x2A, 0x2B, 0x2C})
_NUMBERS = frozenset({0x0B, 0x05, 0x06, 0x07, 0x0F, 0x0D, 0x21})  # data1/2/4/8, udata, sdata, implicit
_LOCAL_REFS = frozenset({0x11, 0x12, 0x13, 0x14, 0x15})
_RANGE_FORMS = frozenset({0x17, 0x06, 0x07})

# a compiled abbreviation: (tag, has children, role, steps, attributes, skip); a step is
# (attribute, form, size or None, implicit constant), the attribute -1 for a skipped run of
# fixed-size attributes (one step), -2 for a skipped attribute of a variable size (decoded to
# learn its size); `skip` is the entry's size after its code when every step is a fixed skip, else -1
Plan = tuple[int, bool, int, tuple[tuple[int, int, int, int], ...], int, int]
_SKIP, _DECL, _CONTAINER, _SCOPE = 0, 1, 2, 3  # role in a walk
# the walks: declarations (`_walk`), one whole entry for a declaration, code scopes (`code_scopes`)
_DECLS, _WHOLE, _SCOPES = 0, 1, 2
Values = dict[int, tuple[int, Any]]
# what the scope walk does with an entry (`_ScopeCodes.kinds`; a size >= 0: skips that many bytes)
_VARIABLE, _UNPACKED, _DECODED, _ABSENT = -1, -2, -3, -4
# how `_skip_variable` skips an attribute: a ULEB128 length and that many bytes, a NUL-terminated
# string, one LEB128 number
_BLOCK, _CSTRING, _LEB = 0, 1, 2
_LEB_FORMS = frozenset({0x0F, 0x15, 0x1A, 0x1B, 0x22, 0x23, 0x1F01, 0x1F02, 0x0D})  # as `_value` reads them
_STRUCT_CODES = {1: "B", 2: "H", 4: "I", 8: "Q"}
Record = tuple[str, bool, int, int]  # dieparse._record: (name, a linkage name, origin, specification)
_NO_VALUES: Values = {}


@contextmanager
def _malformed(what: str) -> Iterator[None]:
    """Errors of reading past a section's end or a malformed value, as Unsupported."""
    try:
        yield
    except (IndexError, KeyError, struct.error, ValueError, TypeError) as e:
        raise Unsupported(f"malformed {what} ({e})") from None


class DieReader:
    """The DWARF sections of one ELF file and what is read from them (not thread-safe)."""

    def __init__(self, elf: ElfFile) -> None:
        """Read the sections (each once, within the file's budget) and the unit headers. Raises
        Unsupported when the file has no `.debug_info` (a NOBITS one included) or units this
        reader does not read (split DWARF, DWARF 1, a unit past the section's end)."""
        self.little = elf.little
        self.sections: dict[str, bytes] = {}
        for name in SECTIONS:
            sec = elf.find(name)
            if sec is not None and sec.type != SHT_NOBITS:
                self.sections[name] = elf.data(sec)
        info = self.sections.get(".debug_info")
        if info is None:
            raise Unsupported("no .debug_info")
        self.info: bytes = info
        self._r = Reader(info, self.little)
        self._budget: Budget = elf.budget
        self.units: dict[int, Unit] = {}
        self._first: dict[int, int] = {}
        with _malformed("unit header"):
            for unit, first in _units(info, self.little):
                if unit.end > len(info) or first >= unit.end:
                    raise Unsupported("a unit past the section's end")
                self.units[unit.start] = unit
                self._first[unit.start] = first
        self._charge(len(self.units))  # a unit header costs about what an entry does
        self._starts = sorted(self.units)
        self._plans: dict[tuple[int, int, int, int, int], dict[int, Plan]] = {}
        self._scope_tables: dict[tuple[int, int, int, int, int], _ScopeCodes] = {}
        self._whole: dict[tuple[int, int, int, int, int], Plan | None] = {}
        self._sizes: dict[tuple[int, int, int], dict[int, int]] = {}
        self._tops: dict[int, Values] = {}
        self._tables: dict[int, dict[int, Abbrev]] = {}
        self._partial: dict[int, tuple[dict[int, Abbrev], Iterator[tuple[int, Abbrev]]]] = {}

    def _charge(self, entries: int) -> None:
        self._budget.charge("DWARF entries", entries, ".debug_info")

    # ---- abbreviations -------------------------------------------------------------------------

    def _sizes_of(self, unit: Unit) -> dict[int, int]:
        key = (unit.asize, unit.osize, unit.version)
        sizes = self._sizes.get(key)
        if sizes is None:
            sizes = {f: (unit.asize if n == -1 else unit.osize if n == -2 else n) for f, n in _FIXED.items()}
            sizes[0x10] = unit.asize if unit.version == 2 else unit.osize  # DW_FORM_ref_addr
            self._sizes[key] = sizes
        return sizes

    def _table(self, offset: int) -> dict[int, Abbrev]:
        """The abbreviation table at `offset` of `.debug_abbrev` (read once)."""
        table = self._tables.get(offset)
        if table is None:
            while self._abbrev(offset, -1) is not None:
                pass
            table = self._tables[offset] = self._partial.pop(offset)[0]
        return table

    def _abbrev(self, offset: int, code: int) -> Abbrev | None:
        """Abbreviation `code` of the table at `offset`, the table read only as far as it (a
        unit's top entry needs one; None: not in the table). Each entry read is charged once
        (units may share a table, or name overlapping ones)."""
        table = self._tables.get(offset)
        if table is not None:
            return table.get(code)
        partial = self._partial.get(offset)
        if partial is None:
            entries = _abbrev_entries(self.sections.get(".debug_abbrev", b""), offset)
            partial = self._partial[offset] = ({}, entries)
        found, entries = partial
        if code in found:
            return found[code]
        with _malformed("abbreviations"):
            for key, abbrev in entries:
                found[key] = abbrev
                self._charge(1 + len(abbrev[2]))
                if key == code:
                    return abbrev
        return None

    def _plans_for(self, unit: Unit, walk: int = _DECLS) -> dict[int, Plan]:
        """The unit's abbreviations compiled for `walk` (`_DECLS`, `_WHOLE`: every attribute a
        declaration reads whatever the entry, `_SCOPES`), cached per table."""
        key = (unit.abbrev_offset, unit.asize, unit.osize, unit.version, walk)
        plans = self._plans.get(key)
        if plans is None:
            table = self._table(unit.abbrev_offset)
            sizes = self._sizes_of(unit)
            plans = {
                code: _compile(tag, kids, specs, sizes, walk) for code, (tag, kids, specs) in table.items()
            }
            self._plans[key] = plans
        return plans

    def _whole_plan(self, unit: Unit, code: int) -> Plan | None:
        """Abbreviation `code` of the unit's table compiled for `_WHOLE` (None: the table has no
        such code), compiled when first asked: a reference's target is read alone."""
        key = (unit.abbrev_offset, unit.asize, unit.osize, unit.version, code)
        if key not in self._whole:
            abbrev = self._abbrev(unit.abbrev_offset, code)
            self._whole[key] = None if abbrev is None else _compile(*abbrev, self._sizes_of(unit), _WHOLE)
        return self._whole[key]

    def _decode(self, pos: int, plan: Plan, sizes: dict[int, int]) -> tuple[Values, int]:
        """The attributes `plan` keeps of the entry whose attributes start at `pos`, and where
        the next entry starts."""
        if plan[5] >= 0:
            return _NO_VALUES, pos + plan[5]
        info, r = self.info, self._r
        values: Values = {}
        for attr, form, size, const in plan[3]:
            if attr == -1:
                pos += size
                continue
            if form == 0x16:  # DW_FORM_indirect: the form is in the entry
                while form == 0x16:
                    form, pos = uleb(info, pos)
                if attr == -2 and form in sizes:
                    pos += sizes[form]
                    continue
            value, pos = _value(r, pos, form, const, sizes)
            if attr >= 0:
                values[attr] = (form, value)
        return values, pos

    # ---- units ---------------------------------------------------------------------------------

    def top(self, offset: int) -> Values:
        """The unit's top entry's attributes (all of them); sets the unit's bases."""
        hit = self._tops.get(offset)
        if hit is not None:
            return hit
        unit = self.units[offset]
        with _malformed("unit entry"):
            code, pos = uleb(self.info, self._first[offset])
            abbrev = self._abbrev(unit.abbrev_offset, code)
            if abbrev is None:
                raise Unsupported(f"no abbreviation {code} for the unit at {offset}")
            specs = abbrev[2]
            self._charge(1 + len(specs))
            values: Values = {}
            sizes = self._sizes_of(unit)
            for name, form, const in specs:
                while form == 0x16:
                    form, pos = uleb(self.info, pos)
                value, pos = _value(self._r, pos, form, const, sizes)
                values[name] = (form, value)
            self._tops[offset] = values
            if _STR_OFFSETS_BASE in values:
                unit.str_offsets_base = _int(values[_STR_OFFSETS_BASE])
            if _ADDR_BASE in values:
                unit.addr_base = _int(values[_ADDR_BASE])
            unit.low_pc = self._address(unit, values[_LOW]) if _LOW in values else 0
        return values

    def unit_info(self, offset: int, files: list[str]) -> UnitInfo:
        """`UnitInfo` of the unit at `offset`, whose file table is `files`."""
        top = self.top(offset)
        unit = self.units[offset]
        with _malformed("unit entry"):
            comp_dir = self._text(unit, top[_COMP_DIR]) if _COMP_DIR in top else ""
            name = self._text(unit, top[_NAME]) if _NAME in top else ""
        return UnitInfo(
            offset=offset,
            name=join_path(comp_dir, name) if name else "",
            comp_dir=comp_dir,
            files=tuple(dict.fromkeys(f for f in files if f)),
        )

    def file_table(self, offset: int) -> list[str]:
        """`info_fallback.file_table` of the unit at `offset`, from its line-program header."""
        top = self.top(offset)
        unit = self.units[offset]
        line = self.sections.get(".debug_line")
        if _STMT_LIST not in top or line is None:
            return []
        with _malformed("line-program header"):
            comp_dir = self._text(unit, top[_COMP_DIR]) if _COMP_DIR in top else ""
            files = _file_table(self, unit, line, _int(top[_STMT_LIST]), comp_dir)
        self._budget.charge("string bytes", sum(map(len, files)), ".debug_line")
        return files

    def stmt_list(self, offset: int) -> int | None:
        """The `.debug_line` offset of the unit at `offset`'s line program (DW_AT_stmt_list), None
        without one."""
        top = self.top(offset)
        if _STMT_LIST not in top:
            return None
        with _malformed("unit entry"):
            return _int(top[_STMT_LIST])

    def comp_dir(self, offset: int) -> str:
        """The unit at `offset`'s compilation directory (DW_AT_comp_dir), "" without one."""
        top = self.top(offset)
        if _COMP_DIR not in top:
            return ""
        with _malformed("unit entry"):
            return self._text(self.units[offset], top[_COMP_DIR])

    def size(self, offset: int) -> int:
        """Bytes of the unit at `offset`, its header included (pyelftools' `cu.size`)."""
        unit = self.units[offset]
        return int(unit.end - unit.start)

    def unit_ranges(self) -> list[tuple[int, int, int]]:
        """(low, high, unit offset) from `.debug_aranges`, and from the top entry's code ranges of
        each unit it does not cover, sorted (`DwarfIndex._build_unit_ranges`)."""
        with _malformed(".debug_aranges"):
            out = self._aranges()
        covered = {unit for _, _, unit in out}
        for offset in self._starts:
            if offset not in covered:
                top = self.top(offset)
                with _malformed("range list"):
                    out.extend((lo, hi, offset) for lo, hi in self._code_ranges(self.units[offset], top))
        out.sort()
        return out

    def _aranges(self) -> list[tuple[int, int, int]]:
        """`.debug_aranges`' entries with a length, as pyelftools reads them (tuples aligned from
        the section's start); raises Unsupported where it would read them otherwise."""
        data = self.sections.get(".debug_aranges")
        if data is None:
            return []
        r = Reader(data, self.little)
        out: list[tuple[int, int, int]] = []
        off = 0
        while off < len(data):
            length = r.uint(off, 4)
            if length >= 0xFFFFFFF0:
                raise Unsupported("64-bit .debug_aranges")
            info_offset, asize, segment = r.uint(off + 6, 4), data[off + 10], data[off + 11]
            if segment != 0 or asize not in (4, 8):
                raise Unsupported("segmented .debug_aranges")
            pos = -(-(off + 12) // (2 * asize)) * (2 * asize)
            while True:
                lo, n = r.uint(pos, asize), r.uint(pos + asize, asize)
                pos += 2 * asize
                if lo == 0 and n == 0:
                    break
                if n:
                    out.append((lo, lo + n, info_offset))
            off += length + 4
        return out

    # ---- values --------------------------------------------------------------------------------

    def _text(self, unit: Unit, fv: tuple[int, Any]) -> str:
        form, value = fv
        if form not in _STRINGS:
            raise Unsupported(f"a name of DW_FORM 0x{form:x}")
        if form in _STRX and _STR_OFFSETS_BASE not in self._tops.get(unit.start, _NO_VALUES):
            raise Unsupported("an indexed string without DW_AT_str_offsets_base")
        out = _string(unit, form, value, self.sections, self.little)
        self._budget.charge("string bytes", len(out), ".debug_str")
        return out

    def _address(self, unit: Unit, fv: tuple[int, Any]) -> int:
        form = fv[0]
        if form != 0x01 and form not in _ADDRX and form not in _NUMBERS:
            raise Unsupported(f"an address of DW_FORM 0x{form:x}")
        if form in _ADDRX and _ADDR_BASE not in self._tops.get(unit.start, _NO_VALUES):
            raise Unsupported("an indexed address without DW_AT_addr_base")
        return _address(unit, fv, self.sections, self.little)

    def _code_ranges(self, unit: Unit, values: Values) -> list[tuple[int, int]]:
        """`info_fallback.code_ranges` of an entry's attributes."""
        if _LOW in values and _HIGH in values:
            lo = self._address(unit, values[_LOW])
            form = values[_HIGH][0]
            if form == 0x01:
                hi = _int(values[_HIGH])
            elif form in _NUMBERS:
                hi = lo + _int(values[_HIGH])
            else:
                raise Unsupported(f"DW_AT_high_pc of DW_FORM 0x{form:x}")
            return [(lo, hi)] if hi > lo and lo != 0 and not _tombstone(lo) else []
        if _RANGES not in values:
            return []
        has_v4, has_v5 = ".debug_ranges" in self.sections, ".debug_rnglists" in self.sections
        form = values[_RANGES][0]
        if not (has_v4 or has_v5) or form not in _RANGE_FORMS:
            return []
        v5 = has_v5 and (not has_v4 or unit.version >= 5)  # the section pyelftools reads
        base = self._address(unit, values[_LOW]) if _LOW in values else 0
        out: list[tuple[int, int]] = []
        for kind, a, b in _range_list(unit, _int(values[_RANGES]), v5, self.sections, self.little):
            if kind == "base":
                base = a
                continue
            shift = 0 if kind == "abs" else (base or unit.low_pc)
            if b > a and shift + a != 0 and not _tombstone(shift + a):
                out.append((shift + a, shift + b))
        return sorted(out)

    # ---- code scopes ---------------------------------------------------------------------------

    def code_scopes(self, elf_names: Mapping[int, str] | None) -> list[tuple[int, int, str]]:
        """(low, high, name) of every subprogram and inlined subroutine with code, in entry order,
        named by the rules of `die_primitives` (`scopes.function_scopes`); a name is read by following
        the entry's abstract origin or specification when it has none, nothing is kept of the
        entries without code."""
        return self.code_scope_pair(elf_names)[1 if elf_names is not None else 0]

    def code_scope_pair(
        self, elf_names: Mapping[int, str] | None
    ) -> tuple[list[tuple[int, int, str]], list[tuple[int, int, str]]]:
        """`(code_scopes(None), code_scopes(elf_names))` from one walk over the entries; the
        second is the first list itself where `elf_names` renames nothing (or is None)."""
        records: dict[int, Record | None] = {}
        out: list[tuple[int, int, str]] = []
        renamed: dict[int, tuple[int, str]] = {}  # first index in `out` -> (ranges, ELF name)
        coded: list[tuple[Unit, list[tuple[int, int]], bool, Record]] = []
        for offset in self._starts:
            unit = self.units[offset]
            lang = self.top(offset).get(_LANGUAGE)
            mangled = lang is not None and lang[1] in _MANGLED_LANGUAGES
            with _malformed("DWARF entries"):
                self._scope_walk(unit, mangled, coded)
                # named unit by unit (a name read through a link decodes the entry it points to,
                # wherever it is): only one unit's records are held at a time
                for _unit, ranges, mangled, record in coded:
                    name, linkage = self._scope_name(record, records)
                    if elf_names is not None and mangled and not linkage:
                        other = elf_names.get(ranges[0][0], name)
                        if other != name:
                            renamed[len(out)] = (len(ranges), other)
                    if len(ranges) == 1:
                        out.append((ranges[0][0], ranges[0][1], name))
                    else:
                        out.extend([(lo, hi, name) for lo, hi in ranges])
            coded.clear()
        return out, _renamed(out, renamed) if renamed else out

    def _scope_walk(
        self, unit: Unit, mangled: bool, coded: list[tuple[Unit, list[tuple[int, int]], bool, Record]]
    ) -> None:
        """Every entry of `unit` in order; those with code ranges appended to `coded` with their
        `die_primitives._record`. Each entry is handled as its code's `_ScopeCodes` action says: most
        are skipped by a size known in advance, a scope entry of fixed-size attributes is read
        by one `struct` unpacking, the rest by `_decode` as the plans say."""
        info, sections, little = self.info, self.sections, self.little
        table = self._scope_codes(unit)
        kinds, costs, args = table.kinds, table.costs, table.args
        pos, end, spent = self._first[unit.start], unit.end, 0
        while pos < end:
            code = info[pos]
            pos += 1
            if code >= 0x80:
                code, pos = uleb(info, pos - 1)
            kind = kinds[code]  # past the table: IndexError, read as malformed; 0 (a null entry): 0
            spent += costs[code]
            if kind >= 0:  # nothing kept: skipped by its size
                pos += kind
                continue
            if spent >= 4096:
                self._charge(spent)
                spent = 0
            if kind == _VARIABLE:
                pos = _skip_variable(info, pos, args[code])
                continue
            if kind == _UNPACKED:
                unpack, size, keys, forms = args[code]
                values = dict(
                    zip(keys, zip(forms, unpack(info, pos), strict=False), strict=False)
                )  # equal lengths
                pos += size
            elif kind == _DECODED:
                values, pos = self._decode(pos, args[code], self._sizes_of(unit))
                if args[code][2] != _SCOPE:
                    continue
            else:
                raise Unsupported(f"no abbreviation {code} in the unit at {unit.start}")
            ranges = _code_ranges(unit, values, sections, little)
            if ranges:
                coded.append((unit, ranges, mangled, _record(unit, values, sections, little)))
        self._charge(spent)

    def _scope_codes(self, unit: Unit) -> _ScopeCodes:
        """The unit's abbreviations compiled for the scope walk (`_ScopeCodes`), cached per table."""
        key = (unit.abbrev_offset, unit.asize, unit.osize, unit.version, _SCOPES)
        table = self._scope_tables.get(key)
        if table is None:
            table = self._scope_tables[key] = _ScopeCodes(self._plans_for(unit, _SCOPES), self.little)
        return table

    def _scope_name(self, record: Record, records: dict[int, Record | None]) -> tuple[str, bool]:
        """`die_primitives._name`: the first name along the entry's abstract origin / specification
        links (at most 8 entries), and whether it was a linkage name; ("", False) where the
        chain leaves the subprograms and inlined subroutines. `records` caches the entries
        followed."""
        for _ in range(8):
            name, linkage, origin, spec = record
            if name:
                return name, linkage
            current = origin if origin >= 0 else spec
            if current < 0:
                break
            if current not in records:
                records[current] = self._scope_record(current)
            nxt = records[current]
            if nxt is None:
                break
            record = nxt
        return "", False

    def _scope_record(self, offset: int) -> Record | None:
        """`die_primitives._record` of the subprogram or inlined subroutine at `offset`, None for an
        entry of another tag or no entry."""
        i = bisect_right(self._starts, offset) - 1
        if i < 0:
            return None
        unit = self.units[self._starts[i]]
        self.top(unit.start)
        if not self._first[unit.start] <= offset < unit.end:
            return None
        code, pos = uleb(self.info, offset)
        plan = self._whole_plan(unit, code) if code else None
        if plan is None or plan[0] not in (_SUBPROGRAM, _INLINED):
            return None
        self._charge(plan[4])
        return _record(unit, self._decode(pos, plan, self._sizes_of(unit))[0], self.sections, self.little)

    # ---- declarations --------------------------------------------------------------------------

    def declarations(
        self, offset: int, files: list[str], files_of: Callable[[int], list[str]]
    ) -> list[SourceDecl]:
        """`SourceDecl`s of the subprograms of the unit at `offset` that `info_fallback.subprograms`
        yields and `info_fallback.declaration` keeps, in that order (not sorted); `files` is the
        unit's file table, `files_of(unit offset)` another unit's."""
        unit = self.units[offset]
        self.top(offset)
        out = []
        with _malformed("DWARF entries"):
            for values in self._walk(unit):
                decl = self._declaration(unit, values, files, files_of)
                if decl is not None:
                    out.append(decl)
        return out

    def _walk(self, unit: Unit) -> list[Values]:
        """The attributes of the subprograms `info_fallback.subprograms` yields, in its order: each
        container's own in entry order, then (the last pushed first) its nested containers'."""
        info, plans, sizes = self.info, self._plans_for(unit), self._sizes_of(unit)
        code, pos = uleb(info, self._first[unit.start])
        top = plans[code]
        pos = self._decode(pos, top, sizes)[1]
        if not top[1]:
            return []
        root: tuple[list[Values], list[Any]] = ([], [])  # (subprograms' values, nested containers)
        stack, spent, end = [root], 1 + top[4], unit.end
        while stack:
            if pos >= end:
                raise Unsupported("a unit's entries run past its end")
            at, code = pos, info[pos]
            code, pos = (code, pos + 1) if code < 0x80 else uleb(info, pos)
            if code == 0:
                stack.pop()
                continue
            plan = plans[code]
            spent += plan[4]
            if spent >= 4096:
                self._charge(spent)
                spent = 0
            if plan[5] >= 0 and not plan[1]:  # nothing kept, no children: skipped by its size
                pos += plan[5]
                continue
            values, pos = self._decode(pos, plan, sizes)
            if plan[2] == _CONTAINER and plan[1]:
                node: tuple[list[Values], list[Any]] = ([], [])
                stack[-1][1].append(node)
                stack.append(node)
                continue
            if plan[2] == _DECL:
                stack[-1][0].append(values)
            if plan[1]:
                pos, more = self._past_subtree(unit, at, pos, values, plans, sizes)
                spent += more
        self._charge(spent)
        out: list[Values] = []
        todo = [root]
        while todo:
            subs, kids = todo.pop()
            out.extend(subs)
            todo.extend(kids)
        return out

    def _past_subtree(
        self, unit: Unit, at: int, pos: int, values: Values, plans: dict[int, Plan], sizes: dict[int, int]
    ) -> tuple[int, int]:
        """Where the next sibling of the entry at `at` (attributes ending at `pos`) starts: at its
        DW_AT_sibling (as pyelftools follows it), else past its children; and the entries read."""
        target = self._sibling(unit, at, values)
        if target is not None:
            return target, 0
        info, spent, depth = self.info, 0, 1
        while depth:
            if pos >= unit.end:
                raise Unsupported("a unit's entries run past its end")
            at = pos
            code, pos = uleb(info, pos)
            if code == 0:
                depth -= 1
                continue
            plan = plans[code]
            spent += plan[4]
            child, pos = self._decode(pos, plan, sizes)
            if plan[1]:
                target = self._sibling(unit, at, child)
                if target is None:
                    depth += 1
                else:
                    pos = target
        return pos, spent

    def _sibling(self, unit: Unit, at: int, values: Values) -> int | None:
        """The DW_AT_sibling of the entry at `at` (None: it has none); Unsupported unless it
        points forward within the unit."""
        sibling = values.get(_SIBLING)
        if sibling is None:
            return None
        if sibling[0] in _LOCAL_REFS:
            target = unit.start + _int(sibling)
        elif sibling[0] == 0x10:
            target = _int(sibling)
        else:
            raise Unsupported(f"DW_AT_sibling of DW_FORM 0x{sibling[0]:x}")
        if not at < target <= unit.end:
            raise Unsupported("DW_AT_sibling points backwards or out of its unit")
        return target

    def _entry(self, unit: Unit, fv: tuple[int, Any]) -> tuple[Unit, Values]:
        """The entry a DW_AT_specification / DW_AT_abstract_origin points to (every attribute a
        declaration reads), with its unit."""
        form = fv[0]
        if form in _LOCAL_REFS:
            target, where = unit.start + _int(fv), unit
        elif form == 0x10:
            target = _int(fv)
            i = bisect_right(self._starts, target) - 1
            if i < 0:
                raise Unsupported("a reference before the first unit")
            where = self.units[self._starts[i]]
            self.top(where.start)
        else:
            raise Unsupported(f"a reference of DW_FORM 0x{form:x}")
        if not self._first[where.start] <= target < where.end:
            raise Unsupported("a reference outside its unit's entries")
        code, pos = uleb(self.info, target)
        if code == 0:
            return where, {}
        plan = self._whole_plan(where, code)
        if plan is None:
            raise Unsupported(f"a reference to an entry of no abbreviation ({code})")
        self._charge(plan[4])
        return where, self._decode(pos, plan, self._sizes_of(where))[0]

    def _declaration(
        self, unit: Unit, values: Values, files: list[str], files_of: Callable[[int], list[str]]
    ) -> SourceDecl | None:
        """`info_fallback.declaration` of one subprogram's attributes."""
        ranges = tuple(self._code_ranges(unit, values))
        if not ranges and (_LOW in values or _RANGES in values or _DECLARATION in values):
            return None
        name: str | None = None
        linkage: str | None = None
        file_index: int | None = None
        line: int | None = None
        column = 0
        file_unit, here, current = unit, unit, values
        for _ in range(8):
            if name is None and _NAME in current:
                name = self._text(here, current[_NAME])
            if linkage is None:
                key = _LINKAGE if _LINKAGE in current else _MIPS_LINKAGE if _MIPS_LINKAGE in current else 0
                if key:
                    linkage = self._text(here, current[key])
            if line is None and _LINE in current:
                line = _number(current[_LINE])
                column = _number(current[_COLUMN]) if _COLUMN in current else 0
            if file_index is None and _FILE in current:
                file_index, file_unit = _number(current[_FILE]), here
            link = current.get(_SPEC) or current.get(_ORIGIN)
            if link is None:
                break
            here, current = self._entry(here, link)
        path: str | None = None
        if file_index is not None:
            table = files if file_unit is unit else files_of(file_unit.start)
            if 0 <= file_index < len(table) and table[file_index]:
                path = table[file_index]
        return SourceDecl(name or "", linkage, path, line or 0, column or 0, ranges, unit.start)


def _compile(
    tag: int, children: bool, specs: list[tuple[int, int, int]], sizes: dict[int, int], walk: int
) -> Plan:
    """An abbreviation's plan for `walk`: the entry's role and its attribute steps."""
    names = {name for name, _, _ in specs}
    role = _SKIP
    if walk == _SCOPES:
        if tag in (_SUBPROGRAM, _INLINED) and ((_LOW in names and _HIGH in names) or _RANGES in names):
            role = _SCOPE
    elif tag == _SUBPROGRAM and names & {_LOW, _RANGES, _LINE}:
        # a bare declaration (DW_AT_declaration, no code) never becomes a SourceDecl
        role = _SKIP if _DECLARATION in names and not names & {_LOW, _RANGES} else _DECL
    elif tag in _CONTAINERS:
        role = _CONTAINER
    if walk == _WHOLE or role == _DECL:
        wanted = _DECL_ATTRS if walk != _WHOLE else _DECL_ATTRS | _SCOPE_ATTRS
    elif role == _SCOPE:
        wanted = _SCOPE_ATTRS
    else:
        wanted = frozenset({_SIBLING}) if children and walk == _DECLS else frozenset()
    steps: list[tuple[int, int, int, int]] = []
    for name, form, const in specs:
        size = sizes.get(form)
        if name in wanted:
            steps.append((name, form, size if size is not None else -1, const))
        elif size is None:
            steps.append((-2, form, -1, const))
        elif steps and steps[-1][0] == -1:
            steps[-1] = (-1, 0, steps[-1][2] + size, 0)
        else:
            steps.append((-1, 0, size, 0))
    skip = steps[0][2] if len(steps) == 1 and steps[0][0] == -1 else 0 if not steps else -1
    return (tag, children, role, tuple(steps), 1 + len(specs), skip)


class _ScopeCodes:
    """An abbreviation table compiled for `DieReader._scope_walk`: per code (a list index, or a
    dict key where codes are sparse), `kinds[code]` is what the walk does with an entry and
    `costs[code]` what the entry is charged (`Plan`'s). A kind >= 0: nothing of the entry is
    read, it is skipped by that many bytes after its code; _VARIABLE: skipped attribute by
    attribute (`args[code]`: `_skip_variable`'s steps); _UNPACKED: a code scope whose kept
    attributes all have sizes of 1, 2, 4 or 8 bytes and whose others have fixed sizes
    (`args[code]`: `_unpacker`'s); _DECODED: read by `DieReader._decode` (`args[code]`: the
    plan); _ABSENT: no such abbreviation."""

    def __init__(self, plans: dict[int, Plan], little: bool) -> None:
        top = max(plans, default=0)
        self.kinds: list[int] | dict[int, int]
        self.costs: list[int] | dict[int, int]
        self.args: list[Any] | dict[int, Any]
        if top <= 4 * len(plans) + 64:  # dense, as compilers number them: lists
            self.kinds, self.costs, self.args = [_ABSENT] * (top + 1), [0] * (top + 1), [None] * (top + 1)
        else:  # a code nobody numbers densely: no list as long as the largest
            self.kinds, self.costs, self.args = {}, {}, {}
        self.kinds[0], self.costs[0] = 0, 0  # a null entry (the end of siblings): nothing to skip
        for code, plan in plans.items():
            self.costs[code] = plan[4]
            self.kinds[code], self.args[code] = _scope_action(plan, little)


def _scope_action(plan: Plan, little: bool) -> tuple[int, Any]:
    """(kind, argument) of `plan` (compiled for `_SCOPES`) in `_ScopeCodes`."""
    steps, skip = plan[3], plan[5]
    if skip >= 0:
        return skip, None
    found = _unpacker(steps, little) if plan[2] == _SCOPE else _variable_steps(steps)
    if found is None:
        return _DECODED, plan
    return (_UNPACKED if plan[2] == _SCOPE else _VARIABLE), found


def _unpacker(
    steps: tuple[tuple[int, int, int, int], ...], little: bool
) -> tuple[Callable[[bytes, int], tuple[int, ...]], int, tuple[int, ...], tuple[int, ...]] | None:
    """(unpack_from, entry size, kept attributes, their forms) of a plan's steps whose kept
    attributes are unsigned integers of 1, 2, 4 or 8 bytes (the values `_value` gives them)
    and whose skipped ones have fixed sizes; None for others. The unpacking reads no byte past
    the last kept attribute (`_decode` reads none)."""
    fmt, keys, forms = ["<" if little else ">"], [], []
    size = pad = 0
    for attr, form, n, _const in steps:
        if attr == -1:
            pad += n
            continue
        if attr < 0 or n not in _STRUCT_CODES:
            return None
        fmt.append(f"{pad}x{_STRUCT_CODES[n]}")
        keys.append(attr)
        forms.append(form)
        size += pad + n
        pad = 0
    return struct.Struct("".join(fmt)).unpack_from, size + pad, tuple(keys), tuple(forms)


def _variable_steps(
    steps: tuple[tuple[int, int, int, int], ...],
) -> tuple[tuple[tuple[int, int], ...], int] | None:
    """`_skip_variable`'s steps for a plan that keeps nothing: ((fixed bytes before, how), ...)
    and the fixed bytes after the last; None where a form is skipped otherwise (`_decode`)."""
    runs: list[tuple[int, int]] = []
    fixed = 0
    for attr, form, n, _const in steps:
        if attr == -1:
            fixed += n
            continue
        how = (
            _BLOCK
            if form in (0x18, 0x09)
            else _CSTRING
            if form == 0x08
            else _LEB
            if form in _LEB_FORMS
            else -1
        )
        if attr != -2 or how < 0:
            return None
        runs.append((fixed, how))
        fixed = 0
    return tuple(runs), fixed


def _skip_variable(info: bytes, pos: int, steps: tuple[tuple[tuple[int, int], ...], int]) -> int:
    """Where the entry whose attributes start at `pos` ends, skipped by `_variable_steps`' steps
    (the bytes `_value` would read; past the section: IndexError or ValueError, as there)."""
    runs, tail = steps
    for fixed, how in runs:
        pos += fixed
        if how == _BLOCK:
            n = info[pos]
            if n < 0x80:
                pos += n + 1
            else:
                n, pos = uleb(info, pos)
                pos += n
        elif how == _CSTRING:
            pos = info.index(b"\0", pos) + 1
        else:
            while info[pos] & 0x80:
                pos += 1
            pos += 1
    return pos + tail


def _int(fv: tuple[int, Any]) -> int:
    value = fv[1]
    if not isinstance(value, int) or isinstance(value, bool):
        raise Unsupported("an integer attribute holds something else")
    return value


def _number(fv: tuple[int, Any]) -> int:
    """A decl_file/line/column value, as pyelftools gives it (constant forms only)."""
    if fv[0] not in _NUMBERS:
        raise Unsupported(f"a constant of DW_FORM 0x{fv[0]:x}")
    return _int(fv)


def _range_list(
    unit: Unit, offset: int, v5: bool, sections: dict[str, bytes], little: bool
) -> list[tuple[str, int, int]]:
    """The range list at `offset`: DWARF 5 `.debug_rnglists` or DWARF 2-4 `.debug_ranges`."""
    if v5:
        return _rnglist(unit, offset, sections, little)
    data = sections.get(".debug_ranges", b"")
    r = Reader(data, little)
    top = (1 << (8 * unit.asize)) - 1
    out: list[tuple[str, int, int]] = []
    pos = offset
    while True:
        a, b = r.uint(pos, unit.asize), r.uint(pos + unit.asize, unit.asize)
        pos += 2 * unit.asize
        if a == 0 and b == 0:
            return out
        out.append(("base", b, 0) if a == top else ("rel", a, b))


def _file_table(reader: DieReader, unit: Unit, data: bytes, offset: int, comp_dir: str) -> list[str]:
    """`info_fallback.file_table` read off the line-program header at `offset` (§6.2.4)."""
    r = Reader(data, reader.little)
    length, pos, osize = r.uint(offset, 4), offset + 4, 4
    if length == 0xFFFFFFFF:
        pos, osize = pos + 8, 8
    if osize != unit.osize:
        raise Unsupported("a line-program header of another offset size than its unit")
    version = r.uint(pos, 2)
    pos += 2
    if version >= 5:
        pos += 2  # address size, segment selector size
    pos += osize  # header_length
    pos += 5 if version >= 4 else 4  # min length, [max ops], default_is_stmt, line_base, line_range
    opcode_base = data[pos]
    pos += opcode_base  # opcode_base and the standard opcodes' lengths
    if version < 2 or version > 5:
        raise Unsupported(f"line-program version {version}")
    if version >= 5:
        return _file_table_v5(reader, unit, data, pos, comp_dir)
    dirs = [comp_dir]
    while data[pos]:
        end = data.index(b"\0", pos)
        dirs.append(text(data[pos:end]))
        pos = end + 1
    pos += 1
    out = [""]
    while data[pos]:
        end = data.index(b"\0", pos)
        name = text(data[pos:end])
        d, pos = uleb(data, end + 1)
        _mtime, pos = uleb(data, pos)
        _size, pos = uleb(data, pos)
        out.append(join_path(comp_dir, dirs[d] if 0 <= d < len(dirs) else "", name))
    return out


def _file_table_v5(reader: DieReader, unit: Unit, data: bytes, pos: int, comp_dir: str) -> list[str]:
    """The directory and file entries of a DWARF 5 line-program header (from `pos`)."""
    dirs, pos = _v5_entries(reader, unit, data, pos)
    files, pos = _v5_entries(reader, unit, data, pos)
    if not dirs or not files:
        raise Unsupported("a DWARF 5 line-program header without directories or files")
    names = [text(d.get(1)) for d in dirs]
    out = []
    for f in files:
        d = f.get(2)
        if not isinstance(d, int) or f.get(1) is None:
            raise Unsupported("a DWARF 5 file entry without a path or directory index")
        out.append(join_path(comp_dir, names[d] if 0 <= d < len(names) else "", text(f[1])))
    return out


def _v5_entries(reader: DieReader, unit: Unit, data: bytes, pos: int) -> tuple[list[dict[int, Any]], int]:
    """One entry-format list and its entries (DW_LNCT_path: bytes; others: ints or bytes)."""
    r = Reader(data, reader.little)
    count = data[pos]
    pos += 1
    formats = []
    for _ in range(count):
        kind, pos = uleb(data, pos)
        form, pos = uleb(data, pos)
        formats.append((kind, form))
    n, pos = uleb(data, pos)
    if n and (not formats or n > len(data) - pos):  # each entry takes at least a byte
        raise Unsupported("a DWARF 5 line-program header claims more entries than it holds")
    entries = []
    for _ in range(n):
        entry: dict[int, Any] = {}
        for kind, form in formats:
            if form == 0x08:
                end = data.index(b"\0", pos)
                value: Any = data[pos:end]
                pos = end + 1
            elif form in (0x1F, 0x0E):
                off = r.uint(pos, unit.osize)
                pos += unit.osize
                table = reader.sections.get(".debug_line_str" if form == 0x1F else ".debug_str", b"")
                value = table[off : table.index(b"\0", off)] if off < len(table) else None
            elif form == 0x0F:
                value, pos = uleb(data, pos)
            elif form in (0x0B, 0x05, 0x06, 0x07):
                size = {0x0B: 1, 0x05: 2, 0x06: 4, 0x07: 8}[form]
                value, pos = r.uint(pos, size), pos + size
            elif form == 0x1E:
                value, pos = data[pos : pos + 16], pos + 16
            elif form == 0x09:
                size, pos = uleb(data, pos)
                value, pos = data[pos : pos + size], pos + size
            else:
                raise Unsupported(f"DW_FORM 0x{form:x} in a line-program header")
            entry[kind] = value
        entries.append(entry)
    return entries, pos


def _renamed(
    out: list[tuple[int, int, str]], renamed: dict[int, tuple[int, str]]
) -> list[tuple[int, int, str]]:
    """`out` with the ranges `renamed` lists (first index -> (how many, name)) named as it says
    (`DieReader.code_scope_pair`)."""
    other = list(out)
    for k, (n, name) in renamed.items():
        for j in range(k, k + n):
            lo, hi, _ = other[j]
            other[j] = (lo, hi, name)
    return other
