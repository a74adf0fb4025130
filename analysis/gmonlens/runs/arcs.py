"""glibc's call-graph buffer, and how large a program needs it (pure: the executable's image in).

A -pg program's mcount records each distinct (call site, callee) pair it sees, an arc, in a buffer
that `__monstartup` sizes once at start-up; when a new arc does not fit, glibc prints
"mcount: call graph buffer size limit exceeded, gmon.out will not be generated" and the whole
profile is lost. Measured on glibc 2.36 (x86-64; `_gmonparam` read back in gdb after start-up,
and generated programs run with more and more arcs until no gmon.out came):
- the buffer holds `tolimit` entries, `tolimit = textsize * 3 / 100` (integer division), at least
  50 and at most 1,048,576; `textsize` is the histogram's range, from the image's start rounded
  down to 4 to the end of the code (`etext`) rounded up to 4 (a 56,136-byte range gave 1,684);
- entry 0 is the list head, so `tolimit - 1` arcs fit (1,683 were recorded, the 1,684th overflowed);
- GLIBC_TUNABLES=glibc.gmon.minarcs=N:glibc.gmon.maxarcs=M (glibc 2.38; `ld.so --list-tunables`
  of Debian's 2.36 lists them too) bound the heuristic from below and above; Debian's 2.36 does
  not read them (tolimit unchanged). `preload_source.py` enlarges the buffer where they are not
  read.

How many arcs a program may need is bounded by its call sites: every arc's caller is a call (or
a tail call's jump) in the program's code. `call_sites` counts, in the code sections, the direct
calls and jumps whose target is a routine's entry (x86 and x86-64: E8/E9 with a 32-bit
displacement; AArch64: BL/B) and the indirect calls (x86: FF /2; AArch64: BLR), each counted as
one arc. The count is an estimate from the bytes, read without a decoder (a direct call's target
must be an entry, so few false ones pass; FF /2's bytes also occur inside other instructions,
about one per 70 bytes of -O0 code, which only makes the buffer larger); an indirect call site
that reaches many routines (a table of function pointers) is undercounted, and such a program
can still overflow (`arcs_overflow` then says so, and `--arcs N` sizes it). The buffer is
enlarged to the estimate only where it exceeds glibc's own size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gmonlens.binary.image import ElfImage

ARC_DENSITY_PERCENT = 3
MIN_ARCS = 50
MAX_ARCS = 1 << 20
INDIRECT_TARGETS = 1  # routines an indirect call site is counted to reach
MOST_ARCS = 1 << 23  # never ask for more (24 bytes an arc on 64-bit: 192 MiB)
_X86_DIRECT = re.compile(rb"(?=[\xe8\xe9](....))", re.S)
_X86_INDIRECT = re.compile(rb"(?=\xff[\x10-\x17\x50-\x57\x90-\x97\xd0-\xd7])", re.S)
# AArch64 words whose most significant byte may be B/BL (0x14-0x17, 0x94-0x97) or BLR (0xd6)
_A64_LITTLE = re.compile(rb"(?=...[\x14-\x17\x94-\x97\xd6])", re.S)
_A64_BIG = re.compile(rb"(?=[\x14-\x17\x94-\x97\xd6]...)", re.S)


@dataclass(frozen=True)
class ArcPlan:
    """The call-graph buffer for one program: glibc's size, the estimate, and what is asked."""

    default_limit: int  # glibc's tolimit for this program (entries; tolimit - 1 arcs fit)
    direct_sites: int | None  # None: the machine's calls are not counted
    indirect_sites: int | None
    requested: int | None  # entries asked for (GLIBC_TUNABLES, the helper); None: glibc's size

    @property
    def estimate(self) -> int | None:
        if self.direct_sites is None or self.indirect_sites is None:
            return None
        return self.direct_sites + INDIRECT_TARGETS * self.indirect_sites + 1


def histogram_span(image: ElfImage) -> int:
    """glibc's textsize: the image's start (rounded down to 4) to the end of its code (rounded
    up to 4), in bytes; 0 without code."""
    code = [c for c in image.code_sections if c.data]
    if not code:
        return 0
    lo = min(c.address for c in code)
    hi = max(c.address + len(c.data) for c in code)
    start = lo if image.image_start is None else min(image.image_start, lo)
    return (hi + 3) // 4 * 4 - start // 4 * 4


def glibc_arc_limit(textsize: int, minarcs: int = MIN_ARCS, maxarcs: int = MAX_ARCS) -> int:
    """glibc's tolimit for a histogram range of `textsize` bytes (module docstring)."""
    return max(minarcs, min(maxarcs, textsize * ARC_DENSITY_PERCENT // 100))


def _entries(image: ElfImage) -> set[int]:
    return {s.value for s in image.symbols if (s.is_function or s.class_letter in "TtW") and s.value}


def call_sites(image: ElfImage) -> tuple[int, int] | None:
    """(direct call sites reaching a routine's entry, indirect call sites) in the code, or None
    for a machine whose calls are not counted here (module docstring)."""
    entries = _entries(image)
    direct = indirect = 0
    if image.machine in ("EM_X86_64", "EM_386"):
        for c in image.code_sections:
            base = c.address + 5
            for m in _X86_DIRECT.finditer(c.data):
                if base + m.start() + int.from_bytes(m.group(1), "little", signed=True) in entries:
                    direct += 1
            indirect += sum(1 for _ in _X86_INDIRECT.finditer(c.data))
        return direct, indirect
    if image.machine == "EM_AARCH64":
        order = "little" if image.little_endian else "big"
        for c in image.code_sections:
            d, i = _aarch64_sites(c.address, c.data, order, entries)
            direct, indirect = direct + d, indirect + i
        return direct, indirect
    return None


def _aarch64_sites(address: int, data: bytes, order: str, entries: set[int]) -> tuple[int, int]:
    """(BL/B to a routine's entry, BLR) in one code section: the words whose top byte can be one
    are found by a regular expression (C speed), then decoded."""
    pattern = _A64_LITTLE if order == "little" else _A64_BIG
    direct = indirect = 0
    for m in pattern.finditer(data):
        at = m.start()
        if at % 4 or at + 4 > len(data):
            continue
        word = int.from_bytes(data[at : at + 4], "little" if order == "little" else "big")
        if word & 0x7C000000 == 0x14000000:  # B / BL imm26
            offset = (word & 0x3FFFFFF) - ((word & 0x2000000) << 1)
            direct += address + at + 4 * offset in entries
        elif word & 0xFFFFFC1F == 0xD63F0000:  # BLR
            indirect += 1
    return direct, indirect


def plan_arcs(image: ElfImage, asked: int | str | None) -> ArcPlan:
    """The buffer for `image`: `asked` "auto" or None sizes it from the call sites when glibc's
    default would be smaller; "default" keeps glibc's; a number asks for that many entries."""
    default = glibc_arc_limit(histogram_span(image))
    sites = call_sites(image) if asked in (None, "auto") else None
    direct, indirect = sites if sites is not None else (None, None)
    plan = ArcPlan(default, direct, indirect, None)
    if isinstance(asked, int):
        return ArcPlan(default, direct, indirect, min(max(asked, MIN_ARCS), MOST_ARCS))
    estimate = plan.estimate
    if asked in (None, "auto") and estimate is not None and estimate > default:
        return ArcPlan(default, direct, indirect, min(estimate, MOST_ARCS))
    return plan
