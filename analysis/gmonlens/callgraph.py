"""Arcs, cycles and time propagation: a symbol table and gmon data in, a frozen Profile out (§5-§8).

Each step follows gprof-behaviour.md in the order it gives, because the last bits of the doubles
decide ties and `%.2f` rounding. Lists are kept in creation order; gprof's newest-first lists are
those lists reversed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cycles import dfn_order
from .histogram import assign_samples
from .model import Arc, Cycle, GmonData, GraphEntry, Profile, Routine
from .options import Tables
from .symbols import SymbolTable


class _Arc:
    __slots__ = ("child", "count", "ctime", "parent", "sites", "static", "time")

    def __init__(self, parent: int, child: int, count: int, static: bool) -> None:
        self.parent, self.child, self.count, self.static = parent, child, count, static
        self.time = self.ctime = 0.0
        self.sites: dict[int, int] = {}


def _tally(symtab: SymbolTable, gmon: GmonData, tables: Tables) -> tuple[list[_Arc], list[int], int]:
    """§5.1: arcs summed by (caller, callee); returns (arcs in creation order, ncalls, dropped)."""
    syms = symtab.symbols
    n = len(syms)
    func_at: list[int] = []
    last_func = -1
    for i, s in enumerate(syms):
        if s.is_function:
            last_func = i
        func_at.append(i if s.is_function else (last_func if last_func >= 0 else i))
    ncalls = [0] * n
    arcs: list[_Arc] = []
    by_key: dict[int, _Arc] = {}
    cache: dict[int, int] = {}
    lookup = symtab.lookup
    dropped = 0
    check = bool(tables.incl_arcs or tables.excl_arcs)
    for raw in gmon.arcs:
        p = cache.get(raw.from_pc)
        if p is None:
            p = cache[raw.from_pc] = lookup(raw.from_pc)
        c = cache.get(raw.self_pc)
        if c is None:
            c = cache[raw.self_pc] = lookup(raw.self_pc)
        if p < 0 or c < 0:
            dropped += 1
            continue
        c = func_at[c]
        if check and not tables.arc_allowed(p, c):
            continue
        ncalls[c] += raw.count
        key = p * n + c
        arc = by_key.get(key)
        if arc is None:
            arc = by_key[key] = _Arc(p, c, 0, False)
            arcs.append(arc)
        arc.count += raw.count
        arc.sites[raw.from_pc] = arc.sites.get(raw.from_pc, 0) + raw.count
    return arcs, ncalls, dropped


def _arc_records(arcs: list[_Arc]) -> tuple[Arc, ...]:
    """The tallied arcs as `Arc` records, in creation order. Each tally arc's call-site dict is
    emptied once its record holds the sites, so the two never coexist for the whole graph (the
    peak of a report's memory on a large program)."""
    out = []
    for a in arcs:
        out.append(Arc(a.parent, a.child, a.count, a.time, a.ctime, a.static, tuple(a.sites.items())))
        a.sites = _NO_SITES
    return tuple(out)


_NO_SITES: dict[int, int] = {}


@dataclass(frozen=True, slots=True)
class _Graph:
    """§5: the tallied arcs (creation order) and each routine's arcs, children and parents in
    creation order; `ncalls` counts calls from other routines (self arcs taken out), `self_calls`
    the self arc's count; `dropped` arc records land outside every routine."""

    arcs: list[_Arc]
    children: list[list[_Arc]]
    parents: list[list[_Arc]]
    ncalls: list[int]
    self_calls: list[int]
    dropped: int


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
    keys = {a.parent * n + a.child for a in arcs}
    for p, c in static_arcs:
        if p * n + c not in keys:
            keys.add(p * n + c)
            arcs.append(_Arc(p, c, 0, True))
    children: list[list[_Arc]] = [[] for _ in range(n)]
    parents: list[list[_Arc]] = [[] for _ in range(n)]
    for a in arcs:
        children[a.parent].append(a)
        parents[a.child].append(a)
    return _Graph(arcs, children, parents, ncalls, _recursion(arcs, ncalls, n), dropped)


def _recursion(arcs: Sequence[_Arc], ncalls: list[int], n: int) -> list[int]:
    """§5.2: each routine's self-arc count (returned), taken out of its `ncalls` (in place)."""
    self_calls = [0] * n
    for a in arcs:
        if a.parent == a.child:
            ncalls[a.parent] -= a.count
            self_calls[a.parent] = a.count
    return self_calls


def _find_cycles(g: _Graph, n: int) -> _Cycles:
    """§6: dfn over the children in gprof's (newest-first) order; cycles numbered by their heads'
    address order; the calls into each cycle and between its members."""
    children, parents = g.children, g.parents
    top, head, nxt = dfn_order([[a.child for a in reversed(ch)] for ch in children])
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
            for a in parents[m]:
                if a.parent == m:
                    continue
                if cycle_of[a.parent] == k:
                    cyc_self_calls[k] += a.count
                else:
                    cyc_calls[k] += a.count
    return _Cycles(top, cycle_of, chains, cyc_calls, cyc_self_calls)


def _inherit(g: _Graph, cy: _Cycles, s: int, flag: list[bool], fract: list[float]) -> tuple[bool, float]:
    """§7.1: the print flag and time fraction routine `s` (or, for a cycle member, its whole
    cycle) inherits from its callers outside the cycle, callers newest first."""
    k = cy.cycle_of[s]
    cycle_of = cy.cycle_of
    f, fr = False, 0.0
    if k:
        cn = cy.calls[k]
        for m in cy.chains[k]:
            for a in reversed(g.parents[m]):
                if cycle_of[a.parent] != k:
                    f = f or flag[a.parent]
                    if cn != 0:
                        fr += fract[a.parent] * (a.count / cn)
        return f, fr
    cn = g.ncalls[s]
    for a in reversed(g.parents[s]):
        if a.parent == s:
            continue
        f = f or flag[a.parent]
        if cn != 0:
            fr += fract[a.parent] * (a.count / cn)
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
    for s in reversed(order):
        k = cycle_of[s]
        h = -k if k else s
        if h != old_head:
            old_head = h
            f, fr = _inherit(g, cy, s, flag, fract)
            if k:
                cflag[k], cfract[k] = f, fr
                for m in chains[k]:
                    flag[m], fract[m] = f, fr
            else:
                flag[s], fract[s] = f, fr
        if not flag[s]:
            flag[s] = s in tables.incl_graph or (not tables.incl_graph and s not in tables.excl_graph)
        elif s in tables.excl_graph and s not in tables.incl_graph:
            flag[s] = False
        if fract[s] == 0.0:
            if s in tables.incl_time or (not tables.incl_time and s not in tables.excl_time):
                fract[s] = 1.0
        elif s in tables.excl_time and s not in tables.incl_time:
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
    for p in order:
        fp = fract[p]
        if fp == 0.0:
            continue
        kp = cycle_of[p]
        for a in reversed(g.children[p]):
            c = a.child
            if a.count == 0 or c == p or fract[c] == 0.0:
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
            a.time = src_time * (a.count / cn)
            a.ctime = src_child * (a.count / cn)
            share = a.time + a.ctime
            child_time[p] += share
            pchild[p] += fp * share
            a.time *= fp
            a.ctime *= fp
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

    graph = sorted(range(n + ncyc), key=entry_key)
    index = [0] * (n + ncyc)
    for i, e in enumerate(graph):
        index[e] = i + 1
    return graph, index


def _arc_orders(
    g: _Graph, cycle_of: Sequence[int]
) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """§9.3: each routine's parents and children as positions in `g.arcs`, in print order."""

    def arc_key(a: _Arc) -> tuple[int, float, int]:
        if a.parent == a.child:
            return (0, 0.0, 0)
        if cycle_of[a.parent] and cycle_of[a.parent] == cycle_of[a.child]:
            return (1, float(a.count), 0)
        return (2, a.time + a.ctime, a.count)

    pos = {id(a): i for i, a in enumerate(g.arcs)}
    # most routines (all -l line symbols) have no arc or one: nothing to sort, one shared empty tuple
    parents_order = tuple(
        tuple(pos[id(a)] for a in sorted(ps, key=arc_key)) if len(ps) > 1 else (pos[id(ps[0])],) if ps else ()
        for ps in g.parents
    )
    children_order = tuple(
        tuple(pos[id(a)] for a in sorted(cs, key=arc_key, reverse=True))
        if len(cs) > 1
        else (pos[id(cs[0])],)
        if cs
        else ()
        for cs in g.children
    )
    return parents_order, children_order


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
    from .records import maker  # here: this function is all that uses it

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
    order = sorted(range(n), key=cy.top.__getitem__)
    fr = _flags_and_fractions(g, cy, tables, time, order)
    t = _propagate(g, cy, fr, time, order)
    graph, index = _graph_order(symtab, g.ncalls, cy.count, fr, t)
    parents_order, children_order = _arc_orders(g, cy.cycle_of)
    if g.dropped:
        problems = (
            *problems,
            f"{g.dropped} call-graph arc record(s) point outside the program's routines and were ignored",
        )
    return Profile(
        routines=_routines(symtab, display_names, in_flat, time, g, cy, fr, t, index),
        arcs=_arc_records(g.arcs),
        cycles=_cycle_records(g, cy, fr, t, index),
        graph_order=tuple(GraphEntry(e, 0) if e < n else GraphEntry(-1, e - n + 1) for e in graph),
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
    )
