"""The executable: header facts, raw `.symtab`/`.strtab` and code bytes (one of the engine's I/O modules).

Section headers come from pyelftools; the symbol table is unpacked in bulk (pyelftools' per-symbol
objects are too slow for programs with tens of thousands of symbols).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from .errors import ElfError, one_line
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
    from elftools.elf.elffile import ELFFile

    blob = read_regular(path, MAX_BINARY_BYTES, "executable", ElfError)
    if blob[:4] != b"\x7fELF":
        raise ElfError(path, "not an ELF executable (bad magic)")
    try:
        import io

        elf = ELFFile(io.BytesIO(blob))
        return _image(path, elf, blob)
    except ElfError:
        raise
    except Exception as e:  # pyelftools raises many types (ELFError, ConstructError, ...) on bad input
        raise ElfError(path, f"malformed ELF file ({one_line(e)})") from None


def _image(path: str, elf: object, blob: bytes) -> ElfImage:
    from elftools.elf.elffile import ELFFile

    assert isinstance(elf, ELFFile)
    asize = 8 if elf.elfclass == 64 else 4
    little = elf.little_endian
    sections = list(elf.iter_sections())
    flags = [s["sh_flags"] for s in sections]
    symtab = next((s for s in sections if s["sh_type"] == "SHT_SYMTAB"), None)
    if symtab is None:
        raise ElfError(path, "has no symbols (stripped binary?); gprof needs the symbol table")
    strsec = sections[symtab["sh_link"]]
    strtab = _section_bytes(blob, strsec, path)
    raw = _section_bytes(blob, symtab, path)
    symbols = _symbols(raw, strtab, asize, little, flags)
    text = next((s for s in sections if s.name == ".text"), None)
    code = tuple(
        CodeSection(s.name, s["sh_addr"], _section_bytes(blob, s, path))
        for s in sections
        if s["sh_flags"] & SHF_EXECINSTR and s["sh_type"] == "SHT_PROGBITS" and s["sh_addr"]
    )
    if text is not None:
        text_start, text_end = text["sh_addr"], text["sh_addr"] + text["sh_size"]
    elif code:
        text_start = min(c.address for c in code)
        text_end = max(c.address + len(c.data) for c in code)
    else:
        text_start = text_end = 0
    build_id = _build_id(next((s for s in sections if s.name == ".note.gnu.build-id"), None))
    loads = [int(seg["p_vaddr"]) for seg in elf.iter_segments() if seg["p_type"] == "PT_LOAD"]
    return ElfImage(
        path=path,
        machine=str(elf["e_machine"]),
        address_size=asize,
        little_endian=little,
        symbols=symbols,
        strtab=strtab,
        text_start=text_start,
        text_end=text_end,
        code_sections=code,
        has_debug_info=any(s.name == ".debug_line" for s in sections),
        build_id=build_id or None,
        image_start=min(loads) if loads else None,
    )


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


def _section_bytes(blob: bytes, sec: object, path: str) -> bytes:
    off, size = sec["sh_offset"], sec["sh_size"]  # type: ignore[index]
    if sec["sh_type"] == "SHT_NOBITS":  # type: ignore[index]
        return b""
    if off + size > len(blob):
        raise ElfError(path, f"section {sec.name} extends past the end of the file")  # type: ignore[attr-defined]
    return blob[off : off + size]


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
