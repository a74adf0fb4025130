"""Profile -> the text `gprof -b` prints (GNU style, §9), byte for byte."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from gmonlens.common.model import ArcTable, Cycle, GraphOrder, Profile, Routine, as_table

# ReportOptions and flat_order are part of this module's API too (re-exported)
from gmonlens.output.report_format import ReportOptions as ReportOptions
from gmonlens.output.report_format import c_seconds, printf_f, routine_name, routine_ref, static_label
from gmonlens.output.report_format import flat_order as flat_order

DASHES = "-" * 47 + "\n"
# -T: three header lines (the middle one with a tab) and a blank line before the first entry
GRAPH_HEADER_BSD = (
    "%34s%s\n" % ("", "called/total       parents ")
    + "index  %time    self descendants  called+self    name    \tindex\n"
    + "%34s%s\n\n" % ("", "called/total       children")
)
_PREFIXES = (
    ("T", 1e-12),
    ("G", 1e-09),
    ("M", 1e-06),
    ("K", 1e-03),
    (" ", 1.0),
    ("m", 1e03),
    ("u", 1e06),
    ("n", 1e09),
    ("p", 1e12),
    ("f", 1e15),
    ("a", 1e18),
)


def render_text(profile: Profile, opts: ReportOptions) -> str:
    """The brief report: flat profile, call graph and index as selected."""
    return "".join(render_chunks(profile, opts))


def render_chunks(profile: Profile, opts: ReportOptions) -> Iterator[str]:
    """`render_text`'s text in pieces, in order (each section computed when reached; the call
    graph an entry at a time), for writing a large report without holding it whole."""
    sections: list[Callable[[], Iterable[str]]] = []
    if opts.traditional:  # -T: graph, flat, index in the BSD layout
        from gmonlens.output.report_bsd import flat_profile_bsd, index_bsd

        if opts.graph:
            sections.append(lambda: call_graph_chunks(profile, opts))
        if opts.flat:
            sections.append(lambda: (flat_profile_bsd(profile, opts),))
        if opts.graph:
            sections.append(lambda: (index_bsd(profile, opts),))
    else:
        if opts.flat:
            sections.append(lambda: (flat_profile(profile, opts),))
        if opts.graph:
            sections.append(lambda: call_graph_chunks(profile, opts))
            sections.append(lambda: (index_by_name(profile, opts),))
    if opts.exec_counts:
        from gmonlens.output.exec_counts import exec_counts, selected

        chosen = selected(profile, opts.exec_include, opts.exec_exclude, opts.source_files)
        sections.append(lambda: (exec_counts(profile, chosen, opts.zero),))
    for i, section in enumerate(sections):
        if i:
            yield "\f\n"
        yield from section()


def call_unit(p: Profile, order: list[Routine]) -> tuple[str, float]:
    """§9.2: the per-call unit (`ms/call`, `Ts/call`, ...) and its scale."""
    best = None
    for r in order:
        if r.calls:
            v = (r.self_ticks + r.child_ticks) / r.calls
            if best is None or v > best:
                best = v
    prefix, scale = _PREFIXES[0]
    if best is not None and best > 0:
        value = c_seconds(best, p.hz)
        for pf, sc in _PREFIXES:
            if 1 <= sc * value < 1000:
                prefix, scale = pf, sc
                break
    return prefix + p.dimension_abbrev + "/call", scale


def flat_profile(p: Profile, opts: ReportOptions) -> str:
    hz = p.hz
    out = ["Flat profile:\n\n", "Each sample counts as %g %s.\n" % (c_seconds(1.0, hz), p.dimension)]
    total = p.total_ticks
    if total <= 0:
        out.append(" no time accumulated\n\n")
        total = 1.0
    order = flat_order(p, with_figures=not opts.zero)  # call_unit reads only routines with calls
    unit, scale = call_unit(p, order)
    dim = p.dimension
    out.append(
        "%5.5s %10.10s %8.8s %8.8s %8.8s %8.8s  %-8.8s\n"
        % ("%  ", "cumulative", "self  ", "", "self  ", "total ", "")
    )
    out.append(
        "%5.5s %9.9s  %8.8s %8.8s %8.8s %8.8s  %-8.8s\n" % ("time", dim, dim, "calls", unit, unit, "name")
    )
    accum = 0.0
    for r in order:
        if not r.in_flat:
            continue
        if not opts.zero and r.calls == 0 and r.self_ticks == 0:
            continue
        accum += r.self_ticks
        line = "%s %s %s" % (
            printf_f("6.2", 100 * r.self_ticks / total),
            printf_f("9.2", c_seconds(accum, hz)),
            printf_f("8.2", c_seconds(r.self_ticks, hz)),
        )
        if r.calls:
            line += " %8d %s %s  " % (
                r.calls,
                printf_f("8.2", c_seconds(scale * r.self_ticks, hz) / r.calls),
                printf_f("8.2", c_seconds(scale * (r.self_ticks + r.child_ticks), hz) / r.calls),
            )
        else:
            line += " %8.8s %8.8s %8.8s  " % ("", "", "")
        out.append(line + routine_name(r, opts) + "\n")
    return "".join(out)


_Ref = Callable[[Routine], str]  # a routine's name as the call graph shows it (`routine_ref`)


def _arc_line(
    p: Profile, t: ArcTable, a: int, other: Routine, callee: Routine, opts: ReportOptions, ref: _Ref
) -> str:
    """The line of arc `a` (a position in `t`, the profile's arcs) in an entry: `other` is the
    routine named (the parent above the entry's line, the child below), `callee` the arc's."""
    parent, child, count = t.parent[a], t.child[a], t.counts[a]
    routines = p.routines
    in_cycle = parent == child or (
        routines[parent].cycle != 0 and routines[parent].cycle == routines[child].cycle
    )
    if in_cycle:
        head = "%6.6s %5.5s %7.7s %*.*s %7d %7.7s     " % (
            "",
            "",
            "",
            int(opts.cw),
            int(opts.cw),
            "",
            count,
            "",
        )
    else:
        tot = p.cycle(callee.cycle).calls if callee.cycle else callee.calls
        head = "%6.6s %5.5s %s %s %7d/%-7d     " % (
            "",
            "",
            printf_f("7.2", c_seconds(t.self_ticks[a], p.hz)),
            printf_f(opts.cw + ".2", c_seconds(t.child_ticks[a], p.hz)),
            count,
            tot,
        )
    return head + ref(other) + "\n"


def _cycle_entry(p: Profile, c: Cycle, opts: ReportOptions, print_ticks: float, ref: _Ref) -> list[str]:
    """A cycle's call-graph entry (`<cycle N as a whole>` and its members); [] when not printed."""
    if (
        opts.lines
        or not c.printed
        or (  # -l: no cycle entries either
            not opts.zero
            and c.calls == 0
            and c.self_calls == 0
            and c.prop_self_ticks == 0
            and c.prop_child_ticks == 0
        )
    ):
        return []
    hz = p.hz
    line = "%-6.6s %s %s %s %7d" % (
        "[%d]" % c.index,
        printf_f("5.1", 100 * c.total_ticks / print_ticks),
        printf_f("7.2", c_seconds(c.prop_self_ticks, hz)),
        printf_f(opts.cw + ".2", c_seconds(c.prop_child_ticks, hz)),
        c.calls,
    )
    line += ("+%-7d" % c.self_calls) if c.self_calls else " %7.7s" % ""
    out = [line + " <cycle %d as a whole> [%d]\n" % (c.number, c.index)]
    for m in c.member_order:
        r = p.routines[m]
        line = "%6.6s %5.5s %s %s %7d" % (
            "",
            "",
            printf_f("7.2", c_seconds(r.prop_self_ticks, hz)),
            printf_f(opts.cw + ".2", c_seconds(r.prop_child_ticks, hz)),
            r.calls,
        )
        line += ("+%-7d" % r.self_calls) if r.self_calls else " %7.7s" % ""
        out.append(line + "     " + ref(r) + "\n")
    return out


def _routine_entry(
    p: Profile, t: ArcTable, r: Routine, opts: ReportOptions, print_ticks: float, ref: _Ref
) -> list[str]:
    """A routine's call-graph entry (parents, the routine, children); [] when not printed."""
    # -l: only functions get an entry (line symbols and non-function routines like `etext`
    # are numbered and indexed, never printed)
    if (
        (opts.lines and not r.is_function)
        or not r.printed
        or (
            not opts.zero
            and r.calls == 0
            and r.self_calls == 0
            and r.prop_self_ticks == 0
            and r.prop_child_ticks == 0
        )
    ):
        return []
    hz, routines = p.hz, p.routines
    out = []
    parents = p.parents[r.id]
    if not parents:
        out.append(" " * (42 + int(opts.cw)) + "<spontaneous>\n")
    for ai in parents:
        out.append(_arc_line(p, t, ai, routines[t.parent[ai]], r, opts, ref))
    line = "%-6.6s %s %s %s" % (
        "[%d]" % r.index,
        printf_f("5.1", 100 * r.total_ticks / print_ticks),
        printf_f("7.2", c_seconds(r.prop_self_ticks, hz)),
        printf_f(opts.cw + ".2", c_seconds(r.prop_child_ticks, hz)),
    )
    if r.calls + r.self_calls:
        line += " %7d" % r.calls
        line += ("+%-7d " % r.self_calls) if r.self_calls else " %7.7s " % ""
    else:
        line += " %7.7s %7.7s " % ("", "")
    out.append(line + ref(r) + "\n")
    for ai in p.children[r.id]:
        child = routines[t.child[ai]]
        out.append(_arc_line(p, t, ai, child, child, opts, ref))
    place = p.indirect_children.get(r.id)
    if place is not None:  # MIPS -c: the routine has a `jalr`
        head = "%6.6s %5.5s %s %s %7d/%-7d     " % (
            "",
            "",
            printf_f("7.2", 0.0),
            printf_f(opts.cw + ".2", 0.0),
            0,
            0,
        )
        out.insert(len(out) - len(p.children[r.id]) + place, head + "<indirect child>\n")
    return out


def call_graph(p: Profile, opts: ReportOptions) -> str:
    """§9.3: the call graph: granularity line, header, an entry per printed routine and cycle."""
    return "".join(call_graph_chunks(p, opts))


def call_graph_chunks(p: Profile, opts: ReportOptions) -> Iterator[str]:
    """`call_graph`'s text in pieces (the heading, then one piece per entry with its separator),
    so that a large graph can be written without being held whole."""
    print_ticks = p.print_ticks
    out = [] if opts.traditional else ["\t\t\tCall graph\n\n"]
    gran = "\ngranularity: each sample hit covers %d byte(s)" % (int(p.scale) * 2)
    if print_ticks > 0:
        gran += " for %.2f%% of %.2f seconds\n\n" % (100.0 / print_ticks, c_seconds(print_ticks, p.hz))
    else:
        gran += " no time propagated\n\n"
        print_ticks = 1.0
    out.append(gran)
    out.append(
        GRAPH_HEADER_BSD if opts.traditional else "index % time    self  children    called     name\n"
    )
    yield "".join(out)
    sep = "\n" + DASHES + "\n" if opts.traditional else DASHES
    t = as_table(p.arcs)
    refs: list[str | None] = [None] * len(p.routines)

    def ref(r: Routine) -> str:  # each routine is named in several entries: formatted once
        s = refs[r.id]
        if s is None:
            s = refs[r.id] = routine_ref(r, opts)
        return s

    order = p.graph_order
    codes = order.codes if isinstance(order, GraphOrder) else GraphOrder(order).codes
    routines, lines_only_functions = p.routines, opts.lines
    for code in codes:  # a routine id, or -N for cycle N
        if code < 0:
            lines = _cycle_entry(p, p.cycle(-code), opts, print_ticks, ref)
        elif lines_only_functions and not routines[code].is_function:
            continue  # -l's line symbols: `_routine_entry` prints none (asked of each here: many)
        else:
            lines = _routine_entry(p, t, routines[code], opts, print_ticks, ref)
        if lines:
            lines.append(sep)
            yield "".join(lines)


def index_by_name(p: Profile, opts: ReportOptions) -> str:
    """§9.4: three columns of `[index] name`, routines by raw name then cycles."""
    items: list[tuple[str, str]] = []
    rs = [r for r in p.routines if opts.zero or r.calls != 0 or r.self_ticks != 0]
    rs.sort(key=lambda r: r.name.encode("utf-8", "surrogateescape"))
    for r in rs:
        name = routine_name(r, opts)
        if not opts.lines:
            name += static_label(r, opts.full_paths)
        items.append((("[%d]" if r.printed else "(%d)") % r.index, name))
    for c in p.cycles:
        items.append((("[%d]" if c.printed else "(%d)") % c.index, "<cycle %d>" % c.number))
    out = ["Index by function name\n\n"]
    total = len(items)
    rows = (total + 2) // 3
    colw = (opts.width - 1) // 3
    for i in range(rows):
        col = start = 0
        line: list[str] = []
        for j in (i, i + rows, i + 2 * rows):
            if j >= total:
                break
            buf, name = items[j]
            col += len(buf)
            if col < start + 5:
                line.append(" " * (start + 5 - col))
                col = start + 5
            line.append(" " + buf + " " + name)
            col += len(name)
            start += colw
        out.append("".join(line) + "\n")
    return "".join(out)
