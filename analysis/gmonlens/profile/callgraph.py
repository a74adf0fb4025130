"""Arcs, cycles and time propagation: a symbol table and gmon data in, a frozen Profile out (§5-§8).

Each step follows gprof-behaviour.md in the order it gives, because the last bits of the doubles
decide ties and `%.2f` rounding. Lists are kept in creation order; gprof's newest-first lists are
those lists reversed.
"""

from __future__ import annotations

import threading
from array import array
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import compress, islice, pairwise
from operator import ne

from gmonlens.common.model import (
    INDIRECT_CHILD,
    ArcTable,
    Cycle,
    GmonData,
    GraphOrder,
    Groups,
    LazyGroups,
    Profile,
    Routine,
    columns,
)
from gmonlens.common.options import Tables
from gmonlens.common.slicesort import SLICE, sorted_in_slices
from gmonlens.profile.cycles import dfn_order_grouped
from gmonlens.profile.histogram import assign_samples
from gmonlens.profile.symbols import SymbolTable


class _Arcs:
    """The tallied arcs (§5.1) as columns, position = creation order: caller and callee routine
    ids, counts, whether found only in the code (-c), the call sites (`sites`: one return address
    and count in `site_pc`/`site_count`, all of them in `more_sites` for an arc recorded from
    several), and the ticks propagated along each (`time`, `ctime`, set by `_propagate`). A few
    dozen bytes an arc, where an object with a dict of sites took several hundred."""

    __slots__ = ("child", "count", "ctime", "more_sites", "parent", "site_count", "site_pc", "static", "time")

    def __init__(self) -> None:
        self.parent, self.child = array("q"), array("q")
        self.count: list[int] = []
        self.static = bytearray()
        self.site_pc = array("Q")
        self.site_count: list[int] = []
        self.more_sites: dict[int, dict[int, int]] = {}
        self.time, self.ctime = array("d"), array("d")

    def __len__(self) -> int:
        return len(self.count)

    def add_static(self, p: int, c: int) -> None:
        """A count-0 arc found in the code: no call site, no time."""
        self.parent.append(p)
        self.child.append(c)
        self.count.append(0)
        self.site_pc.append(0)
        self.site_count.append(0)
        self.static.append(1)

    def sites(self, i: int) -> tuple[tuple[int, int], ...]:
        """Arc i's (return address, count) pairs in the order first recorded."""
        more = self.more_sites.get(i)
        if more is not None:
            return tuple(more.items())
        return () if self.static[i] else ((self.site_pc[i], self.site_count[i]),)


def _func_at(symtab: SymbolTable) -> list[int]:
    """Each routine's position, or for a non-function symbol the last function's before it."""
    out: list[int] = []
    last_func = -1
    for i, s in enumerate(symtab.symbols):
        if s.is_function:
            last_func = i
        out.append(i if s.is_function else (last_func if last_func >= 0 else i))
    return out


def _tally(symtab: SymbolTable, gmon: GmonData, tables: Tables) -> tuple[_Arcs, list[int], int]:
    """§5.1: arcs summed by (caller, callee); returns (arcs in creation order, ncalls, dropped)."""
    n = len(symtab.symbols)
    func_at = _func_at(symtab)
    ncalls = [0] * n
    arcs = _Arcs()
    parent, child, count, site_pc, site_count, more = (
        arcs.parent, arcs.child, arcs.count, arcs.site_pc, arcs.site_count, arcs.more_sites
    )  # fmt: skip
    by_key: dict[int, int] = {}
    callee_at: dict[int, int] = {}  # callee pcs repeat (one per callee); return addresses rarely
    addresses, ends = symtab.addresses, [s.end_address for s in symtab.symbols]
    dropped = 0
    check = bool(tables.incl_arcs or tables.excl_arcs)
    for frm, slf, cnt in zip(*columns(gmon.arcs), strict=True):
        p = bisect_right(addresses, frm) - 1
        if p >= 0 and frm > ends[p]:
            p = -1
        c = callee_at.get(slf)
        if c is None:
            c = bisect_right(addresses, slf) - 1
            c = callee_at[slf] = -1 if c < 0 or slf > ends[c] else func_at[c]
        if p < 0 or c < 0:
            dropped += 1
            continue
        if check and not tables.arc_allowed(p, c):
            continue
        ncalls[c] += cnt
        key = p * n + c
        i = by_key.get(key)
        if i is None:
            by_key[key] = len(count)
            parent.append(p)
            child.append(c)
            count.append(cnt)
            site_pc.append(frm)
            site_count.append(cnt)
            continue
        count[i] += cnt
        sites = more.get(i)
        if sites is None:
            if site_pc[i] == frm:
                site_count[i] += cnt
                continue
            sites = more[i] = {site_pc[i]: site_count[i]}
        sites[frm] = sites.get(frm, 0) + cnt
    arcs.static = bytearray(len(count))
    return arcs, ncalls, dropped


