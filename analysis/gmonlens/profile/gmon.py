"""gmon.out bytes -> records (GNU tagged, 4.4BSD and old BSD formats), and gprof's summing rules.

Every size a file claims is checked against the bytes really present before anything is allocated.
Byte order and address size are the executable's (gprof-behaviour.md §2.1).
"""

from __future__ import annotations

import struct
import sys
from array import array
from collections.abc import Sequence
from dataclasses import dataclass

from gmonlens.common.errors import GmonFormatError, GmonlensError
from gmonlens.common.model import GmonData, HistogramRecord, RawArc, RawArcs

GNU_MAGIC = b"gmon"
BSD44_VERSION = 0x00051879
OLD_BSD_HZ = 100  # hertz() on this system (§2.3)
TAG_HIST, TAG_ARC, TAG_BB = 0, 1, 2
FORMATS = ("auto", "gnu", "bsd", "4.4bsd")


@dataclass(frozen=True, slots=True)
class GmonFile:
    """One profile file as read, before summing with others."""

    path: str
    format: str  # "gnu" | "bsd" | "4.4bsd"
    histograms: tuple[HistogramRecord, ...]
    arcs: Sequence[RawArc]  # a `RawArcs` as read
    bb_count: int = 0
    bsd_header: tuple[int, int, int] | None = None  # (lowpc, highpc, nbins) of a BSD file
    last_hist_header: bytes = b""  # gprof's in-memory view of the last histogram header (-s)
    version: int = 0  # the GNU header's version (BSD files: 0), as -i reports it


def _counts(raw: bytes, little_endian: bool) -> array[int]:
    """A histogram's bins as 16-bit counts in the machine's order (2 bytes a bin, not a Python
    tuple's 8: a large program's profile is millions of bins)."""
    a = array("H")
    a.frombytes(raw)
    if little_endian != (sys.byteorder == "little"):
        a.byteswap()
    return a


class _Reader:
    def __init__(self, data: bytes, path: str, address_size: int, little_endian: bool) -> None:
        self.data, self.path, self.pos = data, path, 0
        e = "<" if little_endian else ">"
        self.e = e
        self.ptr = e + ("Q" if address_size == 8 else "I")
        self.asize = address_size

    def need(self, n: int, what: str) -> None:
        if self.pos + n > len(self.data):
            raise GmonFormatError(
                self.path,
                f"unexpected end of file in {what} at offset {self.pos} "
                f"(needs {n} bytes, {len(self.data) - self.pos} left)",
            )

    def unpack(self, fmt: str, what: str) -> tuple[int, ...]:
        size = struct.calcsize(fmt)
        self.need(size, what)
        values = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return values


def _memory_header(low: int, high: int, count: int) -> bytes:
    """The last histogram header as gprof holds it in memory (64-bit addresses, 32-bit count, host
    order, whatever the target): `-s` writes bytes 8..19 of it into gmon.sum's spare field."""
    return struct.pack("<QQI", low, high, count)


def detect_format(data: bytes) -> str:
    """gprof's rule: 'gmon' magic means the GNU format, anything else is read as BSD."""
    return "gnu" if data[:4] == GNU_MAGIC else "bsd"


def parse_gmon(
    data: bytes, *, path: str, address_size: int, little_endian: bool, fmt: str = "auto"
) -> GmonFile:
    """Parse one profile file. `fmt` forces a format as gprof's `-O` does."""
    if fmt not in FORMATS:
        raise GmonFormatError(path, f"unknown profile format '{fmt}'")
    if not data:
        raise GmonFormatError(path, "empty file, not a gmon.out profile")
    r = _Reader(data, path, address_size, little_endian)
    kind = detect_format(data) if fmt == "auto" else fmt
    if kind == "gnu":
        return _parse_gnu(r)
    return _parse_bsd(r, require_44=(kind == "4.4bsd"))


def layout_mismatch(data: bytes, *, path: str, address_size: int, little_endian: bool) -> str | None:
    """Why a profile that did not read with the executable's word size and byte order is another
    architecture's: the other layout it reads cleanly with (its histograms' ranges not empty), in
    words; None when no other reads it either (the file is damaged, not foreign)."""
    for size, little in ((8 if address_size == 4 else 4, little_endian), (address_size, not little_endian),
                         (8 if address_size == 4 else 4, not little_endian)):  # fmt: skip
        try:
            f = parse_gmon(data, path=path, address_size=size, little_endian=little)
        except GmonlensError:
            continue
        if f.histograms and all(h.high_pc > h.low_pc for h in f.histograms):
            order = {True: "little-endian", False: "big-endian"}
            return (
                f"written by a program with {size}-byte {order[little]} addresses, but the executable "
                f"has {address_size}-byte {order[little_endian]} ones (a profile of another architecture?)"
            )
    return None


