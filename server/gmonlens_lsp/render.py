"""Analysis objects -> lsprotocol objects and texts. The only module that builds LSP types.

Units: figures are seconds = ticks / hz, printed with two decimals as gprof prints them; percent is
gprof's call-graph percent (100 * (pself + pchild) / print_ticks, one decimal). Lines from `index`
are 1-based; LSP positions are 0-based with UTF-16 character offsets.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from gmonlens.certainty import FEW_ROUTINE_SAMPLES, ProfileCertainty, stderr_seconds
from gmonlens.lineheat import InlinedCopies
from gmonlens.model import Arc, Profile, Routine

from .workspace import fsuri as uris
from .workspace import markdown as md
from .workspace.heat_index import FileHeat, HeatIndex, HotLine
from .workspace.index import Place, SourceIndex
from .workspace.settings import DEFAULT_LENS_TITLE, DEFAULT_LINE_HEAT_LABEL
from .workspace.sourcetext import file_lines, utf16_len

SHOW_CALLERS = "gmonlens.showCallers"
ASSUMPTION = (
    "*Children times are propagated by call counts: gprof assumes every call to a routine costs "
    "the same, whoever the caller.*"
)


@dataclass(frozen=True, slots=True)
class Figures:
    percent: str  # "42.0"
    self_s: str  # "0.31"
    total_s: str  # "0.37"
    calls: str  # "120" or "120+4"; "" when never called (gprof's blank)
    cycle: int  # 0 when not in a cycle
    name: str
    self_err: str = ""  # "0.06": the self figure's standard error in seconds (sqrt(samples) x period)
    total_err: str = ""
    samples: str = ""  # "18": samples credited to the routine (self), rounded
    total_samples: str = ""  # samples behind the total (self + children), rounded
    few: bool = False  # the total rests on fewer than FEW_ROUTINE_SAMPLES samples (but some)


FEW_MARK = " · few samples"


def figures(profile: Profile, r: Routine) -> Figures:
    base = profile.print_ticks if profile.print_ticks > 0 else 1.0
    percent = 100.0 * r.total_ticks / base
    # gprof leaves the count blank for a routine nobody called (main, other spontaneous ones)
    calls = f"{r.calls}+{r.self_calls}" if r.self_calls else str(r.calls) if r.calls else ""
    period = 1.0 / profile.hz if profile.hz else 0.0
    return Figures(
        percent=f"{percent:.1f}",
        self_s=f"{profile.seconds(r.prop_self_ticks):.2f}",
        total_s=f"{profile.seconds(r.total_ticks):.2f}",
        calls=calls,
        cycle=r.cycle,
        name=r.display_name,
        self_err=f"{stderr_seconds(r.self_ticks, period):.2f}",
        total_err=f"{stderr_seconds(r.total_ticks, period):.2f}",
        samples=f"{r.self_ticks:.0f}",
        total_samples=f"{r.total_ticks:.0f}",
        few=0 < r.total_ticks < FEW_ROUTINE_SAMPLES,
    )


_NO_CALLS = re.compile(r"\s*·\s*\{calls\}\s*calls\b|\{calls\}\s*calls\b\s*·?\s*|\{calls\}")


def lens_title(template: str, f: Figures) -> str:
    """Fill the lens template; `{cycle}` becomes " · cycle N" or ""; without calls, the
    `{calls} calls` part (with its separator) is left out rather than saying `0 calls`.
    `{self_err}`/`{total_err}` are the standard errors in seconds, `{samples}`/`{total_samples}`
    the sample counts, `{few}` " · few samples" when the total rests on fewer than 10 samples."""
    if not f.calls:
        template = _NO_CALLS.sub("", template)
    values = {
        "percent": f.percent,
        "self": f.self_s,
        "total": f.total_s,
        "calls": f.calls,
        "cycle": f" · cycle {f.cycle}" if f.cycle else "",
        "name": f.name,
        "self_err": f.self_err,
        "total_err": f.total_err,
        "samples": f.samples,
        "total_samples": f.total_samples,
        "few": FEW_MARK if f.few else "",
    }
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError):
        return lens_title(DEFAULT_LENS_TITLE, f)


# ---- positions -------------------------------------------------------------------------------


def line_text(path: str, line: int) -> str:
    """Text of 1-based `line` of `path` on disk (LSP lines), "" when unavailable."""
    lines = file_lines(path)
    return lines[line - 1] if 0 < line <= len(lines) else ""


_utf16 = utf16_len


def name_range(place: Place, text: str | None = None) -> types.Range:
    """Range of the routine's name on its declaration line (whole line start when not found)."""
    line0 = max(place.line - 1, 0)
    if text is None:
        text = line_text(place.path, place.line) if place.resolved else ""
    start = -1
    if place.name and text:
        hint = max(place.column - 1, 0)
        start = text.find(place.name, hint)
        if start < 0:
            start = text.find(place.name)
    if start < 0:
        col = _utf16(text[: max(place.column - 1, 0)]) if text else max(place.column - 1, 0)
        return types.Range(types.Position(line0, col), types.Position(line0, col))
    a = _utf16(text[:start])
    b = a + _utf16(place.name)
    return types.Range(types.Position(line0, a), types.Position(line0, b))


