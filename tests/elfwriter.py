"""Build a minimal ELF executable's bytes field by field, for tests.

Independent of the engine, like `gmonwriter.py`: the test suite's own statement of the ELF layout
(System V gABI, "ELF Header", "Sections", "Symbol Table"). What it writes is enough for GNU gprof
(BFD) and for the engine's reader: an ET_EXEC (ELF64 little-endian x86-64 unless told another
class, byte order, machine and flags: `Arch`) with one PT_LOAD segment and the sections `.text`
(PROGBITS, alloc + exec), any `sections` given (placed after `.text`: `.ARM.attributes`,
ppc64's `.opd`), `.symtab`, `.strtab`, `.shstrtab` and any `extra` (non-alloc) sections such as
DWARF's (`tests/dwarfwriter.py`). Without those, routines carry no source file.

File layout: ELF header at 0, the program header right after it, `.text` at file offset
`TEXT_OFFSET` (so that its address and offset agree modulo the page size), the `sections`, then
the symbol table, the two string tables, the `extra` sections and the section headers.
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
class Arch:
    """An ELF file's class, byte order, e_machine and e_flags."""

    wide: bool = True  # ELFCLASS64
    little: bool = True
    machine: int = EM_X86_64
    flags: int = 0


X86_64 = Arch()


@dataclass(frozen=True)
class Section:
    """A section after `.text`: `addr` 0 for one not loaded (alloc clear)."""

    name: str
    typ: int
    flags: int
    addr: int
    data: bytes


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
    *,
    arch: Arch = X86_64,
    sections: Sequence[Section] = (),
) -> bytes:
    """A complete ELF executable: `text` at `text_address` (TEXT_OFFSET past a page boundary),
    `sections` after it (section indexes 2, 3, ...; a loaded one's `addr` must lie past `.text`'s),
    `symbols` in `strtab_of`'s order. The one PT_LOAD segment maps the file from offset 0 at
    `load_address` (default: `text_address - TEXT_OFFSET`), headers and loaded sections included,
    as linkers do. `extra`: (name, bytes) of further sections (PROGBITS, not loaded, after
    `.shstrtab`), e.g. `.debug_info`."""
    assert text_address % PAGE == 0
    base = text_address - TEXT_OFFSET if load_address is None else load_address
    assert text_address - base == TEXT_OFFSET
    e = "<" if arch.little else ">"
    syms, strtab, name_at = strtab_of(symbols)
    names = [".text", *(x.name for x in sections), ".symtab", ".strtab", ".shstrtab", *(n for n, _ in extra)]
    shstrtab, sec_at = _strtab(names)
    body = bytearray(text)
    placed = []  # (section, file offset)
    for x in sections:
        if x.addr:  # loaded: its file offset follows its address
            at = TEXT_OFFSET + (x.addr - text_address)
            assert at >= TEXT_OFFSET + len(body)
            body += b"\0" * (at - TEXT_OFFSET - len(body))
        else:
            body += b"\0" * (-len(body) % 8)
        placed.append((x, TEXT_OFFSET + len(body)))
        body += x.data
    loaded_end = max([TEXT_OFFSET + len(text), *(off + len(x.data) for x, off in placed if x.addr)])
    sym_fmt, sym_size = (e + "IBBHQQ", 24) if arch.wide else (e + "IIIBBH", 16)
    symtab = bytearray(b"\0" * sym_size)  # entry 0: the null symbol
    for sym in syms:
        info = (sym.bind << 4) | sym.typ  # st_info: binding (high nibble), type (low nibble)
        if arch.wide:
            symtab += struct.pack(sym_fmt, name_at[sym.name], info, 0, sym.shndx, sym.value, sym.size)
        else:
            symtab += struct.pack(sym_fmt, name_at[sym.name], sym.value, sym.size, info, 0, sym.shndx)
    symtab_off = TEXT_OFFSET + len(body)
    symtab_off += -symtab_off % 8
    strtab_off = symtab_off + len(symtab)
    shstrtab_off = strtab_off + len(strtab)
    extra_at = []
    at = shstrtab_off + len(shstrtab)
    for _name, data in extra:
        extra_at.append(at)
        at += len(data)
    shoff = at + -at % 8
    first_global = 1 + sum(1 for sym in syms if sym.bind == STB_LOCAL)
    nsec = 5 + len(sections) + len(extra)
    ehsize, phentsize, shentsize = (64, 56, 64) if arch.wide else (52, 32, 40)
    out = bytearray()
    # e_ident: class, data encoding, version 1, System V
    out += b"\x7fELF" + bytes([2 if arch.wide else 1, 1 if arch.little else 2, 1, 0]) + b"\0" * 8
    out += struct.pack(
        e + ("HHIQQQIHHHHHH" if arch.wide else "HHIIIIIHHHHHH"),
        ET_EXEC,  # e_type
        arch.machine,  # e_machine
        1,  # e_version
        text_address,  # e_entry: the start of .text
        ehsize,  # e_phoff: program headers right after this header
        shoff,  # e_shoff
        arch.flags,  # e_flags
        ehsize,  # e_ehsize
        phentsize,  # e_phentsize
        1,  # e_phnum
        shentsize,  # e_shentsize
        nsec,  # e_shnum: null, .text, sections..., .symtab, .strtab, .shstrtab, extra...
        4 + len(sections),  # e_shstrndx
    )
    if arch.wide:  # p_type, p_flags, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align
        out += struct.pack(e + "IIQQQQQQ", PT_LOAD, PF_R | PF_X, 0, base, base, loaded_end, loaded_end, PAGE)
    else:  # p_type, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_flags, p_align
        out += struct.pack(e + "IIIIIIII", PT_LOAD, 0, base, base, loaded_end, loaded_end, PF_R | PF_X, PAGE)
    out += b"\0" * (TEXT_OFFSET - len(out))
    out += body
    out += b"\0" * (symtab_off - len(out))
    out += symtab + strtab + shstrtab
    for _name, data in extra:
        out += data
    out += b"\0" * (shoff - len(out))

    def shdr(name: int, typ: int, flags: int, addr: int, off: int, size: int, link: int, info: int,
             align: int, entsize: int) -> bytes:  # fmt: skip
        if arch.wide:
            return struct.pack(
                e + "IIQQQQIIQQ", name, typ, flags, addr, off, size, link, info, align, entsize
            )
        return struct.pack(e + "IIIIIIIIII", name, typ, flags, addr, off, size, link, info, align, entsize)

    symtab_index = 2 + len(sections)
    out += b"\0" * shentsize  # section 0: the null section header
    out += shdr(sec_at[".text"], SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, text_address, TEXT_OFFSET,
                len(text), 0, 0, 16, 0)  # fmt: skip
    for x, off in placed:
        out += shdr(sec_at[x.name], x.typ, x.flags, x.addr, off, len(x.data), 0, 0, 8 if x.addr else 1, 0)
    out += shdr(sec_at[".symtab"], SHT_SYMTAB, 0, 0, symtab_off, len(symtab), symtab_index + 1, first_global, 8,
                sym_size)  # fmt: skip
    out += shdr(sec_at[".strtab"], SHT_STRTAB, 0, 0, strtab_off, len(strtab), 0, 0, 1, 0)
    out += shdr(sec_at[".shstrtab"], SHT_STRTAB, 0, 0, shstrtab_off, len(shstrtab), 0, 0, 1, 0)
    for (name, data), off in zip(extra, extra_at, strict=True):
        out += shdr(sec_at[name], SHT_PROGBITS, 0, 0, off, len(data), 0, 0, 1, 0)
    return bytes(out)
