"""workspace/symbol: routines whose name contains the query, hottest (total time) first."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from gmonlens_ide.session import LoadedFolder

from .. import to_lsp
from ..from_lsp import place_text
from ..server import GmonlensServer, safe

LIMIT = 200


def _symbols(loaded: LoadedFolder, query: str) -> list[types.WorkspaceSymbol]:
    p = loaded.profile
    q = query.lower()
    hits = [r for r in p.routines if q in r.display_name.lower()]
    hits.sort(key=lambda r: (-r.total_ticks, -r.prop_self_ticks, -r.calls, r.name))
    out = []
    for r in hits:
        place = loaded.index.place(r.id)
        if place is not None:
            out.append(to_lsp.symbol(p, r.id, place, place_text(place)))
        if len(out) >= LIMIT:
            break
    return out


def register(server: GmonlensServer) -> None:
    @server.feature(types.WORKSPACE_SYMBOL)
    @safe(default=list)
    async def workspace_symbol(
        ls: GmonlensServer, params: types.WorkspaceSymbolParams
    ) -> list[types.WorkspaceSymbol]:
        out: list[types.WorkspaceSymbol] = []
        for state in ls.folders.values():
            if state.loaded is not None:
                out += await asyncio.to_thread(_symbols, state.loaded, params.query)
        return out
