"""The tools' handlers: a `View` and checked arguments in, a `ToolResult` out (see `tools`)."""

from __future__ import annotations

import math
import os
from typing import Any

from gmonlens.common.errors import GmonlensError
from gmonlens.common.model import Profile, Routine
from gmonlens.common.units import period
from gmonlens_ide.figures import routine_figures, shown
from gmonlens_ide.lookup import in_file, index_of

from . import figures as fig
from .lookup import find, ref
from .rpc import INVALID_PARAMS, RpcError, ToolResult
from .workspace import ToolFailure, View

FEW_SAMPLES = 100  # below this many samples self times are rough (±10% and worse)


def _s(x: float | None) -> str:
    return shown(x)


def profile_summary(view: View, args: dict[str, Any]) -> ToolResult:
    p = view.profile
    loaded = view.loaded
    samples = p.total_ticks
    health = [*view.outcome.warnings, *view.settings_problems]
    if not p.has_histogram:
        health.append("the profile has no time histogram: times are all zero, only call counts")
    elif samples < FEW_SAMPLES:
        err = 100.0 / math.sqrt(samples) if samples > 0 else math.inf
        health.append(
            f"only {samples:g} samples: a routine's self time is uncertain by about sqrt(samples) "
            f"(±{err:.0f}% for the total); run the program longer or sum several runs"
        )
    if not p.has_call_graph:
        health.append("the profile has no call graph (no arc records): no callers or callees")
    if view.outcome.choice:
        health.append(view.outcome.choice)
    routines = [r for r in p.routines if not r.is_line]
    out: dict[str, Any] = {
        "folder": view.folder,
        "program": loaded.binary,
        "profiles": list(loaded.profiles),
        "sample_period_seconds": period(p.hz),
        "hz": p.hz,
        "total_seconds": fig.seconds(p, p.total_ticks),
        "total_samples": samples,
        "propagated_seconds": fig.seconds(p, p.print_ticks),
        "routines": len(routines),
        "routines_with_time": sum(1 for r in routines if r.self_ticks > 0),
        "routines_called": sum(1 for r in routines if r.calls or r.self_calls),
        "arcs": len(p.arcs),
        "cycles": [
            {"number": c.number, "members": [p.routines[m].display_name for m in c.members], "calls": c.calls}
            for c in p.cycles
        ],
        "has_histogram": p.has_histogram,
        "has_call_graph": p.has_call_graph,
        "static_call_graph": p.static_call_graph,
        "baseline": loaded.comparison.label if loaded.comparison is not None else None,
        "health": list(dict.fromkeys(health)),
        "notes": list(view.outcome.notes),
    }
    text = (
        f"{os.path.basename(loaded.binary)}: {_s(out['total_seconds'])} s in {samples:g} samples "
        f"of {_s(out['sample_period_seconds'])} s; {out['routines_with_time']} routines with time, "
        f"{out['routines_called']} called, {len(p.cycles)} cycles; profiles: "
        + ", ".join(view.rel(x) or x for x in loaded.profiles)
    )
    if out["health"]:
        text += "\nhealth: " + "; ".join(out["health"])
    return ToolResult(out, text)


def top_routines(view: View, args: dict[str, Any]) -> ToolResult:
    p = view.profile
    by, limit, offset = args["by"], args["limit"], args["offset"]
    rows = fig.flat_rows(p) if by == "self" else fig.graph_rows(p)
    items = [fig.routine_figures(view, r) for r in rows[offset : offset + limit]]
    more = max(len(rows) - offset - limit, 0)
    out = {"by": by, "total_seconds": fig.seconds(p, p.total_ticks), "offset": offset, "total": len(rows),
           "routines": items, "more": more}  # fmt: skip
    span = f"{offset + 1}-{offset + len(items)}" if items else "none"
    lines = [f"routines {span} of {len(rows)} by {by} time (seconds; ± sampling error):"]
    for i, (r, it) in enumerate(zip(rows[offset : offset + limit], items, strict=True), offset + 1):
        lines.append(f"{i}. {it['ref']}: {_figures_text(p, r, it)}, {where(it['file'], it['line'])}")
    if more:
        lines.append(f"{more} more: ask again with offset={offset + len(items)}")
    return ToolResult(out, "\n".join(lines))


def _figures_text(p: Profile, r: Routine, it: dict[str, Any]) -> str:
    """A routine's figures in a line: the total shown beside its parts is their sum as shown
    (`gmonlens_ide.figures`)."""
    f = routine_figures(p, r)
    calls = f"{f.calls} calls" if f.calls else "no recorded calls"
    return (
        f"self {f.self_s}±{f.self_err} s ({it['self_percent']:.1f}%), total {f.total_s} s "
        f"({f.percent}%; children {f.children_s} s), {calls}"
    )


