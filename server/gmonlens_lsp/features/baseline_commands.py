"""workspace/executeCommand: gmonlens.pinBaseline, gmonlens.clearBaseline, gmonlens.changes
(arguments and results: PROTOCOL.md)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from gmonlens.common.errors import GmonlensError
from gmonlens_ide import baseline
from gmonlens_ide.session import FolderState, LoadedFolder

from .. import notices, reload, wire
from ..from_lsp import folder_for
from ..server import GmonlensServer, safe


def _folders(ls: GmonlensServer, folder_uri: object) -> list[FolderState]:
    if isinstance(folder_uri, str) and folder_uri:
        state = folder_for(ls, folder_uri)
        return [state] if state is not None else []
    return list(ls.folders.values())


def _changes(loaded: LoadedFolder, state: FolderState) -> list[wire.ChangeEntry]:
    if loaded.comparison is None:
        return []
    return [
        wire.change_entry(r, kind, loaded.index.place(r.after.id) if r.after is not None else None, state.uri)
        for r, kind in baseline.changes(loaded.comparison)
    ]


def register(server: GmonlensServer) -> None:
    @server.command("gmonlens.pinBaseline")
    @safe(default=list)
    async def pin_cmd(ls: GmonlensServer, *args: Any) -> list[wire.Pinned]:
        out = []
        for state in _folders(ls, args[0] if args else None):
            loaded = await reload.loaded_or_wait(ls, state)
            if loaded is None:
                continue
            label = "pinned " + time.strftime("%Y-%m-%d %H:%M")
            try:
                pinned = await asyncio.to_thread(
                    baseline.pin, state.path, loaded.binary, loaded.profiles, label
                )
                out.append(wire.pinned(pinned))
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
    async def changes_cmd(ls: GmonlensServer, *args: Any) -> list[wire.ChangeEntry]:
        out: list[wire.ChangeEntry] = []
        for state in _folders(ls, args[0] if args else None):
            loaded = await reload.loaded_or_wait(ls, state)
            if loaded is not None:
                out += await asyncio.to_thread(_changes, loaded, state)
        order = {"regression": 0, "improvement": 1, "new": 2, "gone": 3}
        out.sort(key=lambda e: order[e["kind"]])  # stable: each folder's largest-first order kept
        return out
