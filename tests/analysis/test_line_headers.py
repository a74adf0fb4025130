"""The own line-program header reader (`line_headers`: DWARF 2, 3, 4 and 5) gives pyelftools'
programs on hand-built files: random units and line programs of every version, both byte orders,
32- and 64-bit DWARF, compilation directories in every string form a unit's top entry uses,
DWARF 3 line programs under DWARF 5 units (what the bare-metal binutils write); the same line
tables and `lines_at` answers follow. Where the reader declines (pyelftools would read the header
with sizes the program does not have), pyelftools decides. Built here byte by byte, independent
of the engine (DWARF 5 §6.2.4, §7.5)."""

from __future__ import annotations

import random
import struct
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from binaries import open_elf
from elfwriter import Arch, ElfSym, elf_file
from gmonlens.dwarf import line_headers
from leb128 import sleb, uleb
from line_headers_compare import assert_programs_as_pyelftools, own_facts

TEXT = 0x401000
STD_LENGTHS = [0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1]  # DW_LNS_copy .. DW_LNS_set_isa


@dataclass
class Program:
    """One line program: its version, the header's parameters, include directories (DWARF 5:
    entry 0 is the compilation directory), files as (name, directory index) and the sequences as
    rows of (address, file, line)."""

    version: int
    dirs: list[str]
    files: list[tuple[str, int]]
    sequences: list[list[tuple[int, int, int]]]
    min_len: int = 1
    line_base: int = -5
    line_range: int = 14
    opcode_base: int = 13
    path_form: int = 0x08  # DWARF 5 paths: DW_FORM_string or DW_FORM_line_strp
    md5: bool = False
    dwarf64: bool | None = None  # None: as the file's units
    address_size: int | None = None  # DWARF 5's field; None: the units'


@dataclass
class Unit:
    """A compilation unit's top entry: version, name, comp_dir (None: no attribute) and the form
    it is written in (string, strp, line_strp), and which program (index) DW_AT_stmt_list names."""

    version: int
    name: str
    comp_dir: str | None
    program: int | None
    dir_form: int = 0x08
    low: int = TEXT
    high: int = TEXT + 0x100


@dataclass
class Layout:
    little: bool = True
    wide: bool = True  # 8-byte addresses
    dwarf64: bool = False
    strs: bytearray = field(default_factory=lambda: bytearray(b"\0"))
    line_strs: bytearray = field(default_factory=lambda: bytearray(b"\0"))

    @property
    def e(self) -> str:
        return "<" if self.little else ">"

    @property
    def osize(self) -> int:
        return 8 if self.dwarf64 else 4

    @property
    def asize(self) -> int:
        return 8 if self.wide else 4

    def uint(self, value: int, size: int) -> bytes:
        return value.to_bytes(size, "little" if self.little else "big")

    def string_at(self, table: bytearray, s: str) -> int:
        at = len(table)
        table += s.encode() + b"\0"
        return at

    def initial_length(self, body: bytes) -> bytes:
        if self.dwarf64:
            return b"\xff\xff\xff\xff" + self.uint(len(body), 8) + body
        return self.uint(len(body), 4) + body


def _cstr(s: str) -> bytes:
    return s.encode() + b"\0"


def _opcodes(lay: Layout, p: Program) -> bytes:
    out = bytearray()
    for seq in p.sequences:
        out += b"\0" + uleb(1 + lay.asize) + b"\x02" + lay.uint(seq[0][0], lay.asize)  # set_address
        address, file, line = seq[0][0], 1, 1
        for at, f, ln in seq:
            if f != file:
                out += b"\x04" + uleb(f)  # set_file
                file = f
            step, delta = (at - address) // p.min_len, ln - line
            special = (delta - p.line_base) + p.line_range * step + p.opcode_base
            if 0 <= delta - p.line_base < p.line_range and special <= 255:
                out.append(special)
            else:
                out += b"\x02" + uleb(step) + b"\x03" + sleb(delta) + b"\x01"  # advance_pc, _line, copy
            address, line = at, ln
        out += b"\x02" + uleb(4) + b"\0\x01\x01"  # past the last row, end_sequence
    return bytes(out)


def _tables_v2(p: Program) -> bytes:
    out = b"".join(_cstr(d) for d in p.dirs) + b"\0"
    for name, di in p.files:
        out += _cstr(name) + uleb(di) + uleb(0) + uleb(len(name))  # directory, time, length
    return out + b"\0"