def _arc_table(arcs: _Arcs) -> ArcTable:
    """The tallied arcs as the profile's `ArcTable` (columns taken over, sites grouped by arc)."""
    out = ArcTable()
    out.parent, out.child, out.counts = arcs.parent, arcs.child, arcs.count
    out.self_ticks, out.child_ticks, out.static = arcs.time, arcs.ctime, arcs.static
    if not arcs.more_sites and not any(arcs.static):  # one site an arc: the columns as they are
        out.site_at = array("q", range(len(arcs) + 1))
        out.site_pc, out.site_count = arcs.site_pc, arcs.site_count
        return out
    at, pcs, counts = out.site_at, out.site_pc, out.site_count
    for i in range(len(arcs)):
        for pc, n in arcs.sites(i):
            pcs.append(pc)
            counts.append(n)
        at.append(len(pcs))
    return out


@dataclass(frozen=True, slots=True)
class _Graph:
    """§5: the tallied arcs (creation order) and each routine's arcs as children (`kids`) and as
    parents (`folks`) in creation order, grouped (`Groups.by_key`): routine r's children arcs are
    kids[kid_at[r]:kid_at[r + 1]]. `ncalls` counts calls from other routines (self arcs taken
    out), `self_calls` the self arc's count; `dropped` arc records land outside every routine."""

    arcs: _Arcs
    kid_at: array[int]
    kids: array[int]
    folk_at: array[int]
    folks: array[int]
    ncalls: list[int]
    self_calls: list[int]
    dropped: int
    indirect: dict[int, int] = field(default_factory=dict)  # caller -> `<indirect child>`'s rank


@dataclass(frozen=True, slots=True)
class _Cycles:
    """§6: dfn's numbering and the cycles. Cycle k (1-based) has `chains[k]`, head first."""

    top: list[int]  # topological number of each routine (callees lower; a cycle's members share one)
    cycle_of: list[int]  # each routine's cycle number, 0 outside cycles
    chains: list[list[int]]  # chains[0] is empty
    calls: list[int]  # calls into cycle k from outside it
    self_calls: list[int]  # calls between members of cycle k, self arcs excluded

    @property
    def count(self) -> int:
        return len(self.chains) - 1


@dataclass(frozen=True, slots=True)
class _Fractions:
    """§7.1: print flags and time fractions of routines (`flag`, `fract`) and cycles (`cflag`,
    `cfract`), each routine's self ticks scaled by its fraction (`pself`) and their sum."""

    flag: list[bool]
    fract: list[float]
    pself: list[float]
    cflag: list[bool]
    cfract: list[float]
    print_time: float


@dataclass(frozen=True, slots=True)
class _Times:
    """§7.2-§7.3: ticks received from callees by routines and cycles, unscaled (`child_time`,
    `c_child_time`) and scaled by the caller's fraction (`pchild`, `c_pchild`); each cycle's self
    ticks (`ctime`) and its scaled share (`cpself`)."""

    ctime: list[float]
    cpself: list[float]
    child_time: list[float]
    pchild: list[float]
    c_child_time: list[float]
    c_pchild: list[float]


