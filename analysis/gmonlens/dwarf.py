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
- Units are decoded lazily and cached per unit (`decls_of_unit`); `unit_files` only reads the
  line-program headers, so callers can pick the units that mention a given source file.
- Addresses are link-time addresses; `ranges` are half-open [low, high).
- A subprogram DIE *without* code (a static function whose code gcc folded into an identical one,
  -fipa-icf, leaves its DIE without DW_AT_low_pc; abstract origins of inlined functions) is kept
  with empty `ranges`: `decl_named` places a routine by name when no DIE with code covers it.
"""

from __future__ import annotations

import io
import posixpath
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from elftools.common.exceptions import ELFError as _PyElfError
from elftools.elf.elffile import ELFFile

from .elf import MAX_BINARY_BYTES
from .errors import ElfError, one_line
from .files import read_regular


@dataclass(frozen=True, slots=True)
class SourceDecl:
    """One concrete subprogram and the source position of its (origin's) name."""

    name: str  # DW_AT_name of the origin (unqualified), "" when absent
    linkage_name: str | None  # mangled name when the producer recorded one
    file: str | None  # declaration file, as recorded (see module docstring)
    line: int  # 1-based, 0 when unknown
    column: int  # 1-based, 0 when unknown
    ranges: tuple[tuple[int, int], ...]  # code ranges, half-open, sorted
    unit: int  # offset of the compilation unit in .debug_info

    @property
    def low_pc(self) -> int:
        return self.ranges[0][0] if self.ranges else 0


@dataclass(frozen=True, slots=True)
class UnitInfo:
    """A compilation unit: its offset, primary source and the files its line program names."""

    offset: int
    name: str  # primary source file, joined with comp_dir
    comp_dir: str
    files: tuple[str, ...]  # every file of the line-program header, joined (duplicates removed)


_SUBPROGRAM = "DW_TAG_subprogram"
EXPORT_FORMAT = 2  # 2: subprograms without code kept (an older export lacks them: dropped)
_DESCEND = frozenset({"DW_TAG_namespace", "DW_TAG_module"})
_SCOPES = frozenset({"DW_TAG_structure_type", "DW_TAG_class_type", "DW_TAG_union_type"})


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _join(*parts: str) -> str:
    """Join path parts the way the producer meant them (POSIX paths; absolute parts reset)."""
    out = ""
    for part in parts:
        if part:
            out = posixpath.join(out, part) if out else part
    return posixpath.normpath(out) if out else out


def _tombstone(address: int) -> bool:
    """binutils' and lld's markers for discarded code: -1 or -2 at 32 or 64 bits."""
    return address in (0xFFFFFFFF, 0xFFFFFFFE) or address >= 0xFFFFFFFFFFFFFFFE


class DwarfIndex:
    """Lazy index of an ELF file's DWARF subprograms. Not thread-safe: use from one thread."""

    def __init__(self, path: str, data: bytes | None = None) -> None:
        """Index of the ELF file `path`; `data` (its bytes) saves reading it. Nothing is decoded
        until asked; a seeded index (`from_export`) opens the file only for what it lacks."""
        self.path = path
        self._data = data
        self._opened = False
        self._dwarf: Any = None
        self._units: tuple[UnitInfo, ...] | None = None
        self._cu_by_offset: dict[int, Any] = {}
        self._decls: dict[int, tuple[SourceDecl, ...]] = {}
        self._files: dict[int, list[str]] = {}
        self._unit_ranges: list[tuple[int, int, int]] | None = None  # (low, high, unit offset)

    @classmethod
    def from_elf(cls, path: str) -> DwarfIndex:
        index = cls(path)
        index._open()
        return index

    def _open(self) -> Any:
        """The pyelftools DWARFInfo (None without .debug_info); raises ElfError."""
        if self._opened:
            return self._dwarf
        self._opened = True
        if self._data is None:
            self._data = read_regular(self.path, MAX_BINARY_BYTES, "executable", ElfError)
        try:
            elf = ELFFile(io.BytesIO(self._data))
            if elf.has_dwarf_info() and elf.get_section_by_name(".debug_info") is not None:
                self._dwarf = elf.get_dwarf_info()
        except Exception as exc:  # pyelftools raises many types on malformed input
            raise ElfError(self.path, f"cannot read DWARF: {one_line(exc)}") from exc
        return self._dwarf

    def cu(self, offset: int) -> Any:
        """The pyelftools CU at `offset` (None without DWARF)."""
        return self._cu(offset)

    def code_ranges(self, die: Any) -> list[tuple[int, int]]:
        """A DIE's code ranges (DW_AT_low_pc/high_pc or DW_AT_ranges), half-open, sorted."""
        return self._die_ranges(die)

    def _cu(self, offset: int) -> Any:
        if offset not in self._cu_by_offset:
            dwarf = self._open()
            if dwarf is None:
                return None
            self._cu_by_offset[offset] = dwarf.get_CU_at(offset)
        return self._cu_by_offset[offset]

    # ---- cache support -------------------------------------------------------------------------

    def export(self) -> dict[str, Any]:
        """Units and the declarations decoded so far, as JSON-able data (`from_export` reads it)."""
        return {
            "format": EXPORT_FORMAT,
            "units": [[u.offset, u.name, u.comp_dir, list(u.files)] for u in self.units()],
            "decls": {
                str(unit): [
                    [d.name, d.linkage_name, d.file, d.line, d.column, [list(r) for r in d.ranges]]
                    for d in decls
                ]
                for unit, decls in self._decls.items()
            },
            "unit_ranges": [list(r) for r in self._unit_ranges] if self._unit_ranges is not None else None,
        }

    @classmethod
    def from_export(cls, path: str, data: Any) -> DwarfIndex:
        """An index seeded from a *complete* `export()` (every unit's declarations and the unit
        ranges), every part shape-checked (raises ValueError)."""

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
        index = cls(path)
        units = []
        for u in data["units"]:
            ok(isinstance(u, list) and len(u) == 4 and type(u[0]) is int)
            ok(isinstance(u[1], str) and isinstance(u[2], str) and isinstance(u[3], list))
            ok(set(map(type, u[3])) <= {str})
            units.append(UnitInfo(u[0], u[1], u[2], tuple(u[3])))
        index._units = tuple(units)
        for unit, decls in data["decls"].items():
            ok(isinstance(unit, str) and unit.isdigit() and isinstance(decls, list))
            out = []
            for d in decls:
                ok(isinstance(d, list) and len(d) == 6)
                name, linkage, file, line, column, ranges = d
                ok(isinstance(name, str) and isinstance(linkage, (str, type(None))))
                ok(isinstance(file, (str, type(None))) and type(line) is int and type(column) is int)
                ok(isinstance(ranges, list) and all(ints(r, 2) for r in ranges))
                out.append(
                    SourceDecl(name, linkage, file, line, column, tuple((a, b) for a, b in ranges), int(unit))
                )
            index._decls[int(unit)] = tuple(out)
        unit_ranges = data.get("unit_ranges")
        ok(isinstance(unit_ranges, list) and all(ints(r, 3) for r in unit_ranges))
        ok([r[0] for r in unit_ranges] == sorted(r[0] for r in unit_ranges))
        # complete: every unit's declarations present, so nothing is ever decoded from the ELF on
        # the word of the export (a planted unit offset cannot send pyelftools astray)
        offsets = {u.offset for u in units}
        ok(set(index._decls) == offsets and {r[2] for r in unit_ranges} <= offsets)
        index._unit_ranges = [(a, b, c) for a, b, c in unit_ranges]
        return index

    def complete(self) -> bool:
        """Whether every unit's declarations are decoded (an export then needs no ELF)."""
        return all(u.offset in self._decls for u in self.units()) and self._unit_ranges is not None

    @property
    def has_debug_info(self) -> bool:
        return bool(self._units) if self._units is not None else self._open() is not None

    # ---- units ---------------------------------------------------------------------------------

    def units(self) -> tuple[UnitInfo, ...]:
        """Every compilation unit, reading only unit and line-program headers."""
        if self._units is None:
            units: list[UnitInfo] = []
            dwarf = self._open()
            if dwarf is not None:
                for cu in dwarf.iter_CUs():
                    self._cu_by_offset[cu.cu_offset] = cu
                    top = cu.get_top_DIE()
                    comp_dir = (
                        _text(top.attributes["DW_AT_comp_dir"].value)
                        if "DW_AT_comp_dir" in top.attributes
                        else ""
                    )
                    name = _text(top.attributes["DW_AT_name"].value) if "DW_AT_name" in top.attributes else ""
                    files = self._file_table(cu, comp_dir)
                    units.append(
                        UnitInfo(
                            offset=cu.cu_offset,
                            name=_join(comp_dir, name) if name else "",
                            comp_dir=comp_dir,
                            files=tuple(dict.fromkeys(f for f in files if f)),
                        )
                    )
            self._units = tuple(units)
        return self._units

    def _file_table(self, cu: Any, comp_dir: str) -> list[str]:
        """Line-program file entries joined with their directories, indexed as DW_AT_decl_file is."""
        if cu.cu_offset in self._files:
            return self._files[cu.cu_offset]
        out: list[str] = []
        prog = self._open().line_program_for_CU(cu)
        if prog is not None:
            version = prog.header["version"]
            dirs = [_text(d) for d in prog.header["include_directory"]]
            if version < 5:
                dirs = [comp_dir, *dirs]  # DWARF 4: directory 0 is the comp dir; file indexes are 1-based
                out.append("")
            for entry in prog.header["file_entry"]:
                d = entry.dir_index
                directory = dirs[d] if 0 <= d < len(dirs) else ""
                out.append(_join(comp_dir, directory, _text(entry.name)))
        self._files[cu.cu_offset] = out
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
        cu = self._cu(offset)
        decls: list[SourceDecl] = []
        if cu is not None:
            top = cu.get_top_DIE()
            comp_dir = (
                _text(top.attributes["DW_AT_comp_dir"].value) if "DW_AT_comp_dir" in top.attributes else ""
            )
            files = self._file_table(cu, comp_dir)
            for die in self._subprograms(cu, top):
                decl = self._decl(die, files, offset)
                if decl is not None:
                    decls.append(decl)
        decls.sort(key=lambda d: d.low_pc)
        result = tuple(decls)
        self._decls[offset] = result
        return result

    def all_decls(self) -> Iterator[SourceDecl]:
        for unit in self.units():
            yield from self.decls_of_unit(unit.offset)

    def decl_at(self, address: int) -> SourceDecl | None:
        """The concrete subprogram whose code contains `address`, if any."""
        for offset in self._units_at(address):
            for decl in self.decls_of_unit(offset):
                if any(lo <= address < hi for lo, hi in decl.ranges):
                    return decl
        return None

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

    def _units_at(self, address: int) -> list[int]:
        if self._unit_ranges is None:
            self._unit_ranges = self._build_unit_ranges()
        ranges = self._unit_ranges
        i = bisect_right(ranges, (address, float("inf"), 0))
        hits = [unit for lo, hi, unit in ranges[max(0, i - 64) : i] if lo <= address < hi]
        return list(dict.fromkeys(hits))

    def _build_unit_ranges(self) -> list[tuple[int, int, int]]:
        out: list[tuple[int, int, int]] = []
        dwarf = self._open()
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
            for lo, hi in self._die_ranges(cu.get_top_DIE()):
                out.append((lo, hi, unit.offset))
        out.sort()
        return out

    # ---- DIE helpers ---------------------------------------------------------------------------

    def _subprograms(self, cu: Any, top: Any) -> Iterator[Any]:
        """Subprogram DIEs with code or a declaration line: children of the unit, of namespaces and of classes (GNU
        emits some member definitions in class scope). Does not enter function bodies."""
        stack = [top]
        while stack:
            parent = stack.pop()
            for child in cu.iter_DIE_children(parent):
                tag = child.tag
                if tag == _SUBPROGRAM:
                    attrs = child.attributes
                    if "DW_AT_low_pc" in attrs or "DW_AT_ranges" in attrs or "DW_AT_decl_line" in attrs:
                        yield child
                elif (tag in _DESCEND or tag in _SCOPES) and child.has_children:
                    stack.append(child)

    def _die_ranges(self, die: Any) -> list[tuple[int, int]]:
        attrs = die.attributes
        if "DW_AT_low_pc" in attrs and "DW_AT_high_pc" in attrs:
            lo = int(attrs["DW_AT_low_pc"].value)
            high = attrs["DW_AT_high_pc"]
            hi = int(high.value) if high.form == "DW_FORM_addr" else lo + int(high.value)
            # a copy the linker discarded (C++ COMDAT, --gc-sections) keeps its DIE with its address
            # resolved to 0 (or a -1/-2 tombstone): no code of the program is there
            return [(lo, hi)] if hi > lo and lo != 0 and not _tombstone(lo) else []
        if "DW_AT_ranges" in attrs and self._dwarf is not None:
            rl = self._dwarf.range_lists()
            if rl is None:
                return []
            attr = attrs["DW_AT_ranges"]
            if attr.form not in ("DW_FORM_sec_offset", "DW_FORM_data4", "DW_FORM_data8"):
                return []  # DW_FORM_rnglistx (split DWARF) is not supported
            try:
                entries = rl.get_range_list_at_offset(int(attr.value), cu=die.cu)
            except (_PyElfError, ValueError, KeyError, AttributeError, AssertionError):
                return []
            base = int(attrs["DW_AT_low_pc"].value) if "DW_AT_low_pc" in attrs else 0
            top = die.cu.get_top_DIE().attributes
            cu_base = int(top["DW_AT_low_pc"].value) if "DW_AT_low_pc" in top else 0
            out: list[tuple[int, int]] = []
            for e in entries:
                kind = type(e).__name__
                if kind == "RangeEntry":
                    b = 0 if getattr(e, "is_absolute", False) else (base or cu_base)
                    if (
                        e.end_offset > e.begin_offset
                        and b + e.begin_offset != 0
                        and not _tombstone(b + e.begin_offset)
                    ):
                        out.append((b + e.begin_offset, b + e.end_offset))
                elif kind == "BaseAddressEntry":
                    base = int(e.base_address)
            return sorted(out)
        return []

    def _decl(self, die: Any, files: list[str], unit: int) -> SourceDecl | None:
        ranges = tuple(self._die_ranges(die))
        attrs = die.attributes
        if not ranges and (
            "DW_AT_low_pc" in attrs or "DW_AT_ranges" in attrs or "DW_AT_declaration" in attrs
        ):
            return None  # discarded code, or a bare declaration (the definition has its own DIE)
        name = linkage = None
        file_index = line = column = None
        current = die
        for _ in range(8):  # specification / abstract_origin chains are short
            attrs = current.attributes
            if name is None and "DW_AT_name" in attrs:
                name = _text(attrs["DW_AT_name"].value)
            if linkage is None:
                for key in ("DW_AT_linkage_name", "DW_AT_MIPS_linkage_name"):
                    if key in attrs:
                        linkage = _text(attrs[key].value)
                        break
            # a definition completing a declaration (DW_AT_specification) carries its own line and
            # column, and its own file only when that differs: each is taken from the first DIE of
            # the chain that has it (the in-class declaration's line is not the definition's)
            if line is None and "DW_AT_decl_line" in attrs:
                line = int(attrs["DW_AT_decl_line"].value)
                column = int(attrs["DW_AT_decl_column"].value) if "DW_AT_decl_column" in attrs else 0
            if file_index is None and "DW_AT_decl_file" in attrs:
                file_index = int(attrs["DW_AT_decl_file"].value)
                file_cu = current.cu
            nxt = None
            for key in ("DW_AT_specification", "DW_AT_abstract_origin"):
                if key in attrs:
                    try:
                        nxt = current.get_DIE_from_attribute(key)
                    except (_PyElfError, ValueError, KeyError, AssertionError):
                        nxt = None
                    break
            if nxt is None:
                break
            current = nxt
        path: str | None = None
        if file_index is not None:
            table = files
            if file_cu.cu_offset != unit:  # a reference into another unit (DW_FORM_ref_addr)
                top = file_cu.get_top_DIE().attributes
                cd = _text(top["DW_AT_comp_dir"].value) if "DW_AT_comp_dir" in top else ""
                table = self._file_table(file_cu, cd)
            if 0 <= file_index < len(table) and table[file_index]:
                path = table[file_index]
        return SourceDecl(
            name=name or "",
            linkage_name=linkage,
            file=path,
            line=line or 0,
            column=column or 0,
            ranges=ranges,
            unit=unit,
        )
