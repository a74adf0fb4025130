"""Call instructions behind an arc's recorded return address.

glibc's mcount keeps arcs in a table indexed by the caller's return address divided by
HASHFRACTION * sizeof(ARCINDEX) (2 * the address size) and writes that index back as `from_pc`: the
recorded address is the real return address rounded down to 16 bytes on 64-bit targets (8 on
32-bit). So the call's line is not simply the line of `from_pc - 1`: `CallFinder.calls` decodes the
caller's code and returns the addresses of the call instructions whose return address lies in
[from_pc, from_pc + granule) and that can reach the callee (a direct call to its entry, else an
indirect call). Without a decoder (capstone for x86, imported when first needed) it answers [].
`CallFinder.may_return_at` asks no decoder: whether the bytes before an address are a call
instruction's encoding (the fit rule's first, cheap look at a profile's arcs: `fit.py`).

`call_site` is the one rule that the editor (call hierarchy, callers) and the exports share for
the place of a recorded call: ONE call instruction per recorded return address, because the
record's count is one number. The window holds one candidate in nearly every case; when it holds
several (two calls to the callee within a granule), the record cannot tell them apart and the
first (lowest address) is named, so a count is never shown on two lines. Without a candidate (no
decoder, or code the decoder does not know) the recorded address stands for the call.
Pure: `Program.call_finder` hands it the code (`ElfImage.code_sections`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from typing import Any

from gmonlens.common.model import Arc, Profile


class CallFinder:
    """Decodes call instructions in a program's code (pure: the code bytes are given).

    `machine` is pyelftools' e_machine name ("EM_X86_64", "EM_386", "EM_AARCH64"); `sections`
    are (link-time address, bytes) of the executable sections."""

    def __init__(
        self,
        machine: str,
        address_size: int,
        sections: Sequence[tuple[int, bytes]],
        *,
        little: bool = True,
        arm_mapping: Sequence[tuple[int, str]] = (),
    ) -> None:
        self._machine = machine
        self._sections = tuple(sections)
        self.granule = 2 * address_size
        self._wide, self._little = address_size == 8, little
        self._arm_mapping = tuple(arm_mapping)  # ARM: (address, "a" | "t" | "d"), sorted
        self._cs: Any = None  # capstone's decoder for x86, made when first needed (`_x86`)
        self._cs_tried = False
        self._decoded: dict[tuple[int, int], list[tuple[int, int, int | None]]] = {}
        self._returns: dict[tuple[int, int], list[int]] = {}

    def _x86(self) -> Any:
        """capstone's decoder for this x86 machine (imported on first use), else None."""
        if not self._cs_tried and self._machine in ("EM_X86_64", "EM_386"):
            self._cs_tried = True
            try:
                import capstone

                mode = capstone.CS_MODE_64 if self._machine == "EM_X86_64" else capstone.CS_MODE_32
                self._cs = capstone.Cs(capstone.CS_ARCH_X86, mode)
                self._cs.skipdata = True
            except ImportError:
                self._cs = None
        return self._cs

    def _bytes(self, start: int, end: int) -> bytes:
        for addr, data in self._sections:
            if addr <= start < addr + len(data):
                return data[start - addr : min(end, addr + len(data)) - addr]
        return b""

    def _calls_in(self, start: int, end: int) -> list[tuple[int, int, int | None]]:
        """(call address, return address, direct target or None) for calls in [start, end)."""
        key = (start, end)
        if key in self._decoded:
            return self._decoded[key]
        out: list[tuple[int, int, int | None]] = []
        data = self._bytes(start, end)
        if self._machine == "EM_AARCH64":
            for off in range(0, len(data) - 3, 4):
                insn = int.from_bytes(data[off : off + 4], "little")
                at = start + off
                if insn & 0xFC000000 == 0x94000000:  # BL imm26
                    imm = insn & 0x3FFFFFF
                    imm = imm - 0x4000000 if imm & 0x2000000 else imm
                    out.append((at, at + 4, at + 4 * imm))
                elif insn & 0xFFFFFC1F == 0xD63F0000:  # BLR Xn
                    out.append((at, at + 4, None))
        elif self._machine in OTHER_CALLS:
            out = other_calls(self._machine, data, start, self._wide, self._little, self._arm_mapping)
        elif self._x86() is not None:
            for at, size, mnemonic, op_str in self._cs.disasm_lite(data, start):
                if mnemonic.endswith("call"):  # "notrack call", "bnd call" too
                    target = None
                    text = op_str.strip()
                    if text.startswith("0x"):
                        try:
                            target = int(text, 16)
                        except ValueError:
                            target = None
                    out.append((at, at + size, target))
        self._decoded[key] = out
        return out

    @property
    def decodes(self) -> bool:
        """Whether calls can be decoded for this machine (AArch64; x86 and the machines of
        `OTHER_CALLS` with capstone)."""
        if self._machine in OTHER_CALLS:
            return _capstone_present()
        return self._machine == "EM_AARCH64" or self._x86() is not None

    @property
    def knows_encodings(self) -> bool:
        """Whether `may_return_at` can tell (x86 and AArch64, no decoder needed)."""
        return self._machine in ("EM_AARCH64", "EM_X86_64", "EM_386")

    def may_return_at(self, ret: int, low: int) -> bool:
        """Whether the bytes before `ret` are a call instruction's encoding that starts at or
        after `low`, read backwards from `ret` with no decoder (module docstring): AArch64 BL or
        BLR in the word before `ret` (exact: instructions are aligned words); x86 `E8 rel32`, or
        `FF /2` or `/3` (indirect call) with its ModRM, SIB and displacement ending at `ret`.
        On x86 it never answers False where a decoder reading from an instruction boundary finds
        a call returning to `ret` (16-bit operand or address forms aside: `66 E8 rel16` and
        67-prefixed FF in 32-bit code, which compilers do not emit); it may answer True where those
        bytes are the tail of another instruction. False for other machines."""
        if self._machine == "EM_AARCH64":
            word = self._bytes(ret - 4, ret) if ret - 4 >= low and ret % 4 == 0 else b""
            if len(word) != 4:
                return False
            insn = int.from_bytes(word, "little")
            return insn & 0xFC000000 == 0x94000000 or insn & 0xFFFFFC1F == 0xD63F0000
        if self._machine not in ("EM_X86_64", "EM_386"):
            return False
        start = max(low, ret - 7)
        tail = self._bytes(start, ret)
        if len(tail) != ret - start:
            return False
        n = len(tail)
        if n >= 5 and tail[n - 5] == 0xE8:
            return True
        if 0xFF not in tail:
            return False
        for k in (2, 3, 4, 6, 7):
            if k <= n and tail[n - k] == 0xFF and _indirect_call_length(tail[n - k + 1 :]) == k:
                return True
        return False

    def call_returns(self, start: int, end: int) -> list[int]:
        """Return addresses of the call instructions decoded from `start` in [start, end), ascending
        ([] without a decoder). `start` must be an instruction boundary (a routine's entry)."""
        return [c[1] for c in self._calls_in(start, end)] if self.decodes else []

    def calls(self, from_pc: int, caller: tuple[int, int], callee_entry: int) -> list[int]:
        """Addresses of the call instructions of the arc (see module docstring).

        `caller`: the caller routine's [start, end] (inclusive end)."""
        if self.decodes:
            calls = self._calls_in(caller[0], caller[1] + 1)
        else:
            return []
        rets = self._returns.get((caller[0], caller[1] + 1))
        if rets is None:  # return addresses ascend with the calls: bisect for the window
            rets = self._returns[(caller[0], caller[1] + 1)] = [c[1] for c in calls]
        lo = bisect_left(rets, from_pc)
        hi = bisect_left(rets, from_pc + self.granule, lo)
        window = calls[lo:hi]
        # ppc64 ELFv2: a local call enters past the TOC setup, at the local entry (entry + 8)
        local = callee_entry + 8 if self._machine == "EM_PPC64" else callee_entry
        direct = [c[0] for c in window if c[2] in (callee_entry, local)]
        if direct:
            return direct
        return [c[0] for c in window if c[2] is None]


