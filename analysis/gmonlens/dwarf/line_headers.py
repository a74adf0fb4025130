"""DWARF line-program headers: each compilation unit's program (where its opcodes lie, the
parameters they are decoded with) and its file names, made absolute with the unit's compilation
directory as BFD joins them (not normalised: `plain_path` normalises). Reads the ELF (an I/O
module): the headers of DWARF 2-5 with an own reader (a DWARF 2-4 program's compilation directory
from its unit's top entry, `info_reader`), through pyelftools (imported only then) where that
reader declines."""

from __future__ import annotations

import os
import struct
from collections.abc import Callable, Iterator
from itertools import pairwise
from typing import Any, Literal

from gmonlens.binary.budget import Budget
from gmonlens.binary.elffile import ElfFile
from gmonlens.dwarf.line_opcodes import text, uleb


def programs(elf: ElfFile) -> Iterator[tuple[Any, list[str], int, bytes, Budget]]:
    """Each CU's line program of the open file `elf` with its file names, first file number, the
    section bytes and the file's budget (which decoding the rows is charged to).

    Line program headers of DWARF 2-5 are read here without pyelftools, whose import and unit
    parsing cost more than the rest of a first report on SQLite (`_own_programs`); pyelftools
    reads them only where the own reader declines (a header it does not read, a unit whose top
    entry `info_reader` does not read). Either way the sections come from `ElfFile` (compressed
    ones decompressed within the file's budget); raises ElfError, or LimitError past the budget.
    """
    own = _own_programs(elf)
    if own is not None:
        for prog, names, base, data in own:
            yield prog, names, base, data, elf.budget
        return
    from gmonlens.dwarf.pyelftools_info import (
        dwarf_info,  # only here: pyelftools' import costs more than a warm report
    )

    dwarf = dwarf_info(elf)
    if dwarf is None or dwarf.debug_line_sec is None:
        return
    data = elf.data(elf.find(".debug_line"))  # type: ignore[arg-type]
    for cu in dwarf.iter_CUs():
        prog = dwarf.line_program_for_CU(cu)
        if prog is None:
            continue
        version = prog.header.version
        dirs = prog.header["include_directory"]
        if version >= 5 and dirs:  # directory 0 is the compilation directory (DWARF 5 §6.2.4)
            comp_dir = text(dirs[0])
        else:  # DWARF 2-4: from the unit's DIE (parsing it is the costly part)
            comp_dir = _attr_str(cu.get_top_DIE().attributes.get("DW_AT_comp_dir"))
        yield prog, _file_names(prog, comp_dir), (0 if version >= 5 else 1), data, elf.budget


class _Structs:
    def __init__(self, address_size: int, little_endian: bool) -> None:
        self.address_size = address_size
        self.little_endian = little_endian


class _Program:
    """What `line_opcodes.decode_sequences` reads of a line program (pyelftools' LineProgram shape)."""

    def __init__(self, header: dict[str, Any], start: int, end: int, structs: _Structs) -> None:
        self.header = header
        self.program_start_offset = start
        self.program_end_offset = end
        self.structs = structs


class _Header:
    """One line program's header as read (§6.2.4), its file names not yet joined: a DWARF 2-4
    program's directory 0 is its unit's DW_AT_comp_dir, in `.debug_info`."""

    __slots__ = ("address_size", "dirs", "end", "files", "header", "offset_size", "start", "version")

    def __init__(
        self,
        version: int,
        offset_size: int,
        address_size: int,
        header: dict[str, Any],
        start: int,
        end: int,
        dirs: list[str],
        files: list[tuple[str, int]],
    ) -> None:
        self.version, self.offset_size, self.address_size = version, offset_size, address_size
        self.header, self.start, self.end = header, start, end
        self.dirs, self.files = dirs, files  # files: (name, directory index)

    def names(self, comp_dir: str) -> list[str]:
        """The file names joined as BFD joins them; `comp_dir` is the unit's (DWARF 2-4: the
        directory of index 0; DWARF 5 names its own, directory 0)."""
        dirs = self.dirs
        if self.version >= 5:
            comp_dir = dirs[0] if dirs else ""
            return [_entry_path(comp_dir, dirs[di] if 0 <= di < len(dirs) else "", n) for n, di in self.files]
        out = []
        for name, di in self.files:
            d = comp_dir if di == 0 else (dirs[di - 1] if 0 < di <= len(dirs) else "")
            out.append(_entry_path(comp_dir, d, name))
        return out

    def program(self, address_size: int, little: bool) -> _Program:
        return _Program(self.header, self.start, self.end, _Structs(address_size, little))


