"""The scope walk's compiled actions (`info_reader._ScopeCodes`: entries skipped by a size known in
advance or attribute by attribute, code scopes unpacked by one `struct`) give what decoding every
entry with `_decode` gives, on random DWARF 5 units of many forms built here (no compiler): the
same scopes and names, the same entries charged, and Unsupported where that does."""

from __future__ import annotations

import random
import struct
from types import SimpleNamespace

import pytest

from gmonlens.binary.budget import Budget
from gmonlens.dwarf import info_reader as dwarfread
from gmonlens.dwarf.die_primitives import Unsupported
from gmonlens.dwarf.info_reader import DieReader
from leb128 import sleb as _sleb
from leb128 import uleb as _uleb

# forms of the attributes nobody reads, with a value's bytes
_SKIPPED = {
    0x0B: lambda r: bytes([r.randrange(256)]),  # data1
    0x05: lambda r: r.randbytes(2),  # data2
    0x06: lambda r: r.randbytes(4),  # data4
    0x07: lambda r: r.randbytes(8),  # data8
    0x0F: lambda r: _uleb(r.choice((0, 5, 127, 128, 300, 1 << 40))),  # udata
    0x0D: lambda r: _sleb(r.choice((0, -1, 63, -64, 64, -65, 1 << 33))),  # sdata
    0x08: lambda r: bytes(r.choice(b"abc") for _ in range(r.randrange(6))) + b"\0",  # string
    0x18: lambda r: (lambda n: _uleb(n) + r.randbytes(n))(r.choice((0, 1, 3, 127, 128, 200))),  # exprloc
    0x0A: lambda r: (lambda n: bytes([n]) + r.randbytes(n))(r.randrange(5)),  # block1
    0x19: lambda r: b"",  # flag_present
    0x0E: lambda r: struct.pack("<I", 0),  # strp
    0x25: lambda r: bytes([r.randrange(4)]),  # strx1
    0x27: lambda r: r.randbytes(3),  # strx3
}
_STR = b"\0scope_one\0scope_two\0"


class _Unit:
    """One DWARF 5 compile unit written entry by entry, with its abbreviations and range lists."""

    def __init__(self, rng: random.Random, codes_from: int) -> None:
        self.rng = rng
        self.abbrevs: list[bytes] = []
        self.keys: dict[tuple[int, bool, tuple[tuple[int, int, int], ...]], int] = {}
        self.next_code = codes_from
        self.body = bytearray()
        self.rnglists = bytearray(b"\0" * 12)  # a header nobody reads

    def code(self, tag: int, kids: bool, specs: tuple[tuple[int, int, int], ...]) -> int:
        key = (tag, kids, specs)
        if key not in self.keys:
            self.keys[key] = self.next_code
            attrs = b"".join(_uleb(a) + _uleb(f) + (_sleb(c) if f == 0x21 else b"") for a, f, c in specs)
            self.abbrevs.append(_uleb(self.next_code) + _uleb(tag) + bytes([kids]) + attrs + b"\0\0")
            self.next_code += self.rng.choice((1, 1, 1, 7))
        return self.keys[key]

    def entry(self, tag: int, kids: bool, attrs: list[tuple[int, int, int, bytes]]) -> None:
        specs = tuple((a, f, c) for a, f, c, _ in attrs)
        self.body += _uleb(self.code(tag, kids, specs)) + b"".join(v for *_, v in attrs)

    def other(self, kids: bool) -> None:
        r = self.rng
        attrs = []
        for _ in range(r.randrange(5)):
            form = r.choice([*_SKIPPED, 0x21])
            attrs.append(
                (
                    r.choice((0x02, 0x3A, 0x3B, 0x49, 0x3F)),
                    form,
                    r.randrange(-3, 9),
                    b"" if form == 0x21 else _SKIPPED[form](r),
                )
            )
        self.entry(r.choice((0x05, 0x34, 0x0B, 0x13, 0x48)), kids, attrs)

    def scope(self, kids: bool, origin: int | None) -> None:
        r = self.rng
        attrs: list[tuple[int, int, int, bytes]] = []
        if origin is not None:
            attrs.append((0x31, 0x13, 0, struct.pack("<I", origin)))
        else:
            attrs.append(
                r.choice(
                    [(0x03, 0x08, 0, b"named_here\0"), (0x03, 0x0E, 0, struct.pack("<I", r.choice((1, 11))))]
                )
            )
        if r.random() < 0.3:  # DW_AT_frame_base, as gcc gives a subprogram: not unpacked
            attrs.append((0x40, 0x18, 0, b"\x01\x9c"))
        for _ in range(r.randrange(3)):  # DW_AT_call_file and the like: skipped
            attrs.append(
                r.choice([(0x58, 0x0B, 0, b"\x01"), (0x59, 0x05, 0, b"\x01\x00"), (0x57, 0x27, 0, b"abc")])
            )
        low = r.choice((0, 0x1000, 0x2000, 0xFFFFFFFF))
        if r.random() < 0.5:
            attrs.append((0x11, 0x01, 0, struct.pack("<Q", low)))
            form, size = r.choice(((0x07, "<Q"), (0x06, "<I"), (0x05, "<H")))
            attrs.append((0x12, form, 0, struct.pack(size, r.choice((0, 0x10, 0x30)))))
        else:
            attrs.append((0x55, 0x17, 0, struct.pack("<I", self.range_list())))
        r.shuffle(attrs)
        self.entry(r.choice((0x2E, 0x1D)), kids, attrs)

    def range_list(self) -> int:
        r = self.rng
        at = len(self.rnglists)
        for _ in range(r.randrange(1, 4)):
            kind = r.choice((4, 4, 4, 5, 6, 7))
            if kind == 4:
                self.rnglists += (
                    b"\x04"
                    + _uleb(r.choice((0, 0x10, 0x200, 0x12345)))  # ULEB128s of 1, 2 and 3 bytes
                    + _uleb(r.choice((0x8, 0x20, 0x300, 0x23456)))
                )
            elif kind == 5:
                self.rnglists += b"\x05" + struct.pack("<Q", r.choice((0, 0x4000)))
            elif kind == 6:
                self.rnglists += b"\x06" + struct.pack("<QQ", 0x5000, r.choice((0x4000, 0x5010)))
            else:
                self.rnglists += b"\x07" + struct.pack("<Q", 0x6000) + _uleb(r.choice((0, 0x40)))
        self.rnglists += b"\x00"
        return at


