"""The executable: header facts, raw `.symtab`/`.strtab` and code bytes (one of the engine's I/O modules).

Headers, sections and the symbol table are unpacked with struct (pyelftools' import alone cost more
than the rest of a warm report's start-up, and its per-symbol objects are too slow for programs with
tens of thousands of symbols). `read_build_id` (the server's cache keys) still uses pyelftools.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from .errors import ElfError, GmonlensError, one_line
from .files import open_regular, read_regular
from .model import CodeSection, ElfSymbol

SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 0x1, 0x2, 0x4
SHN_UNDEF, SHN_ABS, SHN_COMMON = 0, 0xFFF1, 0xFFF2
STT_OBJECT, STT_FUNC, STT_SECTION, STT_FILE, STT_GNU_IFUNC = 1, 2, 3, 4, 10
STB_LOCAL, STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE = 0, 1, 2, 10
MAX_BINARY_BYTES = 1 << 32  # an executable is read whole; larger is refused before reading


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


def read_elf(path: str) -> ElfImage:
    """Read `path`; raises ElfError (one line) for anything that is not a usable ELF executable."""
    blob = read_regular(path, MAX_BINARY_BYTES, "executable", ElfError)
    if blob[:4] != b"\x7fELF":
        raise ElfError(path, "not an ELF executable (bad magic)")
    try:
        return _image(path, blob)
    except ElfError:
        raise
    except (struct.error, IndexError, ValueError, OverflowError) as e:
        raise ElfError(path, f"malformed ELF file ({one_line(e)})") from None


# The headers are unpacked here with struct (ELF gABI): importing pyelftools for them cost more
# than the rest of a warm report's start-up.
_EM_NAMES = {
    0: "EM_NONE", 2: "EM_SPARC", 3: "EM_386", 4: "EM_68K", 8: "EM_MIPS", 10: "EM_MIPS_RS3_LE",
    15: "EM_PARISC", 18: "EM_SPARC32PLUS", 20: "EM_PPC", 21: "EM_PPC64", 22: "EM_S390", 40: "EM_ARM",
    42: "EM_SH", 43: "EM_SPARCV9", 50: "EM_IA_64", 62: "EM_X86_64", 83: "EM_AVR", 94: "EM_XTENSA",
    183: "EM_AARCH64", 243: "EM_RISCV", 247: "EM_BPF", 258: "EM_LOONGARCH",
}  # fmt: skip
SHT_PROGBITS, SHT_SYMTAB, SHT_NOTE, SHT_NOBITS, PT_LOAD, NT_GNU_BUILD_ID = 1, 2, 7, 8, 1, 3


@dataclass(frozen=True, slots=True)
class _Section:
    name: str
    type: int
    flags: int
    addr: int
    offset: int
    size: int
    link: int


def _headers(path: str, blob: bytes) -> tuple[int, bool, int, list[_Section], list[int]]:
    """(address size, little endian, e_machine, sections, PT_LOAD addresses) of an ELF image."""
    if blob[4] not in (1, 2) or blob[5] not in (1, 2):
        raise ElfError(path, "malformed ELF file (bad class or data encoding)")
    wide, e = blob[4] == 2, "<" if blob[5] == 1 else ">"
    head = struct.unpack_from(e + ("HHIQQQIHHHHHH" if wide else "HHIIIIIHHHHHH"), blob, 16)
    machine, phoff, shoff = head[1], head[4], head[5]
    phentsize, phnum, shentsize, shnum, shstrndx = head[8], head[9], head[10], head[11], head[12]
    sh_fmt, sh_size = (e + "IIQQQQIIQQ", 64) if wide else (e + "IIIIIIIIII", 40)
    rows: list[tuple[int, ...]] = []
    if shoff:
        if shentsize < sh_size:
            raise ElfError(path, "malformed ELF file (section header size)")
        first = struct.unpack_from(sh_fmt, blob, shoff)
        count = shnum or first[5]  # SHN_XINDEX scheme: the count is in section 0's sh_size
        if shoff + count * shentsize > len(blob):
            raise ElfError(path, "malformed ELF file (section headers past the end of the file)")
        rows = [struct.unpack_from(sh_fmt, blob, shoff + i * shentsize) for i in range(count)]
        if shstrndx == 0xFFFF:
            shstrndx = first[6]
    names = b""
    if rows and shstrndx < len(rows):
        r = rows[shstrndx]
        names = blob[r[4] : r[4] + r[5]]
    sections = []
    for r in rows:
        end = names.find(b"\0", r[0])
        name = names[r[0] : end if end >= 0 else len(names)].decode("utf-8", "surrogateescape")
        sections.append(_Section(name, r[1], r[2], r[3], r[4], r[5], r[6]))
    ph_fmt, ph_size = (e + "IIQQQQQQ", 56) if wide else (e + "IIIIIIII", 32)
    loads = []
    if phoff and phentsize >= ph_size and phoff + phnum * phentsize <= len(blob):
        for i in range(phnum):
            ph = struct.unpack_from(ph_fmt, blob, phoff + i * phentsize)
            if ph[0] == PT_LOAD:
                loads.append(ph[3] if wide else ph[2])
    return (8 if wide else 4), e == "<", machine, sections, loads


def _image(path: str, blob: bytes) -> ElfImage:
    asize, little, machine, sections, loads = _headers(path, blob)
    flags = [s.flags for s in sections]
    symtab = next((s for s in sections if s.type == SHT_SYMTAB), None)
    if symtab is None:
        raise ElfError(path, "has no symbols (stripped binary?); gprof needs the symbol table")
    if symtab.link >= len(sections):
        raise ElfError(path, "malformed ELF file (symbol table names no string table)")
    strtab = _section_bytes(blob, sections[symtab.link], path)
    raw = _section_bytes(blob, symtab, path)
    symbols = _symbols(raw, strtab, asize, little, flags)
    text = next((s for s in sections if s.name == ".text"), None)
    code = tuple(
        CodeSection(s.name, s.addr, _section_bytes(blob, s, path))
        for s in sections
        if s.flags & SHF_EXECINSTR and s.type == SHT_PROGBITS and s.addr
    )
    if text is not None:
        text_start, text_end = text.addr, text.addr + text.size
    elif code:
        text_start = min(c.address for c in code)
        text_end = max(c.address + len(c.data) for c in code)
    else:
        text_start = text_end = 0
    note = next((s for s in sections if s.name == ".note.gnu.build-id" and s.type == SHT_NOTE), None)
    return ElfImage(
        path=path,
        machine=_EM_NAMES.get(machine, f"EM_{machine}"),
        address_size=asize,
        little_endian=little,
        symbols=symbols,
        strtab=strtab,
        text_start=text_start,
        text_end=text_end,
        code_sections=code,
        has_debug_info=any(s.name == ".debug_line" for s in sections),
        build_id=_note_build_id(blob[note.offset : note.offset + note.size], little) if note else None,
        image_start=min(loads) if loads else None,
    )


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


def _build_id(section: object) -> str:
    """The NT_GNU_BUILD_ID of a `.note.gnu.build-id` section as hex ("" when absent or malformed:
    gprof ignores the note, and we use it only in cache keys)."""
    try:
        for note in getattr(section, "iter_notes", lambda: ())():
            if note["n_type"] == "NT_GNU_BUILD_ID":
                desc = note["n_desc"]
                return desc if isinstance(desc, str) and len(desc) <= 128 else ""
    except Exception:  # pyelftools: ArrayError, ELFParseError, ... on a damaged note
        return ""
    return ""


def read_build_id(path: str) -> str:
    """The GNU build-id note of an ELF file as hex; "" when absent or unreadable."""
    from elftools.elf.elffile import ELFFile

    try:
        with open_regular(path, "executable") as fh:
            return _build_id(ELFFile(fh).get_section_by_name(".note.gnu.build-id"))
    except Exception:  # identity then rests on path, size and mtime
        return ""


SHT_DYNAMIC, DT_NEEDED = 6, 1
SHF_COMPRESSED = 0x800


def debug_sections(path: str, names: tuple[str, ...]) -> tuple[bool, dict[str, bytes]] | None:
    """(little endian, {name: bytes}) of the named sections present in the ELF file at `path`;
    None when one of them is compressed (SHF_COMPRESSED) or the file cannot be read as ELF."""
    try:
        blob = read_regular(path, MAX_BINARY_BYTES, "executable", ElfError)
        if blob[:4] != b"\x7fELF":
            return None
        _, little, _, sections, _ = _headers(path, blob)
        out: dict[str, bytes] = {}
        for sec in sections:
            if sec.name in names:
                if sec.flags & SHF_COMPRESSED:
                    return None
                out[sec.name] = _section_bytes(blob, sec, path)
        return little, out
    except (GmonlensError, struct.error, IndexError, ValueError, OverflowError):
        return None


def needed_libraries(path: str) -> list[str]:
    """The DT_NEEDED entries (shared library names) of the ELF file at `path`, in order; [] when it
    has none or cannot be read."""
    try:
        blob = read_regular(path, MAX_BINARY_BYTES, "executable", ElfError)
        if blob[:4] != b"\x7fELF":
            return []
        asize, little, _, sections, _ = _headers(path, blob)
        out: list[str] = []
        fmt = ("<" if little else ">") + ("qQ" if asize == 8 else "iI")
        for sec in sections:
            if sec.type != SHT_DYNAMIC or sec.link >= len(sections):
                continue
            raw, strs = _section_bytes(blob, sec, path), _section_bytes(blob, sections[sec.link], path)
            for tag, value in struct.iter_unpack(fmt, raw[: len(raw) - len(raw) % (2 * asize)]):
                if tag == DT_NEEDED and value < len(strs):
                    end = strs.find(b"\0", value)
                    out.append(
                        strs[value : end if end >= 0 else len(strs)].decode("utf-8", "surrogateescape")
                    )
        return out
    except (GmonlensError, struct.error, IndexError, ValueError, OverflowError):
        return []


def _section_bytes(blob: bytes, sec: _Section, path: str) -> bytes:
    if sec.type == SHT_NOBITS:
        return b""
    if sec.offset + sec.size > len(blob):
        raise ElfError(path, f"section {sec.name} extends past the end of the file")
    return blob[sec.offset : sec.offset + sec.size]


def _symbols(raw: bytes, strtab: bytes, asize: int, little: bool, flags: list[int]) -> tuple[ElfSymbol, ...]:
    e = "<" if little else ">"
    if asize == 8:
        fmt, size = e + "IBBHQQ", 24
    else:
        fmt, size = e + "IIIBBH", 16
    usable = len(raw) - len(raw) % size
    out: list[ElfSymbol] = []
    names: dict[int, str] = {}
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
        name = names.get(st_name)
        if name is None:
            end = strtab.find(b"\0", st_name)
            name = strtab[st_name : end if end >= 0 else len(strtab)].decode("utf-8", "surrogateescape")
            names[st_name] = name
        sec_flags = flags[shndx] if shndx < len(flags) else None
        letter = _class_letter(bind, typ, shndx, sec_flags, bind != STB_LOCAL)
        out.append(ElfSymbol(name, st_name, value, letter, typ == STT_FUNC))
    return tuple(out)