def line_range(line: int) -> types.Range:
    """The start of 1-based `line` (zero width)."""
    return types.Range(types.Position(max(line - 1, 0), 0), types.Position(max(line - 1, 0), 0))


def uri_of(path: str) -> str:
    return uris.from_fs_path(path)


def _link(label: str, place: Place | None) -> str:
    """A link to `place` (file URI and line) around `label`, already Markdown text."""
    if place is None:
        return label
    return f"[{label}]({uri_of(place.path)}#L{max(place.line, 1)})"


def location_link(name: str, place: Place | None) -> str:
    """`name` (plain text: escaped here) linked to its source line."""
    return _link(md.text(name), place)


# ---- lenses ----------------------------------------------------------------------------------


def code_lens(
    profile: Profile, rid: int, place: Place, template: str, generation: int, suffix: str = ""
) -> types.CodeLens:
    """`suffix`: appended to the title (the change against a baseline)."""
    r = profile.routines[rid]
    rng = name_range(place)
    return types.CodeLens(
        range=rng,
        command=types.Command(
            title=lens_title(template, figures(profile, r)) + suffix,
            command=SHOW_CALLERS,
            # the symbol tells apart the routines sharing a line (a template's instances)
            arguments=[
                uri_of(place.path),
                {"line": rng.start.line, "character": rng.start.character},
                r.name,
            ],
        ),
    )


# ---- hover -----------------------------------------------------------------------------------


def _name(profile: Profile, r: Routine) -> str:
    """A routine's name as gprof's call graph prints it (cycle, index), as Markdown text."""
    text = md.text(r.display_name)
    if r.cycle:
        text += f" <cycle {r.cycle}>"
    return text + (f" [{r.index}]" if r.printed and r.index else "")


def _arc_row(profile: Profile, arc: Arc, other: Routine, index: SourceIndex, parent_side: bool) -> str:
    me = profile.routines[arc.child if parent_side else arc.parent]
    link = _link(_name(profile, other), index.link_place(other.id))
    in_cycle = arc.is_self or (other.cycle != 0 and other.cycle == me.cycle)
    if in_cycle:
        return f"| | | | | {arc.count} | {link} |"
    callee = me if parent_side else other
    total_calls = profile.cycle(callee.cycle).calls if callee.cycle else callee.calls
    note = " (static)" if arc.is_static else ""
    return (
        f"| | | {profile.seconds(arc.self_ticks):.2f} | {profile.seconds(arc.child_ticks):.2f} "
        f"| {arc.count}/{total_calls}{note} | {link} |"
    )


