"""The static call graph (gprof `-c`): direct calls found by decoding each routine's machine code.

Pure: works on the bytes of the executable sections and on gprof's routine table; no file I/O.

* x86-64 / i386: instructions are decoded with capstone, starting at each routine's entry, so that
  only real `call rel32` instructions count (an 0xE8 byte inside another instruction or inside data
  placed in code does not). The displacement is sign-extended (backward calls are found, unlike GNU
  gprof 2.40, which zero-extends it and finds only forward calls).
* AArch64: `BL imm26` and `B imm26` (tail calls), as GNU gprof counts both (fixed width, 4-byte
  aligned): a hand decoder, no capstone needed.
* MIPS (32- and 64-bit, either byte order): every word of a routine, as GNU gprof reads it: a
  `jal` whose target (the pc's top four bits of 32, then the instruction's 26-bit word index; so
  on a 64-bit address space, where the pc's bits above 32 are dropped, never a routine's entry)
  is a routine's entry gives a static arc; a `jalr` that links into $ra (opcode 0, rd 31, funct
  9; rs, rt and the hint bits not looked at) gives the caller an arc to `<indirect child>`
  (`INDIRECT_CHILD`, once per caller, printed `0/0`, no index, in the call graph only).
* Only the `.text` section is scanned, as gprof does (`_init`'s calls in `.init` are not seen).

A call is a static arc when its target is exactly the start address of a routine (so a call into the
PLT, which lies inside `_init`'s range, or into the middle of a routine, is not an arc). A routine
calling its own entry gives a self arc, as AArch64 gprof reports it. Indirect calls are never arcs.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal

from gmonlens.common.errors import GmonlensError
from gmonlens.common.model import INDIRECT_CHILD, CodeSection

try:  # capstone is only needed for x86; its absence must not break the rest of the engine
    import capstone as _capstone
except ImportError:  # pragma: no cover - exercised by a test that hides the module
    _capstone = None


Callee = Callable[[int], "int | None"]  # target address -> routine position, None if not an arc
# (section bytes, section address, begin, stop, callee) -> (call site address, callee position)
Scanner = Callable[[bytes, int, int, int, Callee], Iterable[tuple[int, int]]]


class StaticCallsUnsupported(GmonlensError):
    """`-c` cannot be honoured for this executable (architecture, or missing disassembler)."""


_X86_MODES = {"EM_X86_64": 64, "EM_386": 32}
_SUPPORTED = (*_X86_MODES, "EM_AARCH64", "EM_MIPS")

# AArch64 B and BL (imm26): bits 30..26 = 0b00101, i.e. the most significant byte (little-endian
# byte 3) is 0x14..0x17 (B) or 0x94..0x97 (BL). GNU gprof counts both (a tail call is a call).
_B_BL_TOP = bytes(1 if b & 0x7C == 0x14 else 0 for b in range(256))
_SCANNED_SECTION = ".text"  # gprof reads only .text: calls in .init/.plt/.fini are never seen


def is_supported(machine: str) -> bool:
    """Whether `find_static_calls` handles this pyelftools e_machine string."""
    return machine in _SUPPORTED


def _arch_name(machine: str) -> str:
    return machine[3:].lower() if machine.startswith("EM_") else machine


def find_static_calls(
    machine: str,
    sections: Sequence[CodeSection],
    starts: Sequence[int],
    ends: Sequence[int],
    *,
    pc_ranges: Sequence[tuple[int, int]] | None = None,
    arch: str | None = None,
    little_endian: bool = True,
) -> list[tuple[int, int]]:
    """Direct calls from one routine to the entry of another, found by decoding each routine's
    instructions.

    `starts`/`ends`: the routines of gprof's symbol table in address order (`ends` inclusive; a
    routine with `end < start` covers nothing). `sections`: the executable sections' bytes.
    `pc_ranges`: gprof's histogram ranges `[low_pc, high_pc)` in record order, or None for no
    restriction. `arch`: BFD's name of the architecture (binary/bfdarch.py), which the message for
    an architecture without a finder names, as gprof's does. As gprof does, each routine is scanned only inside the first range that overlaps it,
    and a target counts only if it lies inside some range (so an empty sequence finds nothing).

    Returns (caller position, callee position) pairs in gprof's scan order: callers in address
    order, call sites ascending; a pair repeats when a caller has several call sites for one callee.
    On MIPS (words read in `little_endian` order) a callee may be INDIRECT_CHILD: the caller has a
    `jalr` (module docstring).
    Raises StaticCallsUnsupported for other architectures, or on x86 when capstone is missing.
    """
    if machine in _X86_MODES:
        if _capstone is None:
            raise StaticCallsUnsupported(
                None,
                "-c is unavailable: the capstone disassembler (Python package 'capstone') is not installed",
            )
        scan: Scanner = _X86Scanner(_X86_MODES[machine])
    elif machine == "EM_AARCH64":
        scan = _aarch64_calls
    elif machine == "EM_MIPS":
        scan = _MipsScanner(little_endian)
    else:
        name = arch or _arch_name(machine)
        raise StaticCallsUnsupported(None, f"-c is not supported on architecture {name}")

    entry = {address: pos for pos, address in enumerate(starts)}
    ranges = None if pc_ranges is None else [(lo, hi) for lo, hi in pc_ranges if lo < hi]
    ordered = sorted((s for s in sections if s.name == _SCANNED_SECTION), key=lambda s: s.address)
    sec_starts = [s.address for s in ordered]

    if ranges is not None:  # a target counts only inside a histogram range
        entry = {a: pos for a, pos in entry.items() if any(lo <= a < hi for lo, hi in ranges)}
    callee: Callee = entry.get

    pairs: list[tuple[int, int]] = []
    for pos, (start, end) in enumerate(zip(starts, ends, strict=True)):
        lo, hi = start, end + 1  # half-open
        if ranges is not None:
            clip = next(((rlo, rhi) for rlo, rhi in ranges if rlo < hi and rhi > lo), None)
            if clip is None:
                continue
            lo, hi = max(lo, clip[0]), min(hi, clip[1])
        if lo >= hi:
            continue
        first = max(0, bisect_right(sec_starts, start) - 1)
        for sec in ordered[first : bisect_left(sec_starts, hi)]:
            sec_end = sec.address + len(sec.data)
            if sec_end <= lo:
                continue
            # decode from the routine's entry (or the section start) so instruction boundaries are real
            begin = max(start, sec.address)
            pairs.extend(
                (pos, found)
                for site, found in scan(sec.data, sec.address, begin, min(hi, sec_end), callee)
                if site >= lo
            )
    return pairs


def _aarch64_calls(
    data: bytes, base: int, begin: int, stop: int, callee: Callee
) -> Iterator[tuple[int, int]]:
    """(address, callee) of every B/BL in [begin, stop), at 4-byte-aligned offsets from `begin`, whose
    target `callee` accepts (`data` holds the section at address `base`)."""
    off = begin - base
    end = stop - base
    tops = data[off + 3 : end : 4].translate(_B_BL_TOP)
    i = tops.find(1)
    while i >= 0:
        at = off + 4 * i
        if at + 4 <= len(data):
            imm = int.from_bytes(data[at : at + 4], "little") & 0x3FFFFFF
            if imm & 0x2000000:
                imm -= 0x4000000
            found = callee(base + at + 4 * imm)
            if found is not None:
                yield base + at, found
        i = tops.find(1, i + 1)


class _MipsScanner:
    """`jal` and `jalr` as GNU gprof's MIPS finder reads them (module docstring)."""

    def __init__(self, little: bool) -> None:
        self._order: Literal["little", "big"] = "little" if little else "big"

    def __call__(
        self, data: bytes, base: int, begin: int, stop: int, callee: Callee
    ) -> Iterator[tuple[int, int]]:
        off = begin - base
        words = data[off : min(stop - base, len(data))]
        words = words[: len(words) - len(words) % 4]
        order = self._order
        for i in range(0, len(words), 4):
            insn = int.from_bytes(words[i : i + 4], order)
            if insn >> 26 == 3:  # jal
                pc = base + off + i
                found = callee((pc & 0xF0000000) | (insn & 0x3FFFFFF) << 2)
                if found is not None:
                    yield pc, found
            elif insn & 0xFC00F83F == 0x0000F809:  # jalr linking into $ra
                yield base + off + i, INDIRECT_CHILD