def _link(
    symtab: SymbolTable, gmon: GmonData, tables: Tables, static_arcs: Sequence[tuple[int, int]]
) -> _Graph:
    """§5: tally the arc records, add the static arcs (-c) not recorded as count-0 arcs, link each
    routine to its arcs and take recursive calls out of the call counts."""
    n = len(symtab.symbols)
    arcs, ncalls, dropped = _tally(symtab, gmon, tables)
    indirect: dict[int, int] = {}  # its rank: it sorts as if made just before arc number `rank`
    if static_arcs:
        keys = {p * n + c for p, c in zip(arcs.parent, arcs.child, strict=True)}
        for p, c in static_arcs:
            if c == INDIRECT_CHILD:
                indirect.setdefault(p, len(arcs))
            elif p * n + c not in keys:
                keys.add(p * n + c)
                arcs.add_static(p, c)
    arcs.time = array("d", bytes(8 * len(arcs)))
    arcs.ctime = array("d", bytes(8 * len(arcs)))
    by_parent, by_child = Groups.by_key(arcs.parent, n), Groups.by_key(arcs.child, n)
    kid_at, kids, folk_at, folks = by_parent.at, by_parent.ids, by_child.at, by_child.ids
    self_calls = _recursion(arcs, ncalls, n)
    return _Graph(arcs, kid_at, kids, folk_at, folks, ncalls, self_calls, dropped, indirect)


def _recursion(arcs: _Arcs, ncalls: list[int], n: int) -> list[int]:
    """§5.2: each routine's self-arc count (returned), taken out of its `ncalls` (in place)."""
    self_calls = [0] * n
    for p, c, k in zip(arcs.parent, arcs.child, arcs.count, strict=True):
        if p == c:
            ncalls[p] -= k
            self_calls[p] = k
    return self_calls


def _find_cycles(g: _Graph, n: int) -> _Cycles:
    """§6: dfn over the children in gprof's (newest-first) order; cycles numbered by their heads'
    address order; the calls into each cycle and between its members."""
    child, parent, count = g.arcs.child, g.arcs.parent, g.arcs.count
    # dfn walks each routine's children newest first
    at, kids = g.kid_at, g.kids
    newest_first = array("q")
    for p in compress(range(n), map(ne, at, islice(at, 1, None))):  # the routines with children
        newest_first.extend([child[kids[j]] for j in range(at[p + 1] - 1, at[p] - 1, -1)])
    top, head, nxt = dfn_order_grouped(at, newest_first)
    cycle_of = [0] * n
    chains: list[list[int]] = [[]]
    for i in range(n):
        if head[i] == i and nxt[i] != -1:
            chain = []
            q = i
            while q != -1:
                chain.append(q)
                cycle_of[q] = len(chains)
                q = nxt[q]
            chains.append(chain)
    ncyc = len(chains) - 1
    cyc_calls, cyc_self_calls = [0] * (ncyc + 1), [0] * (ncyc + 1)
    for k in range(1, ncyc + 1):
        for m in chains[k]:
            for a in g.folks[g.folk_at[m] : g.folk_at[m + 1]]:
                q = parent[a]
                if q == m:
                    continue
                if cycle_of[q] == k:
                    cyc_self_calls[k] += count[a]
                else:
                    cyc_calls[k] += count[a]
    return _Cycles(top, cycle_of, chains, cyc_calls, cyc_self_calls)


def _inherit(g: _Graph, cy: _Cycles, s: int, flag: list[bool], fract: list[float]) -> tuple[bool, float]:
    """§7.1: the print flag and time fraction routine `s` (or, for a cycle member, its whole
    cycle) inherits from its callers outside the cycle, callers newest first."""
    k = cy.cycle_of[s]
    cycle_of, parent, count, folk_at, folks = cy.cycle_of, g.arcs.parent, g.arcs.count, g.folk_at, g.folks
    f, fr = False, 0.0
    if k:
        cn = cy.calls[k]
        for m in cy.chains[k]:
            for j in range(folk_at[m + 1] - 1, folk_at[m] - 1, -1):
                a = folks[j]
                q = parent[a]
                if cycle_of[q] != k:
                    f = f or flag[q]
                    if cn != 0:
                        fr += fract[q] * (count[a] / cn)
        return f, fr
    cn = g.ncalls[s]
    for j in range(folk_at[s + 1] - 1, folk_at[s] - 1, -1):
        a = folks[j]
        q = parent[a]
        if q == s:
            continue
        f = f or flag[q]
        if cn != 0:
            fr += fract[q] * (count[a] / cn)
    return f, fr


