"""workspace/executeCommand: gmonlens.pinBaseline, gmonlens.clearBaseline, gmonlens.changes
(arguments and results: PROTOCOL.md).

A pin or clear is answered once the reload that shows it has ended (following the reloads that
replace it): with its result; with an error (RequestFailed) when it pinned nothing (the profile
shown changed, no room...) or when a later pin or clear of the folder replaced it meanwhile. Never
with silence: a superseded reload is awaited without taking its cancellation."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from pygls.exceptions import JsonRpcException

from gmonlens.common.errors import GmonlensError
from gmonlens_ide import baseline, pinstore
from gmonlens_ide.session import FolderState, LoadedFolder

from .. import notices, reload, wire
from ..from_lsp import folder_for
from ..server import GmonlensServer, safe

REQUEST_FAILED = -32803  # LSP's RequestFailed


class RequestFailed(JsonRpcException):
    CODE = REQUEST_FAILED


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


async def _shown(ls: GmonlensServer, state: FolderState, serial: int, what: str) -> None:
    """Reload `state` and wait until its loads have ended; raise RequestFailed when a later pin or
    clear (`pin_serial`) replaced this one meanwhile."""
    reload.reload(ls, state)
    await reload.settled(state)
    if state.pin_serial != serial:
        raise RequestFailed(
            f"{state.path}: superseded: a later pin or clear of this folder replaced this {what}"
        )


async def _pin(ls: GmonlensServer, state: FolderState) -> wire.Pinned | None:
    loaded = await reload.loaded_or_wait(ls, state)
    if loaded is None:
        return None
    state.pin_serial += 1
    serial = state.pin_serial
    label = "pinned " + time.strftime("%Y-%m-%d %H:%M")
    try:
        pinned = await asyncio.to_thread(
            pinstore.pin,
            state.path,
            loaded.binary,
            loaded.profiles,
            label,
            choice=loaded.settings.pin_folder,
            expected=loaded.read_as,
        )
    except GmonlensError as exc:
        raise RequestFailed(str(exc)) from None
    await _shown(ls, state, serial, "pin")
    return wire.pinned(pinned)


def register(server: GmonlensServer) -> None:
    @server.command("gmonlens.pinBaseline")
    @safe(default=list)
    async def pin_cmd(ls: GmonlensServer, *args: Any) -> list[wire.Pinned]:
        out: list[wire.Pinned] = []
        failed: list[str] = []
        for state in _folders(ls, args[0] if args else None):
            try:
                pinned = await _pin(ls, state)
            except RequestFailed as exc:
                failed.append(exc.message)
                continue
            if pinned is not None:
                out.append(pinned)
        if failed and not out:
            raise RequestFailed("; ".join(failed))
        for text in failed:  # other folders were pinned: say what was not
            notices.log_info(ls, text)
        return out

    @server.command("gmonlens.clearBaseline")
    @safe()
    async def clear_cmd(ls: GmonlensServer, *args: Any) -> None:
        for state in _folders(ls, args[0] if args else None):
            state.pin_serial += 1
            serial = state.pin_serial
            settings = state.loaded.settings if state.loaded is not None else state.settings
            try:
                await asyncio.to_thread(pinstore.clear, state.path, settings.pin_folder)
            except GmonlensError as exc:
                raise RequestFailed(str(exc)) from None
            await _shown(ls, state, serial, "clear")

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
