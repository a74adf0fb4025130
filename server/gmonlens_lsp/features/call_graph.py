"""The custom request `gmonlens/callGraph`: the call graph around a routine (callers and callees to a
depth) or the whole program pruned like `gmonlens export --format dot`, for a client to draw
(PROTOCOL.md). The graph comes from the engine (`gmonlens.export_graph`); this module finds the
routine and the folder and writes the JSON."""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types

from gmonlens.export_graph import EDGE_THRES, NODE_THRES, CallGraph, graph_around, whole_graph

from .. import reload, render
from ..cursor import routine_under_cursor
from ..server import GmonlensServer, safe
from ..workspace.session import FolderState, LoadedFolder

CALL_GRAPH = "gmonlens/callGraph"
MAX_DEPTH = 10
MAX_NODES = 2000


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(key, default)
    return getattr(obj, key, default)


def _number(obj: Any, key: str, default: float, lo: float, hi: float) -> float:
    v = _get(obj, key)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return default
    return float(min(max(v, lo), hi))


def _state(ls: GmonlensServer, folder: Any) -> FolderState | None:
    if isinstance(folder, str) and folder:
        return ls.folders.get(folder) or ls.folder_of(folder)
    return next(iter(ls.folders.values()), None)


def _refind(loaded: LoadedFolder, routine: Any, generation: Any, name: Any) -> int | None:
    """A routine id from an earlier answer: kept while the generation is the same, else by name."""
    routines = loaded.profile.routines
    same = generation == loaded.generation and isinstance(routine, int) and 0 <= routine < len(routines)
    if same and (not isinstance(name, str) or routines[routine].name == name):
        return int(routine)
    if isinstance(name, str):
        for r in routines:
            if r.name == name or r.display_name == name:
                return r.id
    return None


def _cycle_json(loaded: LoadedFolder, number: int, members: list[int]) -> dict[str, Any]:
    """A cycle as gprof's `<cycle N as a whole>` entry; `members` are those among the nodes."""
    p = loaded.profile
    c = p.cycle(number)
    sec = p.seconds if p.hz else (lambda _t: 0.0)
    return {
        "number": number,
        "members": members,
        "allMembers": list(c.members),
        "selfSeconds": round(sec(c.prop_self_ticks), 6),
        "totalSeconds": round(sec(c.total_ticks), 6),
        "percent": round(100.0 * c.total_ticks / p.print_ticks, 4) if p.print_ticks > 0 else 0.0,
        "calls": c.calls,
        "internalCalls": c.self_calls,
    }


def graph_json(
    loaded: LoadedFolder, folder: str, g: CallGraph, depth: int | None, node_thres: float, edge_thres: float
) -> dict[str, Any]:
    p = loaded.profile
    sec = p.seconds if p.hz else (lambda _t: 0.0)
    nodes = []
    for n in g.nodes:
        place = loaded.index.place(n.routine)
        nodes.append(
            {
                "id": n.routine,
                "name": n.name,
                "displayName": n.display_name,
                "selfSeconds": round(sec(n.self_ticks), 6),
                "totalSeconds": round(sec(n.total_ticks), 6),
                "percent": round(n.percent, 4),
                "selfPercent": round(n.self_percent, 4),
                "calls": n.calls,
                "recursiveCalls": n.self_calls,
                "cycle": n.cycle or None,
                "uri": render.uri_of(place.path) if place and place.resolved else None,
                "line": max(place.line - 1, 0) if place and place.resolved else None,
            }
        )
    cycles: dict[int, list[int]] = {}
    for n in g.nodes:
        if n.cycle:
            cycles.setdefault(n.cycle, []).append(n.routine)
    return {
        "folder": folder,
        "generation": loaded.generation,
        "center": g.center if g.center >= 0 else None,
        "depth": depth,
        "nodeThreshold": node_thres,
        "edgeThreshold": edge_thres,
        "totalSeconds": round(sec(g.total_ticks), 6),
        "prunedNodes": g.pruned_nodes,
        "prunedEdges": g.pruned_edges,
        "nodes": nodes,
        "edges": [
            {
                "caller": e.parent,
                "callee": e.child,
                "calls": e.count,
                "seconds": round(sec(e.ticks), 6),
                "percent": round(e.percent, 4),
                "inCycle": e.in_cycle,
                "estimated": not e.in_cycle and _estimated(loaded, e.parent, e.child),
            }
            for e in g.edges
        ],
        "cycles": [_cycle_json(loaded, k, members) for k, members in sorted(cycles.items())],
    }


def _estimated(loaded: LoadedFolder, parent: int, child: int) -> bool:
    """Whether the time along parent -> child is gprof's split (the callee, whole with its cycle,
    has several callers: certainty.py)."""
    c = loaded.profile.routines[child]
    cert = loaded.certainty
    return (cert.cycle_callers[c.cycle - 1] if c.cycle else cert.callers[child]) > 1


async def _target(
    ls: GmonlensServer, params: Any, whole: bool
) -> tuple[FolderState, LoadedFolder, int] | None:
    """The folder, its profile and the routine to centre on (-1 for the whole program)."""
    doc, position = _get(params, "textDocument"), _get(params, "position")
    uri = _get(doc, "uri")
    by_cursor = isinstance(uri, str) and position is not None and not whole
    state = ls.folder_of(uri) if by_cursor else _state(ls, _get(params, "folder", uri))
    if state is None or await reload.loaded_or_wait(ls, state) is None:
        return None
    if by_cursor:
        pos = types.Position(int(_get(position, "line", 0)), int(_get(position, "character", 0)))
        hit = await routine_under_cursor(ls, uri, pos)
        return None if hit is None else (state, hit[0], hit[1])
    loaded = state.loaded
    if loaded is None:
        return None
    if whole:
        return state, loaded, -1
    rid = _refind(loaded, _get(params, "routine"), _get(params, "generation"), _get(params, "name"))
    return None if rid is None else (state, loaded, rid)


async def call_graph(ls: GmonlensServer, params: Any) -> dict[str, Any] | None:
    whole = _get(params, "whole") is True
    depth = int(_number(params, "depth", 2, 0, MAX_DEPTH))
    max_nodes = int(_number(params, "maxNodes", 500, 1, MAX_NODES))
    node_thres = _number(params, "nodeThreshold", NODE_THRES if whole else 0.0, 0.0, 100.0)
    edge_thres = _number(params, "edgeThreshold", EDGE_THRES if whole else 0.0, 0.0, 100.0)
    target = await _target(ls, params, whole)
    if target is None:
        return None
    state, loaded, rid = target
    if whole:
        g = await asyncio.to_thread(whole_graph, loaded.profile, node_thres, edge_thres)
    else:
        g = await asyncio.to_thread(
            graph_around, loaded.profile, rid, depth, node_thres, edge_thres, max_nodes
        )
    return await asyncio.to_thread(
        graph_json, loaded, state.uri, g, None if whole else depth, node_thres, edge_thres
    )


def register(server: GmonlensServer) -> None:
    @server.feature(CALL_GRAPH)
    @safe()
    async def call_graph_request(ls: GmonlensServer, params: Any) -> dict[str, Any] | None:
        return await call_graph(ls, params)
