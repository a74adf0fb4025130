"""Build gmon.out bytes field by field, for tests.

Independent of the engine: this module is the test suite's own statement of the file formats
(see docs/gprof-behaviour.md §2). Every field is written by one `_put` call with a comment naming it.

Formats:
* GNU tagged format: a 20-byte header, then records: tag 0 time histogram, tag 1 call-graph arc,
  tag 2 basic-block counts.
* 4.4BSD: a header with version word 0x00051879 and the profiling rate, the u16 samples, then arcs
  with pointer-sized counts until EOF.
* old BSD: a 3-field header (lowpc, highpc, ncnt), the samples, then the same arcs.

Addresses are `address_size` bytes (4 or 8); byte order is little- or big-endian, as the binary's.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

GMON_MAGIC = b"gmon"
BSD44_VERSION = 0x00051879
TAG_HISTOGRAM = 0
TAG_ARC = 1
TAG_BB = 2


@dataclass(frozen=True)
class Hist:
    """A time histogram: `counts[i]` samples for bin i of [low_pc, high_pc)."""

    low_pc: int
    high_pc: int
    counts: Sequence[int]
    prof_rate: int = 100
    dimen: bytes = b"seconds"
    dimen_abbrev: bytes = b"s"
    hist_size: int | None = None  # the bin count the record claims; defaults to len(counts)


@dataclass(frozen=True)
class Arc:
    """A call-graph arc record: return address in the caller, pc in the callee, count."""

    from_pc: int
    self_pc: int
    count: int


@dataclass(frozen=True)
class BB:
    """A basic-block count record (tag 2): (address, count) pairs."""

    entries: Sequence[tuple[int, int]]


Record = Hist | Arc | BB


@dataclass
class GmonWriter:
    """Writes gmon records for one target layout (address size and byte order)."""

    address_size: int = 8
    little_endian: bool = True
    out: bytearray = field(default_factory=bytearray)

    # -- primitives ------------------------------------------------------------------------------
    def _put(self, fmt: str, value: int) -> GmonWriter:
        self.out += struct.pack(("<" if self.little_endian else ">") + fmt, value)
        return self

    def u8(self, v: int) -> GmonWriter:
        return self._put("B", v)

    def u16(self, v: int) -> GmonWriter:
        return self._put("H", v & 0xFFFF)  # histogram counters are u16; sums wrap as gprof's -s

    def u32(self, v: int) -> GmonWriter:
        return self._put("I", v & 0xFFFFFFFF)

    def u64(self, v: int) -> GmonWriter:
        return self._put("Q", v & 0xFFFFFFFFFFFFFFFF)

    def ptr(self, v: int) -> GmonWriter:
        return self.u64(v) if self.address_size == 8 else self.u32(v)

    def raw(self, b: bytes) -> GmonWriter:
        self.out += b
        return self

    def getvalue(self) -> bytes:
        return bytes(self.out)

    # -- GNU tagged format -----------------------------------------------------------------------
    def gnu_header(self, version: int = 1, magic: bytes = GMON_MAGIC) -> GmonWriter:
        self.raw(magic)  # cookie "gmon" (4 bytes)
        self.u32(version)  # version, u32: gprof accepts 0 and 1
        self.raw(b"\0" * 12)  # spare[3 * 4], ignored
        return self

    def gnu_hist(self, h: Hist) -> GmonWriter:
        self.u8(TAG_HISTOGRAM)  # tag 0: time histogram
        self.ptr(h.low_pc)  # low_pc (address)
        self.ptr(h.high_pc)  # high_pc (address, exclusive)
        self.u32(len(h.counts) if h.hist_size is None else h.hist_size)  # hist_size: number of bins
        self.u32(h.prof_rate)  # prof_rate: samples per second
        self.raw(h.dimen[:15].ljust(15, b"\0"))  # dimen[15]: "seconds", NUL padded
        self.raw(h.dimen_abbrev[:1].ljust(1, b"\0"))  # dimen_abbrev: 's'
        for c in h.counts:
            self.u16(c)  # bin counts, u16 each, no padding
        return self

    def gnu_arc(self, a: Arc) -> GmonWriter:
        self.u8(TAG_ARC)  # tag 1: call-graph arc
        self.ptr(a.from_pc)  # from_pc: return address inside the caller
        self.ptr(a.self_pc)  # self_pc: pc inside the callee
        self.u32(a.count)  # count, u32 in the GNU format
        return self

    def gnu_bb(self, b: BB) -> GmonWriter:
        self.u8(TAG_BB)  # tag 2: basic-block counts
        self.u32(len(b.entries))  # number of (address, count) pairs
        for addr, count in b.entries:
            self.ptr(addr)  # basic-block address
            self.ptr(count)  # execution count (a long in glibc's layout)
        return self

    def gnu_record(self, r: Record) -> GmonWriter:
        if isinstance(r, Hist):
            return self.gnu_hist(r)
        if isinstance(r, Arc):
            return self.gnu_arc(r)
        return self.gnu_bb(r)

    # -- BSD formats -----------------------------------------------------------------------------
    def bsd_header_size(self, bsd44: bool) -> int:
        """Header bytes: old BSD = lowpc, highpc, ncnt; 4.4BSD adds version, rate, spare[3]."""
        return 2 * self.address_size + 4 + (20 if bsd44 else 0)

    def bsd_header(
        self, low_pc: int, high_pc: int, nbins: int, prof_rate: int | None, ncnt: int | None = None
    ) -> GmonWriter:
        """`prof_rate=None` writes an old-BSD header, otherwise a 4.4BSD one."""
        bsd44 = prof_rate is not None
        self.ptr(low_pc)  # lpc: lowest sampled pc
        self.ptr(high_pc)  # hpc: highest sampled pc (exclusive)
        self.u32(
            self.bsd_header_size(bsd44) + 2 * nbins if ncnt is None else ncnt
        )  # ncnt: header+samples bytes
        if bsd44:
            assert prof_rate is not None
            self.u32(BSD44_VERSION)  # version: GMONVERSION marks the 4.4BSD header
            self.u32(prof_rate)  # profrate: samples per second
            self.raw(b"\0" * 12)  # spare[3]
        return self

    def bsd_arc(self, a: Arc) -> GmonWriter:
        self.ptr(a.from_pc)  # frompc: return address in the caller
        self.ptr(a.self_pc)  # selfpc: pc in the callee
        self.ptr(a.count)  # count: pointer-sized in the BSD formats
        return self


def gnu_file(
    records: Iterable[Record], *, address_size: int = 8, little_endian: bool = True, version: int = 1
) -> bytes:
    """A complete GNU gmon.out holding `records` in order."""
    w = GmonWriter(address_size, little_endian).gnu_header(version)
    for r in records:
        w.gnu_record(r)
    return w.getvalue()


def bsd_file(
    hist: Hist,
    arcs: Iterable[Arc] = (),
    *,
    bsd44: bool = True,
    address_size: int = 8,
    little_endian: bool = True,
) -> bytes:
    """A complete BSD gmon.out: header, `hist.counts` as u16, then `arcs`. The rate is written
    only in the 4.4BSD header (old BSD files imply the system's 100 Hz)."""
    w = GmonWriter(address_size, little_endian)
    w.bsd_header(hist.low_pc, hist.high_pc, len(hist.counts), hist.prof_rate if bsd44 else None)
    for c in hist.counts:
        w.u16(c)  # samples, u16 each
    for a in arcs:
        w.bsd_arc(a)
    return w.getvalue()


# -- reading (for the GNU -> BSD converter) ----------------------------------------------------------
def read_gnu(data: bytes, *, address_size: int = 8, little_endian: bool = True) -> list[Record]:
    """The records of a well-formed GNU gmon file (for tests; raises ValueError otherwise)."""
    e = "<" if little_endian else ">"
    p = "Q" if address_size == 8 else "I"
    if data[:4] != GMON_MAGIC:
        raise ValueError("not a GNU gmon file")
    pos = 20
    out: list[Record] = []
    while pos < len(data):
        tag = data[pos]
        pos += 1
        if tag == TAG_HISTOGRAM:
            lo, hi, n, rate = struct.unpack_from(e + p + p + "II", data, pos)
            pos += 2 * address_size + 8
            dimen = data[pos : pos + 15].rstrip(b"\0")
            abbrev = data[pos + 15 : pos + 16]
            pos += 16
            counts = struct.unpack_from(e + f"{n}H", data, pos)
            pos += 2 * n
            out.append(Hist(lo, hi, counts, rate, dimen, abbrev))
        elif tag == TAG_ARC:
            frm, slf, cnt = struct.unpack_from(e + p + p + "I", data, pos)
            pos += 2 * address_size + 4
            out.append(Arc(frm, slf, cnt))
        elif tag == TAG_BB:
            (n,) = struct.unpack_from(e + "I", data, pos)
            pos += 4
            entries = [struct.unpack_from(e + p + p, data, pos + i * 2 * address_size) for i in range(n)]
            pos += n * 2 * address_size
            out.append(BB([(a, c) for a, c in entries]))
        else:
            raise ValueError(f"bad tag {tag}")
    return out


def gnu_to_bsd(data: bytes, *, bsd44: bool, address_size: int = 8, little_endian: bool = True) -> bytes:
    """Rewrite a GNU gmon file (one histogram record, as glibc writes) as a BSD file with the same
    histogram and arcs. Basic-block records are dropped (BSD files have none)."""
    recs = read_gnu(data, address_size=address_size, little_endian=little_endian)
    hists = [r for r in recs if isinstance(r, Hist)]
    if len(hists) != 1:
        raise ValueError(f"BSD files hold exactly one histogram, the GNU file has {len(hists)}")
    arcs = [r for r in recs if isinstance(r, Arc)]
    return bsd_file(hists[0], arcs, bsd44=bsd44, address_size=address_size, little_endian=little_endian)
