"""workspace/executeCommand: gmonlens.reload, gmonlens.report, gmonlens.hottest,
gmonlens.showCallers (arguments and results: PROTOCOL.md)."""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types

from .. import reload, render
from ..cursor import routine_under_cursor, routines_under_cursor
from ..server import GmonlensServer, safe
from ..workspace import fsuri as uris
from ..workspace.session import FolderState, LoadedFolder


def _folders(ls: GmonlensServer, folder_uri: Any) -> list[FolderState]:
    if isinstance(folder_uri, str) and folder_uri:
        state = ls.folders.get(folder_uri) or ls.folder_of(folder_uri)
        return [state] if state is not None else []
    return list(ls.folders.values())


def _report(loaded: LoadedFolder) -> str:
    """The text `gmonlens report` prints for the folder's files: routines named with gprof's file rule
    (`gprof_files`), which the editor's profile does not use (it keeps true source positions)."""
    from gmonlens.loader import load_profile
    from gmonlens.options import AnalysisOptions
    from gmonlens.report import ReportOptions, render_text

    profile = load_profile(
        loaded.binary,
        list(loaded.profiles),
        AnalysisOptions(static_call_graph=loaded.settings.static_call_graph),
        gprof_files=True,
    )
    return render_text(profile, ReportOptions())


def _hottest(loaded: LoadedFolder, by: str, limit: int) -> list[dict[str, Any]]:
    p = loaded.profile
    if by == "self":
        key = lambda r: (-r.self_ticks, -r.calls, r.name)  # noqa: E731
    else:
        key = lambda r: (-r.total_ticks, -r.self_ticks, r.name)  # noqa: E731
    ranked = sorted((r for r in p.routines if r.self_ticks > 0 or r.total_ticks > 0 or r.calls > 0), key=key)
    return [render.hottest_entry(p, r, loaded.index.place(r.id)) for r in ranked[:limit]]


def _callers(loaded: LoadedFolder, rid: int) -> list[dict[str, Any]]:
    p = loaded.profile
    out = []
    for pos in reversed(p.parents[rid]):
        arc = p.arcs[pos]
        parent = p.routines[arc.parent]
        place = loaded.index.place(parent.id)
        sites = loaded.index.call_site_lines(arc)
        out.append(
            {
                "name": parent.display_name,
                "calls": arc.count,
                "selfSeconds": round(p.seconds(arc.self_ticks), 6),
                "childrenSeconds": round(p.seconds(arc.child_ticks), 6),
                "uri": render.uri_of(place.path) if place else None,
                "line": max(place.line - 1, 0) if place else None,
                "callSites": [{"uri": render.uri_of(f), "line": ln - 1} for f, ln in sites],
            }
        )
    return out


async def _named_instance(
    ls: GmonlensServer, uri: str, position: types.Position, symbol: Any
) -> tuple[LoadedFolder, int] | None:
    """The routine of symbol `symbol` among those named at `position` (a lens's third argument:
    which of a template's instances sharing the line it belongs to)."""
    hits = await routines_under_cursor(ls, uri, position) if isinstance(symbol, str) else None
    if hits is None:
        return None
    loaded, rids = hits
    rid = next((rid for rid in rids if loaded.profile.routines[rid].name == symbol), None)
    return None if rid is None else (loaded, rid)


def register(server: GmonlensServer) -> None:
    @server.command("gmonlens.reload")
    @safe()
    async def reload_cmd(ls: GmonlensServer, *args: Any) -> None:
        tasks = [reload.reload(ls, s) for s in _folders(ls, args[0] if args else None)]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    @server.command("gmonlens.report")
    @safe()
    async def report_cmd(ls: GmonlensServer, *args: Any) -> str | None:
        for state in _folders(ls, args[0] if args else None):
            loaded = await reload.loaded_or_wait(ls, state)
            if loaded is not None:
                return await asyncio.to_thread(_report, loaded)
        return None

    @server.command("gmonlens.hottest")
    @safe(default=list)
    async def hottest_cmd(ls: GmonlensServer, *args: Any) -> list[dict[str, Any]]:
        by = args[0] if args and args[0] in ("self", "total") else "total"
        limit = args[1] if len(args) > 1 and isinstance(args[1], int) and args[1] > 0 else 50
        out: list[dict[str, Any]] = []
        for state in ls.folders.values():
            loaded = await reload.loaded_or_wait(ls, state)
            if loaded is not None:
                out += await asyncio.to_thread(_hottest, loaded, by, limit)
        field = "selfSeconds" if by == "self" else "totalSeconds"
        out.sort(key=lambda e: -e[field])
        return out[:limit]

    @server.command("gmonlens.showCallers")
    @safe(default=list)
    async def show_callers(ls: GmonlensServer, *args: Any) -> list[dict[str, Any]]:
        if len(args) < 2 or not isinstance(args[0], str) or not isinstance(args[1], dict):
            return []
        uri, pos = args[0], args[1]
        line, character = pos.get("line", 0), pos.get("character", 0)
        if not all(type(v) is int and 0 <= v < 2**31 for v in (line, character)):
            return []  # an LSP position holds two uintegers
        position = types.Position(line=line, character=character)
        hit = await _named_instance(ls, uri, position, args[2]) if len(args) > 2 else None
        hit = hit or await routine_under_cursor(ls, uri, position)
        if hit is None:
            path = uris.to_fs_path(uri)
            loaded = ls.loaded_for(uri)
            if loaded is None or not path:
                return []
            rid = await asyncio.to_thread(loaded.index.routine_at, path, position.line + 1, None)
            if rid is None:
                return []
            hit = (loaded, rid)
        return await asyncio.to_thread(_callers, *hit)
