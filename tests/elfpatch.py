"""Hostile ELF inputs built at test time from an honest 64-bit little-endian executable (issue 22):
a section's bytes, type, flags or claimed size replaced by editing its section header, the new bytes
appended at the end of the file. Used by the engine, CLI, fuzz and server tests."""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

SHT_NOBITS = 8
SHF_COMPRESSED = 0x800
ELFCOMPRESS_ZLIB, ELFCOMPRESS_ZSTD = 1, 2
_SH = struct.Struct("<IIQQQQIIQQ")  # Elf64_Shdr: name type flags addr offset size link info align entsize


@dataclass(frozen=True)
class Section:
    index: int
    name: str
    header_at: int  # file offset of its section header
    type: int
    flags: int
    offset: int
    size: int


def sections(blob: bytes) -> list[Section]:
    """The section headers of a 64-bit little-endian ELF file."""
    assert blob[:6] == b"\x7fELF\x02\x01", "a 64-bit little-endian ELF file is expected"
    shoff, shentsize, shnum, shstrndx = (
        struct.unpack_from("<Q", blob, 0x28)[0],
        *struct.unpack_from("<HHH", blob, 0x3A),
    )
    rows = [_SH.unpack_from(blob, shoff + i * shentsize) for i in range(shnum)]
    names = blob[rows[shstrndx][4] : rows[shstrndx][4] + rows[shstrndx][5]]
    out = []
    for i, r in enumerate(rows):
        name = names[r[0] : names.index(b"\0", r[0])].decode()
        out.append(Section(i, name, shoff + i * shentsize, r[1], r[2], r[4], r[5]))
    return out


def section(blob: bytes, name: str) -> Section:
    return next(s for s in sections(blob) if s.name == name)


def section_data(blob: bytes, name: str) -> bytes:
    s = section(blob, name)
    return blob[s.offset : s.offset + s.size]


def patch(
    blob: bytes,
    name: str,
    data: bytes | None = None,
    *,
    type_: int | None = None,
    flags: int | None = None,
    size: int | None = None,
    rename: str | None = None,
) -> bytes:
    """`blob` with section `name` changed: new bytes `data` (appended at the end of the file), a new
    type, flags or claimed size (`size` overrides the length of `data`), or a new name (no longer
    than the old one: written over it in .shstrtab)."""
    s = section(blob, name)
    out = bytearray(blob)
    offset, length = s.offset, s.size
    if data is not None:
        out += b"\0" * (-len(out) % 8)
        offset, length = len(out), len(data)
        out += data
    if size is not None:
        length = size
    row = list(_SH.unpack_from(out, s.header_at))
    row[1] = s.type if type_ is None else type_
    row[2] = s.flags if flags is None else flags
    row[4], row[5] = offset, length
    _SH.pack_into(out, s.header_at, *row)
    if rename is not None:
        assert len(rename) <= len(name)
        strtab = sections(blob)[struct.unpack_from("<H", blob, 0x3E)[0]]
        at = strtab.offset + row[0]
        out[at : at + len(name)] = rename.encode().ljust(len(name), b"\0")
    return bytes(out)


def gabi_compressed(payload: bytes, claimed: int | None = None, kind: int = ELFCOMPRESS_ZLIB) -> bytes:
    """An SHF_COMPRESSED section's bytes (Elf64_Chdr, then the zlib stream of `payload`);
    `claimed` replaces ch_size (the decompressed size the header states)."""
    size = len(payload) if claimed is None else claimed
    return struct.pack("<IIQQ", kind, 0, size, 1) + zlib.compress(payload, 9)


def zeros_compressed(n: int, claimed: int | None = None) -> bytes:
    """gABI zlib section of `n` zero bytes, compressed as a stream (never all in memory)."""
    comp = zlib.compressobj(9)
    chunk = bytes(1 << 20)
    parts = []
    left = n
    while left:
        take = min(left, len(chunk))
        parts.append(comp.compress(chunk[:take]))
        left -= take
    parts.append(comp.flush())
    return struct.pack("<IIQQ", ELFCOMPRESS_ZLIB, 0, n if claimed is None else claimed, 1) + b"".join(parts)


