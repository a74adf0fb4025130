"""The custom request `gmonlens/flameGraph`: the flame graph (icicle) of a folder's profile, built by
the engine (`gmonlens.flame`: gprof's propagated times top down, widths adding up), as frames for a
client to draw (PROTOCOL.md). This module finds the folder and writes the JSON."""

from __future__ import annotations

import asyncio
from typing import Any

from gmonlens.flame import flame_tree, frame_name

from .. import reload, render
from ..server import GmonlensServer, safe
from ..workspace.session import FolderState, LoadedFolder

FLAME_GRAPH = "gmonlens/flameGraph"
DEFAULT_MIN_PERCENT = 0.1  # frames under 0.1% of the total are folded into `other`
MAX_FRAMES = 200_000


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def flame_json(loaded: LoadedFolder, folder: str, min_percent: float) -> dict[str, Any]:
    """The answer: frames in depth-first order (parents first), seconds rounded to microseconds."""
    p = loaded.profile
    tree = flame_tree(p, min_percent / 100.0, MAX_FRAMES)
    sec = (lambda t: round(t / p.hz, 6)) if p.hz else (lambda _t: 0.0)
    places: dict[int, Any] = {}
    frames = []
    for f in tree.frames:
        rid = f.routine if f.routine >= 0 else None
        if f.cycle:  # a cycle opens at its hottest member's source
            rid = p.cycle(f.cycle).member_order[0]
        if rid is not None and rid not in places:
            places[rid] = loaded.index.place(rid)
        place = places.get(rid) if rid is not None else None
        resolved = place if place is not None and place.resolved else None
        frames.append(
            {
                "parent": f.parent,
                "routine": f.routine if f.routine >= 0 else None,
                "cycle": f.cycle or None,
                "name": frame_name(p, f),
                "seconds": sec(f.width),
                "selfSeconds": sec(f.self_ticks),
                "estimated": f.estimated,
                "depth": f.depth,
                "uri": render.uri_of(resolved.path) if resolved else None,
                "line": max(resolved.line - 1, 0) if resolved else None,
            }
        )
    return {
        "folder": folder,
        "generation": loaded.generation,
        "totalSeconds": sec(tree.total_ticks),
        "minPercent": min_percent,
        "truncated": tree.truncated,
        "frames": frames,
    }


async def flame_graph(ls: GmonlensServer, params: Any) -> dict[str, Any] | None:
    folder = _get(params, "folder")
    state: FolderState | None
    if isinstance(folder, str) and folder:
        state = ls.folders.get(folder) or ls.folder_of(folder)
    else:
        state = next(iter(ls.folders.values()), None)
    if state is None or await reload.loaded_or_wait(ls, state) is None or state.loaded is None:
        return None
    v = _get(params, "minPercent")
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and v == v
    min_percent = float(min(max(v, 0.001), 100.0)) if ok else DEFAULT_MIN_PERCENT
    return await asyncio.to_thread(flame_json, state.loaded, state.uri, min_percent)


def register(server: GmonlensServer) -> None:
    @server.feature(FLAME_GRAPH)
    @safe()
    async def flame_graph_request(ls: GmonlensServer, params: Any) -> dict[str, Any] | None:
        return await flame_graph(ls, params)