def certainty_lines(profile: Profile, cert: ProfileCertainty, rid: int) -> list[str]:
    """How sure the routine's figures are: value ± standard error with the samples behind it, a
    warning when they are few, and how much of the children time is gprof's estimate."""
    r = profile.routines[rid]
    f = figures(profile, r)
    c = cert.routines[rid]
    lines = [
        f"Self **{f.self_s} ± {f.self_err} s** ({f.samples} samples) · total **{f.total_s} ± "
        f"{f.total_err} s** ({f.total_samples} samples); ± is one standard error of the sampling "
        "(sqrt of the samples).",
        "",
    ]
    if f.few:
        lines += [
            f"⚠ **Few samples**: the total rests on {f.total_samples} samples; figures under "
            f"{FEW_ROUTINE_SAMPLES} samples are mostly noise (run longer, or sum several runs).",
            "",
        ]
    children = profile.seconds(r.prop_child_ticks)
    est = c.children_estimated_seconds
    if children > 0 and est > 0.0005 and c.split is not None:
        s = c.split
        who = profile.cycle(-s.callee).number if s.callee < 0 else None
        name = f"<cycle {who}>" if who else profile.routines[s.callee].display_name
        lines.append(
            f"**{est:.2f} s of {children:.2f} s** children time estimated: **{md.text(name)}** has "
            f"{s.callers} callers (gprof splits its time by call counts)."
        )
        lines.append("")
    elif children > 0:
        lines += ["Children time exact: every callee below has a single caller.", ""]
    return lines


def hover_markdown(
    profile: Profile, index: SourceIndex, rid: int, cert: ProfileCertainty | None = None
) -> str:
    """gprof's call-graph entry of routine `rid`: callers, the routine's line, callees; with `cert`,
    how sure the figures are (certainty_lines)."""
    r = profile.routines[rid]
    f = figures(profile, r)
    lines = [f"**{md.text(r.display_name)}**" + (f" · cycle {r.cycle}" if r.cycle else ""), ""]
    lines.append("| index | % time | self | children | called | name |")
    lines.append("|---|---:|---:|---:|---:|---|")
    parents = profile.parents[rid]
    if not parents:
        lines.append("| | | | | | *&lt;spontaneous&gt;* |")
    for pos in parents:
        arc = profile.arcs[pos]
        lines.append(_arc_row(profile, arc, profile.routines[arc.parent], index, parent_side=True))
    called = f.calls
    lines.append(
        f"| **[{r.index}]** | **{f.percent}%** | **{f.self_s}** | "
        f"**{profile.seconds(r.prop_child_ticks):.2f}** | **{called}** | **{_name(profile, r)}** |"
    )
    for pos in profile.children[rid]:
        arc = profile.arcs[pos]
        lines.append(_arc_row(profile, arc, profile.routines[arc.child], index, parent_side=False))
    lines.append("")
    children_s = f"{profile.seconds(r.prop_child_ticks):.2f}"
    lines.append(
        f"Total **{f.total_s} s** (self {f.self_s} s + children {children_s} s), {f.percent}% of the run"
        + (f", {f.calls} calls." if f.calls else "; never called (spontaneous).")
    )
    lines.append("")
    if cert is not None:
        lines += certainty_lines(profile, cert, rid)
    if r.cycle:
        cyc = profile.cycle(r.cycle)
        members = ", ".join(md.text(profile.routines[m].display_name) for m in cyc.member_order)
        lines.append(
            f"Member of **cycle {r.cycle}** ({members}): {profile.seconds(cyc.total_ticks):.2f} s as a whole, "
            f"{cyc.calls} calls from outside, {cyc.self_calls} between members."
        )
        lines.append("")
    ncalls = r.calls + r.self_calls
    if ncalls:
        per_self = duration(profile.seconds(r.self_ticks) / ncalls)
        per_total = duration(profile.seconds(r.self_ticks + r.child_ticks) / ncalls)
        lines.append(f"Per call: self {per_self}, total {per_total} ({ncalls} calls).")
        lines.append("")
    lines.append(ASSUMPTION)
    return "\n".join(lines)


def duration(seconds: float) -> str:
    """Seconds in the unit that reads best: `0`, `12.5 µs`, `3.2 ms`, `1.05 s` (3 significant digits)."""
    if seconds != seconds or seconds <= 0:
        return "0 s"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def instances_markdown(profile: Profile, rids: list[int], shown: int) -> str:
    """The head of a hover on a line declaring several routines (`rids`, hottest first): how many,
    and the figures of those past the first `shown` (whose entries follow in full)."""
    head = f"**{len(rids)} routines on this line**, hottest first"
    rest = [profile.routines[rid] for rid in rids[shown:]]
    if not rest:
        return head + "."
    rows = [f"| {f.self_s} | {f.calls} | {_name(profile, r)} |" for r in rest for f in [figures(profile, r)]]
    return "\n".join([f"{head}; the {shown} hottest in full below, the others:", "",
                      "| self | called | name |", "|---:|---:|---|", *rows])  # fmt: skip


