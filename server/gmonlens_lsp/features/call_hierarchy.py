"""Call hierarchy: gprof's parents (incoming, with call-site ranges from the arcs' return
addresses) and children (outgoing; static arcs too when the static call graph is on). Each arc's
detail says whether its time is exact or gprof's estimate once the figures' certainty is ready
(`LoadedFolder.certainty_ready`); before that a request answers at once without that mark."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from gmonlens_ide.index import link_budget
from gmonlens_ide.session import LoadedFolder

from .. import to_lsp, uris
from ..from_lsp import lines_in, place_text, routines_under_cursor
from ..server import GmonlensServer, safe


def _routine(ls: GmonlensServer, item: types.CallHierarchyItem) -> tuple[LoadedFolder, int] | None:
    """The item's routine in the current profile (re-found by name after a reload)."""
    data: dict[str, object] = item.data if isinstance(item.data, dict) else {}
    for state in ls.folders.values():
        loaded = state.loaded
        if loaded is None:
            continue
        rid = data.get("routine")
        routines = loaded.profile.routines
        if (
            data.get("generation") == loaded.generation
            and isinstance(rid, int)
            and 0 <= rid < len(routines)
            and routines[rid].name == data.get("name", routines[rid].name)
        ):
            return loaded, rid
        name = data.get("name")
        if isinstance(name, str):
            for r in routines:
                if r.name == name:
                    return loaded, r.id
    return None


def _item(
    loaded: LoadedFolder, rid: int, linked: bool = False, budget: list[int] | None = None
) -> types.CallHierarchyItem:
    """Routine `rid` as an item (its place and declaration line read here: call off the loop);
    `linked`: another routine's caller or callee, placed as a link is (`SourceIndex.link_place`)."""
    place = loaded.index.link_place(rid, budget) if linked else loaded.index.place(rid)
    return to_lsp.call_item(loaded.profile, rid, place, place_text(place), loaded.binary, loaded.generation)


def _incoming(loaded: LoadedFolder, rid: int) -> list[types.CallHierarchyIncomingCall]:
    p, index = loaded.profile, loaded.index
    cert = loaded.certainty_ready()  # None while computing: the arcs unmarked, as the hover does
    out = []
    budget = link_budget()  # DWARF decoded for all the links of this request
    for pos in reversed(p.parents[rid]):  # gprof lists the biggest caller last
        arc = p.arcs[pos]
        item = _item(loaded, arc.parent, linked=True, budget=budget)
        lines = lines_in(index.call_site_lines(arc), uris.to_fs_path(item.uri) or "")
        estimated = None if cert is None else cert.estimated_arc(p, pos)
        out.append(to_lsp.incoming(item, arc, lines, p, estimated))
    return out


def _outgoing(
    loaded: LoadedFolder, rid: int, caller: types.CallHierarchyItem
) -> list[types.CallHierarchyOutgoingCall]:
    p, index = loaded.profile, loaded.index
    cert = loaded.certainty_ready()  # None while computing: the arcs unmarked, as the hover does
    budget = link_budget()  # DWARF decoded for all the links of this request
    caller_path = uris.to_fs_path(caller.uri) or ""
    out = []
    for pos in p.children[rid]:
        arc = p.arcs[pos]
        item = _item(loaded, arc.child, linked=True, budget=budget)
        lines = lines_in(index.call_site_lines(arc), caller_path)
        estimated = None if cert is None else cert.estimated_arc(p, pos)
        out.append(to_lsp.outgoing(item, arc, lines, caller.selection_range, p, estimated))
    return out


def register(server: GmonlensServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY)
    @safe()
    async def prepare(
        ls: GmonlensServer, params: types.CallHierarchyPrepareParams
    ) -> list[types.CallHierarchyItem] | None:
        hit = await routines_under_cursor(ls, params.text_document.uri, params.position)
        if hit is None:
            return None
        loaded, rids = hit  # a template's instances declared on the line: one item each
        return [await asyncio.to_thread(_item, loaded, rid) for rid in rids]

    @server.feature(types.CALL_HIERARCHY_INCOMING_CALLS)
    @safe(default=list)
    async def incoming(
        ls: GmonlensServer, params: types.CallHierarchyIncomingCallsParams
    ) -> list[types.CallHierarchyIncomingCall]:
        hit = _routine(ls, params.item)
        return [] if hit is None else await asyncio.to_thread(_incoming, *hit)

    @server.feature(types.CALL_HIERARCHY_OUTGOING_CALLS)
    @safe(default=list)
    async def outgoing(
        ls: GmonlensServer, params: types.CallHierarchyOutgoingCallsParams
    ) -> list[types.CallHierarchyOutgoingCall]:
        hit = _routine(ls, params.item)
        return [] if hit is None else await asyncio.to_thread(_outgoing, hit[0], hit[1], params.item)
