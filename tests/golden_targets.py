"""One program a target, described in Python, for the golden tests of every target gprof reads
(tests/analysis/test_golden_targets.py; issue 31): the ELF executable (tests/elfwriter.py) in the
target's class, byte order and machine, with what makes the target itself (ARM: Thumb function
symbols with bit 0 set, a `$t` mapping symbol and `.ARM.attributes`; ppc64 ELFv1: function symbols
naming descriptors in `.opd`; MIPS and AArch64: call instructions where the calls are, for -c;
bare-metal: text in flash at a high address), and the gmon.out a run would write (the target's
word size and byte order). The expected texts are each target's own gprof 2.40's
(tests/record_goldens.py, by hand), in tests/analysis/golden/targets/<target>.<variant>.txt.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

from elfwriter import (
    STB_LOCAL,
    STT_FUNC,
    STT_NOTYPE,
    Arch,
    ElfSym,
    Section,
    elf_file,
)
from gmonwriter import Arc, Hist, gnu_file
from golden_programs import KINDS, Call, Routine, Variant

EM_386, EM_MIPS, EM_PPC, EM_PPC64, EM_S390, EM_ARM, EM_AARCH64, EM_RISCV = 3, 8, 20, 21, 22, 40, 183, 243
SHT_PROGBITS, SHT_ARM_ATTRIBUTES = 1, 0x70000003
SHF_WRITE, SHF_ALLOC = 0x1, 0x2


def arm_attributes(cpu_arch: int) -> bytes:
    """`.ARM.attributes`: one `aeabi` file-scope block with Tag_CPU_arch (6) = `cpu_arch`."""
    body = bytes([6, cpu_arch, 8, 1, 9, 2])  # Tag_CPU_arch, Tag_ARM_ISA_use 1, Tag_THUMB_ISA_use 2
    block = b"\x01" + struct.pack("<I", 5 + len(body)) + body
    sub = b"aeabi\0" + block
    return b"A" + struct.pack("<I", 4 + len(sub)) + sub


Encoder = Callable[[int, int], bytes]  # (call site address, target address) -> the call's bytes


@dataclass(frozen=True)
class Target:
    """A target gprof: its ELF kind, where the code lives, a no-op and a call instruction.

    `call_size`: the bytes from a call instruction to its return address (the arcs' from_pc);
    `call` encodes a direct call (None: the target's calls are not laid in the code)."""

    name: str
    gprof: str
    arch: Arch
    text_address: int
    image_start: int
    nop: bytes
    call: Encoder | None = None
    call_size: int = 4
    thumb: bool = False
    attributes: int | None = None  # ARM Tag_CPU_arch
    opd: bool = False  # ppc64 ELFv1: function symbols name descriptors in .opd
    hz: int = 100
    hist_low: int | None = None  # where the histogram starts (None: the image start, as glibc's)

    @property
    def address_size(self) -> int:
        return 8 if self.arch.wide else 4


def _aarch64_bl(at: int, target: int) -> bytes:
    return struct.pack("<I", 0x94000000 | ((target - at) >> 2) & 0x3FFFFFF)


def _x86_call(at: int, target: int) -> bytes:
    return b"\xe8" + struct.pack("<i", target - (at + 5))


def _mips_jal(little: bool) -> Encoder:
    def enc(at: int, target: int) -> bytes:
        return struct.pack("<I" if little else ">I", 0x0C000000 | (target >> 2) & 0x3FFFFFF) + bytes(4)

    return enc


TARGETS = (
    Target("armhf", "arm-linux-gnueabihf-gprof", Arch(False, True, EM_ARM, 0x05000400), 0x10000, 0x10000 - 0x1000,
           b"\x00\xbf", thumb=True, attributes=10),
    Target("armel", "arm-linux-gnueabi-gprof", Arch(False, True, EM_ARM, 0x05000200), 0x10000, 0x10000 - 0x1000,
           b"\x00\xf0\x20\xe3", attributes=4),
    Target("aarch64", "aarch64-linux-gnu-gprof", Arch(True, True, EM_AARCH64), 0x401000, 0x400000,
           b"\x1f\x20\x03\xd5", call=_aarch64_bl),
    Target("riscv64", "riscv64-linux-gnu-gprof", Arch(True, True, EM_RISCV, 0x5), 0x11000, 0x10000,
           b"\x13\x00\x00\x00"),
    Target("riscv32", "riscv64-unknown-elf-gprof", Arch(False, True, EM_RISCV, 0x1), 0x80001000, 0x80000000,
           b"\x13\x00\x00\x00", hz=1000),
    Target("ppc64le", "powerpc64le-linux-gnu-gprof", Arch(True, True, EM_PPC64, 2), 0x10001000, 0x10000000,
           b"\x00\x00\x00\x60"),
    Target("ppc64", "powerpc64-linux-gnu-gprof", Arch(True, False, EM_PPC64, 1), 0x10001000, 0x10000000,
           b"\x60\x00\x00\x00", opd=True),
    Target("ppc32", "powerpc-linux-gnu-gprof", Arch(False, False, EM_PPC), 0x10001000, 0x10000000,
           b"\x60\x00\x00\x00"),
    Target("s390x", "s390x-linux-gnu-gprof", Arch(True, False, EM_S390), 0x1001000, 0x1000000, b"\x07\x07"),
    Target("mips64el", "mips64el-linux-gnuabi64-gprof", Arch(True, True, EM_MIPS, 0x80000007), 0x120001000,
           0x120000000, b"\0\0\0\0", call=_mips_jal(True), call_size=8),
    Target("mips", "mips-linux-gnu-gprof", Arch(False, False, EM_MIPS, 0x70001007), 0x401000, 0x400000,
           b"\0\0\0\0", call=_mips_jal(False), call_size=8),
    Target("i386", "i686-linux-gnu-gprof", Arch(False, True, EM_386), 0x8049000, 0x8048000, b"\x90",
           call=_x86_call, call_size=5),
    # bare metal: text in flash at a high address, the histogram over it alone, 1 kHz / 10 kHz
    Target("arm-none-eabi", "arm-none-eabi-gprof", Arch(False, True, EM_ARM, 0x05000200), 0x8001000, 0x8000000,
           b"\x00\xbf", thumb=True, attributes=13, hz=10000, hist_low=0x8001000),
    Target("riscv64-unknown-elf", "riscv64-unknown-elf-gprof", Arch(True, True, EM_RISCV, 0x5), 0x20011000,
           0x20010000, b"\x13\x00\x00\x00", hz=1000, hist_low=0x20011000),
)  # fmt: skip


# Routines (kinds as golden_programs.KINDS), samples and calls: recursion, a cycle, statics, a weak
# routine, an alias, a routine calling one it reaches only through code (-c's count-0 arc).
ROUTINES = (
    Routine("main", samples=3),
    Routine("fact", samples=9, at=32),
    Routine("even", samples=4),
    Routine("odd", size=48, samples=6, at=0),
    Routine("leaf", kind="t", samples=3),
    Routine("helper", kind="t", samples=2),
    Routine("hook", kind="W", samples=1),
    Routine("_hook_alias", size=0),
    Routine("unused", samples=0),
    Routine("late", samples=1),
)
CALLS = (
    Call("main", "fact", 1),
    Call("fact", "fact", 9, site=16),
    Call("fact", "leaf", 10, site=24),
    Call("main", "even", 2, site=24),
    Call("even", "odd", 5),
    Call("odd", "even", 4),
    Call("odd", "leaf", 3, site=24),
    Call("main", "helper", 7, site=40),
    Call("helper", "hook", 2),
)
CODE_ONLY = (Call("unused", "late", 0), Call("main", "late", 0, site=56))  # never run: -c finds them
VARIANTS = (
    Variant("plain"),
    Variant("z", ("-z",)),
    Variant("c", ("-c",)),
    Variant("C", ("-C",)),
    Variant("T", ("-T",)),
    Variant("a", ("-a",)),
    Variant("r", ("-r",)),
)


def addresses(t: Target) -> dict[str, int]:
    out: dict[str, int] = {}
    at = t.text_address
    for r in ROUTINES:
        out[r.name] = at
        at += r.size
    return out


def text_size() -> int:
    return sum(r.size for r in ROUTINES)


def code(t: Target) -> bytes:
    """`.text`: no-ops, with a direct call before each recorded and code-only call's return
    address where the target's call encoding is known."""
    data = bytearray(t.nop * (text_size() // len(t.nop)))
    if t.call is None:
        return bytes(data)
    where = addresses(t)
    for c in (*CALLS, *CODE_ONLY):
        at = where[c.caller] + c.site - t.call_size
        enc = t.call(at, where[c.callee])
        data[at - t.text_address : at - t.text_address + len(enc)] = enc
    if t.arch.machine == EM_MIPS:  # a jalr $t9 in leaf: its <indirect child>
        at = where["leaf"] + 8 - t.text_address
        data[at : at + 4] = struct.pack("<I" if t.arch.little else ">I", 0x0320F809)
    return bytes(data)


def _symbol(t: Target, r: Routine, value: int, shndx: int = 1) -> ElfSym:
    typ, bind, _ = KINDS[r.kind]
    if t.thumb and typ == STT_FUNC:
        value |= 1  # a Thumb function: bit 0 set
    return ElfSym(r.name, value, r.size if typ == STT_FUNC else 0, typ, bind, shndx)


def elf_bytes(t: Target) -> bytes:
    where = addresses(t)
    syms: list[ElfSym] = []
    extra: list[Section] = []
    if t.opd:  # descriptors (entry, TOC, environment) in .opd, after .text; the symbols name them
        opd_addr = t.text_address + text_size() + 0x1000 - (t.text_address + text_size()) % 0x1000
        opd = b"".join(struct.pack(">QQQ", where[r.name], opd_addr + 0x8000, 0) for r in ROUTINES)
        extra.append(Section(".opd", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, opd_addr, opd))
        for i, r in enumerate(ROUTINES):
            sym = _symbol(t, r, opd_addr + 24 * i, shndx=2)
            syms.append(sym if sym.typ == STT_FUNC else ElfSym(r.name, where[r.name], 0, sym.typ, sym.bind))
    else:
        syms = [_symbol(t, r, where[r.name]) for r in ROUTINES]
    if t.thumb:
        syms.insert(0, ElfSym("$t", t.text_address, 0, STT_NOTYPE, STB_LOCAL))
    if t.attributes is not None:
        extra.append(Section(".ARM.attributes", SHT_ARM_ATTRIBUTES, 0, 0, arm_attributes(t.attributes)))
    return elf_file(t.text_address, code(t), syms, load_address=t.image_start, arch=t.arch, sections=extra)


def gmon_bytes(t: Target) -> bytes:
    """The run's gmon.out: one histogram from the image start to the end of the code (rounded up
    to 4) with glibc's bin count, then the arcs (self_pc 4 bytes into the callee)."""
    low = t.image_start if t.hist_low is None else t.hist_low
    high = t.text_address + (text_size() + 3) // 4 * 4
    span = high - low
    nbins = -(-(span // 2) // 8) * 8 // 2
    counts = [0] * nbins
    where = addresses(t)
    for r in ROUTINES:
        if r.samples:
            counts[(where[r.name] + r.at - low) * nbins // span] += r.samples
    arcs = [Arc(where[c.caller] + c.site, where[c.callee] + 4, c.count) for c in CALLS]
    records = [Hist(low, high, counts, prof_rate=t.hz), *arcs]
    return gnu_file(records, address_size=t.address_size, little_endian=t.arch.little)