def line_bomb(blob: bytes, rows: int) -> bytes:
    """A `.debug_line` whose first unit keeps its header and holds `rows` rows (DW_LNS_copy after
    one set_address to .text), SHF_COMPRESSED with zlib: a few KB on disk."""
    data = section_data(blob, ".debug_line")
    length = struct.unpack_from("<I", data, 0)[0]
    version = struct.unpack_from("<H", data, 4)[0]
    assert length < 0xFFFFFFF0 and version == 5, "a DWARF 5 (gcc 11+) 32-bit line table is expected"
    header_length = struct.unpack_from("<I", data, 8)[0]
    header = data[4 : 12 + header_length]  # version, address and selector sizes, header_length, header
    text = section(blob, ".text")
    text_addr = _SH.unpack_from(blob, text.header_at)[3]
    program = b"\0\x09\x02" + struct.pack("<Q", text_addr) + b"\x01" * rows + b"\0\x01\x01"
    unit = header + program
    body = struct.pack("<I", len(unit)) + unit
    comp = zlib.compressobj(9)
    stream = comp.compress(body) + comp.flush()
    chdr = struct.pack("<IIQQ", ELFCOMPRESS_ZLIB, 0, len(body), 1)
    return patch(blob, ".debug_line", chdr + stream, flags=s_flags(blob, ".debug_line") | SHF_COMPRESSED)


def s_flags(blob: bytes, name: str) -> int:
    return section(blob, name).flags


def debug_str_bomb(blob: bytes, expanded: int) -> bytes:
    """`.debug_str` as SHF_COMPRESSED zlib of `expanded` zero bytes (1 GiB: about 1 MB on disk)."""
    flags = s_flags(blob, ".debug_str") | SHF_COMPRESSED
    return patch(blob, ".debug_str", zeros_compressed(expanded), flags=flags)


def nobits(blob: bytes, name: str, claimed: int) -> bytes:
    """Section `name` made SHT_NOBITS with a claimed size (no bytes in the file)."""
    return patch(blob, name, type_=SHT_NOBITS, size=claimed)


def tiny_elf(sections: list[tuple[str, int, int, bytes]], *, claimed: dict[str, int] | None = None) -> bytes:
    """A minimal 64-bit little-endian ELF file (no program headers) holding `elffile` as
    (name, type, flags, bytes); `claimed` overrides a section's sh_size. For the pure fuzz tier."""
    names = b"\0.shstrtab\0" + b"".join(n.encode() + b"\0" for n, *_ in sections)
    body = bytearray(64)
    offsets = []
    for _name, _type, _flags, data in sections:
        body += b"\0" * (-len(body) % 8)
        offsets.append(len(body))
        body += data
    shstr_at = len(body)
    body += names
    body += b"\0" * (-len(body) % 8)
    shoff = len(body)
    table = bytearray(64)  # the null section
    pos = len(b"\0.shstrtab\0")
    for (name, type_, flags, data), off in zip(sections, offsets, strict=True):
        size = (claimed or {}).get(name, len(data))
        table += _SH.pack(pos, type_, flags, 0, off, size, 0, 0, 1, 0)
        pos += len(name) + 1
    table += _SH.pack(1, 3, 0, 0, shstr_at, len(names), 0, 0, 1, 0)  # .shstrtab (SHT_STRTAB)
    body += table
    count = len(sections) + 2
    header = struct.pack("<4sBBBBB7sHHIQQQIHHHHHH", b"\x7fELF", 2, 1, 1, 0, 0, b"", 2, 62, 1, 0, 0, shoff,
                         0, 64, 0, 0, 64, count, count - 1)  # fmt: skip
    body[:64] = header
    return bytes(body)