def _tables_v5(lay: Layout, p: Program) -> bytes:
    def path(s: str) -> bytes:
        if p.path_form == 0x1F:
            return lay.uint(lay.string_at(lay.line_strs, s), lay.osize)
        return _cstr(s)

    out = bytes([1]) + uleb(1) + uleb(p.path_form) + uleb(len(p.dirs))  # DW_LNCT_path
    out += b"".join(path(d) for d in p.dirs)
    formats = [(1, p.path_form), (2, 0x0F)] + ([(5, 0x1E)] if p.md5 else [])  # path, dir (udata), MD5
    out += bytes([len(formats)]) + b"".join(uleb(c) + uleb(f) for c, f in formats) + uleb(len(p.files))
    for name, di in p.files:
        out += path(name) + uleb(di) + (bytes(range(16)) if p.md5 else b"")
    return out


def debug_line(lay: Layout, programs: list[Program]) -> tuple[bytes, list[int]]:
    """The programs one after the other, and each one's offset."""
    out, offsets = bytearray(), []
    for p in programs:
        offsets.append(len(out))
        params = bytes([p.min_len]) + (b"\x01" if p.version >= 4 else b"")  # max ops from DWARF 4
        params += struct.pack("Bb", 1, p.line_base) + bytes([p.line_range, p.opcode_base])
        params += bytes((STD_LENGTHS + [1] * 10)[: p.opcode_base - 1])
        tables = _tables_v5(lay, p) if p.version >= 5 else _tables_v2(p)
        head = params + tables
        asize = lay.asize if p.address_size is None else p.address_size
        sizes = bytes([asize, 0]) if p.version >= 5 else b""  # address, segment selector size
        own = Layout(lay.little, lay.wide, lay.dwarf64 if p.dwarf64 is None else p.dwarf64)
        body = lay.uint(p.version, 2) + sizes + own.uint(len(head), own.osize) + head + _opcodes(lay, p)
        out += own.initial_length(body)
    return bytes(out), offsets


def debug_info(lay: Layout, units: list[Unit], offsets: list[int]) -> tuple[bytes, bytes]:
    """(.debug_abbrev, .debug_info): an abbreviation per unit (its top entry, no children)."""
    abbrev, info = bytearray(), bytearray()
    for code, u in enumerate(units, 1):
        attrs = [(0x03, 0x08)]  # DW_AT_name
        vals = _cstr(u.name)
        if u.comp_dir is not None:
            attrs.append((0x1B, u.dir_form))
            if u.dir_form == 0x08:
                vals += _cstr(u.comp_dir)
            else:
                table = lay.strs if u.dir_form == 0x0E else lay.line_strs
                vals += lay.uint(lay.string_at(table, u.comp_dir), lay.osize)
        high_form = 0x01 if u.version < 4 else 0x06  # DWARF 2-3: an address; later a length
        attrs += [(0x11, 0x01), (0x12, high_form)]
        vals += lay.uint(u.low, lay.asize) + (
            lay.uint(u.high, lay.asize) if u.version < 4 else lay.uint(u.high - u.low, 4)
        )
        if u.program is not None:
            attrs.append((0x10, 0x06 if u.version < 4 else 0x17))  # data4, sec_offset
            vals += lay.uint(offsets[u.program], 4 if u.version < 4 else lay.osize)
        abbrev += uleb(code) + uleb(0x11) + b"\0" + b"".join(uleb(a) + uleb(f) for a, f in attrs) + b"\0\0"
        if u.version >= 5:
            head = lay.uint(5, 2) + bytes([1, lay.asize]) + lay.uint(0, lay.osize)  # DW_UT_compile
        else:
            head = lay.uint(u.version, 2) + lay.uint(0, lay.osize) + bytes([lay.asize])
        info += lay.initial_length(head + uleb(code) + vals)
    return bytes(abbrev + b"\0"), bytes(info)


def write_elf(where: Path, lay: Layout, units: list[Unit], programs: list[Program]) -> str:
    line, offsets = debug_line(lay, programs)
    abbrev, info = debug_info(lay, units, offsets)
    extra = [(".debug_abbrev", abbrev), (".debug_info", info), (".debug_line", line)]
    extra += [(".debug_str", bytes(lay.strs)), (".debug_line_str", bytes(lay.line_strs))]
    arch = Arch(wide=lay.wide, little=lay.little, machine=62 if lay.wide else 3)
    data = elf_file(TEXT, b"\x90" * 0x1000, [ElfSym("main", TEXT, 16)], extra=extra, arch=arch)
    path = where / "prog"
    path.write_bytes(data)
    return str(path)