# x86 legacy and REX prefixes that may precede the E8 opcode of `call rel32`
_PREFIXES_32 = frozenset(b"\x26\x2e\x36\x3e\x64\x65\x66\x67\xf0\xf2\xf3")
_PREFIXES_64 = _PREFIXES_32 | frozenset(range(0x40, 0x50))


class _X86Scanner:
    """Finds `call rel32` instructions; decodes only routines that contain a plausible one."""

    def __init__(self, bits: int) -> None:
        assert _capstone is not None
        mode = _capstone.CS_MODE_64 if bits == 64 else _capstone.CS_MODE_32
        self._cs = _capstone.Cs(_capstone.CS_ARCH_X86, mode)
        self._cs.skipdata = True  # keep going over bytes that are not instructions
        self._mask = (1 << bits) - 1
        self._prefixes = _PREFIXES_64 if bits == 64 else _PREFIXES_32
        self._calls = _fast_call_decoder(self._cs) or self._slow_calls
        self._candidates: dict[int, tuple[bytes, list[int], dict[int, int]]] = {}

    def _plausible(self, data: bytes, base: int, callee: Callee) -> tuple[list[int], dict[int, int]]:
        """Offsets of the 0xE8 bytes of `data` whose rel32 lands on an accepted routine entry (sorted,
        and mapped to the callee), once per section. Routines without one need no decoding (calls to
        the PLT or to mcount stubs are not routine entries)."""
        cached = self._candidates.get(base)
        if cached is not None and cached[0] is data:
            return cached[1], cached[2]
        found: dict[int, int] = {}
        mask, limit, find, at = self._mask, len(data) - 5, data.find, base + 5
        i = find(0xE8)
        while 0 <= i <= limit:
            pos = callee((at + i + int.from_bytes(data[i + 1 : i + 5], "little", signed=True)) & mask)
            if pos is not None:
                found[i] = pos
            i = find(0xE8, i + 1)
        self._candidates[base] = (data, list(found), found)
        return list(found), found

    def __call__(
        self, data: bytes, base: int, begin: int, stop: int, callee: Callee
    ) -> list[tuple[int, int]]:
        """(address, callee) of each real `call rel32` in [begin, stop) whose target `callee` accepts."""
        off, end = begin - base, stop - base
        offsets, target_of = self._plausible(data, base, callee)
        j = bisect_left(offsets, end)
        if j == 0 or offsets[j - 1] < off:
            return []
        out = []
        for address, size in self._calls(data[off : offsets[j - 1] + 5], base + off):
            # a direct call ends with E8 rel32, preceded by prefixes only
            e8 = address - base + size - 5
            pos = target_of.get(e8)
            if pos is not None and (
                e8 == address - base or self._prefixes.issuperset(data[address - base : e8])
            ):
                out.append((address, pos))
        return out

    def _slow_calls(self, chunk: bytes, address: int) -> list[tuple[int, int]]:
        """(address, size) of each call instruction, through capstone's public API."""
        return [
            (at, size)
            for at, size, mnemonic, _ops in self._cs.disasm_lite(chunk, address)
            if mnemonic.endswith("call")
        ]


