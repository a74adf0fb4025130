"""Profile -> callgrind format (read by callgrind_annotate, KCachegrind, QCachegrind).

One event, `us`: time in microseconds (gprof's samples x 1,000,000 / hz, rounded per routine and
split over its lines by largest remainder, so each function's self cost is gprof's self seconds and
the total is gprof's total time). Per-line self cost comes from the histogram (`line_heat`); each
counted arc is a `cfn=`/`calls=` pair at the line of its call instruction, with the arc's inclusive
cost as gprof propagates it (callee self + children time along the arc: an estimate by call counts).
Calls inside a cycle carry no time, as in gprof, and a comment line names each of gprof's cycles
with its members; the callee's `calls=` target is its entry line.
Files are the DWARF paths, remapped with `source_map`. Names are compressed (`(id) name`).
"""

from __future__ import annotations

from collections.abc import Mapping

from gmonlens import __version__
from gmonlens.common.model import Profile
from gmonlens.output.export_common import (
    UNATTRIBUTED,
    LineData,
    apportion,
    exported_arcs,
    exported_routines,
    remap,
    to_units,
    unattributed_ticks,
)

US = 1_000_000


class _Names:
    """callgrind name compression: the first use of a name defines `(id) name`, later uses `(id)`."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def __call__(self, name: str) -> str:
        i = self.ids.get(name)
        if i is not None:
            return f"({i})"
        i = self.ids[name] = len(self.ids) + 1
        return f"({i}) {name}"


def to_callgrind(
    p: Profile,
    lines: LineData,
    *,
    command: str = "",
    demangle: bool = True,
    source_map: Mapping[str, str] | None = None,
) -> str:
    files, fns = _Names(), _Names()
    routines = p.routines

    def fname(rid: int) -> str:
        r = routines[rid]
        return r.display_name if demangle else r.name

    def path(f: str | None) -> str:
        return remap(f, source_map) or "???"

    arcs = exported_arcs(p)
    by_parent: dict[int, list[int]] = {}
    for i in arcs:
        by_parent.setdefault(p.arcs[i].parent, []).append(i)
    body: list[str] = []
    total = 0
    for rid in exported_routines(p, arcs):
        r = routines[rid]
        entry_file, entry_line = lines.entries.get(rid, (r.file, r.line))
        fl = path(entry_file)
        body.append(f"\nfl={files(fl)}\nfn={fns(fname(rid))}\n")
        cur = fl
        # self cost per line (lines of other files, e.g. inlined headers, under fi=)
        own = sorted(lines.self_lines.get(rid, {}).items(), key=lambda kv: (path(kv[0][0]) != fl, kv[0][1]))
        cost = to_units(p, r.self_ticks, US)
        total += cost
        rows: list[tuple[str, int, int]] = []
        if own:
            for ((f, ln), _t), c in zip(own, apportion(cost, [t for _k, t in own]), strict=True):
                rows.append((path(f), ln, c))
        elif cost:
            rows.append((fl, entry_line, cost))
        else:
            rows.append((fl, entry_line, 0))
        for f, ln, c in sorted(rows, key=lambda row: (row[0] != fl, row[0], row[1])):
            if f != cur:
                body.append(f"{'fe' if f == fl else 'fi'}={files(f)}\n")
                cur = f
            body.append(f"{ln} {c}\n")
        for i in by_parent.get(rid, []):
            a = p.arcs[i]
            ce_file, ce_line = lines.entries.get(a.child, (routines[a.child].file, routines[a.child].line))
            sites = lines.sites.get(i) or (((None, 0), a.count),)
            incl = apportion(to_units(p, a.self_ticks + a.child_ticks, US), [c for _k, c in sites])
            for ((sf, sl), count), c in zip(sites, incl, strict=True):
                site_file = path(sf) if sf is not None else fl
                if site_file != cur:
                    body.append(f"{'fe' if site_file == fl else 'fi'}={files(site_file)}\n")
                    cur = site_file
                body.append(f"cfi={files(path(ce_file))}\ncfn={fns(fname(a.child))}\n")
                body.append(f"calls={count} {ce_line}\n{sl} {c}\n")
    rest = to_units(p, unattributed_ticks(p), US)
    if rest:
        total += rest
        body.append(f"\nfl={files('???')}\nfn={fns(UNATTRIBUTED)}\n0 {rest}\n")
    per_tick = US / p.hz if p.hz else 0
    head = [
        "# callgrind format\n",
        "version: 1\n",
        f"creator: gmonlens {__version__} (from gprof data)\n",
        f"cmd: {command}\n" if command else "",
        "positions: line\n",
        f"event: us : Time (microseconds; one gprof sample = {per_tick:g} us)\n",
        "events: us\n",
        f"summary: {total}\n",
        *(f"# gprof <cycle {c.number}>: {', '.join(fname(m) for m in c.member_order)}\n" for c in p.cycles),
    ]
    return "".join(head) + "".join(body) + f"\ntotals: {total}\n"
