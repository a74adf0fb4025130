"""`-s`: the summed profile written back as gprof writes `gmon.sum` (§2.5).

gprof writes what its own tables hold at that point: `-s` switches on line granularity, so an
arc's caller is the *line symbol* holding its return address (the start of the run of bytes with
the same DWARF file:line as BFD names it (`LineTable.from_elf(bfd=True)`) and the same innermost
(possibly inlined) function as `-l` names it, or the routine's start if later); the callee is the
routine. Bins are truncated to 16 bits. The header's spare bytes repeat bytes 8..19 of the last
histogram header gprof read (a buffer it reuses); we write the same bytes.
"""

from __future__ import annotations

import struct
from bisect import bisect_right
from typing import TYPE_CHECKING

from gmonlens.common.errors import GmonlensError, one_line
from gmonlens.common.model import GmonData, Profile
from gmonlens.dwarf.line_table import LineTable
from gmonlens.dwarf.scopes import FunctionScopes
from gmonlens.profile.gmon import BSD44_VERSION, GNU_MAGIC, TAG_ARC, TAG_HIST

if TYPE_CHECKING:
    from gmonlens.load.program import Program


def sum_arcs(
    data: GmonData, profile: Profile, lines: LineTable | None, scopes: FunctionScopes | None = None
) -> list[tuple[int, int, int]]:
    """(caller address, callee address, count) records in gprof's order: callers ascending, each
    caller's arcs newest first."""
    routines = profile.routines
    addrs = [r.address for r in routines]
    func_at: list[int] = []
    last = -1
    for i, r in enumerate(routines):
        last = i if r.is_function else last
        func_at.append(i if r.is_function or last < 0 else last)

    def at(pc: int) -> int:
        i = bisect_right(addrs, pc) - 1
        return i if i >= 0 and pc <= routines[i].end_address else -1

    totals: dict[tuple[int, int], int] = {}
    for raw in data.arcs:
        p, c = at(raw.from_pc), at(raw.self_pc)
        if p < 0 or c < 0:
            continue
        caller = routines[p].address
        for source in (lines, scopes):
            start = source.run_start(raw.from_pc) if source is not None else None
            if start is not None and start > caller:
                caller = start
        key = (caller, routines[func_at[c]].address)
        totals[key] = totals.get(key, 0) + raw.count
    by_caller: dict[int, list[tuple[int, int]]] = {}
    for (caller, callee), count in totals.items():
        by_caller.setdefault(caller, []).append((callee, count))
    return [
        (caller, callee, count)
        for caller in sorted(by_caller)
        for callee, count in reversed(by_caller[caller])
    ]


def write_sum(
    data: GmonData,
    profile: Profile,
    address_size: int,
    little_endian: bool,
    fmt: str = "auto",
    lines: LineTable | None = None,
    scopes: FunctionScopes | None = None,
) -> bytes:
    """The bytes of gmon.sum (GNU format unless `fmt` is "bsd" or "4.4bsd")."""
    e = "<" if little_endian else ">"
    ptr = e + ("Q" if address_size == 8 else "I")
    arcs = sum_arcs(data, profile, lines, scopes)
    out = bytearray()
    if fmt in ("bsd", "4.4bsd"):
        h = data.histograms[0] if data.histograms else None
        nbins = len(h.counts) if h else 0
        header = 2 * address_size + (24 if fmt == "4.4bsd" else 4)
        out += struct.pack(ptr, h.low_pc if h else 0) + struct.pack(ptr, h.high_pc if h else 0)
        out += struct.pack(e + "I", header + 2 * nbins)
        if fmt == "4.4bsd":
            out += struct.pack(e + "II", BSD44_VERSION, data.hz) + bytes(12)
        if h:
            out += struct.pack(e + "%dH" % nbins, *(c & 0xFFFF for c in h.counts))
        for frm, slf, count in arcs:
            out += struct.pack(ptr, frm) + struct.pack(ptr, slf) + struct.pack(ptr, count)
        return bytes(out)
    spare = data.last_hist_header[8:20].ljust(12, b"\0")
    out += GNU_MAGIC + struct.pack(e + "I", 1) + spare
    for h in data.histograms:
        out.append(TAG_HIST)
        out += struct.pack(ptr, h.low_pc) + struct.pack(ptr, h.high_pc)
        out += struct.pack(e + "II", len(h.counts), data.hz)
        out += h.dimension.encode("latin-1")[:15].ljust(15, b"\0")
        out += h.dimension_abbrev.encode("latin-1")[:1].ljust(1, b"\0")
        out += struct.pack(e + "%dH" % len(h.counts), *(c & 0xFFFF for c in h.counts))
    for frm, slf, count in arcs:
        out.append(TAG_ARC)
        out += struct.pack(ptr, frm) + struct.pack(ptr, slf) + struct.pack(e + "I", count & 0xFFFFFFFF)
    return bytes(out)


def gmon_sum(program: Program, data: GmonData, profile: Profile, fmt: str = "auto") -> bytes:
    """The bytes of `program`'s gmon.sum for the summed profile `data` (computed as `profile`),
    with arcs' callers at their line symbols when the binary has DWARF: BFD's line table and the
    inlined scopes, read through the program. Malformed DWARF raises GmonlensError naming it."""
    image = program.image
    lines = scopes = None
    if image.has_debug_info:
        try:
            lines = program.line_table(bfd=True)  # gprof's line symbols: BFD's rule
            scopes = program.gprof_scopes()
        except GmonlensError:
            raise
        except Exception as e:  # malformed DWARF: pyelftools raises many types
            raise GmonlensError(program.path, f"cannot read DWARF for gmon.sum ({one_line(e)})") from None
    return write_sum(data, profile, image.address_size, image.little_endian, fmt, lines, scopes)
