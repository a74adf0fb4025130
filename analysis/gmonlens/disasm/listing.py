"""The annotated disassembly of a routine: each instruction with gprof's figures (pure).

- Instructions: decoded with capstone from the routine's first byte to the end of its range in
  gprof's symbol table (the next routine's address: padding and, with `-a`, the static routines
  folded into it included), text as GNU objdump -d prints it (`asmtext.py`).
- Samples: each histogram bin is credited to the instructions it overlaps by gprof's bin-overlap
  rule (`histogram.assign_samples`: bins and instruction starts in 2-byte units), the instructions
  playing the part routines play there. They partition the routine's range, so their ticks add up
  to the routine's self ticks (float rounding aside); a routine the `-p/-P` tables keep out of the
  flat profile gets none. Units: ticks (samples, fractional after the overlap credit).
- Lines: the (file, line, function) of the `gprof -l` symbol holding the instruction (gprof's line
  symbols: runs of equal file, line and innermost function, `line_symbols.line_runs`, BFD's line
  table); bytes without a row belong to the run before them. So the instructions of one run add up
  to `gprof -l`'s line symbol (the routine's own symbol for the first run).
- Calls: every arc gprof counts from the routine (static-only arcs of `-c` left out) is placed on
  the call instruction behind each of its recorded return addresses, by the rule of
  `call_sites.CallFinder` (a call whose return address lies in [from_pc, from_pc + granule) and
  that goes to the callee's entry, else an indirect one, else any call there), else on the
  instruction holding the recorded address. Several candidates: all on the first, marked shared.
  Each site gets the arc's count through it and the arc's propagated ticks (callee self +
  children, gprof's estimate) in proportion to that count. gprof files an arc under the routine
  holding the recorded, rounded-down address: a call in a routine's first bytes can land in the
  routine before it, and is listed there.
- Jumps: direct branch targets inside the routine get labels L1, L2, ... in address order.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from gmonlens.common.errors import GmonlensError
from gmonlens.common.model import CodeSection, HistogramRecord, Profile, Routine
from gmonlens.common.units import seconds
from gmonlens.disasm.asmtext import has_hidden_zero_disp, objdump_text, raw_matters
from gmonlens.disasm.isa import MACHINES, OtherDecoder
from gmonlens.dwarf.line_table import LineTable
from gmonlens.profile.line_symbols import FunctionNames, line_runs

_ARCH = {"EM_X86_64": "x64", "EM_386": "x86", "EM_AARCH64": "a64"}
MAX_ROUTINE_BYTES = 1 << 24  # a routine range larger than 16 MiB is not decoded


class DisasmError(GmonlensError):
    """A listing cannot be made (architecture, decoder, or a routine without code)."""


class Decoded(NamedTuple):
    """One decoded instruction: `kind` is "call", "jump" (unconditional), "branch" (conditional),
    "return" or "other"; `target` a direct branch or call target (None: indirect or none). (A
    named tuple: immutable too, and built ten thousand times per large routine.)"""

    address: int
    size: int
    text: str
    kind: str
    target: int | None
    raw: bytes = b""  # the instruction's bytes (none for a gap)
    ref: int | None = None  # the address an x86-64 RIP-relative operand or an AArch64 adrp names


@dataclass(frozen=True, slots=True)
class CallSite:
    """Calls through one call instruction: `count` of gprof's arc to routine `callee` and `ticks`
    of its propagated time (an estimate); `shared`: other call instructions fit the recorded
    address as well; `exact`: placed on a call instruction (else on the recorded address)."""

    callee: int  # routine id
    name: str  # the callee as gprof prints it
    count: int
    ticks: float
    shared: bool = False
    exact: bool = True


@dataclass(frozen=True, slots=True)
class Instruction:
    """An instruction with its figures (ticks: histogram samples credited to it)."""

    address: int
    size: int  # bytes covered (a gap between sections has no `raw` bytes)
    raw: bytes
    text: str
    kind: str  # as `Decoded.kind`, or "gap": bytes of the range outside every section
    target: int | None
    ticks: float
    file: str | None  # gprof -l's file (BFD's line table), None without line information
    line: int  # 1-based, 0 when unknown
    function: str  # innermost function (raw name as BFD gives it), "" when unknown
    label: str | None = None  # "L3" when a branch of the routine targets it
    calls: tuple[CallSite, ...] = ()
    ref: int | None = None  # as `Decoded.ref`: objdump's `# ADDR <name>` (x86-64), `<name>` (adrp)


@dataclass(frozen=True)
class Listing:
    """A routine's instructions and figures; `symbols` the ELF code symbols starting inside it
    after its first byte (address, raw name): routines folded into it, or aliases."""

    routine: Routine
    instructions: tuple[Instruction, ...]
    symbols: tuple[tuple[int, str], ...]
    hz: int
    total_ticks: float  # the profile's flat total (percent base)
    machine: str

    def seconds(self, ticks: float) -> float | None:
        """`ticks` in seconds; None without a sampling rate (`common.units`)."""
        return seconds(ticks, self.hz)


class Decoder:
    """capstone for one architecture ("EM_X86_64", "EM_386", "EM_AARCH64", and those of
    `isa.MACHINES`: ARM, RISC-V, POWER, s390x, MIPS), objdump's spelling; `syntax` "att" or
    "intel" (x86); `wide`/`little`: the ELF class and byte order; `mapping`: ARM's mapping
    symbols (`ElfImage.arm_mapping`)."""

    def __init__(
        self,
        machine: str,
        syntax: str = "att",
        *,
        wide: bool = True,
        little: bool = True,
        mapping: Sequence[tuple[int, str]] = (),
    ) -> None:
        self._other: OtherDecoder | None = None
        arch = _ARCH.get(machine)
        if arch is None and machine in MACHINES:
            try:
                self._other = OtherDecoder(machine, wide, little, mapping)
            except ImportError:
                raise DisasmError(
                    None,
                    "no disassembly without the capstone module (pip install capstone in gmonlens's Python)",
                ) from None
            self.arch, self.syntax = machine[3:].lower(), "att"
            return
        if arch is None:
            raise DisasmError(None, f"no disassembler for {machine[3:].lower() or 'this machine'}")
        try:
            import capstone
        except ImportError:
            raise DisasmError(
                None, "no disassembly without the capstone module (pip install capstone in gmonlens's Python)"
            ) from None
        if arch == "a64":
            cs = capstone.Cs(capstone.CS_ARCH_ARM64, capstone.CS_MODE_ARM)
            detail = None
        else:
            mode = capstone.CS_MODE_64 if arch == "x64" else capstone.CS_MODE_32
            cs = capstone.Cs(capstone.CS_ARCH_X86, mode)
            detail = capstone.Cs(capstone.CS_ARCH_X86, mode)
            detail.detail = True
            if syntax == "att":
                cs.syntax = detail.syntax = capstone.CS_OPT_SYNTAX_ATT
        cs.skipdata = True
        self.arch, self.syntax = arch, "intel" if syntax == "intel" and arch != "a64" else "att"
        self._cs: Any = cs
        self._detail: Any = detail
        self._memo: dict[tuple[str, str, bool, bool, bytes], str] = {}
        self._encodings: dict[bytes, tuple[bool, bool]] = {}

    def decode(self, data: bytes, address: int) -> list[Decoded]:
        """The instructions of `data` placed at `address`, in order; undecodable bytes come out
        as `.byte` pseudo-instructions."""
        if self._other is not None:
            return [Decoded(*row) for row in self._other.decode(data, address)]
        out: list[Decoded] = []
        arch, syntax, memo = self.arch, self.syntax, self._memo
        detail = self._detail
        for at, size, mnemonic, ops in self._cs.disasm_lite(data, address):
            raw = data[at - address : at - address + size]
            kind, target = _kind(arch, mnemonic, ops) if mnemonic[0] in "bcjlnrtx" else ("other", None)
            zero = sib = False
            if detail is not None and ("(" in ops or "[" in ops) and has_hidden_zero_disp(ops, syntax):
                hit = self._encodings.get(raw)
                if hit is None:
                    hit = self._encoding(raw, at)
                    if len(self._encodings) < 1 << 18:
                        self._encodings[raw] = hit
                zero, sib = hit
            key = (mnemonic, ops, zero, sib, raw if raw_matters(ops, raw) else b"")
            text = memo.get(key)
            if text is None:
                text = objdump_text(arch, mnemonic, ops, syntax, raw, zero, sib)
                if len(memo) < 1 << 18:
                    memo[key] = text
            if target is not None and raw[:1] == b"\x67" and arch == "x64":
                target &= 0xFFFFFFFF  # addr32: the 32-bit wrapped address (objdump's)
            ref = None
            if arch == "x64":
                if "rip" in ops:
                    ref = _rip_ref(ops, at + size)
            elif arch == "a64" and mnemonic == "adrp":
                ref = target_of_adrp(ops)
            out.append(Decoded(at, size, text, kind, target, raw, ref))
        return out

    def _encoding(self, raw: bytes, at: int) -> tuple[bool, bool]:
        """(a displacement is encoded, a SIB byte without index and not needed by its base)."""
        for insn in self._detail.disasm(raw, at):
            zero = insn.disp_size > 0
            sib = False
            m = insn.modrm_offset
            if 0 < m + 1 < len(raw) or m == 0:
                modrm = raw[m] if m < len(raw) else 0
                if modrm >> 6 != 3 and modrm & 7 == 4 and m + 1 < len(raw):
                    s = raw[m + 1]
                    rex_x = self.arch == "x64" and any(0x40 <= b <= 0x4F and b & 2 for b in raw[:m])
                    absolute = modrm >> 6 == 0 and s & 7 == 5  # disp32 alone: no base register
                    sib = (s >> 3) & 7 == 4 and not rex_x and s & 7 != 4 and not absolute
                    zero = zero and not (
                        absolute and (s >> 3) & 7 == 4 and not rex_x
                    )  # `0x10`, but `0x0(,%r15,8)`
            return zero, sib
        return False, False


_RIP_ATT = re.compile(r"(-?)(0x[0-9a-f]+|\d+)?\(%rip\)")
_RIP_INTEL = re.compile(r"\[rip(?: ([+-]) (0x[0-9a-f]+|\d+))?\]")


def _rip_ref(ops: str, next_address: int) -> int | None:
    """The address a RIP-relative operand names (capstone's AT&T or Intel text), or None."""
    m = _RIP_ATT.search(ops)
    if m is not None:
        disp = int(m.group(2), 0) if m.group(2) else 0
        disp = -disp if m.group(1) else disp
    else:
        m = _RIP_INTEL.search(ops)
        if m is None:
            return None
        disp = int(m.group(2), 0) if m.group(2) else 0
        disp = -disp if m.group(1) == "-" else disp
    return (next_address + disp) & 0xFFFFFFFFFFFFFFFF


def target_of_adrp(ops: str) -> int | None:
    """The page an AArch64 `adrp` names (capstone's `x16, #0x20000`)."""
    last = ops.rsplit(", ", 1)[-1]
    try:
        return int(last[1:], 16) if last.startswith("#0x") else (0 if last == "#0" else None)
    except ValueError:
        return None


def _kind(arch: str, mnemonic: str, ops: str) -> tuple[str, int | None]:
    if arch == "a64":
        last = ops.rsplit(", ", 1)[-1]
        target = None
        if mnemonic in ("bl", "b", "cbz", "cbnz", "tbz", "tbnz") or mnemonic.startswith("b."):
            target = int(last[1:], 16) if last.startswith("#0x") else (0 if last == "#0" else None)
        if mnemonic == "bl":
            return "call", target
        if mnemonic == "blr":
            return "call", None
        if mnemonic == "b":
            return "jump", target
        if mnemonic == "br":
            return "jump", None
        if mnemonic.startswith("b.") or mnemonic in ("cbz", "cbnz", "tbz", "tbnz"):
            return "branch", target
        return ("return", None) if mnemonic.startswith("ret") else ("other", None)
    mnemonic = mnemonic.removeprefix("notrack ").removeprefix("bnd ")  # CET / MPX prefixes
    direct: int | None = None
    if ops.startswith("0x") or ops.isdigit():  # capstone writes small targets in decimal
        try:
            direct = int(ops, 0) if ops.startswith("0x") else int(ops)
        except ValueError:
            direct = None
    if mnemonic.startswith("call"):
        return "call", direct
    if mnemonic.startswith("jmp"):
        return "jump", direct
    if mnemonic.startswith(("j", "loop", "xbegin")):
        return "branch", direct
    return ("return", None) if mnemonic.startswith("ret") else ("other", None)


def credit(
    histograms: Sequence[HistogramRecord], starts: Sequence[int], end: int, in_flat: bool
) -> list[float]:
    """Ticks of each [starts[k], starts[k+1]) (the last up to `end`, exclusive) by gprof's
    bin-overlap rule, as `histogram.assign_samples` credits routines; only bins overlapping the
    range are visited. All zero when `in_flat` is false."""
    n = len(starts)
    out = [0.0] * n
    if not in_flat or n == 0:
        return out
    scaled = [a // 2 for a in starts]
    his = [*scaled[1:], end // 2]
    lo_u, hi_u = scaled[0], his[-1]
    for h in histograms:
        scale = h.scale
        if scale <= 0:
            continue
        lowu = h.low_pc // 2
        counts = h.counts
        first = max(int((lo_u - lowu) / scale) - 2, 0)
        last = min(int((hi_u - lowu) / scale) + 2, len(counts) - 1)
        for i in range(first, last + 1):
            c = counts[i]
            if not c:
                continue
            bin_lo = lowu + int(scale * i)
            bin_hi = lowu + int(scale * (i + 1))
            j = bisect_right(his, bin_lo)
            while j < n:
                sym_lo = scaled[j]
                if bin_hi < sym_lo:
                    break
                sym_hi = his[j]
                ov = (bin_hi if bin_hi < sym_hi else sym_hi) - (bin_lo if bin_lo > sym_lo else sym_lo)
                if ov > 0:
                    out[j] += (ov * c) / scale
                j += 1
    return out


def code_pieces(sections: Sequence[CodeSection], start: int, end: int) -> list[tuple[int, bytes]]:
    """(address, bytes) of the executable sections' parts inside [start, end), in address order."""
    out = []
    for s in sorted(sections, key=lambda c: c.address):
        lo, hi = max(start, s.address), min(end, s.address + len(s.data))
        if lo < hi:
            out.append((lo, s.data[lo - s.address : hi - s.address]))
    return out


def decode_range(decoder: Decoder, sections: Sequence[CodeSection], start: int, end: int) -> list[Decoded]:
    """The instructions of [start, end); bytes outside every section come out as one "gap"
    entry each (gprof's routine ranges run over section gaps: `_init` over `.plt` on AArch64)."""
    out: list[Decoded] = []
    at = start
    for addr, data in code_pieces(sections, start, end):
        if addr > at:
            out.append(Decoded(at, addr - at, f"({addr - at} bytes outside the code sections)", "gap", None))
        out.extend(decoder.decode(data, addr))
        at = addr + len(data)
    if out and at < end:
        out.append(Decoded(at, end - at, f"({end - at} bytes outside the code sections)", "gap", None))
    return out


def build_listing(
    profile: Profile,
    histograms: Sequence[HistogramRecord],
    rid: int,
    sections: Sequence[CodeSection],
    decoder: Decoder,
    lines: LineTable | None = None,
    names: FunctionNames | None = None,
    elf_symbols: Sequence[tuple[int, str]] = (),
    granule: int = 16,
) -> Listing:
    """The listing of routine `rid` (module docstring). `lines`/`names`: BFD's line table and
    gprof -l's innermost function names, None without debug information;
    `elf_symbols`: (address, raw name) of the ELF code symbols, for `symbols`; `granule`: glibc's
    arc address granule (2 * address size). Raises DisasmError for a routine without code."""
    r = profile.routines[rid]
    end = r.end_address + 1
    if end - r.address > MAX_ROUTINE_BYTES:
        raise DisasmError(None, f"{r.display_name}: {end - r.address} bytes, too large to list")
    decoded = decode_range(decoder, sections, r.address, end)
    if not decoded or decoded[0].kind == "gap":
        raise DisasmError(
            None, f"{r.display_name}: no code at 0x{r.address:x} (not in an executable section)"
        )
    end = decoded[-1].address + decoded[-1].size
    starts = [d.address for d in decoded]
    ticks = credit(histograms, starts, end, r.in_flat and profile.has_histogram)
    places = _places(r, starts, lines, names)
    sites = _call_sites(profile, r, decoded, granule, 4 if decoder.arch == "mips" else 0)
    targets = sorted({d.target for d in decoded if d.kind in ("jump", "branch") and d.target is not None})
    labels = {t: f"L{k}" for k, t in enumerate((t for t in targets if r.address <= t < end), 1)}
    out = tuple(
        Instruction(
            d.address,
            d.size,
            d.raw,
            d.text,
            d.kind,
            d.target,
            ticks[k],
            *places[k],
            labels.get(d.address),
            tuple(sites.get(k, ())),
            d.ref,
        )
        for k, d in enumerate(decoded)
    )
    inner = tuple(sorted((a, n) for a, n in elf_symbols if r.address < a < end))
    return Listing(r, out, inner, profile.hz, profile.total_ticks, decoder.arch)


def _places(
    r: Routine, starts: Sequence[int], lines: LineTable | None, names: FunctionNames | None
) -> list[tuple[str | None, int, str]]:
    """(file, line, function) of each instruction, as gprof -l's symbols give them."""
    if lines is None or names is None:
        return [(None, 0, r.name)] * len(starts)
    runs = line_runs(lines, names, r.address, r.end_address + 1)
    run_starts = [x[0] for x in runs]
    hit = lines.lookup(r.address)
    own = names.at(r.address)
    first: tuple[str | None, int, str] = (hit[0], hit[1], own) if hit else (None, 0, own)
    out: list[tuple[str | None, int, str]] = []
    for a in starts:
        k = bisect_right(run_starts, a) - 1
        out.append(first if k < 0 else (runs[k][1], runs[k][2], runs[k][3]))
    return out


def _call_sites(
    profile: Profile, r: Routine, decoded: Sequence[Decoded], granule: int, delay: int = 0
) -> dict[int, list[CallSite]]:
    """Instruction position -> the arcs' calls through it (module docstring); `delay`: the bytes
    of a delay slot after a call (MIPS: a call returns past it)."""
    calls = [k for k, d in enumerate(decoded) if d.kind == "call"]
    rets = [decoded[k].address + decoded[k].size + delay for k in calls]
    starts = [d.address for d in decoded]
    out: dict[int, list[CallSite]] = {}
    for pos in profile.children[r.id]:
        arc = profile.arcs[pos]
        if arc.is_static and arc.count == 0:
            continue
        child = profile.routines[arc.child]
        total = arc.self_ticks + arc.child_ticks
        sites = arc.call_sites or ((r.address, arc.count),)
        for ret, count in sites:
            lo = bisect_left(rets, ret)
            window = calls[lo : bisect_left(rets, ret + granule, lo)]
            chosen = [k for k in window if decoded[k].target == child.address]
            chosen = chosen or [k for k in window if decoded[k].target is None] or window
            share = total * count / arc.count if arc.count else 0.0
            if chosen:
                site = CallSite(arc.child, child.display_name, count, share, len(chosen) > 1, True)
                out.setdefault(chosen[0], []).append(site)
            else:
                k = max(bisect_right(starts, ret) - 1, 0)
                out.setdefault(k, []).append(
                    CallSite(arc.child, child.display_name, count, share, False, False)
                )
    return out
