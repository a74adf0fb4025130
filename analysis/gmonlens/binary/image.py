"""The executable: header facts, raw `.symtab`/`.strtab` and code bytes (one of the engine's I/O modules).

Sections are read through `elffile.ElfFile` (by what the headers reference, within the file's
budget); the symbol table is unpacked with struct (pyelftools' import alone cost more than the rest
of a warm report's start-up, and its per-symbol objects are too slow for programs with tens of
thousands of symbols).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from gmonlens.binary.bfdarch import bfd_arch_name
from gmonlens.binary.budget import Budget
from gmonlens.binary.elffile import ElfFile
from gmonlens.binary.ppc64_opd import dot_symbols, is_elfv1
from gmonlens.common.errors import ElfError, GmonlensError, one_line
from gmonlens.common.model import CodeSection, ElfSymbol
from gmonlens.common.records import maker

SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 0x1, 0x2, 0x4
SHN_UNDEF, SHN_ABS, SHN_COMMON = 0, 0xFFF1, 0xFFF2
STT_OBJECT, STT_FUNC, STT_SECTION, STT_FILE, STT_GNU_IFUNC = 1, 2, 3, 4, 10
STB_LOCAL, STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE = 0, 1, 2, 10


@dataclass(frozen=True)
class ElfImage:
    """What the engine needs from the executable."""

    path: str
    machine: str  # pyelftools e_machine name, e.g. "EM_X86_64"
    address_size: int  # 4 or 8
    little_endian: bool
    symbols: tuple[ElfSymbol, ...]  # .symtab order, STT_SECTION/STT_FILE and the null entry dropped
    strtab: bytes
    text_start: int
    text_end: int  # exclusive end of .text
    code_sections: tuple[CodeSection, ...]
    has_debug_info: bool
    build_id: str | None = None
    image_start: int | None = None  # lowest PT_LOAD address (None: no segments)
    arch: str = ""  # BFD's printable architecture name ("armv7", "s390:64-bit"): bfdarch.py
    synthetic: int = 0  # the last `synthetic` symbols are BFD's `.name` entry points (ppc64_opd.py)

    @property
    def arm_mapping(self) -> tuple[tuple[int, str], ...]:
        """32-bit ARM's mapping symbols as (address, "a" | "t" | "d"), sorted (A32 code, Thumb
        code, data from there on); () on other machines."""
        if self.machine != "EM_ARM":
            return ()
        marks = {
            (s.value, s.name[1])
            for s in self.symbols
            if len(s.name) >= 2
            and s.name[0] == "$"
            and s.name[1] in "atd"
            and (len(s.name) == 2 or s.name[2] == ".")
        }
        return tuple(sorted(marks))

    @property
    def naming_symbols(self) -> tuple[ElfSymbol, ...]:
        """The symbols BFD's nearest-function search names code by (gprof -l's line symbols): the
        table, where a ppc64 ELFv1 function is named by its descriptor's name (`refresh_twice`)
        at its entry address, not by the synthetic `.refresh_twice` gprof's routines carry."""
        if not self.synthetic:
            return self.symbols
        real, dots = self.symbols[: -self.synthetic], self.symbols[-self.synthetic :]
        return real + tuple(
            ElfSymbol(d.name[1:], d.name_offset + 1, d.value, d.class_letter, True) for d in dots
        )


def _class_letter(bind: int, typ: int, shndx: int, flags: int | None, is_global: bool) -> str:
    """BFD's symbol class letter (what nm prints), as far as gprof's rules need it (§3.1)."""
    if shndx == SHN_COMMON:
        return "C"
    if shndx == SHN_UNDEF:
        return "w" if bind == STB_WEAK else "U"
    if typ == STT_GNU_IFUNC:
        return "i"
    if bind == STB_WEAK:
        return "V" if typ == STT_OBJECT else "W"
    if bind == STB_GNU_UNIQUE:
        return "u"
    if shndx == SHN_ABS:
        letter = "a"
    elif flags is not None and flags & SHF_EXECINSTR:
        letter = "t"
    elif flags is not None and flags & SHF_WRITE:
        letter = "d"
    else:
        letter = "r"
    return letter.upper() if is_global else letter


