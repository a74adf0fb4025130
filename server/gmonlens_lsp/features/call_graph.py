"""The custom request `gmonlens/callGraph`: the call graph around a routine (callers and callees to a
depth) or the whole program pruned like `gmonlens export --format dot`, for a client to draw
(PROTOCOL.md). The graph comes from the engine (`gmonlens.output.graph`); this module finds the
routine and the folder, and `wire` writes the JSON. It never waits for the figures' certainty
(a background computation after a large load): until it is ready (`LoadedFolder.certainty_ready`,
the hover's and call hierarchy's rule) the edges' `estimated` is null and `certaintyPending` true."""

from __future__ import annotations

import asyncio
from typing import Any

from gmonlens.common.model import Profile
from gmonlens.output.graph import EDGE_THRES, NODE_THRES, CallGraph, graph_around, whole_graph
from gmonlens.profile.certainty import ProfileCertainty
from gmonlens_ide.session import FolderState, LoadedFolder

from .. import reload, to_lsp, wire
from ..from_lsp import folder_for, places_of, routine_under_cursor
from ..server import GmonlensServer, safe

CALL_GRAPH = "gmonlens/callGraph"


def _state(ls: GmonlensServer, folder: object) -> FolderState | None:
    if isinstance(folder, str) and folder:
        return folder_for(ls, folder)
    return next(iter(ls.folders.values()), None)


def _refind(loaded: LoadedFolder, routine: object, generation: object, name: object) -> int | None:
    """A routine id from an earlier answer: kept while the generation is the same, else by name."""
    routines = loaded.profile.routines
    same = isinstance(routine, int) and generation == loaded.generation and 0 <= routine < len(routines)
    if same and isinstance(routine, int) and (not isinstance(name, str) or routines[routine].name == name):
        return int(routine)
    if isinstance(name, str):
        for r in routines:
            if r.name == name or r.display_name == name:
                return r.id
    return None


def graph_json(
    loaded: LoadedFolder, folder: str, g: CallGraph, depth: int | None, node_thres: float, edge_thres: float
) -> wire.CallGraphResult:
    """The result for graph `g` (the nodes' places read here: call off the event loop); the
    edges' estimate marks only when the certainty is ready (never waits for it)."""
    places = places_of(loaded, (n.routine for n in g.nodes))
    p = loaded.profile
    cert = loaded.certainty_ready()
    estimated = (
        None
        if cert is None
        else {(e.parent, e.child): _estimated(p, cert, e.child) for e in g.edges if not e.in_cycle}
    )
    return wire.call_graph(p, loaded.generation, folder, g, places, estimated, depth, node_thres, edge_thres)


def _estimated(p: Profile, cert: ProfileCertainty, child: int) -> bool:
    """Whether the time along an arc into `child` is gprof's split (the callee, whole with its
    cycle, has several callers: certainty.py)."""
    c = p.routines[child]
    return (cert.cycle_callers[c.cycle - 1] if c.cycle else cert.callers[child]) > 1


async def _target(ls: GmonlensServer, q: wire.CallGraphQuery) -> tuple[FolderState, LoadedFolder, int] | None:
    """The folder, its profile and the routine to centre on (-1 for the whole program)."""
    by_cursor = q.uri is not None and q.position is not None
    state = ls.folder_of(q.uri) if q.uri is not None and by_cursor else _state(ls, q.folder)
    if state is None or await reload.loaded_or_wait(ls, state) is None:
        return None
    if q.uri is not None and q.position is not None:
        pos = to_lsp.position(q.position["line"], q.position["character"])
        hit = await routine_under_cursor(ls, q.uri, pos)
        return None if hit is None else (state, hit[0], hit[1])
    loaded = state.loaded
    if loaded is None:
        return None
    if q.whole:
        return state, loaded, -1
    rid = _refind(loaded, q.routine, q.generation, q.name)
    return None if rid is None else (state, loaded, rid)


async def call_graph(ls: GmonlensServer, params: Any) -> wire.CallGraphResult | None:
    q = wire.call_graph_query(params, NODE_THRES, EDGE_THRES)
    target = await _target(ls, q)
    if target is None:
        return None
    state, loaded, rid = target
    if q.whole:
        g = await asyncio.to_thread(whole_graph, loaded.profile, q.node_thres, q.edge_thres)
    else:
        g = await asyncio.to_thread(
            graph_around, loaded.profile, rid, q.depth, q.node_thres, q.edge_thres, q.max_nodes
        )
    depth = None if q.whole else q.depth
    return await asyncio.to_thread(graph_json, loaded, state.uri, g, depth, q.node_thres, q.edge_thres)


def register(server: GmonlensServer) -> None:
    @server.feature(CALL_GRAPH)
    @safe()
    async def call_graph_request(ls: GmonlensServer, params: Any) -> wire.CallGraphResult | None:
        return await call_graph(ls, params)
