"""The static call graph (gprof `-c`): direct calls found by decoding each routine's machine code.

Pure: works on the bytes of the executable sections and on gprof's routine table; no file I/O.

* x86-64 / i386: instructions are decoded with capstone, starting at each routine's entry, so that
  only real `call rel32` instructions count (an 0xE8 byte inside another instruction or inside data
  placed in code does not). The displacement is sign-extended (backward calls are found, unlike GNU
  gprof 2.40, which zero-extends it and finds only forward calls).
* AArch64: `BL imm26` and `B imm26` (tail calls), as GNU gprof counts both (fixed width, 4-byte
  aligned): a hand decoder, no capstone needed.
* Only the `.text` section is scanned, as gprof does (`_init`'s calls in `.init` are not seen).

A call is a static arc when its target is exactly the start address of a routine (so a call into the
PLT, which lies inside `_init`'s range, or into the middle of a routine, is not an arc). A routine
calling its own entry gives a self arc, as AArch64 gprof reports it. Indirect calls are never arcs.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from gmonlens.errors import GmonlensError
from gmonlens.model import CodeSection

try:  # capstone is only needed for x86; its absence must not break the rest of the engine
    import capstone as _capstone
except ImportError:  # pragma: no cover - exercised by a test that hides the module
    _capstone = None


Callee = Callable[[int], "int | None"]  # target address -> routine position, None if not an arc
Scanner = Callable[[bytes, int, int, int, Callee], Iterator[tuple[int, int]]]


class StaticCallsUnsupported(GmonlensError):
    """`-c` cannot be honoured for this executable (architecture, or missing disassembler)."""


_X86_MODES = {"EM_X86_64": 64, "EM_386": 32}
_SUPPORTED = (*_X86_MODES, "EM_AARCH64")

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
) -> list[tuple[int, int]]:
    """Direct calls from one routine to the entry of another, found by decoding each routine's
    instructions.

    `starts`/`ends`: the routines of gprof's symbol table in address order (`ends` inclusive; a
    routine with `end < start` covers nothing). `sections`: the executable sections' bytes.
    `pc_ranges`: gprof's histogram ranges `[low_pc, high_pc)` in record order, or None for no
    restriction. As gprof does, each routine is scanned only inside the first range that overlaps it,
    and a target counts only if it lies inside some range (so an empty sequence finds nothing).

    Returns (caller position, callee position) pairs in gprof's scan order: callers in address
    order, call sites ascending; a pair repeats when a caller has several call sites for one callee.
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
    else:
        raise StaticCallsUnsupported(None, f"-c is not supported on architecture {_arch_name(machine)}")

    entry = {address: pos for pos, address in enumerate(starts)}
    ranges = None if pc_ranges is None else [(lo, hi) for lo, hi in pc_ranges if lo < hi]
    ordered = sorted((s for s in sections if s.name == _SCANNED_SECTION), key=lambda s: s.address)
    sec_starts = [s.address for s in ordered]

    def callee(target: int) -> int | None:
        pos = entry.get(target)
        if pos is None or (ranges is not None and not any(lo <= target < hi for lo, hi in ranges)):
            return None
        return pos

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
            for site, target in scan(sec.data, sec.address, begin, min(hi, sec_end), callee):
                if site >= lo:
                    found = callee(target)
                    if found is not None:
                        pairs.append((pos, found))
    return pairs


