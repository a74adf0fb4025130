"""workspace/executeCommand: gmonlens.reload, gmonlens.report, gmonlens.hottest,
gmonlens.showCallers (arguments and results: PROTOCOL.md)."""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types

from gmonlens_ide.session import FolderState, LoadedFolder

from .. import reload, to_lsp, uris, wire
from ..from_lsp import folder_for, routine_under_cursor, routines_under_cursor
from ..server import GmonlensServer, safe


def _folders(ls: GmonlensServer, folder_uri: object) -> list[FolderState]:
    if isinstance(folder_uri, str) and folder_uri:
        state = folder_for(ls, folder_uri)
        return [state] if state is not None else []
    return list(ls.folders.values())


def _report(loaded: LoadedFolder) -> str:
    """The text `gmonlens report` prints for the folder's files: routines named with gprof's file rule
    (`gprof_files`), which the editor's profile does not use (it keeps true source positions)."""
    from gmonlens.common.options import AnalysisOptions
    from gmonlens.load.loader import load_profile
    from gmonlens.output.report import ReportOptions, render_text

    profile = load_profile(
        loaded.program,  # the files as the load read them
        options=AnalysisOptions(static_call_graph=loaded.settings.static_call_graph),
        gprof_files=True,
    )
    return render_text(profile, ReportOptions())


def _hottest(loaded: LoadedFolder, by: str, limit: int) -> list[wire.Hottest]:
    p = loaded.profile
    if by == "self":
        key = lambda r: (-r.self_ticks, -r.calls, r.name)  # noqa: E731
    else:
        key = lambda r: (-r.total_ticks, -r.self_ticks, r.name)  # noqa: E731
    ranked = sorted((r for r in p.routines if r.self_ticks > 0 or r.total_ticks > 0 or r.calls > 0), key=key)
    return [wire.hottest_entry(p, r, loaded.index.place(r.id)) for r in ranked[:limit]]


def _callers(loaded: LoadedFolder, rid: int) -> list[wire.Caller]:
    p, index = loaded.profile, loaded.index
    return [
        wire.caller_entry(p, pos, index.place(p.arcs[pos].parent), index.call_site_lines(p.arcs[pos]))
        for pos in reversed(p.parents[rid])
    ]


async def _named_instance(
    ls: GmonlensServer, uri: str, position: types.Position, symbol: object
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
    async def hottest_cmd(ls: GmonlensServer, *args: Any) -> list[wire.Hottest]:
        by = args[0] if args and args[0] in ("self", "total") else "total"
        limit = args[1] if len(args) > 1 and isinstance(args[1], int) and args[1] > 0 else 50
        out: list[wire.Hottest] = []
        for state in ls.folders.values():
            loaded = await reload.loaded_or_wait(ls, state)
            if loaded is not None:
                out += await asyncio.to_thread(_hottest, loaded, by, limit)
        if by == "self":
            out.sort(key=lambda e: -(e["selfSeconds"] or 0.0))
        else:
            out.sort(key=lambda e: -(e["totalSeconds"] or 0.0))
        return out[:limit]

    @server.command("gmonlens.showCallers")
    @safe(default=list)
    async def show_callers(ls: GmonlensServer, *args: Any) -> list[wire.Caller]:
        if len(args) < 2 or not isinstance(args[0], str) or not isinstance(args[1], dict):
            return []
        uri, pos = args[0], args[1]
        line, character = pos.get("line", 0), pos.get("character", 0)
        if not all(type(v) is int and 0 <= v < 2**31 for v in (line, character)):
            return []  # an LSP position holds two uintegers
        position = to_lsp.position(line, character)
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
