"""Reload when the profile, the binary or gmonlens.yaml change: client file watchers registered
dynamically when the client supports them, else polling. A change is acted on once the files have
kept the same size and mtime for `STABLE` seconds (the writer is done), within a second."""

from __future__ import annotations

import asyncio
import logging
import os

from lsprotocol import types
from pygls.capabilities import get_capability

from gmonlens_ide.session import FolderState, watched_stamp

from . import reload, to_lsp
from .server import GmonlensServer

log = logging.getLogger("gmonlens")
POLL = 0.25  # seconds between polls
STABLE = 0.2  # seconds files must stay unchanged before reloading
PATTERNS = ("**/gmon.out", "**/gmon.out.*", "**/gmon.sum", "**/gmonlens.yaml")


async def start(ls: GmonlensServer) -> None:
    """Register client watchers once (when supported); otherwise make sure the poller runs."""
    if not ls.watching_by_client and get_capability(
        ls.client_capabilities, "workspace.did_change_watched_files.dynamic_registration", False
    ):
        ls.watching_by_client = await ls.register_dynamically(
            types.WORKSPACE_DID_CHANGE_WATCHED_FILES, to_lsp.file_watchers(PATTERNS)
        )
    if ls.poller is None or ls.poller.done():
        ls.poller = ls.spawn(_poll(ls))


def relevant(state: FolderState, path: str) -> bool:
    path = os.path.abspath(path)
    if path in state.inputs or os.path.basename(path) in ("gmonlens.yaml", "gmon.sum"):
        return True
    name = os.path.basename(path)
    return name == "gmon.out" or name.startswith("gmon.out.")


def changed(ls: GmonlensServer, state: FolderState) -> bool:
    """Schedule a reload of `state` once its files are stable (debounced); False when one is
    already scheduled or running (the poller will see the change again after it)."""
    old = ls.debounce.get(state.uri)
    if old is not None and not old.done():
        return False
    ls.debounce[state.uri] = ls.spawn(_settle_and_reload(ls, state))
    return True


async def _settle_and_reload(ls: GmonlensServer, state: FolderState) -> None:
    last = await asyncio.to_thread(watched_stamp, state)
    quiet = 0.0
    while quiet < STABLE:
        await asyncio.sleep(0.1)
        now = await asyncio.to_thread(watched_stamp, state)
        quiet = quiet + 0.1 if now == last else 0.0
        last = now
    if state.uri in ls.folders:
        await reload.reload(ls, state)


async def _poll(ls: GmonlensServer) -> None:
    """Poll the folders' files (always: client watchers miss files outside the workspace, like a
    binary elsewhere, and some clients send no events for ignored folders)."""
    while True:
        await asyncio.sleep(POLL)
        for state in list(ls.folders.values()):
            if state.loading is not None and not state.loading.done():
                continue
            previous = state.last_stamp
            now = await asyncio.to_thread(watched_stamp, state)
            if previous is None or (
                now != previous and changed(ls, state)
            ):  # never loaded to the end: watch from now on
                state.last_stamp = now
