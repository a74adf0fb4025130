"""gprof -r (--function-ordering): a suggested link order of the routines, from the call graph.

Pure. The rules below were inferred from GNU gprof 2.40's output on generated programs (chains,
fan-in, fan-out, ties, unused routines; see tests/integration/test_gprof_ordering.py) and agree
with the outline in gprof's own documentation (a greedy placement a la Pettis and Hansen over the
heaviest arcs, unused routines last):

* A routine is *used* when it was called (`calls` or recursive calls); sampled time alone does
  not count (a hot routine built without -pg is unused);
  every other routine of the symbol table, `main` included when nobody calls it, is *unused* and
  listed last, in address order (gprof's symbol table, `etext` and `data_start` included).
* All arcs are sorted by count, heaviest first; equal counts keep gprof's arc order (the order of
  `Profile.arcs`). Pass 1 takes them while the running total stays within 99% of the total of
  ALL arcs (self arcs and arcs from an uncalled `main` included: they weigh in the cut but place
  nothing); pass 2 takes the rest. Only arcs between two different used routines place anything.
  Placement builds chains, printed in the order they were started:
  - neither end placed: a new chain `parent, child` (both passes);
  - both placed: nothing (chains are never joined);
  - pass 1, the child placed: the parent goes to the nearer end of the child's chain, the front
    on a tie; the parent placed: the child goes to the nearer end, the back on a tie;
  - pass 2, one end placed: nothing (e.g. `a>b:50 c>a:1` driven from main gives `a b c`).
* Used routines no arc placed follow the chains, in address order. gprof prints raw names.

Not matched: gprof's documented first step for "popular" routines, which starts at 80 called
routines (1.25% of them; generated chains p_i>q_i plus two callers of h on the heaviest arcs:
39 pairs + h match these rules, 40 pairs do not). Seen, without a rule inferred: such an h
vanishes from the listing (neither placed nor listed) and its callers' arcs place nothing; on the
C++ test program std::__addressof<std::string> vanishes and std::move / std::forward instances
come first; with an uncalled main calling many routines on the heaviest arcs, main is printed
first and again among the unused (README, known differences).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from .model import Profile

PASS1_SHARE = 0.99
HOT_SHARE = 0.90
POPULAR_PER = 80  # one popular routine per 80 used ones
POPULAR_STOP = 5


@dataclass(frozen=True)
class PopularStep:
    first: list[int]  # printed before the chains
    popular: frozenset[int]  # their arcs place nothing
    left: frozenset[int]  # popular routines listed with the unplaced ones
    anchors: frozenset[int]  # popular routines an unused parent took: their callers start chains


def function_ordering(profile: Profile) -> str:
    """The -r listing: one raw (mangled) routine name per line; gprof never demangles it."""
    rs = profile.routines
    used = [r.calls > 0 or r.self_calls > 0 for r in rs]
    arcs = [
        (a.parent, a.child, a.count)
        for a in sorted(profile.arcs, key=lambda a: -a.count)
        if a.parent != a.child
    ]
    step = popular_step(arcs, used)
    free = [u and i not in step.popular for i, u in enumerate(used)]
    order = step.first + place_by_arcs(arcs, free, pass2_greedy=True, anchors=step.anchors)
    placed = set(order) | (step.popular - step.left)
    order += [r.id for r in rs if used[r.id] and r.id not in placed]
    order += [r.id for r in rs if not used[r.id]]
    return "".join(f"{rs[i].name}\n" for i in order)


def popular_step(arcs: Sequence[tuple[int, int, int]], used: Sequence[bool]) -> PopularStep:
    """gprof's first step (module docstring). `arcs` heaviest first."""
    total = sum(n for _, _, n in arcs)
    hot_parents: dict[int, int] = {}
    acc = 0
    for p, c, n in arcs:
        acc += n
        if acc > HOT_SHARE * total:
            break
        if p != c:
            hot_parents[c] = hot_parents.get(c, 0) + 1
    ranked = sorted((r for r in hot_parents if used[r]), key=lambda r: (-hot_parents[r], r))
    chosen: list[int] = []
    for r in ranked[: sum(used) // POPULAR_PER]:
        if hot_parents[r] == POPULAR_STOP:
            break
        chosen.append(r)
    popular = frozenset(chosen)
    weight: dict[int, int] = {}  # a parent printed after the plain ones -> its sort key
    plain: list[int] = []
    left: dict[int, bool] = {}  # popular routine a parent took -> taken by an unused parent
    pending: list[int] = []  # a plain routine is printed once another step follows it
    took: dict[int, int] = {}  # a parent -> the popular routine it took (one each)
    for k, r in enumerate(chosen):
        plain += pending
        pending = []
        takers = [
            (p, n)
            for p, c, n in arcs
            if c == r and p != r and (p in popular or not used[p]) and p not in took
        ]
        done = [t for t in takers if t[0] in chosen[:k]]  # popular parents already stepped on
        kids = [n for p, c, n in arcs if p == r and c != r and (c in chosen[k + 1 :] or took.get(r) == c)]
        if kids and not done:
            weight[r] = max(kids)
            continue
        taker = max(done or takers, default=None)  # the highest address, whatever the counts
        if taker is None:
            pending = [r]
            continue
        took[taker[0]] = r
        if not used[taker[0]]:
            weight[taker[0]] = taker[1]
        if taker[0] not in left:  # taken by a routine taken itself: r is never listed
            left[r] = not used[taker[0]]
    parents = sorted(weight, key=lambda p: -weight[p])  # stable: ties in the order they came
    anchors = frozenset(left)
    return PopularStep(plain + parents, popular, frozenset(left), anchors)


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
                slots = [where[r] for r in (p, c) if r in where]
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
            new = c if pp else p
            if new in where:  # it leaves its reserved place
                where.pop(new).clear()
            if cp:  # a new parent: the nearer end of the child's chain, the front on a tie
                attach(c, p, True)
            else:  # a new child: the nearer end of the parent's chain, the back on a tie
                attach(p, c, False)
    return [r for chain in chains if len(chain) > 1 for r in chain]
