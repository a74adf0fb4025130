"""Build the DWARF 4 sections of a one-file C program field by field, for tests (no compiler).

Independent of the engine, like `elfwriter.py` and `gmonwriter.py`: the test suite's own statement of
what gcc -g writes for a plain C file (DWARF 4, §7.5 "Format of Debugging Information" and §6.2
"Line Number Information"): one compile unit (`DW_AT_name`, `DW_AT_comp_dir`, code range,
`DW_AT_stmt_list`) whose children are the subprograms (name, declaration file/line/column, code
range), and one line-number program with one sequence over the unit's code. The sections go into
`elfwriter.elf_file(..., extra=debug_sections(...))`.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass

from leb128 import sleb, uleb

DW_TAG_compile_unit, DW_TAG_subprogram = 0x11, 0x2E
DW_AT_name, DW_AT_stmt_list, DW_AT_low_pc, DW_AT_high_pc = 0x03, 0x10, 0x11, 0x12
DW_AT_language, DW_AT_comp_dir, DW_AT_producer = 0x13, 0x1B, 0x25
DW_AT_decl_column, DW_AT_decl_file, DW_AT_decl_line, DW_AT_external = 0x39, 0x3A, 0x3B, 0x3F
DW_FORM_addr, DW_FORM_data2, DW_FORM_data8, DW_FORM_data1 = 0x01, 0x05, 0x07, 0x0B
DW_FORM_string, DW_FORM_sec_offset, DW_FORM_flag_present = 0x08, 0x17, 0x19
DW_LANG_C99 = 0x0C
DW_LNS_copy, DW_LNS_advance_pc, DW_LNS_advance_line = 0x01, 0x02, 0x03
DW_LNE_end_sequence, DW_LNE_set_address = 0x01, 0x02
# the standard opcodes' operand counts (opcode_base 13), as gcc and the DWARF 4 spec give them
STANDARD_OPCODE_LENGTHS = bytes([0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1])

ABBREV_UNIT, ABBREV_EXTERN, ABBREV_STATIC = 1, 2, 3


@dataclass(frozen=True)
class Subprogram:
    """A routine: its name as written, where the name is (1-based line and column of the file the
    unit names first) and its code [low, high)."""

    name: str
    line: int
    column: int
    low: int
    high: int
    external: bool = True


@dataclass(frozen=True)
class Unit:
    """One compile unit: `name` as the compiler was given it (relative to `comp_dir`), the code
    range [low, high), its routines, and the line table's rows (address, 1-based line), by address,
    the first at `low`."""

    name: str
    comp_dir: str
    low: int
    high: int
    subprograms: Sequence[Subprogram]
    rows: Sequence[tuple[int, int]]
    producer: str = "GNU C17 (tests/dwarfwriter.py) -mtune=generic -march=x86-64 -g -pg"


def _string(s: str) -> bytes:
    return s.encode() + b"\0"


def debug_abbrev() -> bytes:
    """The abbreviations: the unit (with children) and a subprogram, external or static."""

    def spec(code: int, tag: int, children: bool, attrs: Sequence[tuple[int, int]]) -> bytes:
        body = b"".join(uleb(a) + uleb(f) for a, f in attrs)
        return uleb(code) + uleb(tag) + bytes([children]) + body + b"\0\0"

    sub = [
        (DW_AT_name, DW_FORM_string),
        (DW_AT_decl_file, DW_FORM_data1),
        (DW_AT_decl_line, DW_FORM_data2),
        (DW_AT_decl_column, DW_FORM_data1),
        (DW_AT_low_pc, DW_FORM_addr),
        (DW_AT_high_pc, DW_FORM_data8),  # DWARF 4: a constant high_pc is the length
    ]
    unit = [
        (DW_AT_producer, DW_FORM_string),
        (DW_AT_language, DW_FORM_data1),
        (DW_AT_name, DW_FORM_string),
        (DW_AT_comp_dir, DW_FORM_string),
        (DW_AT_low_pc, DW_FORM_addr),
        (DW_AT_high_pc, DW_FORM_data8),
        (DW_AT_stmt_list, DW_FORM_sec_offset),
    ]
    return (
        spec(ABBREV_UNIT, DW_TAG_compile_unit, True, unit)
        + spec(ABBREV_EXTERN, DW_TAG_subprogram, False, [(DW_AT_external, DW_FORM_flag_present), *sub])
        + spec(ABBREV_STATIC, DW_TAG_subprogram, False, sub)
        + b"\0"
    )


def debug_info(u: Unit) -> bytes:
    """The unit's header (32-bit DWARF, version 4, abbreviations at 0, 8-byte addresses) and DIEs."""
    dies = bytearray(uleb(ABBREV_UNIT))
    dies += _string(u.producer) + bytes([DW_LANG_C99]) + _string(u.name) + _string(u.comp_dir)
    dies += struct.pack("<QQI", u.low, u.high - u.low, 0)  # low_pc, length, stmt_list at 0
    for s in u.subprograms:
        dies += uleb(ABBREV_EXTERN if s.external else ABBREV_STATIC)
        dies += _string(s.name) + struct.pack("<BHB", 1, s.line, s.column)  # decl_file 1: the unit's file
        dies += struct.pack("<QQ", s.low, s.high - s.low)
    dies += b"\0"  # end of the unit's children
    header = struct.pack("<HIB", 4, 0, 8)  # version, debug_abbrev_offset, address_size
    return struct.pack("<I", len(header) + len(dies)) + header + bytes(dies)


def debug_line(u: Unit) -> bytes:
    """The line-number program: a version 4 header naming the unit's file (its directory as the
    first include directory), then one sequence: set_address, a row per (address, line), end."""
    directory, _, file = u.name.rpartition("/")
    # minimum_instruction_length, maximum_operations_per_instruction, default_is_stmt, line_base,
    # line_range, opcode_base
    header = bytes([1, 1, 1]) + struct.pack("<b", -5) + bytes([14, 13])
    header += STANDARD_OPCODE_LENGTHS
    header += (_string(directory) if directory else b"") + b"\0"  # include_directories
    header += _string(file) + uleb(1 if directory else 0) + uleb(0) + uleb(0) + b"\0"  # file_names
    program = bytearray(b"\0" + uleb(9) + bytes([DW_LNE_set_address]) + struct.pack("<Q", u.low))
    address, line = u.low, 1
    for at, ln in u.rows:
        if ln != line:
            program += bytes([DW_LNS_advance_line]) + sleb(ln - line)
        if at != address:
            program += bytes([DW_LNS_advance_pc]) + uleb(at - address)
        program += bytes([DW_LNS_copy])
        address, line = at, ln
    program += bytes([DW_LNS_advance_pc]) + uleb(u.high - address)
    program += b"\0" + uleb(1) + bytes([DW_LNE_end_sequence])
    after_length = struct.pack("<HI", 4, len(header)) + header + program
    return struct.pack("<I", len(after_length)) + after_length


def debug_sections(u: Unit) -> list[tuple[str, bytes]]:
    """`.debug_abbrev`, `.debug_info` and `.debug_line` of the unit, for `elf_file(extra=...)`."""
    return [(".debug_abbrev", debug_abbrev()), (".debug_info", debug_info(u)), (".debug_line", debug_line(u))]
