"""Subprogram DIEs -> `SourceDecl`: the rules of `dwarf`'s contract, read off pyelftools DIEs.

Which DIEs count (`subprograms`), their code ranges (`code_ranges`: low/high pc or range lists,
discarded copies dropped), the name, line and file completed through specification and
abstract-origin chains (`declaration`), and a unit's line-program file table (`file_table`,
indexed as DW_AT_decl_file is). `DwarfIndex` (dwarf.py) decides which units to read and caches.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from elftools.common.exceptions import ELFError as _PyElfError

from gmonlens.dwarf.line_opcodes import text


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
_DESCEND = frozenset({"DW_TAG_namespace", "DW_TAG_module"})
_SCOPES = frozenset({"DW_TAG_structure_type", "DW_TAG_class_type", "DW_TAG_union_type"})


def join_path(*parts: str) -> str:
    """Join path parts the way the producer meant them (POSIX paths; absolute parts reset)."""
    out = ""
    for part in parts:
        if part:
            out = posixpath.join(out, part) if out else part
    return posixpath.normpath(out) if out else out


def _tombstone(address: int) -> bool:
    """binutils' and lld's markers for discarded code: -1 or -2 at 32 or 64 bits."""
    return address in (0xFFFFFFFF, 0xFFFFFFFE) or address >= 0xFFFFFFFFFFFFFFFE


def attr_text(attrs: Any, key: str) -> str:
    """A DIE's string attribute as text, "" when absent."""
    return text(attrs[key].value) if key in attrs else ""


def file_table(dwarf: Any, cu: Any, comp_dir: str) -> list[str]:
    """A unit's line-program file entries joined with their directories, indexed as
    DW_AT_decl_file is."""
    out: list[str] = []
    prog = dwarf.line_program_for_CU(cu)
    if prog is not None:
        version = prog.header["version"]
        dirs = [text(d) for d in prog.header["include_directory"]]
        if version < 5:
            dirs = [comp_dir, *dirs]  # DWARF 4: directory 0 is the comp dir; file indexes are 1-based
            out.append("")
        for entry in prog.header["file_entry"]:
            d = entry.dir_index
            directory = dirs[d] if 0 <= d < len(dirs) else ""
            out.append(join_path(comp_dir, directory, text(entry.name)))
    return out


def subprograms(cu: Any, top: Any) -> Iterator[Any]:
    """Subprogram DIEs with code or a declaration line: children of the unit, of namespaces and
    of classes (GNU emits some member definitions in class scope). Does not enter function bodies."""
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


def code_ranges(dwarf: Any, die: Any) -> list[tuple[int, int]]:
    """A DIE's code ranges (DW_AT_low_pc/high_pc or DW_AT_ranges), half-open, sorted; `dwarf`
    (the pyelftools DWARFInfo) gives the range lists."""
    attrs = die.attributes
    if "DW_AT_low_pc" in attrs and "DW_AT_high_pc" in attrs:
        lo = int(attrs["DW_AT_low_pc"].value)
        high = attrs["DW_AT_high_pc"]
        hi = int(high.value) if high.form == "DW_FORM_addr" else lo + int(high.value)
        # a copy the linker discarded (C++ COMDAT, --gc-sections) keeps its DIE with its address
        # resolved to 0 (or a -1/-2 tombstone): no code of the program is there
        return [(lo, hi)] if hi > lo and lo != 0 and not _tombstone(lo) else []
    if "DW_AT_ranges" in attrs and dwarf is not None:
        rl = dwarf.range_lists()
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


def declaration(
    dwarf: Any, die: Any, unit: int, files: list[str], files_of: Callable[[Any], list[str]]
) -> SourceDecl | None:
    """The declaration of subprogram `die` of the unit at offset `unit` (whose file table is
    `files`; `files_of(cu)` gives another unit's), None for discarded code or a bare declaration."""
    ranges = tuple(code_ranges(dwarf, die))
    attrs = die.attributes
    if not ranges and ("DW_AT_low_pc" in attrs or "DW_AT_ranges" in attrs or "DW_AT_declaration" in attrs):
        return None  # discarded code, or a bare declaration (the definition has its own DIE)
    name = linkage = None
    file_index = line = column = None
    current = die
    for _ in range(8):  # specification / abstract_origin chains are short
        attrs = current.attributes
        if name is None and "DW_AT_name" in attrs:
            name = text(attrs["DW_AT_name"].value)
        if linkage is None:
            for key in ("DW_AT_linkage_name", "DW_AT_MIPS_linkage_name"):
                if key in attrs:
                    linkage = text(attrs[key].value)
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
            table = files_of(file_cu)
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