def _random_program(rng: random.Random, version: int) -> Program:
    dirs = [rng.choice(["src", "/abs/inc", "../up", "a/./b", "x//y"]) for _ in range(rng.randrange(0, 4))]
    if version >= 5:
        dirs = [rng.choice(["/build", "/build/", "rel/build", ""]), *dirs]
    n_dirs = len(dirs) + (0 if version >= 5 else 1)
    files = [
        (rng.choice(["m.c", "h.h", "/abs/f.c", "sub/g.c"]), rng.randrange(0, n_dirs + 1))
        for _ in range(rng.randrange(1, 5))
    ]
    first = 0 if version >= 5 else 1
    sequences = []
    for k in range(rng.randrange(1, 4)):
        address = TEXT + 0x100 * k + rng.randrange(0, 16)
        rows, line = [], rng.randrange(1, 50)
        for _ in range(rng.randrange(1, 12)):
            rows.append((address, rng.randrange(first, first + len(files)), line))
            address += rng.randrange(0, 40)
            line = max(1, line + rng.randrange(-8, 30))
        sequences.append(rows)
    return Program(
        version, dirs, files, sequences,
        min_len=rng.choice([1, 1, 2, 4]), line_base=rng.choice([-5, -3, -1]), line_range=rng.choice([12, 14]),
        opcode_base=rng.choice([10, 13, 13]) if version < 4 else 13,
        path_form=rng.choice([0x08, 0x1F]), md5=rng.random() < 0.3,
    )  # fmt: skip


def _random_file(rng: random.Random, where: Path) -> str:
    lay = Layout(little=rng.random() < 0.7, wide=rng.random() < 0.7, dwarf64=rng.random() < 0.2)
    units, programs = [], []
    for k in range(rng.randrange(1, 5)):
        info_version = rng.choice([2, 3, 4, 5])
        line_version = 5 if info_version == 5 and rng.random() < 0.5 else rng.choice([2, 3, 4])
        if info_version == 2 and lay.dwarf64:
            info_version = 3  # 64-bit DWARF starts with DWARF 3
        programs.append(_random_program(rng, line_version))
        dir_forms = [0x08, 0x0E, 0x1F] if info_version >= 5 else [0x08, 0x0E]
        comp_dir = rng.choice(["/work/fw", "/work/fw/", "", "/b/build/..", None])
        units.append(Unit(info_version, f"u{k}.c", comp_dir, k, dir_form=rng.choice(dir_forms)))
    return write_elf(where, lay, units, programs)


@pytest.mark.parametrize("seed", range(60))
def test_own_headers_are_pyelftools_on_random_files(seed: int, tmp_path: Path) -> None:
    path = _random_file(random.Random(seed), tmp_path)
    assert assert_programs_as_pyelftools(path) >= 1


@pytest.mark.parametrize("version", [2, 3, 4])
@pytest.mark.parametrize("little", [True, False])
def test_each_version_alone(version: int, little: bool, tmp_path: Path) -> None:
    lay = Layout(little=little)
    prog = Program(version, ["inc", "/usr/include"], [("m.c", 0), ("h.h", 1), ("s.h", 2)],
                   [[(TEXT, 1, 3), (TEXT + 4, 2, 10), (TEXT + 9, 3, 2)]])  # fmt: skip
    path = write_elf(tmp_path, lay, [Unit(version, "m.c", "/work/fw", 0)], [prog])
    assert assert_programs_as_pyelftools(path) == 1
    with open_elf(path) as elf:
        ((_, names, base, _, _),) = line_headers.programs(elf)
    assert (names, base) == (["/work/fw/m.c", "/work/fw/inc/h.h", "/usr/include/s.h"], 1)