def read_elf(elf: ElfFile) -> ElfImage:
    """The headers, symbol table and code of the open file `elf` (never the rest of the file);
    raises ElfError (one line) for anything that is not a usable ELF executable, LimitError past
    its budget."""
    try:
        return _image(elf)
    except ElfError:
        raise
    except (struct.error, IndexError, ValueError, OverflowError) as e:
        raise ElfError(elf.path, f"malformed ELF file ({one_line(e)})") from None
    except MemoryError:
        raise ElfError(elf.path, "out of memory reading the executable") from None


_EM_NAMES = {
    0: "EM_NONE", 2: "EM_SPARC", 3: "EM_386", 4: "EM_68K", 8: "EM_MIPS", 10: "EM_MIPS_RS3_LE",
    15: "EM_PARISC", 18: "EM_SPARC32PLUS", 20: "EM_PPC", 21: "EM_PPC64", 22: "EM_S390", 40: "EM_ARM",
    42: "EM_SH", 43: "EM_SPARCV9", 50: "EM_IA_64", 62: "EM_X86_64", 83: "EM_AVR", 94: "EM_XTENSA",
    183: "EM_AARCH64", 243: "EM_RISCV", 247: "EM_BPF", 258: "EM_LOONGARCH",
}  # fmt: skip
SHT_PROGBITS, SHT_SYMTAB, SHT_NOTE, NT_GNU_BUILD_ID = 1, 2, 7, 3


def machine_name(e_machine: int) -> str:
    """pyelftools' name of an e_machine value ("EM_X86_64"), "EM_<n>" for others."""
    return _EM_NAMES.get(e_machine, f"EM_{e_machine}")


def _image(elf: ElfFile) -> ElfImage:
    path, sections = elf.path, elf.sections
    flags = [s.flags for s in sections]
    symtab = next((s for s in sections if s.type == SHT_SYMTAB), None)
    if symtab is None:
        raise ElfError(path, "has no symbols (stripped binary?); gprof needs the symbol table")
    if symtab.link >= len(sections):
        raise ElfError(path, "malformed ELF file (symbol table names no string table)")
    strtab = elf.data(sections[symtab.link])
    raw = elf.data(symtab)
    thumb = elf.machine == EM_ARM
    symbols = _symbols(raw, strtab, 8 if elf.wide else 4, elf.little, flags, elf.budget, thumb)
    opd = elf.find(".opd") if elf.machine == EM_PPC64 and elf.wide and is_elfv1(elf.eflags) else None
    if opd is not None:  # ELFv1: BFD's `.name` entry-point symbols (ppc64_opd.py)
        extra, names = dot_symbols(raw, strtab, elf.little, sections.index(opd), opd.addr, elf.data(opd))
        symbols, strtab = symbols + tuple(extra), strtab + names
    synthetic = len(extra) if opd is not None else 0
    # loaded code (SHF_ALLOC: firmware's flash may start at address 0)
    executable = [
        s for s in sections if s.flags & SHF_EXECINSTR and s.flags & SHF_ALLOC and s.type == SHT_PROGBITS
    ]
    code = tuple(CodeSection(s.name, s.addr, elf.data(s)) for s in executable)
    # `.text`, or in firmware whose linker script names it otherwise (`.flash_text`) the largest
    # executable section: what a user renames to `.text` for gprof (which refuses a file without)
    text = next((s for s in executable if s.name == ".text"), None) or max(
        executable, key=lambda s: s.size, default=None
    )
    text_start, text_end = (text.addr, text.addr + text.size) if text is not None else (0, 0)
    return ElfImage(
        path=path,
        machine=machine_name(elf.machine),
        address_size=8 if elf.wide else 4,
        little_endian=elf.little,
        symbols=symbols,
        strtab=strtab,
        text_start=text_start,
        text_end=text_end,
        code_sections=code,
        has_debug_info=elf.find(".debug_line") is not None,
        build_id=_build_id_of(elf),
        image_start=min(elf.loads) if elf.loads else None,
        arch=_arch_of(elf),
        synthetic=synthetic,
    )


