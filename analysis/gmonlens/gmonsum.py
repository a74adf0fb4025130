"""`-s`: the summed profile written back as gprof writes `gmon.sum` (§2.5)."""

from __future__ import annotations

import struct

from .gmon import BSD44_VERSION, GNU_MAGIC, TAG_ARC, TAG_HIST
from .model import GmonData, Profile


def write_sum(
    data: GmonData, profile: Profile, address_size: int, little_endian: bool, fmt: str = "auto"
) -> bytes:
    """Bytes of gmon.sum: histograms (bins truncated to 16 bits) and normalised arcs (caller and
    callee routine addresses), callers in address order, each caller's arcs newest first."""
    e = "<" if little_endian else ">"
    ptr = e + ("Q" if address_size == 8 else "I")
    routines = profile.routines
    by_parent: dict[int, list[int]] = {}
    for i, a in enumerate(profile.arcs):
        if not a.is_static:
            by_parent.setdefault(a.parent, []).append(i)
    arcs = []
    for parent in sorted(by_parent, key=lambda r: routines[r].address):
        for i in reversed(by_parent[parent]):
            a = profile.arcs[i]
            arcs.append((routines[a.parent].address, routines[a.child].address, a.count))
    out = bytearray()
    if fmt in ("bsd", "4.4bsd"):
        h = data.histograms[0] if data.histograms else None
        nbins = len(h.counts) if h else 0
        if fmt == "4.4bsd":
            header = 2 * address_size + 24
        else:
            header = 20 if address_size == 8 else 12
        out += struct.pack(ptr, h.low_pc if h else 0) + struct.pack(ptr, h.high_pc if h else 0)
        out += struct.pack(e + "I", header + 2 * nbins)
        if fmt == "4.4bsd":
            out += struct.pack(e + "II", BSD44_VERSION, data.hz) + bytes(header - 2 * address_size - 12)
        if h:
            out += struct.pack(e + "%dH" % nbins, *(c & 0xFFFF for c in h.counts))
        for frm, slf, count in arcs:
            out += struct.pack(ptr, frm) + struct.pack(ptr, slf) + struct.pack(ptr, count)
        return bytes(out)
    out += GNU_MAGIC + struct.pack(e + "I", 1) + bytes(12)
    for h in data.histograms:
        out.append(TAG_HIST)
        out += struct.pack(ptr, h.low_pc) + struct.pack(ptr, h.high_pc)
        out += struct.pack(e + "II", len(h.counts), data.hz)
        out += h.dimension.encode("latin-1")[:15].ljust(15, b"\0") + h.dimension_abbrev.encode("latin-1")[
            :1
        ].ljust(1, b"\0")
        out += struct.pack(e + "%dH" % len(h.counts), *(c & 0xFFFF for c in h.counts))
    for frm, slf, count in arcs:
        out.append(TAG_ARC)
        out += struct.pack(ptr, frm) + struct.pack(ptr, slf) + struct.pack(e + "I", count & 0xFFFFFFFF)
    return bytes(out)
