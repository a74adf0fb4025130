"""capstone for the architectures beyond x86 and AArch64: 32-bit ARM (A32 and Thumb-2), RISC-V
(RV32/RV64 with compressed instructions), POWER (32/64-bit, either byte order), s390x and MIPS
(32/64-bit, either byte order), each instruction spelt as that target's objdump -d spells it
(`spell_*.py`) and classed as call, jump, branch or return with its direct target. Pure: bytes in.

ARM code switches between A32, Thumb and data by its mapping symbols (`$a`, `$t`, `$d`, from the
symbol table): each stretch is decoded in its own mode, data as objdump's `.word`. Bytes capstone
cannot decode come out as objdump shows them: `.long 0x...` on POWER and s390x (a traceback table's
words), `.word`/`.short` on ARM, `.byte` elsewhere.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from typing import Any, Literal

from gmonlens.disasm import spell_arm, spell_mips, spell_ppc, spell_riscv, spell_s390

MACHINES = frozenset({"EM_ARM", "EM_RISCV", "EM_PPC", "EM_PPC64", "EM_S390", "EM_MIPS"})
Row = tuple[int, int, str, str, "int | None", bytes]  # address, size, text, kind, target, raw


class OtherDecoder:
    """The decoder of one of MACHINES: `wide` (ELFCLASS64), `little` (byte order); `mapping`:
    ARM's mapping symbols as (address, "a" | "t" | "d"), any order."""

    def __init__(
        self, machine: str, wide: bool, little: bool, mapping: Sequence[tuple[int, str]] = ()
    ) -> None:
        import capstone as cs

        self.machine, self.wide, self.little = machine, wide, little
        endian = cs.CS_MODE_LITTLE_ENDIAN if little else cs.CS_MODE_BIG_ENDIAN
        self._cs: dict[str, Any] = {}
        if machine == "EM_ARM":
            self._cs["a"] = cs.Cs(cs.CS_ARCH_ARM, cs.CS_MODE_ARM | endian)
            self._cs["t"] = cs.Cs(cs.CS_ARCH_ARM, cs.CS_MODE_THUMB | endian)
            # M-profile system instructions (`mrs r0, MSP`), which the Thumb decoder does not know
            self._cs["m"] = cs.Cs(cs.CS_ARCH_ARM, cs.CS_MODE_THUMB | cs.CS_MODE_MCLASS | endian)
        elif machine == "EM_RISCV":
            mode = cs.CS_MODE_RISCV64 if wide else cs.CS_MODE_RISCV32
            self._cs["x"] = cs.Cs(cs.CS_ARCH_RISCV, mode | cs.CS_MODE_RISCVC)
        elif machine in ("EM_PPC", "EM_PPC64"):
            self._cs["x"] = cs.Cs(cs.CS_ARCH_PPC, (cs.CS_MODE_64 if wide else cs.CS_MODE_32) | endian)
        elif machine == "EM_S390":
            self._cs["x"] = cs.Cs(cs.CS_ARCH_SYSZ, cs.CS_MODE_BIG_ENDIAN)
        elif machine == "EM_MIPS":
            mode = cs.CS_MODE_MIPS64 if wide else cs.CS_MODE_MIPS32
            self._cs["x"] = cs.Cs(cs.CS_ARCH_MIPS, mode | endian)
        else:
            raise ValueError(machine)
        for d in self._cs.values():
            d.skipdata = True
        marks = sorted(mapping)
        self._mark_at = [a for a, _ in marks]
        self._mark = [k for _, k in marks]

    def _stretches(self, address: int, end: int) -> Iterator[tuple[int, int, str]]:
        """[start, stop) pieces of one mode ("a", "t", "d"; "x" where there is only one)."""
        if self.machine != "EM_ARM":
            yield address, end, "x"
            return
        i = bisect_right(self._mark_at, address) - 1
        mode = self._mark[i] if i >= 0 else "a"
        at = address
        j = i + 1
        while at < end:
            nxt = self._mark_at[j] if j < len(self._mark_at) else end
            stop = min(nxt, end)
            if stop > at:
                yield at, stop, mode
            if j < len(self._mark):
                mode = self._mark[j]
            at = max(at, stop)
            j += 1
            if nxt >= end:
                break

    def decode(self, data: bytes, address: int) -> list[Row]:
        """The instructions of `data` at `address`, in order."""
        out: list[Row] = []
        for start, stop, mode in self._stretches(address, address + len(data)):
            piece = data[start - address : stop - address]
            if mode == "d":
                out.extend(self._data(piece, start))
            else:
                out.extend(self._code(piece, start, mode))
        return out

    def _data(self, piece: bytes, start: int) -> Iterator[Row]:
        at = 0
        while at < len(piece):
            n = 4 if len(piece) - at >= 4 and (start + at) % 4 == 0 else (2 if len(piece) - at >= 2 else 1)
            raw = piece[at : at + n]
            yield start + at, n, spell_arm.data_word(raw, self.little), "other", None, raw
            at += n

    def _code(self, piece: bytes, start: int, mode: str) -> Iterator[Row]:
        next_ok = start
        for at, size, mnemonic, ops in self._cs[mode].disasm_lite(piece, start):
            if at < next_ok:
                continue
            raw = piece[at - start : at - start + size]
            if mnemonic == ".byte" and mode == "t":
                found = next(self._cs["m"].disasm_lite(piece[at - start : at - start + 4], at), None)
                if found is not None and found[2] != ".byte":
                    _, size, mnemonic, ops = found
                    raw = piece[at - start : at - start + size]
            if mnemonic == ".byte":
                size, text = self._undecodable(piece, at - start, size)
                raw = piece[at - start : at - start + size]
                next_ok = at + size
                yield at, size, text, "other", None, raw
                continue
            next_ok = at + size
            text, kind, target = self._spell(mnemonic, ops, at, size, mode)
            yield at, size, text, kind, target, raw

    def _undecodable(self, piece: bytes, off: int, size: int) -> tuple[int, str]:
        order: Literal["little", "big"] = "little" if self.little else "big"
        if self.machine in ("EM_PPC", "EM_PPC64", "EM_S390") and off + 4 <= len(piece):
            return (
                4,
                f".long\t0x{int.from_bytes(piece[off : off + 4], order):{'08x' if self.machine == 'EM_S390' else 'x'}}",
            )
        if self.machine == "EM_ARM":
            return size, spell_arm.data_word(piece[off : off + size], self.little)
        return size, ".byte\t" + ",".join(f"0x{b:02x}" for b in piece[off : off + size])

    def _spell(self, mnemonic: str, ops: str, at: int, size: int, mode: str) -> tuple[str, str, int | None]:
        m = self.machine
        if m == "EM_ARM":
            kind, target = spell_arm.kind(mnemonic, ops)
            return spell_arm.spell(mnemonic, ops, at, size, mode == "t"), kind, target
        if m == "EM_RISCV":
            kind, target = spell_riscv.kind(mnemonic, ops, at)
            return spell_riscv.spell(mnemonic, ops, at), kind, target
        if m == "EM_MIPS":
            kind, target = spell_mips.kind(mnemonic, ops)
            return spell_mips.spell(mnemonic, ops, at, self.wide), kind, target
        if m == "EM_S390":
            kind, target = spell_s390.kind(mnemonic, ops)
            return spell_s390.spell(mnemonic, ops, at), kind, target
        kind, target = spell_ppc.kind(mnemonic, ops)
        return spell_ppc.spell(mnemonic, ops, at), kind, target
