"""`-T`: gprof's traditional (BSD) layout of the flat profile and the index, byte for byte.

Observed on gprof 2.40 (`-b -T`), beside the GNU layout of report.py (both over report_format.py):
- Order: call graph, flat profile, index. The call graph has no title, a three-line header and a
  blank line around each separator, and an 11-wide children column (report.call_graph).
- The flat profile opens with the granularity line, taken on the flat total
  (`for P% of S seconds`, or `no time accumulated`), has no "Each sample counts" line, prints
  percent as `%5.1f` and cumulative seconds as `%10.2f`, always in `ms/call`, and names carry the
  cycle tag and `[index]` as in the call graph (bare names when the profile has no arcs at all:
  then nothing is numbered; seen on -O2 programs whose calls were all inlined).
- Names are never demangled (whatever --demangle says).
- The index is three cells per row, each `%6.6s %-19.19s` (`[index]` and the name cut to 19
  characters, blanks kept), whatever `-w` says; bare raw names: no ` (file)` suffix for static
  routines, no -l suffix (the flat profile and call graph have it).
"""

from __future__ import annotations

from gmonlens.common.model import Profile
from gmonlens.output.report_format import (
    ReportOptions,
    c_seconds,
    flat_order,
    printf_f,
    routine_name,
    routine_ref,
)


def flat_profile_bsd(p: Profile, opts: ReportOptions) -> str:
    hz = p.hz
    total = p.total_ticks
    out = ["\ngranularity: each sample hit covers %d byte(s)" % (int(p.scale) * 2)]
    if total > 0:
        out.append(" for %.2f%% of %.2f seconds\n\n" % (100.0 / total, c_seconds(total, hz)))
    else:
        out.append(" no time accumulated\n\n")
        total = 1.0
    dim, unit = p.dimension, "ms/call"
    out.append(
        "%5.5s %10.10s %8.8s %8.8s %8.8s %8.8s  %-8.8s\n"
        % ("%  ", "cumulative", "self  ", "", "self  ", "total ", "")
    )
    out.append(
        "%5.5s %9.9s  %8.8s %8.8s %8.8s %8.8s  %-8.8s\n" % ("time", dim, dim, "calls", unit, unit, "name")
    )
    accum = 0.0
    for r in flat_order(p):
        if not r.in_flat or (not opts.zero and r.calls == 0 and r.self_ticks == 0):
            continue
        accum += r.self_ticks
        line = "%s %s %s" % (
            printf_f("5.1", 100 * r.self_ticks / total),
            printf_f("10.2", c_seconds(accum, hz)),
            printf_f("8.2", c_seconds(r.self_ticks, hz)),
        )
        if r.calls:
            line += " %8d %s %s  " % (
                r.calls,
                printf_f("8.2", c_seconds(1000.0 * r.self_ticks, hz) / r.calls),
                printf_f("8.2", c_seconds(1000.0 * (r.self_ticks + r.child_ticks), hz) / r.calls),
            )
        else:
            line += " %8.8s %8.8s %8.8s  " % ("", "", "")
        out.append(line + (routine_ref(r, opts) if p.has_call_graph else routine_name(r, opts)) + "\n")
    return "".join(out)


def index_bsd(p: Profile, opts: ReportOptions) -> str:
    cells: list[str] = []
    rs = [r for r in p.routines if opts.zero or r.calls != 0 or r.self_ticks != 0]
    rs.sort(key=lambda r: r.name.encode("utf-8", "surrogateescape"))
    for r in rs:
        cells.append("%6.6s %-19.19s" % (("[%d]" if r.printed else "(%d)") % r.index, r.name))
    for c in p.cycles:
        cells.append(
            "%6.6s %-19.19s" % (("[%d]" if c.printed else "(%d)") % c.index, "<cycle %d>" % c.number)
        )
    rows = (len(cells) + 2) // 3
    out = ["Index by function name\n\n"]
    for i in range(rows):
        out.append("".join(cells[j] for j in (i, i + rows, i + 2 * rows) if j < len(cells)) + "\n")
    return "".join(out)