def routine_entry(view: View, args: dict[str, Any]) -> ToolResult:
    p = view.profile
    rid = find(view, args["routine"], args.get("file"))
    r = p.routines[rid]
    parents = [fig.arc_figures(view, p.arcs[a], p.routines[p.arcs[a].parent], r) for a in p.parents[rid]]
    children = [
        fig.arc_figures(view, p.arcs[a], p.routines[p.arcs[a].child], p.routines[p.arcs[a].child])
        for a in p.children[rid]
    ]
    text = fig.graph_entries(view).get(r.index) if index_of(r) else None
    out = {
        **fig.routine_figures(view, r),
        "printed": text is not None,
        "spontaneous": not parents,
        "parents": parents,
        "children": children,
        "estimated": fig.ESTIMATED,
        "gprof_text": text,
    }
    if r.cycle:  # the cycle's own entry: the members' time counted once, calls from outside
        c = p.cycle(r.cycle)
        out["cycle_gprof_text"] = fig.graph_entries(view).get(c.index) if c.printed else None
    name = ref(view, rid)
    head = name + (f" [{r.index}]" if out["index"] and not name.endswith("]") else "")
    if text is None:
        return ToolResult(out, f"{head}: gprof prints no call-graph entry for it (no time, no calls)")
    return ToolResult(out, f"{head}, gprof's call-graph entry (parents above, children below):\n{text}")


def _arcs(view: View, args: dict[str, Any], up: bool) -> ToolResult:
    p = view.profile
    rid = find(view, args["routine"], args.get("file"))
    r = p.routines[rid]
    arcs = [p.arcs[ai] for ai in (p.parents[rid] if up else p.children[rid])]
    # the most propagated time first (none inside a cycle), then the most calls; figures, places
    # and call sites (which decode code and DWARF) only for the rows shown
    arcs.sort(key=lambda a: (-(0.0 if fig.in_cycle(p, a) else a.self_ticks + a.child_ticks), -a.count,
                             p.routines[a.parent if up else a.child].display_name))  # fmt: skip
    limit = args["limit"]
    rows = []
    for a in arcs[:limit]:
        other = p.routines[a.parent if up else a.child]
        row = fig.arc_figures(view, a, other, r if up else other)
        row["call_sites"] = fig.call_sites(view, a)
        if row["estimated"]:
            row["propagated_seconds"] = row["self_seconds"] + row["children_seconds"]
        rows.append(row)
    limit = args["limit"]
    who = "callers" if up else "callees"
    out = {"routine": r.display_name, "ref": ref(view, rid), "index": index_of(r), "calls": r.calls,
           "recursive_calls": r.self_calls,
           who: rows, "more": max(len(arcs) - limit, 0), "estimated": fig.ESTIMATED}  # fmt: skip
    if up and not rows:
        return ToolResult(
            out, f"{out['ref']}: no recorded callers (spontaneous, or called from code without -pg)"
        )
    lines = [f"{who} of {out['ref']} ({r.calls} calls{'+' + str(r.self_calls) if r.self_calls else ''}):"]
    for x in rows:
        sites = ", ".join(where(s["file"], s["line"]) for s in x["call_sites"]) or "?"
        of = f"/{x['of_calls']}" if x["of_calls"] is not None else ""
        lines.append(f"{x['ref']}: {x['calls']}{of} calls at {sites}; {_arc_time(x)}")
    return ToolResult(out, "\n".join(lines))


def _arc_time(x: dict[str, Any]) -> str:
    """What gprof puts on an arc's line: no time on a recursive call or one inside a cycle."""
    if x["recursive"]:
        return "recursive: gprof puts no time on it"
    if x["in_cycle"]:
        return f"inside cycle {x['cycle']}: gprof puts no time on it"
    return f"~{_s(x['propagated_seconds'])} s (estimated)"


def where(file: str | None, line: int | None) -> str:
    """`file:line`, `file` without a line, "no line information" without a file."""
    if not file:
        return "no line information"
    return f"{file}:{line}" if line else file


def callers(view: View, args: dict[str, Any]) -> ToolResult:
    return _arcs(view, args, up=True)


def callees(view: View, args: dict[str, Any]) -> ToolResult:
    return _arcs(view, args, up=False)


def _heat(view: View) -> Any:
    from gmonlens_ide.session import line_heat

    if not view.profile.has_histogram:
        raise ToolFailure("the profile has no time histogram: no line heat")
    heat = line_heat(view.loaded)
    if heat is None:
        raise ToolFailure(f"{view.loaded.binary}: line heat could not be computed (no line table?)")
    return heat