def programs_by_offset(elf: ElfFile) -> dict[int, tuple[Any, list[str], int, bytes, Budget]] | None:
    """`programs` keyed by each program's offset in `.debug_line` (a unit's DW_AT_stmt_list), in
    `programs`' order; None where pyelftools reads them, or where a subset of them taken in offset
    order would not be in `programs`' order (units naming one program twice, or out of section
    order): callers then read every program. Reads the headers only; raises ElfError."""
    offsets: list[int] = []
    own = _own_programs(elf, offsets)
    if own is None or any(a >= b for a, b in pairwise(offsets)):
        return None
    return {
        offset: (prog, names, base, data, elf.budget)
        for offset, (prog, names, base, data) in zip(offsets, own, strict=True)
    }


Own = list[tuple[Any, list[str], int, bytes]]


def _own_programs(elf: ElfFile, offsets: list[int] | None = None) -> Own | None:
    """The line programs of `elf` read by the own header reader, or None when pyelftools must read
    them; each program's offset in `.debug_line` is appended to `offsets` when given.

    When every program in the section is DWARF 5 (gcc 11 and later), they are taken in section
    order and `.debug_info` is not read. Otherwise (DWARF 2-4: the bare-metal binutils write DWARF
    3 line programs under DWARF 5 units) each unit's program is taken in unit order, as pyelftools
    takes them (`line_program_for_CU`), with the unit's compilation directory and address size
    read from its top entry (`info_reader.DieReader`)."""
    line = elf.find(".debug_line")
    if line is None:
        return []
    strs: dict[int, bytes] = {}
    for form, name in ((0x1F, ".debug_line_str"), (0x0E, ".debug_str")):
        sec = elf.find(name)
        if sec is not None:
            strs[form] = elf.data(sec)
    data = elf.data(line)
    read = _HeaderReader(data, strs, elf.little, elf.budget)
    heads = read.section()
    if heads is not None and all(h.version == 5 for _, h in heads):
        if offsets is not None:
            offsets.extend(at for at, _ in heads)
        return [(h.program(h.address_size, elf.little), h.names(""), 0, data) for _, h in heads]
    units = _unit_facts(elf)
    if units is None:
        return None
    out: Own = []
    for stmt_list, comp_dir, asize, osize in units:
        h = read.at(stmt_list)
        if h is None or h.offset_size != osize or (h.version == 5 and h.address_size != asize):
            return None  # pyelftools reads the header with the unit's sizes: it decides
        if offsets is not None:
            offsets.append(stmt_list)
        out.append((h.program(asize, elf.little), h.names(comp_dir), 0 if h.version >= 5 else 1, data))
    return out


def _unit_facts(elf: ElfFile) -> list[tuple[int, str, int, int]] | None:
    """(DW_AT_stmt_list, DW_AT_comp_dir, address size, offset size) of each unit of `elf` with a
    line program, in section order (pyelftools' `iter_CUs`); [] without `.debug_info`; None
    where `info_reader` does not read the units (pyelftools then reads everything)."""
    from gmonlens.dwarf.info_reader import DieReader, Unsupported

    if elf.find(".debug_info") is None:
        return []
    try:
        reader = DieReader(elf)
        out = []
        for offset, unit in sorted(reader.units.items()):
            stmt_list = reader.stmt_list(offset)
            if stmt_list is not None:
                out.append((stmt_list, reader.comp_dir(offset), unit.asize, unit.osize))
    except Unsupported:
        return None
    return out


