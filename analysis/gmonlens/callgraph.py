"""Arcs, cycles and time propagation: a symbol table and gmon data in, a frozen Profile out (§5-§8).

Each step follows gprof-behaviour.md in the order it gives, because the last bits of the doubles
decide ties and `%.2f` rounding. Lists are kept in creation order; gprof's newest-first lists are
those lists reversed.
"""

from __future__ import annotations

from collections.abc import Sequence

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
    syms = symtab.symbols
    n = len(syms)
    in_flat = [tables.in_flat(i) for i in range(n)]
    if gmon.has_histogram:
        time, total_time = assign_samples(gmon.histograms, symtab.addresses, in_flat)
    else:
        time, total_time = [0.0] * n, 0.0
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
    self_calls = [0] * n
    for a in arcs:
        if a.parent == a.child:
            ncalls[a.parent] -= a.count
            self_calls[a.parent] = a.count

    # §6 cycles
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

    # §7.1 flags and fractions, callers first
    order = sorted(range(n), key=top.__getitem__)
    flag, fract, pself = [False] * n, [0.0] * n, [0.0] * n
    cflag, cfract = [False] * (ncyc + 1), [0.0] * (ncyc + 1)
    print_time = 0.0
    old_head = None
    for s in reversed(order):
        k = cycle_of[s]
        h = -k if k else s
        if h != old_head:
            old_head = h
            if k:
                f, fr, cn = False, 0.0, cyc_calls[k]
                for m in chains[k]:
                    for a in reversed(parents[m]):
                        if cycle_of[a.parent] != k:
                            f = f or flag[a.parent]
                            if cn != 0:
                                fr += fract[a.parent] * (a.count / cn)
                cflag[k], cfract[k] = f, fr
                for m in chains[k]:
                    flag[m], fract[m] = f, fr
            else:
                f, fr, cn = False, 0.0, ncalls[s]
                for a in reversed(parents[s]):
                    if a.parent == s:
                        continue
                    f = f or flag[a.parent]
                    if cn != 0:
                        fr += fract[a.parent] * (a.count / cn)
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

    # §7.2 cycle time
    ctime = [0.0] * (ncyc + 1)
    cpself = [0.0] * (ncyc + 1)
    for k in range(1, ncyc + 1):
        t = 0.0
        for m in chains[k]:
            if fract[m] != 0.0:
                t += time[m]
        ctime[k] = t
        cpself[k] = cfract[k] * t

    # §7.3 time, callees first
    child_time, pchild = [0.0] * n, [0.0] * n
    c_child_time, c_pchild = [0.0] * (ncyc + 1), [0.0] * (ncyc + 1)
    for p in order:
        fp = fract[p]
        if fp == 0.0:
            continue
        kp = cycle_of[p]
        for a in reversed(children[p]):
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

    # §8.2 call-graph order and index numbers
    raw_names = [s.name.encode("utf-8", "surrogateescape") for s in syms]

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

    def arc_key(a: _Arc) -> tuple[int, float, int]:
        if a.parent == a.child:
            return (0, 0.0, 0)
        if cycle_of[a.parent] and cycle_of[a.parent] == cycle_of[a.child]:
            return (1, float(a.count), 0)
        return (2, a.time + a.ctime, a.count)

    pos = {id(a): i for i, a in enumerate(arcs)}
    # most routines (all -l line symbols) have no arc or one: nothing to sort, one shared empty tuple
    parents_order = tuple(
        tuple(pos[id(a)] for a in sorted(ps, key=arc_key)) if len(ps) > 1 else (pos[id(ps[0])],) if ps else ()
        for ps in parents
    )
    children_order = tuple(
        tuple(pos[id(a)] for a in sorted(cs, key=arc_key, reverse=True))
        if len(cs) > 1
        else (pos[id(cs[0])],)
        if cs
        else ()
        for cs in children
    )
    if dropped:
        problems = (
            *problems,
            f"{dropped} call-graph arc record(s) point outside the program's routines and were ignored",
        )
    routines = tuple(
        Routine(
            id=i,
            name=s.name,
            display_name=display_names[i],
            address=s.address,
            end_address=s.end_address,
            is_static=s.is_static,
            is_function=s.is_function,
            file=s.file,
            line=s.line,
            self_ticks=time[i],
            child_ticks=child_time[i],
            prop_self_ticks=pself[i],
            prop_child_ticks=pchild[i],
            calls=ncalls[i],
            self_calls=self_calls[i],
            cycle=cycle_of[i],
            index=index[i],
            printed=flag[i],
            in_flat=in_flat[i],
            fract=fract[i],
            is_line=s.is_line,
        )
        for i, s in enumerate(syms)
    )
    cycles = tuple(
        Cycle(
            number=k,
            index=index[n + k - 1],
            members=tuple(chains[k]),
            member_order=tuple(
                sorted(
                    chains[k], key=lambda m: (pself[m] + pchild[m], ncalls[m] + self_calls[m]), reverse=True
                )
            ),
            self_ticks=ctime[k],
            prop_self_ticks=cpself[k],
            prop_child_ticks=c_pchild[k],
            calls=cyc_calls[k],
            self_calls=cyc_self_calls[k],
            printed=cflag[k],
        )
        for k in range(1, ncyc + 1)
    )
    return Profile(
        routines=routines,
        arcs=tuple(
            Arc(a.parent, a.child, a.count, a.time, a.ctime, a.static, tuple(a.sites.items())) for a in arcs
        ),
        cycles=cycles,
        graph_order=tuple(GraphEntry(e, 0) if e < n else GraphEntry(-1, e - n + 1) for e in graph),
        parents=parents_order,
        children=children_order,
        hz=gmon.hz,
        dimension=gmon.dimension,
        dimension_abbrev=gmon.dimension_abbrev,
        scale=gmon.scale,
        total_ticks=total_time,
        print_ticks=print_time,
        has_histogram=gmon.has_histogram,
        has_call_graph=gmon.has_call_graph,
        static_call_graph=static_call_graph,
        problems=tuple(problems),
    )