def _aarch64_calls(
    data: bytes, base: int, begin: int, stop: int, callee: Callee
) -> Iterator[tuple[int, int]]:
    """(address, target) of every B/BL in [begin, stop), at 4-byte-aligned offsets from `begin`
    (`data` holds the section at address `base`)."""
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
            yield base + at, base + at + 4 * imm
        i = tops.find(1, i + 1)


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
        self._candidates: dict[int, tuple[bytes, list[int]]] = {}

    def _plausible(self, data: bytes, base: int, callee: Callee) -> list[int]:
        """Offsets of the 0xE8 bytes of `data` whose rel32 lands on an accepted routine entry, once per
        section. Routines without one need no decoding (calls to the PLT or to mcount stubs are not
        routine entries)."""
        cached = self._candidates.get(base)
        if cached is not None and cached[0] is data:
            return cached[1]
        found, mask, limit = [], self._mask, len(data) - 5
        i = data.find(0xE8)
        while 0 <= i <= limit:
            if (
                callee((base + i + 5 + int.from_bytes(data[i + 1 : i + 5], "little", signed=True)) & mask)
                is not None
            ):
                found.append(i)
            i = data.find(0xE8, i + 1)
        self._candidates[base] = (data, found)
        return found

    def __call__(
        self, data: bytes, base: int, begin: int, stop: int, callee: Callee
    ) -> Iterator[tuple[int, int]]:
        """(address of the call instruction, target) for each real `call rel32` in [begin, stop)."""
        off, end = begin - base, stop - base
        plausible = self._plausible(data, base, callee)
        j = bisect_left(plausible, end)
        if j == 0 or plausible[j - 1] < off:
            return
        prefixes, mask = self._prefixes, self._mask
        for address, raw in self._calls(data[off : plausible[j - 1] + 5], base + off):
            # direct call: only prefixes before the E8 opcode, then rel32
            k = len(raw) - 5
            if k >= 0 and raw[k] == 0xE8 and (k == 0 or prefixes.issuperset(raw[:k])):
                rel = int.from_bytes(raw[k + 1 :], "little", signed=True)
                yield address, (address + len(raw) + rel) & mask

    def _slow_calls(self, chunk: bytes, address: int) -> list[tuple[int, bytes]]:
        """(address, bytes) of each call instruction, through capstone's public API."""
        return [
            (at, chunk[at - address : at - address + size])
            for at, size, mnemonic, _ops in self._cs.disasm_lite(chunk, address)
            if mnemonic.endswith("call")
        ]


# x86 legacy and REX prefixes that may precede the E8 opcode of `call rel32`
_PREFIXES_32 = frozenset(b"\x26\x2e\x36\x3e\x64\x65\x66\x67\xf0\xf2\xf3")
_PREFIXES_64 = _PREFIXES_32 | frozenset(range(0x40, 0x50))


def _fast_call_decoder(cs: Any) -> Callable[[bytes, int], list[tuple[int, bytes]]] | None:
    """The same as `_X86Scanner._slow_calls`, about 2x faster: calls capstone's C `cs_disasm` through
    the binding's ctypes handles and reads only the id/address/size/bytes fields of the call
    instructions, in place, without building Python strings for every instruction. None if the
    binding's internals differ (then the public API is used)."""
    try:
        import ctypes
        import struct
        import sys

        from capstone import x86 as cs_x86

        lib, insn_t = _capstone._cs, _capstone._cs_insn
        call_id = int(cs_x86.X86_INS_CALL)
        stride = ctypes.sizeof(insn_t)
        o_id, o_addr, o_size, o_bytes = (
            getattr(insn_t, f).offset for f in ("id", "address", "size", "bytes")
        )
        handle = cs.csh
        disasm, free = lib.cs_disasm, lib.cs_free
    except (AttributeError, ImportError, TypeError):  # pragma: no cover - other capstone bindings
        return None
    little = sys.byteorder == "little"
    key = call_id & 0xFF if little else call_id >> 24
    o_key = o_id if little else o_id + 3
    head = struct.Struct("=I")

    def calls(chunk: bytes, address: int) -> list[tuple[int, bytes]]:
        insn = ctypes.POINTER(insn_t)()
        n = disasm(handle, chunk, len(chunk), address, 0, ctypes.byref(insn))
        if n <= 0:
            return []
        try:
            view = memoryview((ctypes.c_char * (n * stride)).from_address(ctypes.addressof(insn.contents)))
            keys = view[o_key::stride].tobytes()
            out = []
            i = keys.find(key)
            while i >= 0:
                at = i * stride
                if head.unpack_from(view, at + o_id)[0] == call_id:
                    addr = int.from_bytes(view[at + o_addr : at + o_addr + 8], sys.byteorder)
                    size = int.from_bytes(view[at + o_size : at + o_size + 2], sys.byteorder)
                    out.append((addr, view[at + o_bytes : at + o_bytes + size].tobytes()))
                i = keys.find(key, i + 1)
            return out
        finally:
            free(insn, n)

    return calls