def _arch_of(elf: ElfFile) -> str:
    attributes = elf.find(".ARM.attributes") if elf.machine == EM_ARM else None
    data = elf.data(attributes) if attributes is not None else None
    return bfd_arch_name(elf.machine, elf.wide, data, elf.little)


def _build_id_of(elf: ElfFile) -> str | None:
    note = next((s for s in elf.sections if s.name == ".note.gnu.build-id" and s.type == SHT_NOTE), None)
    return _note_build_id(elf.data(note), elf.little) if note else None


def _note_build_id(data: bytes, little: bool) -> str | None:
    """The NT_GNU_BUILD_ID descriptor of a note section as hex (None when absent or malformed:
    gprof ignores the note, and we use it only in cache keys)."""
    pos = 0
    while pos + 12 <= len(data):
        namesz, descsz, kind = struct.unpack_from("<III" if little else ">III", data, pos)
        name_at = pos + 12
        desc_at = name_at + (namesz + 3) // 4 * 4
        if desc_at + descsz > len(data):
            return None
        if kind == NT_GNU_BUILD_ID and data[name_at : name_at + namesz].rstrip(b"\0") == b"GNU":
            return data[desc_at : desc_at + descsz].hex()[:128] or None
        pos = desc_at + (descsz + 3) // 4 * 4
    return None


def header_facts(elf: ElfFile) -> tuple[int, bool, str | None]:
    """(address size, little endian, GNU build-id) of an open ELF file from its headers and the
    build-id note alone (no symbols read: what a cache key and the profile's word size need)."""
    return (8 if elf.wide else 4), elf.little, _build_id_of(elf)


def is_executable(elf: ElfFile) -> bool:
    """Whether the open file `elf` is an ELF executable: ET_EXEC, or ET_DYN with an interpreter or
    the PIE flag (a static PIE); shared objects, object files and anything malformed are not.
    Reads the program headers and the dynamic segment only."""
    try:
        if elf.type != 3:
            return bool(elf.type == 2)
        for index, (kind, _offset, _size, _addr) in enumerate(elf.segments):
            if kind == PT_INTERP:
                return True
            if kind == PT_DYNAMIC:
                fmt = ("<" if elf.little else ">") + ("qQ" if elf.wide else "iI")
                return _pie_flag(elf.segment_data(index), fmt)
    except (GmonlensError, OSError, struct.error, ValueError, OverflowError, MemoryError):
        return False
    return False


PT_DYNAMIC, PT_INTERP, DT_NULL, DT_FLAGS_1, DF_1_PIE = 2, 3, 0, 0x6FFFFFFB, 0x08000000


def _pie_flag(dynamic: bytes, fmt: str) -> bool:
    """Whether a dynamic section's DT_FLAGS_1 entry (before DT_NULL) has DF_1_PIE."""
    size = struct.calcsize(fmt)
    for tag, value in struct.iter_unpack(fmt, dynamic[: len(dynamic) - len(dynamic) % size]):
        if tag == DT_NULL:
            return False
        if tag == DT_FLAGS_1 and value & DF_1_PIE:
            return True
    return False


SHT_DYNAMIC, DT_NEEDED = 6, 1


def needed_libraries(elf: ElfFile) -> list[str]:
    """The DT_NEEDED entries (shared library names) of the open file `elf`, in order; [] when it
    has none or they cannot be read."""
    try:
        return _needed(elf)
    except (GmonlensError, struct.error, IndexError, ValueError, OverflowError):
        return []


def _needed(elf: ElfFile) -> list[str]:
    out: list[str] = []
    fmt = ("<" if elf.little else ">") + ("qQ" if elf.wide else "iI")
    step = struct.calcsize(fmt)
    for sec in elf.sections:
        if sec.type != SHT_DYNAMIC or sec.link >= len(elf.sections):
            continue
        raw, strs = elf.data(sec), elf.data(elf.sections[sec.link])
        for tag, value in struct.iter_unpack(fmt, raw[: len(raw) - len(raw) % step]):
            if tag == DT_NEEDED and value < len(strs):
                end = strs.find(b"\0", value)
                out.append(strs[value : end if end >= 0 else len(strs)].decode("utf-8", "surrogateescape"))
    return out