class _HeaderReader:
    """Line program headers of one `.debug_line` (DWARF 2-5, §6.2.4), each read once."""

    def __init__(self, data: bytes, strs: dict[int, bytes], little: bool, budget: Budget) -> None:
        self.data, self.strs, self.little, self.budget = data, strs, little, budget
        self.e = "<" if little else ">"
        self.read: dict[int, _Header | None] = {}

    def section(self) -> list[tuple[int, _Header]] | None:
        """Every program of the section in order, None when one is not read here."""
        out = []
        pos = 0
        while pos < len(self.data):
            h = self.at(pos)
            if h is None:
                return None
            out.append((pos, h))
            pos = h.end
        return out

    def at(self, pos: int) -> _Header | None:
        """The header at `pos` (None: a version or form not read here, or a malformed one)."""
        if pos not in self.read:
            try:
                self.read[pos] = self._header(pos)
            except (struct.error, IndexError, ValueError, UnicodeDecodeError):
                self.read[pos] = None
        return self.read[pos]

    def _header(self, pos: int) -> _Header | None:
        data, e = self.data, self.e
        length = struct.unpack_from(e + "I", data, pos)[0]
        pos += 4
        offset_size = 4
        if length == 0xFFFFFFFF:
            length = struct.unpack_from(e + "Q", data, pos)[0]
            pos += 8
            offset_size = 8
        end = pos + length
        version = struct.unpack_from(e + "H", data, pos)[0]
        if not 2 <= version <= 5 or end > len(data):
            return None
        pos += 2
        address_size = 0
        if version >= 5:
            address_size = data[pos]
            pos += 2  # address size, segment selector size
        header_length = int.from_bytes(data[pos : pos + offset_size], "little" if self.little else "big")
        pos += offset_size
        start = pos + header_length
        min_len = data[pos]
        pos += 2 if version >= 4 else 1  # and maximum_operations_per_instruction from DWARF 4
        _is_stmt, line_base, line_range, opcode_base = struct.unpack_from("BbBB", data, pos)
        pos += 4
        std_lengths = list(data[pos : pos + opcode_base - 1])
        pos += opcode_base - 1
        header = {
            "minimum_instruction_length": min_len,
            "line_base": line_base,
            "line_range": line_range,
            "opcode_base": opcode_base,
            "standard_opcode_lengths": std_lengths,
        }
        if version >= 5:
            dir_rows, pos = _v5_entries(data, pos, self._form_value(offset_size))
            file_rows, pos = _v5_entries(data, pos, self._form_value(offset_size))
            dirs = [text(d) for d, _ in dir_rows]
            files = [(text(n), di) for n, di in file_rows]
        else:  # the opcodes start after the tables, as pyelftools and BFD read them
            dirs, files, start = _v2_tables(data, pos)
        return _Header(version, offset_size, address_size, header, start, end, dirs, files)

    def _form_value(self, offset_size: int) -> Callable[[int, int], tuple[object, int]]:
        data, strs, little, budget = self.data, self.strs, self.little, self.budget
        order: Literal["little", "big"] = "little" if little else "big"

        def form_value(form: int, at: int) -> tuple[object, int]:
            if form == 0x08:  # DW_FORM_string
                nul = data.index(b"\0", at)
                return data[at:nul], nul + 1
            if form in strs:  # line_strp, strp
                off = int.from_bytes(data[at : at + offset_size], order)
                table = strs[form]
                nul = table.index(b"\0", off)
                budget.charge("string bytes", nul - off, ".debug_line_str" if form == 0x1F else ".debug_str")
                return table[off:nul], at + offset_size
            if form == 0x0F:  # udata
                return uleb(data, at)
            fixed = {0x0B: 1, 0x05: 2, 0x06: 4, 0x07: 8, 0x1E: 16}.get(form)
            if fixed is not None:
                return int.from_bytes(data[at : at + fixed], order), at + fixed
            if form == 0x09:  # block
                n, at = uleb(data, at)
                return data[at : at + n], at + n
            raise ValueError(f"DW_FORM 0x{form:x} in a line table header")

        return form_value


