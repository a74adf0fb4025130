"""What every export format needs beyond the Profile: per-line self time, routine entry lines,
call-site lines of the arcs, source-path remapping, and which routines and arcs are exported.

Which parts of the profile are exported (the same rules for callgrind, pprof and dot):
- self time is gprof's flat-profile self time (`-p/-P` specs decide who may have it);
- arcs are those gprof counted (count > 0; `-k`/`-q FROM/TO` filters applied), between routines
  whose call-graph entry gprof prints (`-q/-Q/-e/-f` specs); static-only arcs (`-c`, count 0)
  are left out;
- the time carried by an arc is gprof's propagated time (callee self + children along the arc,
  scaled by the caller's share: `-n/-N/-E/-F` apply), i.e. gprof's *estimate* that splits a
  callee's time among its callers in proportion to the calls.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gmonlens.common.model import Arc, HistogramRecord, Profile
from gmonlens.common.units import scaled
from gmonlens.dwarf.line_table import LineTable
from gmonlens.profile.call_sites import CallFinder, arc_call_sites
from gmonlens.profile.line_heat import compute_line_heat

UNATTRIBUTED = "samples outside any routine"  # no <> or (): pprof strips those from names
LineKey = tuple[str | None, int]  # (DWARF file, 1-based line); (None, 0) when unknown


@dataclass(frozen=True)
class LineData:
    """Source positions for an export (all keys are routine ids or arc positions)."""

    self_lines: Mapping[int, Mapping[LineKey, float]]  # routine -> (file, line) -> self ticks
    entries: Mapping[int, LineKey]  # routine -> (file, line) of its first instruction
    sites: Mapping[int, tuple[tuple[LineKey, int], ...]]  # arc -> ((file, line) of call, count)


def exported_arcs(p: Profile) -> list[int]:
    """Positions in `p.arcs` of the arcs an export shows (module docstring)."""
    rs = p.routines
    return [
        i
        for i, a in enumerate(p.arcs)
        if a.count > 0 and not a.is_static and rs[a.parent].printed and rs[a.child].printed
    ]


def exported_routines(p: Profile, arcs: Sequence[int]) -> list[int]:
    """Routine ids with self time or an exported arc, in address order."""
    used = {r.id for r in p.routines if r.self_ticks > 0}
    for i in arcs:
        used.add(p.arcs[i].parent)
        used.add(p.arcs[i].child)
    return sorted(used)


def line_data(
    p: Profile,
    histograms: Sequence[HistogramRecord],
    table: LineTable | None,
    finder: CallFinder | None,
) -> LineData:
    """Per-line self time, entry lines and call-site lines (`call_sites.call_site`: the call
    instruction behind each recorded return address, found by `finder`)."""
    arcs = exported_arcs(p)
    routines = exported_routines(p, arcs)
    entries: dict[int, LineKey] = {}
    for rid in routines:
        r = p.routines[rid]
        hit = table.lookup(r.address) if table is not None else None
        entries[rid] = hit if hit is not None else (r.file, r.line)
    sites: dict[int, tuple[tuple[LineKey, int], ...]] = {}
    for i in arcs:
        a = p.arcs[i]
        sites[i] = tuple(_sites(p, a, table, finder))
    return LineData(self_lines(p, histograms, table), entries, sites)


def self_lines(
    p: Profile, histograms: Sequence[HistogramRecord], table: LineTable | None
) -> dict[int, dict[LineKey, float]]:
    """routine id -> {(file, line): self ticks} from the engine's line heat (a routine's lines add
    up to its flat self time); without a line table, each routine's time on (None, 0)."""
    out: dict[int, dict[LineKey, float]] = {}
    if table is None or not p.has_histogram:
        return {r.id: {(None, 0): r.self_ticks} for r in p.routines if r.self_ticks > 0}
    for s in compute_line_heat(p, histograms, table).spans:
        per = out.setdefault(s.routine, {})
        key: LineKey = (s.file, s.line)
        per[key] = per.get(key, 0.0) + s.ticks
    return out


def _sites(
    p: Profile, a: Arc, table: LineTable | None, finder: CallFinder | None
) -> list[tuple[LineKey, int]]:
    merged: dict[LineKey, int] = {}
    for address, count in arc_call_sites(p, a, finder):  # the call-site rule the editor shares
        hit = table.lookup(address) if table is not None else None
        key: LineKey = hit if hit is not None else (None, 0)
        merged[key] = merged.get(key, 0) + count
    return list(merged.items()) or [((None, 0), a.count)]


def remap(path: str | None, source_map: Mapping[str, str] | None) -> str | None:
    """`path` with the longest matching `source_map` prefix (whole components) rewritten."""
    if path is None or not source_map:
        return path
    norm = posixpath.normpath(path)
    for prefix in sorted(source_map, key=len, reverse=True):
        pre = posixpath.normpath(prefix).rstrip("/")
        if pre and (norm == pre or norm.startswith(pre + "/")):
            return source_map[prefix].rstrip("/") + norm[len(pre) :]
    return path


def apportion(total: int, weights: Sequence[float]) -> list[int]:
    """Integers proportional to `weights` summing exactly to `total` (largest remainder)."""
    s = sum(weights)
    if not weights:
        return []
    if s <= 0:
        return [total] + [0] * (len(weights) - 1)
    raw = [total * w / s for w in weights]
    out = [int(x) for x in raw]
    rest = total - sum(out)
    order = sorted(range(len(raw)), key=lambda k: (out[k] - raw[k], k))
    for k in order[: max(rest, 0)]:
        out[k] += 1
    return out


def to_units(p: Profile, ticks: float, per_second: int) -> int:
    """Ticks in an integer unit (`per_second` units a second), rounded to nearest."""
    return scaled(ticks, p.hz, per_second)


def unattributed_ticks(p: Profile) -> float:
    """Samples in gprof's total time that no routine received (bins outside every routine)."""
    rest = p.total_ticks - sum(r.self_ticks for r in p.routines)
    return rest if rest > 1e-9 else 0.0
