"""The call graph as nodes and edges, pruned like gprof2dot: the whole program, or the graph around
one routine. Shared by `gmonlens export --format dot` and the server's `gmonlens/callGraph`.

Percentages are of gprof's call-graph total (`print_ticks`, the base of gprof's `% time`). A node's
weight is its total time (self + children, as gprof propagates it), an edge's weight the time gprof
propagates along the arc. Arcs are those of `export_common.exported_arcs`. Pruning (whole program):
nodes under `node_thres` percent go, then edges under `edge_thres` percent or touching a removed
node; edges inside a cycle carry no time in gprof and are kept while both ends are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gmonlens.common.model import ArcTable, Profile
from gmonlens.output.export_common import exported_arcs

NODE_THRES = 0.5  # gprof2dot's defaults, in percent
EDGE_THRES = 0.1


@dataclass(frozen=True)
class GraphNode:
    routine: int
    name: str
    display_name: str
    file: str | None
    line: int
    self_ticks: float  # propagated self (gprof's call-graph `self`)
    total_ticks: float  # self + children
    calls: int
    self_calls: int
    cycle: int
    percent: float  # total / print time
    self_percent: float


@dataclass(frozen=True)
class GraphEdge:
    parent: int  # routine ids
    child: int
    count: int
    ticks: float  # propagated along the arc (estimate)
    percent: float
    in_cycle: bool


@dataclass(frozen=True)
class CallGraph:
    nodes: tuple[GraphNode, ...]  # in address order
    edges: tuple[GraphEdge, ...]
    hz: int
    total_ticks: float  # percent base
    center: int = -1  # the routine a neighbourhood graph is around
    pruned_nodes: int = 0  # candidate nodes (with time or arcs; reached by the search) left out
    pruned_edges: int = 0  # edges among the candidates left out


def _pct(p: Profile, ticks: float) -> float:
    return 100.0 * ticks / p.print_ticks if p.print_ticks > 0 else 0.0


def _node(p: Profile, rid: int) -> GraphNode:
    r = p.routines[rid]
    return GraphNode(
        rid,
        r.name,
        r.display_name,
        r.file,
        r.line,
        r.prop_self_ticks,
        r.total_ticks,
        r.calls,
        r.self_calls,
        r.cycle,
        _pct(p, r.total_ticks),
        _pct(p, r.prop_self_ticks),
    )


def _shown(p: Profile, i: int) -> bool:
    """Whether arc `i` is exported (the rule of `export_common.exported_arcs`)."""
    a = p.arcs[i]
    return a.count > 0 and not a.is_static and p.routines[a.parent].printed and p.routines[a.child].printed


def _edge(p: Profile, i: int) -> GraphEdge:
    a = p.arcs[i]
    rs = p.routines
    t = a.self_ticks + a.child_ticks
    cyc = rs[a.parent].cycle != 0 and rs[a.parent].cycle == rs[a.child].cycle
    return GraphEdge(a.parent, a.child, a.count, t, _pct(p, t), cyc or a.is_self)


def _child_column(p: Profile) -> Sequence[int]:
    """Each arc's callee id, by arc index, read from the arcs' column when they are an `ArcTable`
    (no `Arc` record made per arc: `main` of a large program has an arc to each routine)."""
    return p.arcs.child if isinstance(p.arcs, ArcTable) else [a.child for a in p.arcs]


def _build(p: Profile, candidates: set[int], keep: set[int], edge_thres: float, center: int) -> CallGraph:
    """Nodes `keep` (out of `candidates`) and the edges among them at or over `edge_thres`; the
    pruned counts are of candidates and of edges among candidates that were left out."""
    among = 0
    kept: list[GraphEdge] = []
    child = _child_column(p)
    for r in sorted(candidates):
        for i in p.children[r]:
            c = child[i]
            if c not in candidates or not _shown(p, i):
                continue
            among += 1
            if r in keep and c in keep:
                e = _edge(p, i)
                if e.percent >= edge_thres or e.in_cycle or edge_thres <= 0:
                    kept.append(e)
    return CallGraph(
        tuple(_node(p, r) for r in sorted(keep)),
        tuple(kept),
        p.hz,
        p.print_ticks,
        center,
        len(candidates - keep),
        among - len(kept),
    )


def whole_graph(p: Profile, node_thres: float = NODE_THRES, edge_thres: float = EDGE_THRES) -> CallGraph:
    """Every routine with time or arcs whose total reaches `node_thres` percent."""
    candidates = {r.id for r in p.routines if r.self_ticks > 0 and r.printed}
    for i in exported_arcs(p):
        candidates.add(p.arcs[i].parent)
        candidates.add(p.arcs[i].child)
    keep = {r for r in candidates if node_thres <= 0 or _pct(p, p.routines[r].total_ticks) >= node_thres}
    return _build(p, candidates, keep, edge_thres, -1)


def graph_around(
    p: Profile,
    routine: int,
    depth: int = 2,
    node_thres: float = 0.0,
    edge_thres: float = 0.0,
    max_nodes: int = 500,
) -> CallGraph:
    """`routine`, its callers to `depth` levels up and its callees to `depth` levels down (by
    breadth-first search, at most `max_nodes` nodes), with every exported arc among them."""
    keep = {routine}
    for up in (True, False):
        frontier = [routine]
        for _ in range(max(depth, 0)):
            nxt = []
            for r in frontier:
                for i in p.parents[r] if up else p.children[r]:
                    if not _shown(p, i):
                        continue
                    q = p.arcs[i].parent if up else p.arcs[i].child
                    if q not in keep and len(keep) < max_nodes:
                        keep.add(q)
                        nxt.append(q)
            frontier = nxt
    reached = set(keep)
    keep = {
        r for r in keep if r == routine or node_thres <= 0 or _pct(p, p.routines[r].total_ticks) >= node_thres
    }
    return _build(p, reached, keep, edge_thres, routine)
