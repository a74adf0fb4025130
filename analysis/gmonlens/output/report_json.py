"""Profile -> JSON: the versioned contract for the server and other tools.

Schema `gmonlens-profile/1` (times in seconds, percentages of gprof's totals):
- `schema`, `sample_period` (seconds per sample), `hz`, `total_seconds` (flat total),
  `propagated_seconds` (call-graph total), `static_call_graph`, `problems`
- `routines[]` (those with time, calls or arcs, and those `folded[]` names): id, name (mangled), display_name, address, index, self_seconds, children_seconds,
  total_seconds, calls, recursive_calls, cycle (number or null), percent (call graph),
  self_percent (flat), file, line (the true source position, for every routine the line table
  places, when loaded with `all_lines`; `gmonlens report --json` does), printed;
  how sure the figures are (certainty.py): self_samples (samples credited, fractional where a
  bin is split), self_stderr_seconds (sqrt(self_samples) x sample_period), total_stderr_seconds
  (sqrt(total in samples) x sample_period), children_estimated_seconds (the part of
  children_seconds that passed through gprof's split of a callee's time among several callers),
  callers (distinct calling routines; a cycle member's are its cycle's)
- `arcs[]`: caller, callee (routine ids), count, self_seconds, children_seconds, static, call_sites
  ([return address, count])
- `arcs[]` also: estimated (the arc's time is gprof's split of a callee with several callers)
- `cycles[]`: number, index, members (routine ids), self_seconds, children_seconds, calls,
  internal_calls, percent, self_samples, self_stderr_seconds, total_stderr_seconds,
  children_estimated_seconds, callers (distinct routines outside the cycle calling a member)
- `health[]`: code (few_samples, no_samples, no_arcs, binary_changed, sources_newer, threads),
  message, fix: what makes the whole profile less trustworthy (`gmonlens report --json` adds the
  checks that read files: healthfiles.py)
- `folded[]`: the symbols gprof folds into the routine before them (GCC clones whose names its
  filter rejects: `.isra.N`, `.part.N`, `.cold`, ...; their figures are inside that routine's):
  routine (id), name, address, self_seconds, calls (from other routines); self_share and
  calls_share (fractions of the routine's self time and calls, 0 when it has none). Empty with
  `--clones-apart` (clones are routines of their own then, and the figures are not gprof's)
- with gprof's `-r` / `-R MAP`, `gmonlens report --json` adds `function_ordering` /
  `file_ordering` (gprof's suggested order, one name per item); with `-R` the routines are those
  of gprof's -R symbol table (each map entry's first routine named after its file, the others
  folded into the symbol before them: fileorder.py)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gmonlens.common.model import Profile
from gmonlens.common.units import period
from gmonlens.profile.certainty import Certainty, Health, certainty, profile_health

SCHEMA = "gmonlens-profile/1"


def _pct(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole > 0 else 0.0


def _sure(c: Certainty, callers: int) -> dict[str, Any]:
    return {
        "self_samples": c.self_samples,
        "self_stderr_seconds": c.self_stderr_seconds,
        "total_stderr_seconds": c.total_stderr_seconds,
        "children_estimated_seconds": c.children_estimated_seconds,
        "callers": callers,
    }


def health_json(health: Sequence[Health]) -> list[dict[str, str]]:
    return [{"code": h.code, "message": h.message, "fix": h.fix} for h in health]


def to_json(p: Profile, health: Sequence[Health] | None = None) -> dict[str, Any]:
    """The profile as schema `gmonlens-profile/1`; `health` defaults to the checks that read no file
    (`certainty.profile_health`)."""
    sec = p.seconds  # None without a sampling rate (`common.units`)
    cert = certainty(p)
    total = p.total_ticks
    prop = p.print_ticks
    owners = {f.routine for f in p.folded}  # listed whatever their figures: `folded[]` names them
    return {
        "schema": SCHEMA,
        "sample_period": period(p.hz),
        "hz": p.hz,
        "total_seconds": sec(total),
        "propagated_seconds": sec(prop),
        "static_call_graph": p.static_call_graph,
        "problems": list(p.problems),
        "routines": [
            {
                "id": r.id,
                "name": r.name,
                "display_name": r.display_name,
                "address": r.address,
                "index": r.index,
                "self_seconds": sec(r.prop_self_ticks),
                "children_seconds": sec(r.prop_child_ticks),
                "total_seconds": sec(r.total_ticks),
                "calls": r.calls,
                "recursive_calls": r.self_calls,
                "cycle": r.cycle or None,
                "percent": _pct(r.total_ticks, prop),
                "self_percent": _pct(r.self_ticks, total),
                "file": r.file,
                "line": r.line or None,
                "printed": r.printed,
                **_sure(cert.routines[r.id], cert.callers[r.id]),
            }
            for r in p.routines
            if r.calls
            or r.self_calls
            or r.self_ticks
            or r.total_ticks
            or p.parents[r.id]
            or p.children[r.id]
            or r.id in owners
        ],
        "arcs": [
            {
                "caller": a.parent,
                "callee": a.child,
                "count": a.count,
                "self_seconds": sec(a.self_ticks),
                "children_seconds": sec(a.child_ticks),
                "static": a.is_static,
                "call_sites": [list(s) for s in a.call_sites],
                "estimated": cert.estimated_arc(p, i),
            }
            for i, a in enumerate(p.arcs)
        ],
        "cycles": [
            {
                "number": c.number,
                "index": c.index,
                "members": list(c.members),
                "self_seconds": sec(c.prop_self_ticks),
                "children_seconds": sec(c.prop_child_ticks),
                "calls": c.calls,
                "internal_calls": c.self_calls,
                "percent": _pct(c.total_ticks, prop),
                **_sure(cert.cycles[c.number - 1], cert.cycle_callers[c.number - 1]),
            }
            for c in p.cycles
        ],
        "folded": _folded_json(p, sec),
        "health": health_json(profile_health(p) if health is None else health),
    }


def _folded_json(p: Profile, sec: Callable[[float], float | None]) -> list[dict[str, Any]]:
    """`folded[]`: each clone gprof folds, with its share of the absorbing routine's figures."""
    out = []
    for f in p.folded:
        owner = p.routines[f.routine]
        out.append(
            {
                "routine": f.routine,
                "name": f.name,
                "address": f.address,
                "self_seconds": sec(f.self_ticks),
                "calls": f.calls,
                "self_share": f.self_ticks / owner.self_ticks if owner.self_ticks else 0.0,
                "calls_share": f.calls / owner.calls if owner.calls else 0.0,
            }
        )
    return out
