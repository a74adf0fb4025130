"""Build a minimal ELF executable's bytes field by field, for tests.

Independent of the engine, like `gmonwriter.py`: the test suite's own statement of the ELF layout
(System V gABI, "ELF Header", "Sections", "Symbol Table"). What it writes is enough for GNU gprof
(BFD) and for the engine's reader: an ELF64 little-endian x86-64 ET_EXEC with one PT_LOAD segment
and the sections `.text` (PROGBITS, alloc + exec), `.symtab`, `.strtab` and `.shstrtab`. No DWARF,
so routines carry no source file.

File layout: ELF header (64 bytes) at 0, the program header right after it, `.text` at file offset
`TEXT_OFFSET` (so that its address and offset agree modulo the page size), then the symbol table,
the two string tables, any extra (non-alloc) sections such as DWARF's (`tests/dwarfwriter.py`), and
the section headers.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass

PAGE = 0x1000
TEXT_OFFSET = 0x1000
EM_X86_64 = 62
ET_EXEC = 2
PT_LOAD = 1
PF_R, PF_X = 4, 1
SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB = 1, 2, 3
SHF_ALLOC, SHF_EXECINSTR = 0x2, 0x4
STT_NOTYPE, STT_FUNC = 0, 2
STB_LOCAL, STB_GLOBAL, STB_WEAK = 0, 1, 2
SHN_ABS = 0xFFF1
TEXT_SHNDX = 1  # section index of .text (0 is the null section)


@dataclass(frozen=True)
class ElfSym:
    """One `.symtab` entry: `value` is an address; `shndx` TEXT_SHNDX or SHN_ABS."""

    name: str
    value: int
    size: int = 0
    typ: int = STT_FUNC
    bind: int = STB_GLOBAL
    shndx: int = TEXT_SHNDX


def _strtab(names: Sequence[str]) -> tuple[bytes, dict[str, int]]:
    """A string table (leading NUL) and each name's offset in it."""
    out = bytearray(b"\0")
    offsets: dict[str, int] = {}
    for n in names:
        if n not in offsets:
            offsets[n] = len(out)
            out += n.encode() + b"\0"
    return bytes(out), offsets


def strtab_of(symbols: Sequence[ElfSym]) -> tuple[list[ElfSym], bytes, dict[str, int]]:
    """The symbols in `.symtab` order (locals first, as the gABI requires, otherwise as given),
    `.strtab` and each name's offset in it."""
    syms = [s for s in symbols if s.bind == STB_LOCAL] + [s for s in symbols if s.bind != STB_LOCAL]
    strtab, name_at = _strtab([s.name for s in syms])
    return syms, strtab, name_at


def elf_file(
    text_address: int,
    text: bytes,
    symbols: Sequence[ElfSym],
    load_address: int | None = None,
    extra: Sequence[tuple[str, bytes]] = (),
) -> bytes:
    """A complete ELF executable: `text` at `text_address` (TEXT_OFFSET past a page boundary),
    `symbols` in `strtab_of`'s order. The one PT_LOAD segment maps the file from offset 0 at
    `load_address` (default: `text_address - TEXT_OFFSET`), headers included, as linkers do.
    `extra`: (name, bytes) of further sections (PROGBITS, not loaded), e.g. `.debug_info`."""
    assert text_address % PAGE == 0
    base = text_address - TEXT_OFFSET if load_address is None else load_address
    assert text_address - base == TEXT_OFFSET
    syms, strtab, name_at = strtab_of(symbols)
    shstrtab, sec_at = _strtab([".text", ".symtab", ".strtab", ".shstrtab", *(n for n, _ in extra)])
    symtab = bytearray(b"\0" * 24)  # entry 0: the null symbol
    for s in syms:
        symtab += struct.pack(
            "<IBBHQQ",
            name_at[s.name],  # st_name: offset in .strtab
            (s.bind << 4) | s.typ,  # st_info: binding (high nibble), type (low nibble)
            0,  # st_other: default visibility
            s.shndx,  # st_shndx: the section the value is relative to
            s.value,  # st_value: the address
            s.size,  # st_size
        )
    symtab_off = TEXT_OFFSET + len(text)
    symtab_off += -symtab_off % 8
    strtab_off = symtab_off + len(symtab)
    shstrtab_off = strtab_off + len(strtab)
    extra_at = []
    at = shstrtab_off + len(shstrtab)
    for _name, data in extra:
        extra_at.append(at)
        at += len(data)
    shoff = at + -at % 8
    first_global = 1 + sum(1 for s in syms if s.bind == STB_LOCAL)
    out = bytearray()
    out += b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8  # e_ident: ELFCLASS64, LSB, version 1, SysV
    out += struct.pack(
        "<HHIQQQIHHHHHH",
        ET_EXEC,  # e_type
        EM_X86_64,  # e_machine
        1,  # e_version
        text_address,  # e_entry: the start of .text
        64,  # e_phoff: program headers right after this header
        shoff,  # e_shoff
        0,  # e_flags
        64,  # e_ehsize
        56,  # e_phentsize
        1,  # e_phnum
        64,  # e_shentsize
        5 + len(extra),  # e_shnum: null, .text, .symtab, .strtab, .shstrtab, the extra ones
        4,  # e_shstrndx
    )
    out += struct.pack(
        "<IIQQQQQQ",
        PT_LOAD,  # p_type
        PF_R | PF_X,  # p_flags
        0,  # p_offset: from the start of the file
        base,  # p_vaddr
        base,  # p_paddr
        TEXT_OFFSET + len(text),  # p_filesz: headers and .text
        TEXT_OFFSET + len(text),  # p_memsz
        PAGE,  # p_align
    )
    out += b"\0" * (TEXT_OFFSET - len(out))
    out += text
    out += b"\0" * (symtab_off - len(out))
    out += symtab + strtab + shstrtab
    for _name, data in extra:
        out += data
    out += b"\0" * (shoff - len(out))

    def shdr(name: int, typ: int, flags: int, addr: int, off: int, size: int, link: int, info: int,
             align: int, entsize: int) -> bytes:  # fmt: skip
        return struct.pack("<IIQQQQIIQQ", name, typ, flags, addr, off, size, link, info, align, entsize)

    out += b"\0" * 64  # section 0: the null section header
    out += shdr(sec_at[".text"], SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, text_address, TEXT_OFFSET,
                len(text), 0, 0, 16, 0)  # fmt: skip
    out += shdr(sec_at[".symtab"], SHT_SYMTAB, 0, 0, symtab_off, len(symtab), 3, first_global, 8, 24)
    out += shdr(sec_at[".strtab"], SHT_STRTAB, 0, 0, strtab_off, len(strtab), 0, 0, 1, 0)
    out += shdr(sec_at[".shstrtab"], SHT_STRTAB, 0, 0, shstrtab_off, len(shstrtab), 0, 0, 1, 0)
    for (name, data), off in zip(extra, extra_at, strict=True):
        out += shdr(sec_at[name], SHT_PROGBITS, 0, 0, off, len(data), 0, 0, 1, 0)
    return bytes(out)