def _fast_call_decoder(cs: Any) -> Callable[[bytes, int], list[tuple[int, int]]] | None:
    """The same as `_X86Scanner._slow_calls`, about 2x faster: calls capstone's C `cs_disasm` through
    the binding's ctypes handles and reads only the id, address and size of the call instructions,
    in place, without building Python strings for every instruction. None if the binding's internals
    differ (then the public API is used)."""
    try:
        import ctypes
        import struct
        import sys

        from capstone import x86 as cs_x86

        lib, insn_t = _capstone._cs, _capstone._cs_insn
        call_id = int(cs_x86.X86_INS_CALL)
        stride = ctypes.sizeof(insn_t)
        o_id, o_addr, o_size = (getattr(insn_t, f).offset for f in ("id", "address", "size"))
        handle = cs.csh
        disasm, free = lib.cs_disasm, lib.cs_free
    except (AttributeError, ImportError, TypeError):  # pragma: no cover - other capstone bindings
        return None
    little = sys.byteorder == "little"
    key = call_id & 0xFF if little else call_id >> 24
    o_key = o_id if little else o_id + 3
    if o_size != o_addr + 8:  # pragma: no cover - read address and size with one unpack
        return None
    ident, addr_size = struct.Struct("=I"), struct.Struct("=QH")
    char_p, pointer, byref, addressof = ctypes.c_char, ctypes.POINTER(insn_t), ctypes.byref, ctypes.addressof

    def calls(chunk: bytes, address: int) -> list[tuple[int, int]]:
        insn = pointer()
        n = disasm(handle, chunk, len(chunk), address, 0, byref(insn))
        if n <= 0:
            return []
        try:
            view = memoryview((char_p * (n * stride)).from_address(addressof(insn.contents)))
            keys = view[o_key::stride].tobytes()
            out = []
            i = keys.find(key)
            while i >= 0:
                at = i * stride
                if ident.unpack_from(view, at + o_id)[0] == call_id:
                    out.append(addr_size.unpack_from(view, at + o_addr))
                i = keys.find(key, i + 1)
            return out
        finally:
            free(insn, n)

    return calls