def _parse_gnu(r: _Reader) -> GmonFile:
    if r.data[:4] != GNU_MAGIC:
        raise GmonFormatError(r.path, "bad magic: not a GNU gmon.out file")
    r.need(20, "header")
    (version,) = struct.unpack_from(r.e + "I", r.data, 4)
    if version not in (0, 1):
        raise GmonFormatError(r.path, f"unsupported gmon.out version {version}")
    r.pos = 20
    hists: list[HistogramRecord] = []
    frms, slfs, cnts = array("Q"), array("Q"), array("Q")
    add_f, add_s, add_c = frms.append, slfs.append, cnts.append
    bb = 0
    last_header = b""
    arc_fmt = r.e + ("QQI" if r.asize == 8 else "III")
    arc_size = struct.calcsize(arc_fmt)
    data, n = r.data, len(r.data)
    while r.pos < n:
        tag = data[r.pos]
        r.pos += 1
        if tag == TAG_ARC:
            if r.pos + arc_size > n:
                r.need(arc_size, "call-graph arc record")
            frm, slf, cnt = struct.unpack_from(arc_fmt, data, r.pos)
            r.pos += arc_size
            add_f(frm)
            add_s(slf)
            add_c(cnt)
        elif tag == TAG_HIST:
            h = _gnu_histogram(r)
            last_header = _memory_header(h.low_pc, h.high_pc, len(h.counts))
            hists.append(h)
        elif tag == TAG_BB:
            (count,) = r.unpack(r.e + "I", "basic-block record")
            r.need(count * 2 * r.asize, "basic-block record")
            r.pos += count * 2 * r.asize
            bb += count
        else:
            raise GmonFormatError(r.path, f"found a bad tag at offset {r.pos - 1} (file corrupted?)")
    arcs = RawArcs.from_columns(frms, slfs, cnts)
    return GmonFile(r.path, "gnu", tuple(hists), arcs, bb, None, last_header, version)


def _gnu_histogram(r: _Reader) -> HistogramRecord:
    low, high = r.unpack(r.ptr * 2 if False else r.e + ("QQ" if r.asize == 8 else "II"), "histogram record")
    nbins, rate = r.unpack(r.e + "II", "histogram record")
    r.need(16, "histogram record")
    dimen = r.data[r.pos : r.pos + 15].split(b"\0", 1)[0].decode("latin-1")
    abbrev = r.data[r.pos + 15 : r.pos + 16].decode("latin-1")
    r.pos += 16
    _check_range(r, low, high, nbins)
    if nbins * 2 > len(r.data) - r.pos:
        raise GmonFormatError(
            r.path,
            f"histogram record at offset {r.pos - 16} claims more bins than the "
            f"{len(r.data) - r.pos} bytes that remain (truncated or corrupted file)",
        )
    counts = _counts(r.data[r.pos : r.pos + 2 * nbins], r.e == "<")
    r.pos += 2 * nbins
    return HistogramRecord(low, high, counts, rate, dimen, abbrev)


def _check_range(r: _Reader, low: int, high: int, nbins: int) -> None:
    if nbins == 0:
        raise GmonFormatError(r.path, "histogram record has no bins")
    if high <= low:
        raise GmonFormatError(
            r.path, "histogram range is empty or reversed (its high address is not above its low)"
        )


def _parse_bsd(r: _Reader, require_44: bool) -> GmonFile:
    p = r.asize
    r.need(2 * p + 4, "BSD header")
    low, high, ncnt = struct.unpack_from(r.e + ("QQI" if p == 8 else "III"), r.data, 0)
    version = struct.unpack_from(r.e + "I", r.data, 2 * p + 4)[0] if len(r.data) >= 2 * p + 8 else None
    if version == BSD44_VERSION:
        header, fmt = 2 * p + 24, "4.4bsd"  # lpc, hpc, ncnt, version, rate, 3 spare words
        r.need(header, "4.4BSD header")
        rate = struct.unpack_from(r.e + "I", r.data, 2 * p + 8)[0]
    else:
        if require_44:
            raise GmonFormatError(r.path, "not a 4.4BSD profile (bad header version)")
        header, fmt, rate = (20 if p == 8 else 12), "bsd", OLD_BSD_HZ
    if ncnt < header or ncnt > len(r.data) or (ncnt - header) % 2:
        raise GmonFormatError(
            r.path,
            f"not a gmon.out profile: no GNU magic, and the sizes in a BSD header would not fit "
            f"a file of {len(r.data)} bytes",
        )
    nbins = (ncnt - header) // 2
    _check_range(r, low, high, nbins)
    counts = _counts(r.data[header:ncnt], r.e == "<")
    arc_fmt = r.e + ("QQQ" if p == 8 else "III")
    rest = len(r.data) - ncnt
    if rest % (3 * p):
        raise GmonFormatError(
            r.path, f"not a gmon.out profile: {rest} bytes of arcs is not a whole number of records"
        )
    arcs = RawArcs(struct.iter_unpack(arc_fmt, r.data[ncnt:]))
    hist = HistogramRecord(low, high, counts, rate, "seconds", "s")
    return GmonFile(r.path, fmt, (hist,), arcs, 0, (low, high, nbins), _memory_header(low, high, ncnt))


