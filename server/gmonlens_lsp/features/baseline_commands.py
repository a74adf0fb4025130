"""workspace/executeCommand: gmonlens.pinBaseline, gmonlens.clearBaseline, gmonlens.changes
(arguments and results: PROTOCOL.md)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from gmonlens.errors import GmonlensError

from .. import notices, reload, render
from ..server import GmonlensServer, safe
from ..workspace import baseline
from ..workspace.session import FolderState, LoadedFolder


def _folders(ls: GmonlensServer, folder_uri: Any) -> list[FolderState]:
    if isinstance(folder_uri, str) and folder_uri:
        state = ls.folders.get(folder_uri) or ls.folder_of(folder_uri)
        return [state] if state is not None else []
    return list(ls.folders.values())


def _entry(loaded: LoadedFolder, state: FolderState, r: Any, kind: str) -> dict[str, Any]:
    place = loaded.index.place(r.after.id) if r.after is not None else None
    b, a = r.before, r.after
    return {
        "name": r.display_name,
        "kind": kind,
        "status": r.status,
        "change": baseline.change_text(r) if kind != "gone" else "gone since baseline",
        "selfBefore": round(b.self_seconds, 6) if b else None,
        "selfAfter": round(a.self_seconds, 6) if a else None,
        "selfDelta": round(r.self.delta, 6),
        "selfPercent": None if r.self.percent is None else round(r.self.percent, 3),
        "selfZ": round(r.self.z, 3),
        "totalBefore": round(b.total_seconds, 6) if b else None,
        "totalAfter": round(a.total_seconds, 6) if a else None,
        "totalDelta": round(r.total.delta, 6),
        "totalPercent": None if r.total.percent is None else round(r.total.percent, 3),
        "totalZ": round(r.total.z, 3),
        "callsBefore": b.calls if b else None,
        "callsAfter": a.calls if a else None,
        "uri": render.uri_of(place.path) if place else None,
        "line": max(place.line - 1, 0) if place else None,
        "folder": state.uri,
    }


def _changes(loaded: LoadedFolder, state: FolderState) -> list[dict[str, Any]]:
    if loaded.comparison is None:
        return []
    return [_entry(loaded, state, r, kind) for r, kind in baseline.changes(loaded.comparison)]


def register(server: GmonlensServer) -> None:
    @server.command("gmonlens.pinBaseline")
    @safe(default=list)
    async def pin_cmd(ls: GmonlensServer, *args: Any) -> list[dict[str, Any]]:
        out = []
        for state in _folders(ls, args[0] if args else None):
            loaded = await reload.loaded_or_wait(ls, state)
            if loaded is None:
                continue
            label = "pinned " + time.strftime("%Y-%m-%d %H:%M")
            try:
                out.append(
                    await asyncio.to_thread(baseline.pin, state.path, loaded.binary, loaded.profiles, label)
                )
            except GmonlensError as exc:
                notices.warn_once(ls, state, str(exc), blocking=True)
                continue
            await reload.reload(ls, state)
        return out

    @server.command("gmonlens.clearBaseline")
    @safe()
    async def clear_cmd(ls: GmonlensServer, *args: Any) -> None:
        for state in _folders(ls, args[0] if args else None):
            await asyncio.to_thread(baseline.clear, state.path)
            await reload.reload(ls, state)

    @server.command("gmonlens.changes")
    @safe(default=list)
    async def changes_cmd(ls: GmonlensServer, *args: Any) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for state in _folders(ls, args[0] if args else None):
            loaded = await reload.loaded_or_wait(ls, state)
            if loaded is not None:
                out += await asyncio.to_thread(_changes, loaded, state)
        order = {"regression": 0, "improvement": 1, "new": 2, "gone": 3}
        out.sort(key=lambda e: order[e["kind"]])  # stable: each folder's largest-first order kept
        return out
