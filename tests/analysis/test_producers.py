"""`dwarf.producers`: each unit's top entry read alone (DWARF 2-5 unit headers, strings inline, in
.debug_str, .debug_line_str and through .debug_str_offsets), from sections built byte by byte."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import pytest

from gmonlens.binary.budget import Budget
from gmonlens.dwarf.producers import UnitProducer, Unsupported, unit_producers
from leb128 import uleb

PRODUCER, LANGUAGE, NAME, COMP_DIR, STR_OFFSETS_BASE = 0x25, 0x13, 0x03, 0x1B, 0x72
STRING, STRP, LINE_STRP, STRX1, DATA1, SEC_OFFSET = 0x08, 0x0E, 0x1F, 0x25, 0x0B, 0x17


@dataclass(frozen=True)
class Sec:
    name: str
    size: int
    type: int = 1
    flags: int = 0


@dataclass
class FakeElf:
    """What `unit_producers` asks of an ElfFile, over section bytes; counts the bytes read."""

    contents: dict[str, bytes]
    little: bool = True
    budget: Budget = field(default_factory=lambda: Budget("app", 1 << 30))
    read: int = 0

    def find(self, name: str) -> Sec | None:
        return Sec(name, len(self.contents[name])) if name in self.contents else None

    def data(self, sec: Sec) -> bytes:
        self.read += len(self.contents[sec.name])
        return self.contents[sec.name]

    def section_range(self, sec: Sec, start: int, length: int) -> bytes:
        out = self.contents[sec.name][start : start + length]
        self.read += len(out)
        return out


def abbrev(code: int, specs: list[tuple[int, int]]) -> bytes:
    out = uleb(code) + uleb(0x11) + b"\x00"  # DW_TAG_compile_unit, no children
    for attr, form in specs:
        out += uleb(attr) + uleb(form)
    return out + b"\x00\x00"


def unit(version: int, abbrev_offset: int, body: bytes, unit_type: int = 1) -> bytes:
    if version >= 5:
        header = struct.pack("<HBBI", version, unit_type, 8, abbrev_offset)
    else:
        header = struct.pack("<HIB", version, abbrev_offset, 8)
    rest = header + body
    return struct.pack("<I", len(rest)) + rest


def test_units_of_every_kind_are_read() -> None:
    strs = b"\0GNU C17 12.2.0 -g -p\0/src\0GNU C++17 12.2.0 -g -O2\0"
    line_strs = b"\0b.cc\0"
    long_producer = b"GNU C11 7.5.0 -g -pg " + b"-fno-x " * 300  # a top entry larger than a window
    abbrevs = abbrev(1, [(PRODUCER, STRP), (LANGUAGE, DATA1), (NAME, STRING), (COMP_DIR, STRP)]) + b"\x00"
    v5 = len(abbrevs)
    abbrevs += abbrev(3, [(STR_OFFSETS_BASE, SEC_OFFSET), (PRODUCER, STRX1), (NAME, LINE_STRP)]) + b"\x00"
    v2 = len(abbrevs)
    abbrevs += abbrev(2, [(NAME, STRING), (PRODUCER, STRING)]) + b"\x00"
    offsets = struct.pack("<II", 0, 0) + struct.pack("<II", 1, 27)  # header (v5: 8 bytes), then offsets
    info = unit(4, 0, uleb(1) + struct.pack("<I", 1) + b"\x1d" + b"a.c\0" + struct.pack("<I", 22))
    second = len(info)
    info += unit(5, v5, uleb(3) + struct.pack("<I", 8) + b"\x01" + struct.pack("<I", 1))
    third = len(info)
    info += unit(2, v2, uleb(2) + b"c.c\0" + long_producer + b"\0")
    elf = FakeElf({".debug_info": info, ".debug_abbrev": abbrevs, ".debug_str": strs,
                   ".debug_line_str": line_strs, ".debug_str_offsets": offsets})  # fmt: skip
    assert unit_producers(elf) == [  # type: ignore[arg-type]
        UnitProducer(0, "a.c", "/src", "GNU C17 12.2.0 -g -p", 0x1D),
        UnitProducer(second, "b.cc", "", "GNU C++17 12.2.0 -g -O2", 0),
        UnitProducer(third, "c.c", "", long_producer.decode(), 0),
    ]


def test_only_top_entries_are_read() -> None:
    """A unit of a megabyte costs the reader its header and top entry, not its bytes."""
    abbrevs = abbrev(1, [(NAME, STRING), (PRODUCER, STRING)]) + b"\x00"
    body = uleb(1) + b"x.c\0GNU C17 -g -p\0" + b"\x00" * (1 << 20)  # the rest: children, skipped
    info = unit(4, 0, body) * 3
    elf = FakeElf({".debug_info": info, ".debug_abbrev": abbrevs})
    found = unit_producers(elf)  # type: ignore[arg-type]
    assert [u.producer for u in found] == ["GNU C17 -g -p"] * 3
    assert elf.read < 3 * 1024 + len(abbrevs)


def test_what_it_does_not_read_is_unsupported() -> None:
    abbrevs = abbrev(1, [(NAME, STRING)]) + b"\x00"
    split = FakeElf(
        {".debug_info": unit(5, 0, uleb(1) + b"a\0", unit_type=4) + bytes(8), ".debug_abbrev": abbrevs}
    )
    with pytest.raises(Unsupported):
        unit_producers(split)  # type: ignore[arg-type]
    truncated = FakeElf({".debug_info": unit(4, 0, uleb(1) + b"abc")[:-2] + b"", ".debug_abbrev": abbrevs})
    with pytest.raises(Unsupported):
        unit_producers(truncated)  # type: ignore[arg-type]
    assert unit_producers(FakeElf({})) == []  # type: ignore[arg-type]