# the call instructions of the other machines (capstone's mnemonics), and the bytes from a call's
# end to its return address (MIPS: the delay slot)
_CALL_MNEMONICS = {
    "EM_ARM": re.compile(r"^blx?(eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?(\.w)?$"),
    "EM_RISCV": re.compile(r"^(c\.)?jalr?$"),
    "EM_MIPS": re.compile(r"^(jal|jalr|bal|jalx|bgezal|bltzal)$"),
    "EM_PPC": re.compile(r"^(bl|bla|bctrl|blrl)$"),
    "EM_S390": re.compile(r"^(brasl|bras|basr|bas)$"),
}
_CALL_MNEMONICS["EM_PPC64"] = _CALL_MNEMONICS["EM_PPC"]
OTHER_CALLS = frozenset(_CALL_MNEMONICS)


def _capstone_present() -> bool:
    try:
        import capstone  # noqa: F401
    except ImportError:
        return False
    return True


def _decoders(machine: str, wide: bool, little: bool) -> dict[str, Any]:
    import capstone as cs

    endian = cs.CS_MODE_LITTLE_ENDIAN if little else cs.CS_MODE_BIG_ENDIAN
    if machine == "EM_ARM":
        made = {
            "a": cs.Cs(cs.CS_ARCH_ARM, cs.CS_MODE_ARM | endian),
            "t": cs.Cs(cs.CS_ARCH_ARM, cs.CS_MODE_THUMB | endian),
        }
    elif machine == "EM_RISCV":
        made = {
            "x": cs.Cs(
                cs.CS_ARCH_RISCV, (cs.CS_MODE_RISCV64 if wide else cs.CS_MODE_RISCV32) | cs.CS_MODE_RISCVC
            )
        }
    elif machine == "EM_MIPS":
        made = {"x": cs.Cs(cs.CS_ARCH_MIPS, (cs.CS_MODE_MIPS64 if wide else cs.CS_MODE_MIPS32) | endian)}
    elif machine == "EM_S390":
        made = {"x": cs.Cs(cs.CS_ARCH_SYSZ, cs.CS_MODE_BIG_ENDIAN)}
    else:
        made = {"x": cs.Cs(cs.CS_ARCH_PPC, (cs.CS_MODE_64 if wide else cs.CS_MODE_32) | endian)}
    for d in made.values():
        d.skipdata = True
    return made