EM_ARM, EM_PPC64 = 40, 21


def is_mapping_symbol(name: str) -> bool:
    """Whether `name` is a mapping symbol (ARM ELF: `$a`, `$t`, `$d`; AArch64: `$x`, `$d`; RISC-V:
    `$x`, `$x<isa>`, `$d`; each may carry a `.N` suffix): a marker of what the bytes after it are
    (A32 or Thumb code, data), never a function name. BFD's nearest-function search skips them."""
    return (
        len(name) >= 2
        and name[0] == "$"
        and name[1] in "atdx"
        and (len(name) == 2 or name[2] == "." or name[1] == "x")
    )


SHT_DYNSYM = 11


def dynamic_symbol_names(elf: ElfFile) -> list[str]:
    """The names in `.dynsym` (what a stripped executable still names: its imports, such as a -pg
    program's `mcount` and `__monstartup`); [] when it has none or they cannot be read."""
    try:
        sec = next((s for s in elf.sections if s.type == SHT_DYNSYM), None)
        if sec is None or sec.link >= len(elf.sections):
            return []
        flags = [s.flags for s in elf.sections]
        raw, strtab = elf.data(sec), elf.data(elf.sections[sec.link])
        symbols = _symbols(raw, strtab, 8 if elf.wide else 4, elf.little, flags, elf.budget, False)
    except (GmonlensError, struct.error, IndexError, ValueError, OverflowError):
        return []
    return [s.name for s in symbols]


def _symbols(
    raw: bytes, strtab: bytes, asize: int, little: bool, flags: list[int], budget: Budget, thumb: bool
) -> tuple[ElfSymbol, ...]:
    """The symbol table's entries; the bytes of the names decoded are charged to `budget` (names
    that overlap, each running to the end of a table without NULs, would otherwise be quadratic).

    `thumb` (32-bit ARM): a function symbol's value with bit 0 set names Thumb code at the even
    address below; BFD reads it as that address (as `nm` prints it and gprof uses it: `-l`'s
    `@ 63c`, `-C`'s `burn:0x63c`, `-s`'s arcs), so the bit is cleared here. Which instruction set
    a byte holds is told by the mapping symbols (`$t`, `$a`, `$d`), which keep their values."""
    e = "<" if little else ">"
    if asize == 8:
        fmt, size = e + "IBBHQQ", 24
    else:
        fmt, size = e + "IIIBBH", 16
    usable = len(raw) - len(raw) % size
    out: list[ElfSymbol] = []
    names: dict[int, str] = {}
    make = maker(ElfSymbol)  # ElfSymbol(...), a third of the time: 100,000s of them
    for i, rec in enumerate(struct.iter_unpack(fmt, raw[:usable])):
        if i == 0:
            continue
        if asize == 8:
            st_name, info, _other, shndx, value, _size = rec
        else:
            st_name, value, _size, info, _other, shndx = rec
        typ, bind = info & 0xF, info >> 4
        if typ in (STT_SECTION, STT_FILE):
            continue
        if thumb and typ in (STT_FUNC, STT_GNU_IFUNC):
            value &= ~1
        name = names.get(st_name)
        if name is None:
            end = strtab.find(b"\0", st_name)
            stop = end if end >= 0 else len(strtab)
            budget.charge("string bytes", max(0, stop - st_name), ".strtab")
            name = strtab[st_name:stop].decode("utf-8", "surrogateescape")
            names[st_name] = name
        sec_flags = flags[shndx] if shndx < len(flags) else None
        letter = _class_letter(bind, typ, shndx, sec_flags, bind != STB_LOCAL)
        out.append(make(name, st_name, value, letter, typ == STT_FUNC))
    return tuple(out)
