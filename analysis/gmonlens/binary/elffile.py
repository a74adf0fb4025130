"""An executable's sections, read by what its headers reference and never whole (an I/O module).

`ElfFile(stream, path)` takes a file already open (the facade, `gmonlens.load.program.open_elf`,
opens it: only the facade opens the program's files), reads the ELF header, the section headers
and the program headers, and gives a section's contents on demand, each read once:
- a section must lie inside the file; its size is charged to the file's `Budget` before anything
  is read or allocated;
- SHT_NOBITS sections have no contents here (never materialised as zeros);
- SHF_COMPRESSED sections (ELF gABI, zlib; zstd when this Python has a decoder) and GNU `.zdebug_*`
  sections ("ZLIB" + big-endian size) are decompressed incrementally, never past the size the
  header states, which is charged first;
- sparse regions (holes) inside a section are not read (SEEK_DATA/SEEK_HOLE): they read as zeros.
Everything else in the file (a sparse tail of gigabytes, data no header names) is never touched.
"""

from __future__ import annotations

import copy
import errno
import os
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import BinaryIO

from gmonlens.binary.budget import Budget, LimitError, stored_size
from gmonlens.common.errors import ElfError

SHT_NOBITS = 8
SHF_COMPRESSED = 0x800
ELFCOMPRESS_ZLIB, ELFCOMPRESS_ZSTD = 1, 2
_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Section:
    """One section header (ELF gABI): name, type, flags, address, file offset, size, link."""

    name: str
    type: int
    flags: int
    addr: int
    offset: int
    size: int
    link: int

    @property
    def debug_name(self) -> str:
        """The name with GNU's `.zdebug_` prefix read as `.debug_`."""
        return "." + self.name[2:] if self.name.startswith(".zdebug_") else self.name


