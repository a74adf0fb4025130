"""gprof -r (--function-ordering): a suggested link order of the routines, from the call graph.

Pure. The rules below were inferred from GNU gprof 2.40's output on generated programs (chains,
fan-in, fan-out, ties, unused routines, popular routines; see tests/integration/
test_gprof_ordering.py), checked on SQLite, QuickJS + zstd + LZ4 and the C++ test program
(tests/realprogs), and agree with the outline in gprof's own documentation (popular routines
first, then a greedy placement a la Pettis and Hansen over the heaviest arcs, unused routines
last). Self arcs count nowhere below.

* A routine is *used* when it was called (`calls` or recursive calls); sampled time alone does
  not count (a hot routine built without -pg is unused);
  every other routine of the symbol table, `main` included when nobody calls it, is *unused* and
  listed last, in address order (gprof's symbol table, `etext` and `data_start` included).
* Arcs are sorted by count, heaviest first; equal counts keep gprof's arc order (the order of
  `Profile.arcs`). Cuts are on the running total of that list against the total of all arcs
  (arcs from an uncalled `main` included).
* Popular routines (the first step; none below 80 used routines). A routine's *callers* are the
  arcs into it among the hot ones (running total within 90%). Used routines with callers, most
  first, ties in address order: the first used // 80 of them are popular, but the walk stops at
  the first one with exactly 5 callers. They are stepped on in that order; each step first prints
  the previous step's plain routine. Each routine is in one *take* at most, taking another or
  taken; a routine already in one does nothing at its own step. At r's step:
  - if r calls popular routines stepped on later and in no take yet, r takes the last of these
    calls in gprof's arc order (`Profile.arcs`);
  - else r's callers (arcs of any count) that are unused or popular, and in no take yet, are its
    takers: the highest-addressed one takes r, whatever the counts;
  - else r is plain, printed at the next step: the last step's plain routine is never printed.
  Every routine that took one is printed after the plain ones, by the count of the arc to the one
  it took, heaviest first (ties in the order they took); an unused one (`main` too) is also listed
  among the unused. Taken routines are listed with the unplaced ones; every other popular routine
  is listed only where printed, if at all.
* Placement. Pass 1 takes the arcs while the running total stays within 99%, pass 2 the rest.
  Only arcs between two different used routines, neither popular, place anything. Chains are
  printed in the order they were started:
  - neither end placed: a new chain `parent, child`;
  - both placed: nothing (chains are never joined);
  - the child placed: the parent goes to the nearer end of the child's chain, the front on a tie;
    the parent placed: the child goes to the nearer end, the back on a tie;
  - pass 2 does the same, but leaves what pass 1 placed alone: an arc with an end placed in
    pass 1 places nothing (e.g. `a>b:50 c>a:1` driven from main gives `a b c`).
  - In pass 1, an arc into a taken popular routine gives its used caller, if not placed
    yet, a reserved place: a chain of its own, printed only once it has grown; an arc pairing it
    with a placed routine moves it into that chain, which then takes the reserved place if that
    came first; an arc pairing two reserved routines makes their chain in the earlier place.
    Reserved places still alone when pass 2 starts are dropped.
* Used routines no arc placed follow the chains, in address order. gprof prints raw names.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from gmonlens.common.model import Profile

PASS1_SHARE = 0.99
HOT_SHARE = 0.90
POPULAR_PER = 80  # one popular routine per 80 used ones
POPULAR_STOP = 5


@dataclass(frozen=True)
class PopularStep:
    first: list[int]  # printed before the chains
    popular: frozenset[int]  # their arcs place nothing
    left: frozenset[int]  # taken ones: listed with the unplaced ones; their callers reserve places


def function_ordering(profile: Profile) -> str:
    """The -r listing: one raw (mangled) routine name per line; gprof never demangles it."""
    rs = profile.routines
    used = [r.calls > 0 or r.self_calls > 0 for r in rs]
    ordered = sorted(profile.arcs, key=lambda a: -a.count)  # stable: ties keep gprof's arc order
    arcs = [(a.parent, a.child, a.count) for a in ordered if a.parent != a.child]
    step = popular_step(
        arcs, used, [(a.parent, a.child, a.count) for a in profile.arcs if a.parent != a.child]
    )
    free = [u and i not in step.popular for i, u in enumerate(used)]
    order = step.first + place_by_arcs(arcs, free, pass2_greedy=True, anchors=step.left)
    placed = set(order) | (step.popular - step.left)
    order += [r.id for r in rs if used[r.id] and r.id not in placed]
    order += [r.id for r in rs if not used[r.id]]
    return "".join(f"{rs[i].name}\n" for i in order)


def popular_step(
    arcs: Sequence[tuple[int, int, int]], used: Sequence[bool], listed: Sequence[tuple[int, int, int]]
) -> PopularStep:
    """gprof's first step (module docstring). `arcs` heaviest first, `listed` in gprof's order
    (`Profile.arcs`); no self arcs."""
    total = sum(n for _, _, n in arcs)
    callers: dict[int, int] = {}
    acc = 0
    for _, c, n in arcs:
        acc += n
        if acc > HOT_SHARE * total:
            break
        callers[c] = callers.get(c, 0) + 1
    ranked = sorted((r for r in callers if used[r]), key=lambda r: (-callers[r], r))
    chosen: list[int] = []
    for r in ranked[: sum(used) // POPULAR_PER]:
        if callers[r] == POPULAR_STOP:
            break
        chosen.append(r)
    rank = {r: k for k, r in enumerate(chosen)}
    into: dict[int, list[tuple[int, int]]] = {r: [] for r in chosen}  # (unused or popular caller, count)
    calls: dict[int, list[tuple[int, int]]] = {r: [] for r in chosen}  # (popular callee, count)
    for p, c, n in listed:
        if c in rank and (p in rank or not used[p]):
            into[c].append((p, n))
        if p in rank and c in rank:
            calls[p].append((c, n))
    weight: dict[int, int] = {}  # a parent, printed after the plain ones -> its arc to what it took
    plain: list[int] = []
    taken: set[int] = set()
    took: set[int] = set()
    pending: list[int] = []  # a plain routine is printed once another step follows
    for k, r in enumerate(chosen):
        plain += pending
        pending = []
        if r in taken or r in took:
            continue
        later = [(c, n) for c, n in calls[r] if rank[c] > k and c not in taken and c not in took]
        takers = [t for t in into[r] if t[0] not in took and t[0] not in taken]
        if later:  # r takes the last of them in gprof's arc order
            (kid, n), parent = later[-1], r
        elif takers:  # the highest-addressed taker (whatever the counts) takes r
            (parent, n), kid = max(takers), r
        else:
            pending = [r]
            continue
        took.add(parent)
        taken.add(kid)
        weight[parent] = n
    parents = sorted(weight, key=lambda p: -weight[p])  # stable: ties in the order they took
    return PopularStep(plain + parents, frozenset(chosen), frozenset(taken))


def _index(chains: list[list[int]], chain: list[int]) -> int:
    return next(k for k, x in enumerate(chains) if x is chain)


def place_by_arcs(
    arcs: Sequence[tuple[int, int, int]],
    used: Sequence[bool],
    *,
    pass2_greedy: bool,
    anchors: Collection[int] = (),
) -> list[int]:
    """The chains that the (parent, child, count) arcs build (rules in the module docstring),
    concatenated: node ids (routines for -r, map entries for -R)."""
    total = sum(n for _, _, n in arcs)
    chains: list[list[int]] = []
    where: dict[int, list[int]] = {}

    def attach(placed: int, new: int, front_on_tie: bool) -> None:
        chain = where[placed]
        pos = chain.index(placed)
        before, after = pos, len(chain) - 1 - pos
        if before < after or (before == after and front_on_tie):
            chain.insert(0, new)
        else:
            chain.append(new)
        where[new] = chain

    acc = 0
    fixed: set[int] | None = None  # once pass 2 starts: the nodes pass 1 placed
    for p, c, n in arcs:
        acc += n
        if fixed is None and acc > PASS1_SHARE * total:
            chains = [chain for chain in chains if len(chain) > 1]  # a lone routine is unplaced again
            where = {r: chain for chain in chains for r in chain}
            fixed = set(where)
        if c in anchors and used[p] and p not in where and fixed is None:
            chains.append([p])  # a chain of its own, printed once it has grown
            where[p] = chains[-1]
        if p == c or not used[p] or not used[c]:
            continue
        pp, cp = len(where.get(p, ())) > 1, len(where.get(c, ())) > 1  # alone: a reserved place
        if not pp and not cp:
            if fixed is None or pass2_greedy:
                slots = sorted((where[r] for r in (p, c) if r in where), key=lambda x: _index(chains, x))
                chain = slots[0] if slots else []
                if not slots:
                    chains.append(chain)
                for slot in slots:
                    slot.clear()
                chain += [p, c]
                where[p] = where[c] = chain
        elif (pp and cp) or (fixed is not None and (not pass2_greedy or p in fixed or c in fixed)):
            continue  # chains are never joined; pass 2 never moves what pass 1 placed
        else:
            new, placed = (c, p) if pp else (p, c)
            if new in where:  # it leaves its reserved place, and takes the chain there if earlier
                slot, chain = where.pop(new), where[placed]
                i, j = _index(chains, slot), _index(chains, chain)
                if i < j:
                    chains[i], chains[j] = chain, slot
                slot.clear()
            if cp:  # a new parent: the nearer end of the child's chain, the front on a tie
                attach(c, p, True)
            else:  # a new child: the nearer end of the parent's chain, the back on a tie
                attach(p, c, False)
    return [r for chain in chains if len(chain) > 1 for r in chain]