def _v2_tables(data: bytes, pos: int) -> tuple[list[str], list[tuple[str, int]], int]:
    """A DWARF 2-4 header's include directories and file entries (§6.2.4 items 11-12: strings up
    to an empty one; a name, then directory index, time and length as ULEB128s, up to an empty
    name) from `pos`: (directories, (name, directory index) rows, the offset after them)."""
    dirs = []
    while data[pos]:
        nul = data.index(b"\0", pos)
        dirs.append(text(data[pos:nul]))
        pos = nul + 1
    pos += 1
    files = []
    while data[pos]:
        nul = data.index(b"\0", pos)
        name = text(data[pos:nul])
        di, pos = uleb(data, nul + 1)
        _mtime, pos = uleb(data, pos)
        _size, pos = uleb(data, pos)
        files.append((name, di))
    return dirs, files, pos + 1


def _v5_entries(
    data: bytes, at: int, form_value: Callable[[int, int], tuple[object, int]]
) -> tuple[list[tuple[bytes, int]], int]:
    """A DWARF 5 directory or file-name table (§6.2.4.1) at `at`: (path, directory index) rows
    and the offset after the table."""
    count = data[at]
    at += 1
    formats = []
    for _ in range(count):
        ctype, at = uleb(data, at)
        form, at = uleb(data, at)
        formats.append((ctype, form))
    n, at = uleb(data, at)
    if n and (not formats or n > len(data) - at):  # each entry takes at least a byte
        raise ValueError("line table header claims more entries than it holds")
    rows = []
    for _ in range(n):
        path, index = b"", 0
        for ctype, form in formats:
            value, at = form_value(form, at)
            if ctype == 1 and isinstance(value, bytes):  # DW_LNCT_path
                path = value
            elif ctype == 2 and isinstance(value, int):  # DW_LNCT_directory_index
                index = value
        rows.append((path, index))
    return rows, at


def _attr_str(attr: object) -> str:
    return "" if attr is None else text(getattr(attr, "value", b""))


def _file_names(prog: object, comp_dir: str) -> list[str]:
    header = prog.header  # type: ignore[attr-defined]
    dirs = [text(d) for d in header["include_directory"]]
    version = header.version
    out = []
    for fe in header["file_entry"]:
        name = text(fe.name)
        di = fe.dir_index
        if version >= 5:
            d = dirs[di] if 0 <= di < len(dirs) else ""
        else:
            d = comp_dir if di == 0 else (dirs[di - 1] if 0 < di <= len(dirs) else "")
        out.append(_entry_path(comp_dir, d, name))
    return out


def _entry_path(comp_dir: str, directory: str, name: str) -> str:
    """A file entry's path as BFD spells it (so gprof and addr2line): the name when absolute, else
    its directory (behind the compilation directory when relative) and the name joined with `/`,
    nothing normalised (`/b/build/../src/t.c`, `/b/lib/src/./alloc.c`, `/x//y.c` after a
    compilation directory ending in `/`); the bare name when there is no directory.
    `plain_path` gives the normalised path the editor uses."""
    if not directory or name.startswith("/"):
        return name
    if comp_dir and not directory.startswith("/"):
        directory = f"{comp_dir}/{directory}"
    return f"{directory}/{name}"


def plain_path(recorded: str) -> str:
    """`_entry_path`'s spelling normalised: `.` and `..` components resolved lexically and
    repeated separators collapsed (a leading `//` too, which POSIX's normpath keeps)."""
    out = os.path.normpath(recorded) if recorded else recorded
    return out[1:] if out.startswith("//") else out