class ElfFile:
    """An open ELF file: headers parsed, sections read on demand. Use as a context manager."""

    def __init__(self, stream: BinaryIO, path: str) -> None:
        """Read the headers of `stream` (a regular file open for reading, which this object now
        owns and closes; `path` names it in errors); raises ElfError (one line naming the file)."""
        self.path = path
        self._fh = stream
        try:
            st = os.fstat(self._fh.fileno())
            self.size = st.st_size
            self.identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)  # the file as opened
            self.budget = Budget(path, stored_size(st.st_size, getattr(st, "st_blocks", 0)))
            self._cache: dict[int, bytes] = {}
            self._read_headers()
        except BaseException:
            self._fh.close()
            raise

    def __enter__(self) -> ElfFile:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self._fh.close()

    def with_budget(self) -> ElfFile:
        """This open file (same handle; sections already read are shared) with a budget of its
        own, for one reader's pass (line rows, DWARF entries, strings, sections it reads): a
        reader of a `Program` is bounded as if it had opened the file itself. Closing it closes
        the file."""
        view = copy.copy(self)
        view.budget = Budget(self.path, self.budget.stored)
        return view

    # ---- headers ---------------------------------------------------------------------------------

    def _read_headers(self) -> None:
        head = self._pread(0, 64)
        if head[:4] != b"\x7fELF":
            raise ElfError(self.path, "not an ELF executable (bad magic)")
        if len(head) < 52 or head[4] not in (1, 2) or head[5] not in (1, 2):
            raise ElfError(self.path, "malformed ELF file (bad class or data encoding)")
        self.wide, self.little = head[4] == 2, head[5] == 1
        e = "<" if self.little else ">"
        self._e = e
        if self.wide and len(head) < 64:
            raise ElfError(self.path, "malformed ELF file (header past the end of the file)")
        h = struct.unpack_from(e + ("HHIQQQIHHHHHH" if self.wide else "HHIIIIIHHHHHH"), head, 16)
        self.machine, self.type, self.eflags = h[1], h[0], h[6]
        self.segments: list[tuple[int, int, int, int]] = []  # (p_type, offset, file size, address)
        phoff, shoff, phentsize, phnum, shentsize, shnum, shstrndx = (
            h[4],
            h[5],
            h[8],
            h[9],
            h[10],
            h[11],
            h[12],
        )
        self.sections = self._section_headers(shoff, shentsize, shnum, shstrndx)
        self.loads = self._load_addresses(phoff, phentsize, phnum)

    def _section_headers(self, shoff: int, shentsize: int, shnum: int, shstrndx: int) -> list[Section]:
        if not shoff:
            return []
        fmt, need = (self._e + "IIQQQQIIQQ", 64) if self.wide else (self._e + "IIIIIIIIII", 40)
        if shentsize < need:
            raise ElfError(self.path, "malformed ELF file (section header size)")
        first = struct.unpack_from(fmt, self._exact(shoff, need, "section headers"))
        count = shnum or first[5]  # SHN_XINDEX scheme: the count is in section 0's sh_size
        if count * shentsize > self.size - shoff:
            raise ElfError(self.path, "malformed ELF file (section headers past the end of the file)")
        table = self._exact(shoff, count * shentsize, "section headers")
        rows = [struct.unpack_from(fmt, table, i * shentsize) for i in range(count)]
        if shstrndx == 0xFFFF:
            shstrndx = first[6]
        raw = [Section("", r[1], r[2], r[3], r[4], r[5], r[6]) for r in rows]
        names = b""
        if shstrndx < len(raw) and shstrndx:
            names = self.data_of(shstrndx, raw[shstrndx], ".shstrtab")
        out = []
        for r, sec in zip(rows, raw, strict=True):
            end = names.find(b"\0", r[0], r[0] + 4096)
            name = names[r[0] : end if end >= 0 else min(len(names), r[0] + 4096)]
            out.append(Section(name.decode("utf-8", "surrogateescape"), *_fields(sec)))
        return out

    def _load_addresses(self, phoff: int, phentsize: int, phnum: int) -> list[int]:
        fmt, need = (self._e + "IIQQQQQQ", 56) if self.wide else (self._e + "IIIIIIII", 32)
        if not phoff or phentsize < need or phnum * phentsize > self.size - phoff:
            return []
        table = self._exact(phoff, phnum * phentsize, "program headers")
        out = []
        for i in range(phnum):
            ph = struct.unpack_from(fmt, table, i * phentsize)
            # (type, offset, size in the file, address): Elf64 p_type p_flags p_offset p_vaddr
            # p_paddr p_filesz; Elf32 p_type p_offset p_vaddr p_paddr p_filesz
            seg = (ph[0], ph[2], ph[5], ph[3]) if self.wide else (ph[0], ph[1], ph[4], ph[2])
            self.segments.append(seg)
            if ph[0] == 1:  # PT_LOAD
                out.append(seg[3])
        return out

    def segment_data(self, index: int) -> bytes:
        """The file bytes of program header `index` (charged like a section's)."""
        _kind, offset, size, _addr = self.segments[index]
        if offset > self.size or size > self.size - offset:
            raise ElfError(self.path, f"segment {index} extends past the end of the file")
        self.budget.charge_section(f"segment {index}", size)
        return self._read(offset, size)

    # ---- sections --------------------------------------------------------------------------------

    def find(self, name: str) -> Section | None:
        """The first section named `name`; for a `.debug_*` name, its `.zdebug_*` twin too."""
        for sec in self.sections:
            if sec.name == name or (name.startswith(".debug_") and sec.debug_name == name):
                return sec
        return None

    def data(self, sec: Section) -> bytes:
        """`sec`'s contents (decompressed; b"" for NOBITS); raises ElfError or LimitError."""
        return self.data_of(self.sections.index(sec), sec, sec.name)

    def section_range(self, sec: Section, start: int, length: int) -> bytes:
        """Bytes [start, start + length) of `sec`'s contents, clipped to its end (b"" past it): a
        read of those bytes alone when the section is stored plain (charged as section bytes),
        else a slice of its whole contents (`data`: decompressed and charged once). For readers
        that need a few bytes of a large section (each DWARF unit's top entry)."""
        compressed = sec.name.startswith(".zdebug_") or sec.flags & SHF_COMPRESSED
        if sec.type == SHT_NOBITS or start < 0 or length <= 0:
            return b""
        index = getattr(self, "_index_of", None)
        if index is None:
            index = self._index_of = {id(s): i for i, s in enumerate(self.sections)}
        if compressed or index.get(id(sec), -1) in self._cache:
            return self.data(sec)[start : start + length]
        if sec.offset > self.size or sec.size > self.size - sec.offset:
            raise ElfError(self.path, f"section {sec.name} extends past the end of the file")
        length = max(0, min(length, sec.size - start))
        if not length:
            return b""
        self.budget.charge("section bytes", length, sec.name)
        return self._exact(sec.offset + start, length, sec.name)

    def data_of(self, key: int, sec: Section, name: str) -> bytes:
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = self._contents(sec, name)
        return hit

    def _contents(self, sec: Section, name: str) -> bytes:
        if sec.type == SHT_NOBITS:
            return b""
        if sec.offset > self.size or sec.size > self.size - sec.offset:
            raise ElfError(self.path, f"section {name} extends past the end of the file")
        if sec.name.startswith(".zdebug_"):
            head = self._exact(sec.offset, min(sec.size, 12), name)
            if head[:4] == b"ZLIB" and len(head) == 12:
                size = int.from_bytes(head[4:12], "big")
                return self._inflate(name, sec.offset + 12, sec.size - 12, size, ELFCOMPRESS_ZLIB)
        elif sec.flags & SHF_COMPRESSED:
            return self._decompressed(sec, name)
        self.budget.charge_section(name, sec.size)
        return self._read(sec.offset, sec.size)

    def _decompressed(self, sec: Section, name: str) -> bytes:
        fmt = self._e + ("IIQQ" if self.wide else "III")
        hsize = struct.calcsize(fmt)
        if sec.size < hsize:
            raise ElfError(self.path, f"section {name}: compressed section too short for its header")
        fields = struct.unpack(fmt, self._exact(sec.offset, hsize, name))
        kind, size = fields[0], fields[2] if self.wide else fields[1]
        return self._inflate(name, sec.offset + hsize, sec.size - hsize, size, kind)

    def _inflate(self, name: str, offset: int, length: int, size: int, kind: int) -> bytes:
        """The `size` bytes a compressed stream of `length` bytes at `offset` decompresses to,
        charged before decompressing and never decompressed past."""
        decoder = _decoder(kind)
        if decoder is None:
            what = "zstd" if kind == ELFCOMPRESS_ZSTD else f"type {kind}"
            raise ElfError(self.path, f"section {name}: {what} compression is unsupported (no decoder)")
        self.budget.charge_section(name, size)
        self.budget.charge("section bytes", length, name)
        stream = self._read(offset, length)
        try:
            out = decoder(stream, size + 1)
        except (zlib.error, ValueError, EOFError, MemoryError) as e:
            raise ElfError(self.path, f"section {name}: cannot decompress ({type(e).__name__})") from None
        if len(out) != size:
            raise ElfError(
                self.path,
                f"section {name}: decompresses to a size other than the {size} bytes its header states",
            )
        return out

    # ---- reading ---------------------------------------------------------------------------------

    def _exact(self, offset: int, length: int, what: str) -> bytes:
        data = self._pread(offset, length)
        if len(data) != length:
            raise ElfError(self.path, f"malformed ELF file ({what} past the end of the file)")
        return data

    def _pread(self, offset: int, length: int) -> bytes:
        if not (0 <= offset < 1 << 63 and 0 <= length < 1 << 62):  # a header's claim past any file
            raise ElfError(self.path, f"malformed ELF file (a read of {length} bytes at offset {offset})")
        try:
            return os.pread(self._fh.fileno(), length, offset)
        except OSError as e:
            raise ElfError(self.path, e.strerror or type(e).__name__) from None

    def _read(self, offset: int, length: int) -> bytes:
        """`length` bytes at `offset`; holes are left as zeros, not read."""
        fd = self._fh.fileno()
        end = offset + length
        try:
            data_at = os.lseek(fd, offset, os.SEEK_DATA)
            hole_at = os.lseek(fd, data_at, os.SEEK_HOLE)
        except OSError as e:
            if e.errno == errno.ENXIO:  # nothing but a hole from `offset` to the end of the file
                return bytes(length)
            data_at, hole_at = offset, end  # no SEEK_DATA here: read it all
        if data_at <= offset and hole_at >= end:
            return self._exact(offset, length, "section")
        buf = bytearray(length)
        pos = offset
        while pos < end:
            try:
                data_at = os.lseek(fd, pos, os.SEEK_DATA)
            except OSError:
                break
            if data_at >= end:
                break
            stop = min(end, os.lseek(fd, data_at, os.SEEK_HOLE))
            for at in range(data_at, stop, _CHUNK):
                chunk = self._exact(at, min(_CHUNK, stop - at), "section")
                buf[at - offset : at - offset + len(chunk)] = chunk
            pos = stop
        return bytes(buf)


def _fields(sec: Section) -> tuple[int, int, int, int, int, int]:
    return sec.type, sec.flags, sec.addr, sec.offset, sec.size, sec.link


def _zlib(stream: bytes, most: int) -> bytes:
    d = zlib.decompressobj()
    return d.decompress(stream, most)


def _decoder(kind: int) -> Callable[[bytes, int], bytes] | None:
    if kind == ELFCOMPRESS_ZLIB:
        return _zlib
    if kind == ELFCOMPRESS_ZSTD:
        try:
            from compression import zstd  # type: ignore[import-not-found]  # Python 3.14
        except ImportError:
            return None

        def _zstd(stream: bytes, most: int) -> bytes:
            out: bytes = zstd.ZstdDecompressor().decompress(stream, most)
            return out

        return _zstd
    return None


__all__ = ["SHF_COMPRESSED", "SHT_NOBITS", "ElfFile", "LimitError", "Section"]