def hover(markdown: str, line0: int) -> types.Hover:
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown),
        range=types.Range(types.Position(line0, 0), types.Position(line0 + 1, 0)),
    )


# ---- call hierarchy / symbols ----------------------------------------------------------------


def _fallback_place(profile: Profile, r: Routine, binary: str) -> Place:
    return Place(binary, False, 1, 0, r.display_name)


def call_item(
    profile: Profile, index: SourceIndex, rid: int, binary: str, generation: int, linked: bool = False
) -> types.CallHierarchyItem:
    """The call hierarchy's item of routine `rid`; `linked`: another routine's caller or callee,
    placed as a link is (`SourceIndex.link_place`)."""
    r = profile.routines[rid]
    place = (index.link_place(rid) if linked else index.place(rid)) or _fallback_place(profile, r, binary)
    f = figures(profile, r)
    rng = name_range(place)
    return types.CallHierarchyItem(
        name=r.display_name,
        kind=types.SymbolKind.Function,
        uri=uri_of(place.path),
        range=types.Range(rng.start, rng.end),
        selection_range=rng,
        detail=lens_title(DEFAULT_LENS_TITLE, f),
        data={"routine": rid, "generation": generation, "name": r.name},
    )


def arc_detail(profile: Profile, arc: Arc, estimated: bool | None = None) -> str:
    """The figures along an arc; `estimated` (certainty.estimated_arc) adds whether its time is
    gprof's split among several callers or exact (None: not said)."""
    if arc.is_static:
        return "static call (never counted)"
    text = (
        f"{arc.count} calls · {profile.seconds(arc.self_ticks):.2f} s self + "
        f"{profile.seconds(arc.child_ticks):.2f} s children"
    )
    if estimated is None or arc.is_self:
        return text
    return text + (" · estimated (callee has several callers)" if estimated else " · exact")


def call_ranges(sites: list[tuple[str, int]], in_path: str, fallback: types.Range) -> list[types.Range]:
    """Ranges of the call-site lines lying in `in_path` (the caller's file), else `fallback`."""
    key = os.path.realpath(in_path)
    out = [line_range(line) for path, line in sites if os.path.realpath(path) == key]
    return out or [fallback]


def incoming(
    item: types.CallHierarchyItem,
    arc: Arc,
    sites: list[tuple[str, int]],
    profile: Profile,
    estimated: bool | None = None,
) -> types.CallHierarchyIncomingCall:
    item.detail = arc_detail(profile, arc, estimated)
    path = uris.to_fs_path(item.uri) or ""
    return types.CallHierarchyIncomingCall(
        from_=item, from_ranges=call_ranges(sites, path, item.selection_range)
    )


def outgoing(
    item: types.CallHierarchyItem,
    arc: Arc,
    sites: list[tuple[str, int]],
    caller_path: str,
    caller_sel: types.Range,
    profile: Profile,
    estimated: bool | None = None,
) -> types.CallHierarchyOutgoingCall:
    item.detail = arc_detail(profile, arc, estimated)
    return types.CallHierarchyOutgoingCall(to=item, from_ranges=call_ranges(sites, caller_path, caller_sel))


def symbol(profile: Profile, rid: int, place: Place) -> types.WorkspaceSymbol:
    r = profile.routines[rid]
    f = figures(profile, r)
    return types.WorkspaceSymbol(
        name=r.display_name,
        kind=types.SymbolKind.Function,
        location=types.Location(uri=uri_of(place.path), range=name_range(place)),
        container_name=f"{f.percent}% · total {f.total_s} s",
    )