def _flags_and_fractions(
    g: _Graph, cy: _Cycles, tables: Tables, time: Sequence[float], order: Sequence[int]
) -> _Fractions:
    """§7.1: callers first (`order` reversed), each routine (a cycle once, at its first member)
    inherits flag and fraction from its callers, then -f/-e/-q/-Q and -F/-E/-n/-N override them."""
    n, ncyc = len(time), cy.count
    cycle_of, chains = cy.cycle_of, cy.chains
    flag, fract, pself = [False] * n, [0.0] * n, [0.0] * n
    cflag, cfract = [False] * (ncyc + 1), [0.0] * (ncyc + 1)
    print_time = 0.0
    old_head = None
    folk_at = g.folk_at
    incl_graph, excl_graph = tables.incl_graph, tables.excl_graph
    incl_time, excl_time = tables.incl_time, tables.excl_time
    for s in reversed(order):
        k = cycle_of[s]
        h = -k if k else s
        if h != old_head:
            old_head = h
            if k or folk_at[s] != folk_at[s + 1]:
                f, fr = _inherit(g, cy, s, flag, fract)
            else:  # no caller (most of -l's line symbols): nothing inherited, as _inherit gives
                f, fr = False, 0.0
            if k:
                cflag[k], cfract[k] = f, fr
                for m in chains[k]:
                    flag[m], fract[m] = f, fr
            else:
                flag[s], fract[s] = f, fr
        if not flag[s]:
            flag[s] = s in incl_graph or (not incl_graph and s not in excl_graph)
        elif s in excl_graph and s not in incl_graph:
            flag[s] = False
        if fract[s] == 0.0:
            if s in incl_time or (not incl_time and s not in excl_time):
                fract[s] = 1.0
        elif s in excl_time and s not in incl_time:
            fract[s] = 0.0
        pself[s] = time[s] * fract[s]
        print_time += pself[s]
    return _Fractions(flag, fract, pself, cflag, cfract, print_time)


def _cycle_time(cy: _Cycles, fr: _Fractions, time: Sequence[float]) -> tuple[list[float], list[float]]:
    """§7.2: each cycle's self ticks (members with a non-zero fraction) and its scaled share."""
    ncyc = cy.count
    ctime = [0.0] * (ncyc + 1)
    cpself = [0.0] * (ncyc + 1)
    fract = fr.fract
    for k in range(1, ncyc + 1):
        t = 0.0
        for m in cy.chains[k]:
            if fract[m] != 0.0:
                t += time[m]
        ctime[k] = t
        cpself[k] = fr.cfract[k] * t
    return ctime, cpself


def _propagate(g: _Graph, cy: _Cycles, fr: _Fractions, time: Sequence[float], order: Sequence[int]) -> _Times:
    """§7.2-§7.3: callees first (`order`), each arc carries its callee's (or callee cycle's) self
    and children ticks in proportion to its count; arcs within a cycle, self arcs, count-0 arcs
    and arcs to callees of zero fraction carry nothing."""
    n, ncyc = len(time), cy.count
    top, cycle_of, cyc_calls, ncalls, fract = cy.top, cy.cycle_of, cy.calls, g.ncalls, fr.fract
    ctime, cpself = _cycle_time(cy, fr, time)
    child_time, pchild = [0.0] * n, [0.0] * n
    c_child_time, c_pchild = [0.0] * (ncyc + 1), [0.0] * (ncyc + 1)
    child, count, atime, actime, kid_at, kids = (
        g.arcs.child,
        g.arcs.count,
        g.arcs.time,
        g.arcs.ctime,
        g.kid_at,
        g.kids,
    )
    for p in order:
        fp = fract[p]
        if fp == 0.0:
            continue
        kp = cycle_of[p]
        for j in range(kid_at[p + 1] - 1, kid_at[p] - 1, -1):
            a = kids[j]
            c = child[a]
            k = count[a]
            if k == 0 or c == p or fract[c] == 0.0:
                continue
            kc = cycle_of[c]
            if kc:
                if kc == kp:
                    continue
                src_time, src_child, cn = ctime[kc], c_child_time[kc], cyc_calls[kc]
            else:
                if top[p] <= top[c]:
                    continue
                src_time, src_child, cn = time[c], child_time[c], ncalls[c]
            if cn == 0:
                continue
            t = src_time * (k / cn)
            ct = src_child * (k / cn)
            share = t + ct
            child_time[p] += share
            pchild[p] += fp * share
            atime[a] = t * fp
            actime[a] = ct * fp
            if kp:
                c_child_time[kp] += share
                c_pchild[kp] += fp * share
    return _Times(ctime, cpself, child_time, pchild, c_child_time, c_pchild)