def _source_line(path: str | None, line: int, cache: dict[str, list[str] | None]) -> str | None:
    if not path or not os.path.isabs(path):
        return None
    if path not in cache:
        from gmonlens.common.files import read_regular

        try:
            cache[path] = read_regular(path, 16 << 20, "source file").decode("utf-8", "replace").splitlines()
        except (GmonlensError, OSError):
            cache[path] = None
    lines = cache[path]
    return lines[line - 1].strip()[:200] if lines and 0 < line <= len(lines) else None


def hot_lines(view: View, args: dict[str, Any]) -> ToolResult:
    if "routine" not in args and "file" not in args:
        raise RpcError(INVALID_PARAMS, "hot_lines needs `routine` or `file`", {"argument": "routine"})
    heat = _heat(view)
    if "routine" in args:
        return _routine_lines(view, heat, find(view, args["routine"], args.get("file")), args["limit"])
    return _file_lines(view, heat, args["file"], args["limit"])


def _routine_lines(view: View, heat: Any, rid: int, limit: int) -> ToolResult:
    p = view.profile
    r = p.routines[rid]
    per: dict[tuple[str | None, int], float] = {}
    for span in heat.heat.spans:
        if span.routine == rid:
            path = view.loaded.index.resolve(span.file) or span.file if span.file else None
            per[(path, span.line)] = per.get((path, span.line), 0.0) + span.ticks
    rows = sorted(per.items(), key=lambda kv: (-kv[1], str(kv[0][0]), kv[0][1]))
    texts: dict[str, list[str] | None] = {}
    items: list[dict[str, Any]] = [
        {"file": view.rel(f), "line": n or None, "seconds": fig.seconds(p, t),
         "percent": 100.0 * t / p.total_ticks if p.total_ticks > 0 else 0.0,
         "percent_of_routine": 100.0 * t / r.self_ticks if r.self_ticks > 0 else 0.0,
         "source": _source_line(f, n, texts)}
        for (f, n), t in rows[:limit]
    ]  # fmt: skip
    self_s = fig.seconds(p, r.self_ticks)
    out = {"routine": r.display_name, "ref": ref(view, rid), "self_seconds": self_s, "lines": items,
           "more": max(len(rows) - limit, 0)}  # fmt: skip
    lines = [f"hot lines of {out['ref']} (self {_s(self_s)} s):"]
    lines += [f"{where(x['file'], x['line'])}: {_s(fig.seconds(p, t))} s ({x['percent_of_routine']:.0f}%)  {x['source'] or ''}".rstrip()
              for x, (_at, t) in zip(items, rows, strict=False)]  # fmt: skip
    if not items:
        lines.append("no samples in it")
    return ToolResult(out, "\n".join(lines))


def _file_lines(view: View, heat: Any, wanted: str, limit: int) -> ToolResult:
    p = view.profile
    path = wanted if os.path.isabs(wanted) else os.path.join(view.folder, wanted)
    fh = heat.for_path(path)
    if fh is None:
        hits = [f for key, f in heat.files.items() if in_file(key, wanted)]
        if len(hits) > 1:
            names = ", ".join(view.rel(f.path) or f.path for f in hits)
            raise ToolFailure(
                f"`{wanted}` names several source files with samples: {names}",
                {"candidates": [view.rel(f.path) for f in hits]},
            )
        if not hits:
            known = sorted(view.rel(f.path) or f.path for f in heat.files.values())
            raise ToolFailure(f"no samples in a source file `{wanted}`; files with samples: {', '.join(known[:20])}",
                              {"file": wanted, "files_with_samples": known[:100]})  # fmt: skip
        fh = hits[0]
    rows = sorted(fh.lines, key=lambda h: (-h.seconds, h.line))
    texts: dict[str, list[str] | None] = {}
    items = [{"line": h.line, "seconds": h.seconds, "percent": h.percent, "routine": h.routine,
              "routines": [{"name": n, "seconds": s} for n, s in h.routines],
              "source": _source_line(fh.path, h.line, texts)} for h in rows[:limit]]  # fmt: skip
    total = sum(h.seconds for h in fh.lines)
    out = {"file": view.rel(fh.path), "seconds": total, "lines": items, "more": max(len(rows) - limit, 0)}
    lines = [f"hot lines of {out['file']} ({_s(total)} s of {_s(fig.seconds(p, p.total_ticks))} s):"]
    lines += [f"{x['line']}: {_s(x['seconds'])} s ({x['percent']:.1f}%) in {x['routine']}  {x['source'] or ''}".rstrip()
              for x in items]  # fmt: skip
    return ToolResult(out, "\n".join(lines))


def disassembly(view: View, args: dict[str, Any]) -> ToolResult:
    from .disassembly import disassembly as listing

    return listing(view, args)


def compare_with_baseline(view: View, args: dict[str, Any]) -> ToolResult:
    from .compare import compare

    return compare(view, args)