def hottest_entry(profile: Profile, r: Routine, place: Place | None) -> dict[str, Any]:
    base = profile.print_ticks if profile.print_ticks > 0 else 1.0
    return {
        "name": r.display_name,
        "selfSeconds": round(profile.seconds(r.prop_self_ticks), 6),
        "totalSeconds": round(profile.seconds(r.total_ticks), 6),
        "percent": round(100.0 * r.total_ticks / base, 3),
        "calls": figures(profile, r).calls,
        "uri": uri_of(place.path) if place else None,
        "line": max(place.line - 1, 0) if place else None,
    }


def message(kind: str, text: str) -> types.MessageType:
    return {"error": types.MessageType.Error, "warning": types.MessageType.Warning}.get(
        kind, types.MessageType.Info
    )


# ---- line heat -------------------------------------------------------------------------------


def _line_err(h: HotLine) -> float:
    """The line's standard error in seconds: sqrt(samples) x period = seconds / sqrt(samples)."""
    return h.seconds / h.samples**0.5 if h.samples > 0 else 0.0


def heat_label(template: str, h: HotLine) -> str:
    """Fill the line-heat label template (seconds with two decimals, percent with one; `{err}` the
    standard error in seconds, `{samples}` the line's samples, `{few}` " · few samples" under 10)."""
    values = {"seconds": f"{h.seconds:.2f}", "percent": f"{h.percent:.1f}", "routine": h.routine,
              "line": str(h.line), "err": f"{_line_err(h):.2f}", "samples": f"{h.samples:.0f}",
              "few": FEW_MARK if 0 < h.samples < FEW_ROUTINE_SAMPLES else ""}  # fmt: skip
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError):
        return DEFAULT_LINE_HEAT_LABEL.format(**values)


def heat_tooltip(h: HotLine) -> str:
    text = (
        f"Line samples: {h.seconds:.2f} ± {_line_err(h):.2f} s ({h.samples:.0f} samples), "
        f"{h.percent:.1f}% of the total time, in {h.routine}"
    )
    if len(h.routines) > 1:
        text += " (" + ", ".join(f"{name} {s:.2f} s" for name, s in h.routines) + ")"
    return text


def inlay_hint(h: HotLine, line_text: str, template: str) -> types.InlayHint:
    """A hint after the end of 1-based line `h.line` (whose text is `line_text`)."""
    return types.InlayHint(
        position=types.Position(max(h.line - 1, 0), _utf16(line_text)),
        label=heat_label(template, h),
        padding_left=True,
        tooltip=heat_tooltip(h),
    )


def line_heat_result(uri: str, heat: HeatIndex, file_heat: FileHeat | None) -> dict[str, Any]:
    """The `gmonlens/lineHeat` result (PROTOCOL.md): every line of the file with time."""
    return {
        "uri": uri,
        "totalSeconds": round(heat.total_seconds, 6),
        "lines": [
            {
                "line": h.line - 1,
                "seconds": round(h.seconds, 6),
                "percent": round(h.percent, 4),
                "routine": h.routine,
                "routines": [{"name": n, "seconds": round(s, 6)} for n, s in h.routines],
                "samples": round(h.samples, 3),
                "errSeconds": round(_line_err(h), 6),
            }
            for h in (file_heat.lines if file_heat else ())
        ],
    }


def inlined_markdown(name: str, copies: InlinedCopies, profile: Profile, index: SourceIndex) -> str:
    """Where the inlined copies of `name` were sampled (line samples, not call-graph figures)."""
    total = profile.total_ticks if profile.total_ticks > 0 else 1.0
    lines = [
        f"**{md.text(name)}**, inlined: {profile.seconds(copies.ticks):.2f} s of line samples in its inlined "
        f"copies ({100.0 * copies.ticks / total:.1f}% of the total time), in:",
        "",
    ]
    for rid, ticks in copies.callers:
        r = profile.routines[rid]
        lines.append(f"- {location_link(r.display_name, index.place(rid))}: {profile.seconds(ticks):.2f} s")
    lines.append("")
    lines.append(
        "*Line samples: histogram samples on the inlined code's lines. gprof's call graph counts "
        "them in the routines listed, not as calls.*"
    )
    return "\n".join(lines)
