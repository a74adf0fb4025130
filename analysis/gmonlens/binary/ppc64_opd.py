"""64-bit PowerPC ELFv1 (big-endian ppc64): the `.name` entry-point symbols BFD adds for gprof.

On ELFv1 a function symbol names its descriptor in `.opd` (entry address, TOC, environment: three
doublewords), a data address; the code has no symbol. BFD's synthetic symbol table (`nm
--synthetic`) adds one symbol per such descriptor, named `.` + the function's name, at the entry
address read from the descriptor, with the function's binding, and gprof reads those as its
routines (powerpc64-linux-gnu-gprof 2.40 prints `.main`, `.fact`). So the static-name filter sees
the leading dot of a local one (`.burn`) and drops it, as gprof does: its samples go to the routine
before it. Pure: the symbol table's bytes and `.opd`'s in.
"""

from __future__ import annotations

import struct

from gmonlens.common.model import ElfSymbol

STT_FUNC, STB_LOCAL, STB_GLOBAL, STB_WEAK = 2, 0, 1, 2
EF_PPC64_ABI = 3  # e_flags: 0 unspecified (v1), 1 ELFv1, 2 ELFv2
_LETTERS = {STB_LOCAL: "t", STB_GLOBAL: "T", STB_WEAK: "W"}


def is_elfv1(eflags: int) -> bool:
    """Whether a ppc64 executable's e_flags name the ELFv1 ABI (function descriptors)."""
    return eflags & EF_PPC64_ABI in (0, 1)


def dot_symbols(
    raw: bytes, strtab: bytes, little: bool, opd_index: int, opd_address: int, opd: bytes
) -> tuple[list[ElfSymbol], bytes]:
    """The synthetic `.name` symbols of the function symbols defined in `.opd` (section index
    `opd_index`, at `opd_address`, contents `opd`), in address order, one per descriptor
    address (the first symbol naming it), and the bytes to append to `.strtab` that hold their
    names (each symbol's `name_offset` points past the end of `strtab` into them)."""
    e = "<" if little else ">"
    found: list[tuple[int, bytes, str]] = []  # (entry, name, class letter) in symbol-table order
    seen: set[int] = set()
    usable = len(raw) - len(raw) % 24
    for i, (st_name, info, _other, shndx, value, _size) in enumerate(
        struct.iter_unpack(e + "IBBHQQ", raw[:usable])
    ):
        typ, bind = info & 0xF, info >> 4
        if i == 0 or shndx != opd_index or typ != STT_FUNC or bind not in _LETTERS or value in seen:
            continue
        at = value - opd_address
        if not 0 <= at <= len(opd) - 8:
            continue
        seen.add(value)
        end = strtab.find(b"\0", st_name)
        name = strtab[st_name : end if end >= 0 else len(strtab)]
        found.append((int.from_bytes(opd[at : at + 8], "little" if little else "big"), name, _LETTERS[bind]))
    found.sort(key=lambda f: f[0])  # BFD hands them out by address (gprof -A's file order shows it)
    out: list[ElfSymbol] = []
    names = bytearray()
    for entry, name, letter in found:
        offset = len(strtab) + len(names)
        names += b"." + name + b"\0"
        out.append(ElfSymbol("." + name.decode("utf-8", "surrogateescape"), offset, entry, letter, True))
    return out, bytes(names)