def other_calls(
    machine: str, data: bytes, start: int, wide: bool, little: bool, arm_mapping: Sequence[tuple[int, str]]
) -> list[tuple[int, int, int | None]]:
    """(call address, return address, direct target or None) of the calls in `data` at `start`
    on ARM (A32 or Thumb as the mapping symbols say; data skipped), RISC-V (`jal`/`jalr` linking
    into ra), MIPS (returning past the delay slot), POWER and s390x."""
    try:
        decoders = _decoders(machine, wide, little)
    except ImportError:
        return []
    pattern, delay = _CALL_MNEMONICS[machine], 4 if machine == "EM_MIPS" else 0
    out: list[tuple[int, int, int | None]] = []
    for lo, hi, mode in _stretches(start, start + len(data), machine, arm_mapping):
        if mode == "d":
            continue
        for at, size, mnemonic, ops in decoders[mode].disasm_lite(data[lo - start : hi - start], lo):
            if not pattern.match(mnemonic):
                continue
            last = ops.rsplit(",", 1)[-1].strip().lstrip("#")
            if machine == "EM_RISCV" and "," in ops and not ops.startswith("ra"):
                continue  # a jump through another link register
            target: int | None = None
            if re.fullmatch(r"-?0x[0-9a-f]+|-?\d+", last) and mnemonic not in (
                "jalr",
                "c.jalr",
                "basr",
                "bas",
            ):
                value = int(last, 0)
                target = at + value if machine == "EM_RISCV" else value
            out.append((at, at + size + delay, target))
    return out


def _stretches(
    start: int, end: int, machine: str, arm_mapping: Sequence[tuple[int, str]]
) -> list[tuple[int, int, str]]:
    """[lo, hi) pieces of one mode: ARM's by its mapping symbols (A32 before any), else one."""
    if machine != "EM_ARM":
        return [(start, end, "x")]
    marks = [a for a, _ in arm_mapping]
    i = bisect_left(marks, start + 1) - 1
    mode = arm_mapping[i][1] if i >= 0 else "a"
    out: list[tuple[int, int, str]] = []
    at = start
    for a, kind in arm_mapping[i + 1 :]:
        if a >= end:
            break
        if a > at:
            out.append((at, a, mode))
        at, mode = max(at, a), kind
    if at < end:
        out.append((at, end, mode))
    return out


def _indirect_call_length(rest: bytes) -> int:
    """The length of an x86 `FF /2` or `FF /3` instruction (call near or far, through a register
    or memory) whose bytes after the FF are `rest` (ModRM, then SIB and displacement as ModRM
    says; 32- and 64-bit addressing), 0 when it is another FF instruction or `rest` is empty."""
    if not rest:
        return 0
    mod, reg, rm = rest[0] >> 6, (rest[0] >> 3) & 7, rest[0] & 7
    if reg != 2 and not (reg == 3 and mod != 3):
        return 0
    if mod == 3:
        return 2
    sib = rm == 4
    if mod == 0:
        if rm == 5:
            return 6  # disp32 (RIP-relative in 64-bit mode)
        if sib:
            return 7 if len(rest) > 1 and rest[1] & 7 == 5 else 3  # SIB base 5: disp32, no base
        return 2
    return (2 + sib) + (1 if mod == 1 else 4)


def call_site(finder: CallFinder | None, from_pc: int, caller: tuple[int, int], callee_entry: int) -> int:
    """The address of the call instruction that the recorded return address `from_pc` of an arc
    stands for (module docstring): the first of `finder.calls`, else `from_pc` itself.
    `caller`: the caller routine's [start, end] (inclusive end)."""
    calls = finder.calls(from_pc, caller, callee_entry) if finder is not None else []
    return calls[0] if calls else from_pc


def arc_call_sites(p: Profile, arc: Arc, finder: CallFinder | None) -> list[tuple[int, int]]:
    """(call instruction address, count) of each recorded call site of `arc`, in record order."""
    parent, child = p.routines[arc.parent], p.routines[arc.child]
    caller = (parent.address, parent.end_address)
    return [(call_site(finder, ret, caller, child.address), count) for ret, count in arc.call_sites]
