"""Profile -> pprof's profile.proto, gzipped (read by `go tool pprof`, pprof, speedscope...).

Sample types (values of every sample, in this order):
- `time/nanoseconds` (the default): measured self time. One one-frame sample per source line with
  samples, so `pprof -top` prints gprof's flat profile (flat = gprof self seconds).
- `calls/count`: one two-frame sample (callee at its entry line <- caller at the call's line) per
  arc and call site, with gprof's call count.
- `estimated_time/nanoseconds`: on the same two-frame samples, the time gprof propagates along the
  arc (callee self + children split among callers in proportion to calls): an ESTIMATE, not a
  measurement; the profile's comments say so.
Routines with time nobody received (bins outside every routine) appear as one pseudo-function so
that pprof's total equals gprof's total time.

The encoder is hand-written (about 40 lines): profile.proto needs only varints, length-delimited
fields and packed repeated integers, and a protobuf runtime would add a native, per-platform wheel
to the bundled server and ~50 ms to the CLI's start-up for no gain.
"""

from __future__ import annotations

import gzip
from collections.abc import Mapping

from gmonlens.common.model import Profile
from gmonlens.common.units import scaled
from gmonlens.output.export_common import (
    UNATTRIBUTED,
    LineData,
    LineKey,
    apportion,
    exported_arcs,
    exported_routines,
    remap,
    to_units,
    unattributed_ticks,
)

NS = 1_000_000_000


_SMALL = [bytes((i,)) for i in range(128)]


def _varint(v: int) -> bytes:
    if 0 <= v < 128:
        return _SMALL[v]
    v &= (1 << 64) - 1  # int64 negatives as two's complement
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def _int(field: int, v: int) -> bytes:
    return _varint(field << 3) + _varint(v) if v else b""


def _bytes(field: int, b: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(b)) + b


def _packed(field: int, values: list[int]) -> bytes:
    return _bytes(field, b"".join(_varint(v) for v in values)) if values else b""


class _Strings:
    def __init__(self) -> None:
        self.table: list[str] = [""]
        self.ids: dict[str, int] = {"": 0}

    def __call__(self, s: str) -> int:
        i = self.ids.get(s)
        if i is None:
            i = self.ids[s] = len(self.table)
            self.table.append(s)
        return i


class _Tables:
    """profile.proto's Function and Location messages, created on first use (ids from 1) in the
    order samples first name them, and the samples themselves (`out`)."""

    def __init__(
        self, p: Profile, lines: LineData, s: _Strings, demangle: bool, source_map: Mapping[str, str] | None
    ) -> None:
        self.routines, self.lines, self.s = p.routines, lines, s
        self.demangle, self.source_map = demangle, source_map
        self.functions: dict[int, int] = {}  # routine id (-1: unattributed) -> function id
        self.fn_msgs: list[bytes] = []
        self.locations: dict[tuple[int, int], int] = {}  # (routine, line) -> location id
        self.loc_msgs: list[bytes] = []
        self.out = bytearray()

    def function(self, rid: int) -> int:
        fid = self.functions.get(rid)
        if fid is None:
            s = self.s
            fid = self.functions[rid] = len(self.functions) + 1
            if rid < 0:
                msg = _int(1, fid) + _int(2, s(UNATTRIBUTED)) + _int(3, s(UNATTRIBUTED))
            else:
                r = self.routines[rid]
                f, ln = self.lines.entries.get(rid, (r.file, r.line))
                msg = (
                    _int(1, fid)
                    + _int(2, s(r.display_name if self.demangle else r.name))
                    + _int(3, s(r.name))
                    + _int(4, s(remap(f, self.source_map) or ""))
                    + _int(5, ln)
                )
            self.fn_msgs.append(_bytes(5, msg))
        return fid

    def location(self, rid: int, line: int) -> int:
        lid = self.locations.get((rid, line))
        if lid is None:
            lid = self.locations[(rid, line)] = len(self.locations) + 1
            address = self.routines[rid].address if rid >= 0 else 0
            line_msg = _int(1, self.function(rid)) + _int(2, line)
            self.loc_msgs.append(
                _bytes(4, _int(1, lid) + _int(2, 1) + _int(3, address) + _bytes(4, line_msg))
            )
        return lid

    def sample(self, locs: list[int], values: list[int]) -> None:
        self.out.extend(_bytes(2, _packed(1, locs) + _packed(2, values)))


def _time_samples(t: _Tables, p: Profile, lines: LineData, arcs: list[int]) -> None:
    """One `time` sample per source line with self time, then the unattributed time."""
    for rid in exported_routines(p, arcs):
        r = p.routines[rid]
        own = sorted(lines.self_lines.get(rid, {}).items(), key=lambda kv: kv[0][1])
        ns = to_units(p, r.self_ticks, NS)
        if not ns:
            continue
        keys: list[LineKey] = [k for k, _t in own] or [lines.entries.get(rid, (r.file, r.line))]
        for key, v in zip(keys, apportion(ns, [t for _k, t in own] or [1.0]), strict=True):
            if v:
                t.sample([t.location(rid, key[1])], [v, 0, 0])
    rest = to_units(p, unattributed_ticks(p), NS)
    if rest:
        t.sample([t.location(-1, 0)], [rest, 0, 0])


def _arc_samples(t: _Tables, p: Profile, lines: LineData, arcs: list[int]) -> None:
    """One `calls` + `estimated_time` sample per arc and call site: callee entry <- caller line."""
    for i in arcs:
        a = p.arcs[i]
        entry = lines.entries.get(a.child, (None, p.routines[a.child].line))[1]
        sites = lines.sites.get(i) or (((None, 0), a.count),)
        est = apportion(to_units(p, a.self_ticks + a.child_ticks, NS), [c for _k, c in sites])
        for ((_f, line), count), e in zip(sites, est, strict=True):
            t.sample([t.location(a.child, entry), t.location(a.parent, line)], [0, count, e])


def to_pprof(
    p: Profile,
    lines: LineData,
    *,
    binary: str = "",
    demangle: bool = True,
    source_map: Mapping[str, str] | None = None,
) -> bytes:
    """The gzipped profile.proto bytes."""
    s = _Strings()
    out = bytearray()
    for typ, unit in (("time", "nanoseconds"), ("calls", "count"), ("estimated_time", "nanoseconds")):
        out += _bytes(1, _int(1, s(typ)) + _int(2, s(unit)))
    t = _Tables(p, lines, s, demangle, source_map)
    arcs = exported_arcs(p)
    _time_samples(t, p, lines, arcs)
    _arc_samples(t, p, lines, arcs)
    out += t.out
    out += _bytes(3, _int(1, 1) + _int(5, s(binary)) + _int(7, 1) + _int(8, 1) + _int(9, 1))
    out += b"".join(t.loc_msgs) + b"".join(t.fn_msgs)
    comments = [
        "gmonlens export from GNU gprof data (gmon.out)",
        "time: measured self time (histogram samples), per source line",
        "calls: call counts of each call arc (callee <- caller at the call's line)",
        "estimated_time: ESTIMATE - gprof's proportional split of callee time among callers by calls",
    ]
    comment_ids = [s(c) for c in comments]
    period = _bytes(11, _int(1, s("time")) + _int(2, s("nanoseconds")))
    tail = period + _int(12, scaled(1, p.hz, NS))
    tail += b"".join(_int(13, c) for c in comment_ids) + _int(14, s("time"))
    strings = b"".join(_bytes(6, text.encode("utf-8", "surrogateescape")) for text in s.table)
    return gzip.compress(bytes(out) + strings + tail, compresslevel=6, mtime=0)