def accumulate(files: Sequence[GmonFile]) -> GmonData:
    """Sum profile files in command-line order, with gprof's refusals (§2.2, §2.3).

    gprof's rule for each histogram record: add it to the earlier record with the same range, else
    refuse it if it overlaps an earlier one, else keep it. Linear: a dict finds the same range, and
    the overlap refusal is checked once over the distinct ranges (`_first_overlap`), before any
    other refusal that comes later in record order.
    """
    hists: list[HistogramRecord] = []
    sums: list[list[int] | None] = []
    origin: list[str] = []  # file of each distinct range's first record
    index: dict[tuple[int, int], int] = {}
    arc_parts: list[Sequence[RawArc]] = []
    hz, dimen, abbrev, scale = 0, "seconds", "s", 0.0
    first_bsd: tuple[tuple[int, int, int], int] | None = None
    has_hist = has_cg = False
    bb = 0
    last_header = b""

    def refuse(path: str, message: str) -> GmonFormatError:
        _check_overlaps(hists, origin)  # an overlap in an earlier record is the first refusal
        return GmonFormatError(path, message)

    for f in files:
        if f.last_hist_header:
            last_header = f.last_hist_header
        if f.bsd_header is not None:
            has_hist = has_cg = True
            if first_bsd is None:
                first_bsd = (f.bsd_header, f.histograms[0].prof_rate)
            else:
                if f.bsd_header != first_bsd[0]:
                    raise refuse(f.path, "incompatible with first gmon file")
                if f.format == "4.4bsd" and f.histograms[0].prof_rate != first_bsd[1]:
                    raise refuse(
                        f.path,
                        f"profiling rate {f.histograms[0].prof_rate} differs from "
                        f"the first file's {first_bsd[1]}",
                    )
        for h in f.histograms:
            has_hist = True
            if not hists:
                hz, dimen, abbrev, scale = h.prof_rate, h.dimension, h.dimension_abbrev, h.scale
            else:
                if (h.dimension, h.dimension_abbrev) != (dimen, abbrev):
                    raise refuse(
                        f.path,
                        f"dimension unit changed between histogram records ('{dimen}' then '{h.dimension}')",
                    )
                if abs(h.scale - scale) > 1e-6:
                    raise refuse(f.path, "different scales in histogram records")
            i = index.get((h.low_pc, h.high_pc))
            if i is None:
                index[(h.low_pc, h.high_pc)] = len(hists)
                hists.append(h)
                sums.append(None)
                origin.append(f.path)
                continue
            acc = sums[i]
            if acc is None:
                acc = sums[i] = list(hists[i].counts)
            for j, c in enumerate(h.counts[: len(acc)]):
                if c:
                    acc[j] += c
        if f.arcs:
            has_cg = True
        arc_parts.append(f.arcs)
        bb += f.bb_count
    _check_overlaps(hists, origin)
    merged = tuple(
        h
        if s is None
        else HistogramRecord(h.low_pc, h.high_pc, array("Q", s), h.prof_rate, h.dimension, h.dimension_abbrev)
        for h, s in zip(hists, sums, strict=True)
    )
    return GmonData(merged, RawArcs.joined(arc_parts), hz, dimen, abbrev, has_hist, has_cg, bb, last_header)


def _overlap_within(ranges: Sequence[tuple[int, int]]) -> bool:
    """Whether two of these distinct [low, high) ranges overlap (sorting: n log n)."""
    reach = None
    for low, high in sorted(ranges):
        if reach is not None and low < reach:
            return True
        reach = high if reach is None or high > reach else reach
    return False


def _check_overlaps(hists: Sequence[HistogramRecord], origin: Sequence[str]) -> None:
    """Raise gprof's refusal for the first distinct range (in record order) that overlaps an
    earlier one. Whether a prefix overlaps is monotone, so a binary search finds the first
    offender in O(n log^2 n), and only when there is one."""
    ranges = [(h.low_pc, h.high_pc) for h in hists]
    if not _overlap_within(ranges):
        return
    lo, hi = 1, len(ranges)  # the shortest overlapping prefix has length in (lo, hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _overlap_within(ranges[:mid]):
            hi = mid
        else:
            lo = mid
    raise GmonFormatError(origin[hi - 1], "overlapping histogram records")