def test_dwarf3_programs_under_dwarf5_units_read_their_directory_from_the_unit(tmp_path: Path) -> None:
    """arm-none-eabi's binutils: DWARF 5 units (comp_dir as DW_FORM_line_strp), DWARF 3 programs."""
    lay = Layout(wide=False)
    progs = [Program(3, [], [("m.c", 0)], [[(TEXT + 0x10 * k, 1, 5)]]) for k in range(3)]
    units = [Unit(5, f"m{k}.c", f"/fw/{k}", k, dir_form=0x1F) for k in range(3)]
    path = write_elf(tmp_path, lay, units, progs)
    assert assert_programs_as_pyelftools(path) == 3
    with open_elf(path) as elf:
        assert [p[1] for p in line_headers.programs(elf)] == [["/fw/0/m.c"], ["/fw/1/m.c"], ["/fw/2/m.c"]]
        by_offset = line_headers.programs_by_offset(elf)
    assert by_offset is not None and [v[1] for v in by_offset.values()] == [
        ["/fw/0/m.c"],
        ["/fw/1/m.c"],
        ["/fw/2/m.c"],
    ]


def test_units_without_a_program_and_a_program_named_twice(tmp_path: Path) -> None:
    """pyelftools reads a program once per unit naming it, in unit order; offsets then say nothing
    of the order (`programs_by_offset` gives None)."""
    progs = [
        Program(4, [], [("a.c", 0)], [[(TEXT, 1, 1)]]),
        Program(4, [], [("b.c", 0)], [[(TEXT + 0x40, 1, 1)]]),
    ]
    units = [
        Unit(4, "b.c", "/b", 1),
        Unit(4, "x.c", "/x", None),
        Unit(4, "a.c", "/a", 0),
        Unit(4, "b2.c", "/c", 1),
    ]
    path = write_elf(tmp_path, Layout(), units, progs)
    assert assert_programs_as_pyelftools(path) == 3
    with open_elf(path) as elf:
        assert [p[1] for p in line_headers.programs(elf)] == [["/b/b.c"], ["/a/a.c"], ["/c/b.c"]]
        assert line_headers.programs_by_offset(elf) is None


def test_out_of_section_order_units_give_no_offsets(tmp_path: Path) -> None:
    progs = [
        Program(3, [], [("a.c", 0)], [[(TEXT, 1, 1)]]),
        Program(3, [], [("b.c", 0)], [[(TEXT + 0x40, 1, 1)]]),
    ]
    path = write_elf(tmp_path, Layout(), [Unit(3, "b.c", "/b", 1), Unit(3, "a.c", "/a", 0)], progs)
    assert assert_programs_as_pyelftools(path) == 2
    with open_elf(path) as elf:
        assert line_headers.programs_by_offset(elf) is None


def test_all_dwarf5_programs_are_read_without_debug_info(tmp_path: Path) -> None:
    """gcc 11 and later: every program DWARF 5, names from the program alone (`.debug_info` is
    not read: a unit the own `.debug_info` reader would refuse changes nothing)."""
    progs = [Program(5, ["/b", "inc"], [("m.c", 0), ("h.h", 1)], [[(TEXT, 0, 1), (TEXT + 4, 1, 2)]])]
    path = write_elf(tmp_path, Layout(), [Unit(5, "m.c", "/b", 0)], progs)
    assert assert_programs_as_pyelftools(path) == 1
    data = Path(path).read_bytes()
    with open_elf(path) as elf:
        info = elf.find(".debug_info")
        assert info is not None
        start = info.offset
    broken = data[:start] + b"\x00" * 4 + b"\x01\x00" + data[start + 6 :]  # a DWARF 1 unit
    Path(path).write_bytes(broken)
    assert own_facts(path) is not None


@pytest.mark.parametrize("mismatch", ["address size", "offset size"])
def test_a_program_read_with_other_sizes_is_left_to_pyelftools(mismatch: str, tmp_path: Path) -> None:
    """pyelftools reads a program with its unit's sizes: where the program's own differ, the own
    reader declines (and pyelftools decides what such a file says)."""
    if mismatch == "address size":  # a DWARF 5 program of 4-byte addresses under an 8-byte unit
        odd = Program(5, ["/b"], [("m.c", 0)], [[(TEXT, 0, 1)]], address_size=4)
    else:  # a 64-bit DWARF program under a 32-bit unit
        odd = Program(3, [], [("m.c", 0)], [[(TEXT, 1, 1)]], dwarf64=True)
    progs = [odd, Program(3, [], [("n.c", 0)], [[(TEXT + 0x40, 1, 1)]])]
    path = write_elf(tmp_path, Layout(), [Unit(4, "m.c", "/b", 0), Unit(3, "n.c", "/b", 1)], progs)
    assert own_facts(path) is None
