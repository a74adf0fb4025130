"""DWARF line-program headers: each compilation unit's program (where its opcodes lie, the
parameters they are decoded with) and its file names, made absolute with the unit's compilation
directory as BFD joins them (not normalised: `plain_path` normalises). Reads the ELF (an I/O module): DWARF 5 headers with an own reader, others through
pyelftools (imported only then)."""

from __future__ import annotations

import os
import struct
from collections.abc import Callable, Iterator
from typing import Any

from gmonlens.binary.budget import Budget
from gmonlens.binary.elffile import ElfFile
from gmonlens.dwarf.line_opcodes import text, uleb


def programs(elf: ElfFile) -> Iterator[tuple[Any, list[str], int, bytes, Budget]]:
    """Each CU's line program of the open file `elf` with its file names, first file number, the
    section bytes and the file's budget (which decoding the rows is charged to).

    DWARF 5 line programs (gcc 11 and later) are read here without pyelftools, whose import and
    unit parsing cost more than the rest of a first report on SQLite; anything else (DWARF 2-4,
    whose compilation directory is in .debug_info, unusual forms) goes through pyelftools. Either
    way the sections come from `ElfFile` (compressed ones decompressed within the file's
    budget); raises ElfError, or LimitError past the budget.
    """
    fast = _programs_v5(elf)
    if fast is not None:
        for prog, names, base, data in fast:
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


def programs_by_offset(elf: ElfFile) -> dict[int, tuple[Any, list[str], int, bytes, Budget]] | None:
    """`programs` keyed by each program's offset in `.debug_line` (a unit's DW_AT_stmt_list), in
    section order; None where they are read through pyelftools (not DWARF 5), whose callers then
    read every program. Reads the headers only; raises ElfError."""
    offsets: list[int] = []
    fast = _programs_v5(elf, offsets)
    if fast is None:
        return None
    return {
        offset: (prog, names, base, data, elf.budget)
        for offset, (prog, names, base, data) in zip(offsets, fast, strict=True)
    }


def _programs_v5(
    elf: ElfFile, offsets: list[int] | None = None
) -> list[tuple[Any, list[str], int, bytes]] | None:
    """DWARF 5 line programs of `elf` in section order, or None when pyelftools must read them;
    each program's offset in the section is appended to `offsets` when given."""
    line = elf.find(".debug_line")
    if line is None:
        return []
    strs: dict[int, bytes] = {}
    for form, name in ((0x1F, ".debug_line_str"), (0x0E, ".debug_str")):
        sec = elf.find(name)
        if sec is not None:
            strs[form] = elf.data(sec)
    data = elf.data(line)
    e = "<" if elf.little else ">"
    out: list[tuple[Any, list[str], int, bytes]] = []
    pos = 0
    try:
        while pos < len(data):
            start = pos
            unit = _v5_unit(data, pos, e, strs, elf.little, elf.budget)
            if unit is None:
                return None
            if offsets is not None:
                offsets.append(start)
            prog, names, pos = unit
            out.append((prog, names, 0, data))
    except (struct.error, IndexError, ValueError, UnicodeDecodeError):
        return None
    return out


def _v5_unit(
    data: bytes, pos: int, e: str, strs: dict[int, bytes], little: bool, budget: Budget
) -> tuple[_Program, list[str], int] | None:
    """One DWARF 5 line program header (§6.2.4) at `pos`: (program, file names, next unit)."""
    length = struct.unpack_from(e + "I", data, pos)[0]
    pos += 4
    offset_size = 4
    if length == 0xFFFFFFFF:
        length = struct.unpack_from(e + "Q", data, pos)[0]
        pos += 8
        offset_size = 8
    end = pos + length
    version = struct.unpack_from(e + "H", data, pos)[0]
    if version != 5 or end > len(data):
        return None
    address_size = data[pos + 2]
    pos += 4
    header_length = int.from_bytes(data[pos : pos + offset_size], "little" if little else "big")
    pos += offset_size
    start = pos + header_length
    min_len, _max_ops, _is_stmt, line_base, line_range, opcode_base = struct.unpack_from("BBBbBB", data, pos)
    pos += 6
    std_lengths = list(data[pos : pos + opcode_base - 1])
    pos += opcode_base - 1

    def form_value(form: int, at: int) -> tuple[object, int]:
        if form == 0x08:  # DW_FORM_string
            nul = data.index(b"\0", at)
            return data[at:nul], nul + 1
        if form in strs:  # line_strp, strp
            off = int.from_bytes(data[at : at + offset_size], "little" if little else "big")
            table = strs[form]
            nul = table.index(b"\0", off)
            budget.charge("string bytes", nul - off, ".debug_line_str" if form == 0x1F else ".debug_str")
            return table[off:nul], at + offset_size
        if form == 0x0F:  # udata
            return uleb(data, at)
        fixed = {0x0B: 1, 0x05: 2, 0x06: 4, 0x07: 8, 0x1E: 16}.get(form)
        if fixed is not None:
            return int.from_bytes(data[at : at + fixed], "little" if little else "big"), at + fixed
        if form == 0x09:  # block
            n, at = uleb(data, at)
            return data[at : at + n], at + n
        raise ValueError(f"DW_FORM 0x{form:x} in a line table header")

    dir_rows, pos = _v5_entries(data, pos, form_value)
    file_rows, pos = _v5_entries(data, pos, form_value)
    dirs = [text(d) for d, _ in dir_rows]
    comp_dir = dirs[0] if dirs else ""
    names = []
    for name, di in file_rows:
        names.append(_entry_path(comp_dir, dirs[di] if 0 <= di < len(dirs) else "", text(name)))
    header = {
        "minimum_instruction_length": min_len,
        "line_base": line_base,
        "line_range": line_range,
        "opcode_base": opcode_base,
        "standard_opcode_lengths": std_lengths,
    }
    return _Program(header, start, end, _Structs(address_size, little)), names, end


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