def _graph_order(
    symtab: SymbolTable, ncalls: Sequence[int], ncyc: int, fr: _Fractions, t: _Times
) -> tuple[list[int], list[int]]:
    """§8.2: call-graph entries (routine ids, then n + k - 1 for cycle k) in print order, and each
    entry's 1-based index number."""
    n = len(ncalls)
    raw_names = [s.name.encode("utf-8", "surrogateescape") for s in symtab.symbols]
    pself, pchild, cpself, c_pchild = fr.pself, t.pchild, t.cpself, t.c_pchild

    def entry_key(e: int) -> tuple[float, int, int, int, bytes]:
        if e >= n:
            k = e - n + 1
            return (-(cpself[k] + c_pchild[k]), 0, 0, 0, b"")
        nm = raw_names[e]
        return (-(pself[e] + pchild[e]), 1, nm[:1] == b"_", -ncalls[e], nm)

    graph = sorted_in_slices(range(n + ncyc), entry_key)
    index = [0] * (n + ncyc)
    for i, e in enumerate(graph):
        index[e] = i + 1
    return graph, index


def _lazy_arc_orders(g: _Graph, cycle_of: Sequence[int]) -> tuple[LazyGroups, LazyGroups]:
    """`_arc_orders`, computed when either is first read (both at once)."""
    done: list[tuple[Groups, Groups]] = []
    lock = threading.Lock()

    def both() -> tuple[Groups, Groups]:
        with lock:
            if not done:
                done.append(_arc_orders(g, cycle_of))
            return done[0]

    def side(k: int) -> Callable[[], tuple[array[int], array[int]]]:
        def make() -> tuple[array[int], array[int]]:
            groups = both()[k]
            return groups.at, groups.ids

        return make

    return LazyGroups(side(0)), LazyGroups(side(1))


def _arc_orders(g: _Graph, cycle_of: Sequence[int]) -> tuple[Groups, Groups]:
    """§9.3: each routine's parents and children as positions in `g.arcs`, in print order."""
    parent, child, count, atime, actime = g.arcs.parent, g.arcs.child, g.arcs.count, g.arcs.time, g.arcs.ctime

    def arc_key(a: int) -> tuple[int, float, int]:
        p, c = parent[a], child[a]
        if p == c:
            return (0, 0.0, 0)
        if cycle_of[p] and cycle_of[p] == cycle_of[c]:
            return (1, float(count[a]), 0)
        return (2, atime[a] + actime[a], count[a])

    keys = [arc_key(a) for a in range(len(parent))]  # once per arc: both orders sort by it
    key = keys.__getitem__

    def ordered(at: array[int], ids: array[int], reverse: bool) -> Groups:
        out = array("q", ids)
        for lo, hi in pairwise(at):
            if hi - lo < 2:  # most routines (all -l line symbols) have no arc or one
                continue
            if hi - lo > SLICE:  # a routine that calls (or is called by) 100,000s: not one C call
                out[lo:hi] = array("q", sorted_in_slices(ids[lo:hi], key, reverse))
            else:
                out[lo:hi] = array("q", sorted(ids[lo:hi], key=key, reverse=reverse))
        return Groups.of_arrays(at, out)

    return ordered(g.folk_at, g.folks, False), ordered(g.kid_at, g.kids, True)


def _indirect_places(g: _Graph, children: Groups, cycle_of: Sequence[int]) -> dict[int, int]:
    """Where each caller's `<indirect child>` line (MIPS -c) goes among its children in print
    order: it sorts as a count-0 arc without time outside any cycle, made at its rank (after the
    equal arcs made before it, before those made after)."""
    out: dict[int, int] = {}
    count, atime, actime, parent, child = g.arcs.count, g.arcs.time, g.arcs.ctime, g.arcs.parent, g.arcs.child
    for p, rank in g.indirect.items():
        ahead = 0
        for a in children[p]:
            same_cycle = cycle_of[p] != 0 and cycle_of[p] == cycle_of[child[a]]
            if parent[a] == child[a] or same_cycle or not (atime[a] + actime[a] > 0 or count[a] or a < rank):
                break
            ahead += 1
        out[p] = ahead
    return out