def _sections(seed: int) -> dict[str, bytes]:
    """.debug_info, .debug_abbrev, .debug_str and .debug_rnglists of one random unit."""
    r = random.Random(seed)
    u = _Unit(r, codes_from=r.choice((1, 1, 120, 300)))
    header_size = 12  # unit_length, version, unit_type, address_size, debug_abbrev_offset
    u.entry(
        0x11,
        True,
        [(0x03, 0x08, 0, b"u.c\0"), (0x13, 0x0B, 0, b"\x0c"), (0x11, 0x01, 0, struct.pack("<Q", 0))],
    )
    origins: list[int] = []
    depth = 1
    for _ in range(r.randrange(5, 60)):
        kids = r.random() < 0.3
        at = header_size + len(u.body)
        if r.random() < 0.4:
            u.scope(kids, r.choice(origins) if origins and r.random() < 0.6 else None)
            origins.append(at)
        else:
            u.other(kids)
        depth += kids
        while depth > 1 and r.random() < 0.3:
            u.body += r.choice((b"\x00", b"\x80\x00"))  # a null entry, one byte or a long one
            depth -= 1
    u.body += b"\x00" * depth
    info = struct.pack("<IHBBI", 8 + len(u.body), 5, 1, 8, 0) + bytes(u.body)
    return {
        ".debug_info": info,
        ".debug_abbrev": b"".join(u.abbrevs) + b"\0",
        ".debug_str": _STR,
        ".debug_rnglists": bytes(u.rnglists),
    }


def _walk(sections: dict[str, bytes]) -> tuple[object, dict[str, int]]:
    budget = Budget("x", 1 << 30)
    elf = SimpleNamespace(
        little=True,
        budget=budget,
        find=lambda name: SimpleNamespace(type=1, name=name) if name in sections else None,
        data=lambda sec: sections[sec.name],
    )
    try:
        got: object = DieReader(elf).code_scope_pair({0x1000: "elf_name"})  # type: ignore[arg-type]
    except Unsupported:
        got = Unsupported
    return got, dict(budget.spent)


def _decoded_only(plan: dwarfread.Plan, little: bool) -> tuple[int, object]:
    """The walk before compiled actions: skips by size, every other entry `_decode`d."""
    return (plan[5], None) if plan[5] >= 0 else (dwarfread._DECODED, plan)


@pytest.mark.parametrize("seed", range(300))
def test_compiled_actions_read_what_decoding_reads(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    sections = _sections(seed)
    fast = _walk(sections)
    monkeypatch.setattr(dwarfread, "_scope_action", _decoded_only)
    assert fast == _walk(sections)


def test_the_units_have_every_kind_of_entry() -> None:
    """The random units exercise each action: skips, variable skips, unpacked and decoded scopes."""
    kinds: set[int] = set()
    for seed in range(300):
        sections = _sections(seed)
        reader = DieReader(
            SimpleNamespace(  # type: ignore[arg-type]
                little=True,
                budget=Budget("x", 1 << 30),
                find=lambda name, s=sections: SimpleNamespace(type=1, name=name) if name in s else None,
                data=lambda sec, s=sections: s[sec.name],
            )
        )
        for unit in reader.units.values():
            reader.top(unit.start)
            table = reader._scope_codes(unit)
            values = table.kinds.values() if isinstance(table.kinds, dict) else table.kinds
            kinds |= {k if k < 0 else 0 for k in values}
    assert {0, dwarfread._VARIABLE, dwarfread._UNPACKED, dwarfread._DECODED} <= kinds
