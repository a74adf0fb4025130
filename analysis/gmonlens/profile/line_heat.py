"""Line heat: the self time of every source line, from the same histogram samples as the profile.

Each routine with samples is cut into *line spans*: runs of bytes that the DWARF line table maps to
one (file, line); a new span also starts at every routine start. The line table says where each
address came from, so code inlined from a header (a `static inline` helper, a template) lands on
the header's line. Samples are credited to the spans with gprof's bin-overlap rule
(`histogram.assign_samples`), exactly as `gprof -l` credits its line symbols: the spans of a routine
partition its range, so their ticks add up to the routine's self ticks (to float rounding).

Bytes the line table does not cover continue the span before them (a routine without line
information is one span with no file). Routines that may not receive time (-p/-P tables) give
their spans none, as in the profile.

`inlined_copies` says, for each function inlined into others, how many of those ticks were sampled
in its inlined copies and in which routines (line samples, not call-graph figures).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from gmonlens.common.model import HistogramRecord, Profile
from gmonlens.common.units import seconds
from gmonlens.dwarf.line_table import LineTable
from gmonlens.dwarf.scopes import FunctionScopes
from gmonlens.profile.histogram import assign_samples


@dataclass(frozen=True, slots=True)
class LineSpan:
    """Bytes [address, end) of routine `routine` mapped to `file`:`line` (None/0: no line info)."""

    address: int
    end: int
    routine: int
    file: str | None
    line: int
    ticks: float


@dataclass(frozen=True, slots=True)
class LineFigure:
    """One source line's self time: all its spans summed; `routines` the (routine id, ticks) it was
    sampled in, most ticks first."""

    file: str
    line: int
    ticks: float
    routines: tuple[tuple[int, float], ...]

    @property
    def routine(self) -> int:
        """The routine holding most of the line's time."""
        return self.routines[0][0]


@dataclass(frozen=True, slots=True)
class InlinedCopies:
    """Ticks sampled in the inlined copies of function `name`, per routine it was inlined into."""

    name: str
    ticks: float
    callers: tuple[tuple[int, float], ...]  # (routine id, ticks), most ticks first


@dataclass(frozen=True)
class LineHeat:
    """The line spans with time, and their sums per source line (`lines[file]`, by line)."""

    spans: tuple[LineSpan, ...]
    lines: dict[str, tuple[LineFigure, ...]]
    total_ticks: float  # the profile's total (percent base)
    hz: int

    def seconds(self, ticks: float) -> float | None:
        """`ticks` in seconds; None without a sampling rate (`common.units`)."""
        return seconds(ticks, self.hz)

    def percent(self, ticks: float) -> float:
        return 100.0 * ticks / self.total_ticks if self.total_ticks > 0 else 0.0

    def routine_ticks(self, routine: int) -> float:
        return sum(s.ticks for s in self.spans if s.routine == routine)


def line_spans(table: LineTable, lo: int, hi: int) -> list[tuple[int, int, int]]:
    """(start, file id, line) of each run of equal (file, line) in [lo, hi); file id -1 for bytes
    before any row. Bytes past a sequence's end continue the run before them."""
    out: list[tuple[int, int, int]] = []
    starts, seqs = table.starts, table.sequences
    i = max(bisect_right(starts, lo) - 1, 0)
    prev: tuple[int, int] | None = None
    while i < len(seqs) and starts[i] < hi:
        addrs, fids, lines = seqs[i]
        i += 1
        last = len(addrs) - 1  # the end_sequence row
        if addrs[last] <= lo:
            continue
        k = max(bisect_right(addrs, lo) - 1, 0)
        while k < last:
            a = addrs[k]
            if a >= hi:
                break
            if addrs[k + 1] == a:  # superseded by a later row at the same address
                k += 1
                continue
            key = (fids[k], lines[k])
            if key != prev:
                out.append((max(a, lo), key[0], key[1]))
                prev = key
            k += 1
    if not out or out[0][0] > lo:
        out.insert(0, (lo, -1, 0))
    return out


def compute_line_heat(profile: Profile, histograms: Sequence[HistogramRecord], table: LineTable) -> LineHeat:
    """Self time per line span and per source line (see the module docstring)."""
    routines = profile.routines
    starts: list[int] = []
    owner: list[int] = []
    keys: list[tuple[int, int]] = []
    in_flat: list[bool] = []
    for r in routines:
        nxt = routines[r.id + 1].address if r.id + 1 < len(routines) else r.address
        if r.self_ticks > 0 and nxt > r.address:
            for a, fid, line in line_spans(table, r.address, nxt):
                starts.append(a)
                owner.append(r.id)
                keys.append((fid, line))
                in_flat.append(r.in_flat)
        else:
            starts.append(r.address)
            owner.append(r.id)
            keys.append((-1, 0))
            in_flat.append(r.in_flat)
    ticks, _total = assign_samples(histograms, starts, in_flat)
    spans: list[LineSpan] = []
    files = table.files
    for k, t in enumerate(ticks):
        if t <= 0:
            continue
        fid, line = keys[k]
        spans.append(LineSpan(starts[k], starts[k + 1], owner[k], files[fid] if fid >= 0 else None, line, t))
    return LineHeat(tuple(spans), _by_line(spans), profile.total_ticks, profile.hz)


def line_heat_of(profile: Profile, spans: Sequence[LineSpan]) -> LineHeat:
    """The heat of `profile` from its spans (`compute_line_heat(...).spans`, kept in a cache)."""
    return LineHeat(tuple(spans), _by_line(spans), profile.total_ticks, profile.hz)


def _by_line(spans: Sequence[LineSpan]) -> dict[str, tuple[LineFigure, ...]]:
    acc: dict[tuple[str, int], dict[int, float]] = {}
    for s in spans:
        if s.file is None or s.line <= 0:
            continue
        per = acc.setdefault((s.file, s.line), {})
        per[s.routine] = per.get(s.routine, 0.0) + s.ticks
    out: dict[str, list[LineFigure]] = {}
    for (file, line), per in acc.items():
        parts = tuple(sorted(per.items(), key=lambda p: (-p[1], p[0])))
        out.setdefault(file, []).append(LineFigure(file, line, sum(t for _, t in parts), parts))
    return {f: tuple(sorted(v, key=lambda x: x.line)) for f, v in out.items()}


def inlined_copies(heat: LineHeat, profile: Profile, scopes: FunctionScopes) -> dict[str, InlinedCopies]:
    """Per inlined function (as the DWARF names it: linkage name, else name), the ticks of the
    spans whose first byte lies in an inlined copy of it, by the routine holding the copy.

    A span is an inlined copy when the innermost function at its first byte differs from the one
    at its routine's start (the routine's own function)."""
    own: dict[int, str | None] = {}
    acc: dict[str, dict[int, float]] = {}
    for s in heat.spans:
        name = scopes.name_at(s.address)
        if name is None:
            continue
        if s.routine not in own:
            own[s.routine] = scopes.name_at(profile.routines[s.routine].address)
        if name == own[s.routine]:
            continue
        per = acc.setdefault(name, {})
        per[s.routine] = per.get(s.routine, 0.0) + s.ticks
    out: dict[str, InlinedCopies] = {}
    for name, per in acc.items():
        callers = tuple(sorted(per.items(), key=lambda p: (-p[1], p[0])))
        out[name] = InlinedCopies(name, sum(t for _, t in callers), callers)
    return out