def _routines(
    symtab: SymbolTable,
    display_names: Sequence[str],
    in_flat: Sequence[bool],
    time: Sequence[float],
    g: _Graph,
    cy: _Cycles,
    fr: _Fractions,
    t: _Times,
    index: Sequence[int],
) -> tuple[Routine, ...]:
    """The Routine records, in address order."""
    child_time, pself, pchild, ncalls, self_calls = t.child_time, fr.pself, t.pchild, g.ncalls, g.self_calls
    cycle_of, flag, fract = cy.cycle_of, fr.flag, fr.fract
    from gmonlens.common.records import maker  # here: this function is all that uses it

    # Routine(...) with its fields in order, in a third of the time (-l makes 10^4-10^5 of them)
    make = maker(Routine)
    return tuple(
        make(
            i,
            s.name,
            display_names[i],
            s.address,
            s.end_address,
            s.is_static,
            s.is_function,
            s.file,
            s.line,
            time[i],
            child_time[i],
            pself[i],
            pchild[i],
            ncalls[i],
            self_calls[i],
            cycle_of[i],
            index[i],
            flag[i],
            in_flat[i],
            fract[i],
            s.is_line,
        )
        for i, s in enumerate(symtab.symbols)
    )


def _cycle_records(
    g: _Graph, cy: _Cycles, fr: _Fractions, t: _Times, index: Sequence[int]
) -> tuple[Cycle, ...]:
    """The Cycle records, by number; members printed by total ticks, then calls, descending."""
    n, chains = len(g.ncalls), cy.chains
    pself, pchild, ncalls, self_calls = fr.pself, t.pchild, g.ncalls, g.self_calls
    return tuple(
        Cycle(
            number=k,
            index=index[n + k - 1],
            members=tuple(chains[k]),
            member_order=tuple(
                sorted(
                    chains[k], key=lambda m: (pself[m] + pchild[m], ncalls[m] + self_calls[m]), reverse=True
                )
            ),
            self_ticks=t.ctime[k],
            prop_self_ticks=t.cpself[k],
            prop_child_ticks=t.c_pchild[k],
            calls=cy.calls[k],
            self_calls=cy.self_calls[k],
            printed=fr.cflag[k],
        )
        for k in range(1, cy.count + 1)
    )


def compute_profile(
    symtab: SymbolTable,
    gmon: GmonData,
    tables: Tables,
    display_names: Sequence[str],
    static_arcs: Sequence[tuple[int, int]] = (),
    problems: Sequence[str] = (),
    static_call_graph: bool = False,
) -> Profile:
    """Compute gprof's flat profile and call graph figures.

    `static_arcs` are (caller, callee) routine positions found in the machine code (-c), added as
    count-0 arcs in that order when absent.
    """
    n = len(symtab.symbols)
    in_flat = [tables.in_flat(i) for i in range(n)]
    if gmon.has_histogram:
        time, total_time = assign_samples(gmon.histograms, symtab.addresses, in_flat)
    else:
        time, total_time = [0.0] * n, 0.0
    g = _link(symtab, gmon, tables, static_arcs)
    cy = _find_cycles(g, n)
    order = sorted(range(n), key=cy.top.__getitem__)  # ints: one short C call
    fr = _flags_and_fractions(g, cy, tables, time, order)
    t = _propagate(g, cy, fr, time, order)
    graph, index = _graph_order(symtab, g.ncalls, cy.count, fr, t)
    parents_order, children_order = _lazy_arc_orders(g, cy.cycle_of)
    if g.dropped:
        problems = (
            *problems,
            f"{g.dropped} call-graph arc record(s) point outside the program's routines and were ignored",
        )
    return Profile(
        routines=_routines(symtab, display_names, in_flat, time, g, cy, fr, t, index),
        arcs=_arc_table(g.arcs),
        cycles=_cycle_records(g, cy, fr, t, index),
        graph_order=GraphOrder.of_codes(array("q", (e if e < n else n - 1 - e for e in graph))),
        parents=parents_order,
        children=children_order,
        hz=gmon.hz,
        dimension=gmon.dimension,
        dimension_abbrev=gmon.dimension_abbrev,
        scale=gmon.scale,
        total_ticks=total_time,
        print_ticks=fr.print_time,
        has_histogram=gmon.has_histogram,
        has_call_graph=gmon.has_call_graph,
        static_call_graph=static_call_graph,
        problems=tuple(problems),
        indirect_children=_indirect_places(g, children_order, cy.cycle_of) if g.indirect else {},
    )
