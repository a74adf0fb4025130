"""The custom request `gmonlens/flameGraph`: the flame graph (icicle) of a folder's profile, built by
the engine (`gmonlens.output.flame`: gprof's propagated times top down, widths adding up; each cycle's
frame opened into its members), as frames for a client to draw (PROTOCOL.md). This module finds the folder; `wire` writes the JSON. The tree
is kept per loaded profile and parameters (`LoadedFolder.flame`: a few entries, gone on a reload),
so a repeated request (zoom, re-open, search) does not rebuild it (0.6-0.9 s at 100,000 routines)."""

from __future__ import annotations

import asyncio
from typing import Any

from gmonlens.output.flame import flame_tree
from gmonlens_ide.session import FolderState, LoadedFolder

from .. import reload, wire
from ..from_lsp import folder_for, places_of
from ..server import GmonlensServer, safe

FLAME_GRAPH = "gmonlens/flameGraph"
DEFAULT_MIN_PERCENT = 0.1  # frames under 0.1% of the total are folded into `other`
MAX_FRAMES = 200_000


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def flame_json(loaded: LoadedFolder, folder: str, min_percent: float) -> wire.FlameGraphResult:
    """The answer: frames in depth-first order (parents first); the frames' places read here (a
    cycle opens at its hottest member's source): call off the event loop."""
    p = loaded.profile
    tree = loaded.flame.get(
        (min_percent, MAX_FRAMES, True),
        lambda: flame_tree(p, min_percent / 100.0, MAX_FRAMES, open_cycles=True),
    )
    rids = {p.cycle(f.cycle).member_order[0] if f.cycle else f.routine for f in tree.frames}
    places = places_of(loaded, (rid for rid in rids if rid >= 0))
    return wire.flame_graph(p, loaded.generation, folder, tree, places, min_percent)


async def flame_graph(ls: GmonlensServer, params: Any) -> wire.FlameGraphResult | None:
    folder = _get(params, "folder")
    state: FolderState | None
    if isinstance(folder, str) and folder:
        state = folder_for(ls, folder)
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
    async def flame_graph_request(ls: GmonlensServer, params: Any) -> wire.FlameGraphResult | None:
        return await flame_graph(ls, params)
