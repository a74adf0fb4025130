"""The profile's figures as the tools give them: seconds, gprof's printed lines, estimates marked.

Units: seconds (ticks / hz); percentages of gprof's totals (the flat profile's for self time, the
call graph's for total time); call counts exact. A self time's sampling error is
sqrt(self samples) x the sample period (samples are Poisson counts). Time shown on a caller or
callee line is gprof's estimate: the callee's time split among its callers in proportion to the
calls, as if every call took as long.
"""

from __future__ import annotations

import re
from typing import Any

from gmonlens.common.model import Arc, Profile, Routine
from gmonlens.common.units import stderr_seconds
from gmonlens.output.report import DASHES, ReportOptions, call_graph, flat_order, flat_profile
from gmonlens_ide import figures as fig
from gmonlens_ide.lookup import index_of

from .lookup import place, ref
from .workspace import View

ESTIMATED = fig.ESTIMATED
_INDEX = re.compile(r"\[(\d+)\]")


def seconds(p: Profile, ticks: float) -> float | None:
    """`ticks` samples in seconds; None without a sampling rate (`gmonlens.common.units`)."""
    return p.seconds(ticks)


def _per_call(p: Profile, ticks: float, calls: int) -> float | None:
    total = p.seconds(ticks)
    return None if total is None or not calls else total / calls


def flat_rows(p: Profile) -> list[Routine]:
    """The routines of gprof's flat profile, in its order."""
    return [r for r in flat_order(p) if r.in_flat and (r.calls or r.self_ticks)]


def flat_lines(view: View) -> dict[int, str]:
    """routine id -> its line of `gprof -b`'s flat profile."""
    lines = view.derived.get("flat_lines")
    if lines is None:
        rows = flat_rows(view.profile)
        text = flat_profile(view.profile, ReportOptions()).splitlines()
        body = text[len(text) - len(rows) :] if rows else []
        lines = {r.id: line for r, line in zip(rows, body, strict=True)}
        view.derived["flat_lines"] = lines
    return lines


def graph_entries(view: View) -> dict[int, str]:
    """call-graph index -> its entry in `gprof -b`'s call graph (the lines between dashes)."""
    entries = view.derived.get("graph_entries")
    if entries is None:
        text = call_graph(view.profile, ReportOptions())
        entries = {}
        blocks = text.split(DASHES)
        blocks[0] = blocks[0].split("index % time    self  children    called     name\n", 1)[-1]
        for block in blocks:
            for line in block.splitlines():
                m = _INDEX.match(line)
                if m:
                    entries[int(m.group(1))] = block
                    break
        view.derived["graph_entries"] = entries
    return entries


def graph_rows(p: Profile) -> list[Routine]:
    """Routines with a call-graph entry, in gprof's call-graph order (total time first)."""
    out = []
    for e in p.graph_order:
        if e.routine < 0:
            continue
        r = p.routines[e.routine]
        if (
            r.printed
            and not r.is_line
            and (r.calls or r.self_calls or r.prop_self_ticks or r.prop_child_ticks)
        ):
            out.append(r)
    return out


def routine_figures(view: View, r: Routine) -> dict[str, Any]:
    """A routine's figures (module contract), its source position and its flat-profile line."""
    p = view.profile
    file, line = place(view, r.id)
    out: dict[str, Any] = {
        "name": r.display_name,
        "ref": ref(view, r.id),
        "symbol": r.name,
        "index": index_of(r),
        "address": r.address,
        "self_seconds": seconds(p, r.self_ticks),
        "self_error_seconds": stderr_seconds(r.self_ticks, p.hz),
        "self_percent": 100.0 * r.self_ticks / p.total_ticks if p.total_ticks > 0 else 0.0,
        "children_seconds": seconds(p, r.prop_child_ticks),
        "total_seconds": seconds(p, r.total_ticks),
        "total_percent": 100.0 * r.total_ticks / p.print_ticks if p.print_ticks > 0 else 0.0,
        "calls": r.calls,
        "recursive_calls": r.self_calls,
        "self_seconds_per_call": _per_call(p, r.self_ticks, r.calls),
        "total_seconds_per_call": _per_call(p, r.self_ticks + r.child_ticks, r.calls),
        "cycle": r.cycle or None,
        "file": file,
        "line": line or None,
    }
    flat = flat_lines(view).get(r.id)
    if flat is not None:
        out["gprof_flat_line"] = flat
    return out


def in_cycle(p: Profile, a: Arc) -> bool:
    """Whether `a` joins two members of one cycle (or is recursive): gprof puts no time on it."""
    pc, cc = p.routines[a.parent].cycle, p.routines[a.child].cycle
    return a.parent == a.child or (pc != 0 and pc == cc)


def arc_figures(view: View, a: Arc, other: Routine, callee: Routine) -> dict[str, Any]:
    """One caller or callee line: `other` is the routine on that line; times are estimates."""
    p = view.profile
    inside = in_cycle(p, a)
    tot = p.cycle(callee.cycle).calls if callee.cycle else callee.calls
    file, line = place(view, other.id)
    out: dict[str, Any] = {
        "name": other.display_name,
        "ref": ref(view, other.id),
        "index": index_of(other),
        "calls": a.count,
        "of_calls": None if inside else tot,
        # the share of the callee's time gprof gives this line (its estimate's basis)
        "share_of_calls": a.count / tot if not inside and tot else None,
        "self_seconds": None if inside else seconds(p, a.self_ticks),
        "children_seconds": None if inside else seconds(p, a.child_ticks),
        "estimated": not inside,
        "in_cycle": inside,
        "recursive": a.parent == a.child,
        "static_only": a.is_static,
        "cycle": other.cycle or None,
        "file": file,
        "line": line or None,
    }
    return out


def call_sites(view: View, a: Arc) -> list[dict[str, Any]]:
    """Where the calls of `a` are made: (file, line, calls) per call instruction's line."""
    from dataclasses import replace

    index = view.loaded.index
    counts: dict[tuple[str, int], int] = {}
    for site in a.call_sites:
        for path, line in index.call_site_lines(replace(a, call_sites=(site,))):
            counts[(path, line)] = counts.get((path, line), 0) + site[1]
    return [{"file": view.rel(f), "line": n, "calls": c} for (f, n), c in counts.items()]
