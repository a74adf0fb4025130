"""Reload when a profile, the binary or gmonlens.yaml change, or a profile appears where discovery
looks (`session.watched_stamp`; nothing else in the folder counts); compute the budgets again,
without reloading, when the budget file changes (`budget_watch`): client file watchers
registered dynamically when the client supports them, and polling. A change is acted on once the
files have kept the same size and mtime for `STABLE` seconds and none is open for writing (the
writer is done)."""

from __future__ import annotations

import asyncio
import logging
import os

from lsprotocol import types
from pygls.capabilities import get_capability

from gmonlens_ide import writes
from gmonlens_ide.session import FolderState, watched_stamp

from . import budget_watch, reload, to_lsp
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
    """Reload once the folder's files have stayed unchanged for `STABLE` seconds and none is open
    for writing (`writes`: a program stalled in the middle of writing gmon.out leaves it
    unchanged for as long as it likes); meanwhile the last complete profile stays shown and the
    status says a new one is being written."""
    last = await asyncio.to_thread(watched_stamp, state)
    quiet = 0.0
    said = False
    while quiet < STABLE:
        await asyncio.sleep(0.1)
        now, writing = await asyncio.to_thread(_look, state)
        if writing:
            if not said:
                reload.being_written(ls, state, tuple(writing))
                said = True
            quiet = 0.0
        else:
            quiet = quiet + 0.1 if now == last else 0.0
        last = now
    if state.uri not in ls.folders:
        return
    if not state.writing and state.read_stamp is not None and last == state.read_stamp:
        return  # a load since the change already read this (a client's event and the poller both)
    await reload.reload(ls, state)


def _stamps(state: FolderState) -> tuple[dict[str, tuple[int, int]], bool]:
    """The folder's stamp, and whether its budget file changed (and stayed so: `BudgetHolder.
    changed`); for a thread."""
    loaded = state.loaded
    return watched_stamp(state), loaded is not None and loaded.budgets.changed()


def _look(state: FolderState) -> tuple[dict[str, tuple[int, int]], list[str]]:
    """The folder's stamp and its watched files open for writing (for a thread)."""
    return watched_stamp(state), writes.busy(state.watch_paths())


async def _poll(ls: GmonlensServer) -> None:
    """Poll the folders' files (always: client watchers miss files outside the workspace, like a
    binary elsewhere, and some clients send no events for ignored folders)."""
    while True:
        await asyncio.sleep(POLL)
        for state in list(ls.folders.values()):
            if state.loading is not None and not state.loading.done():
                continue
            if state.writing:  # a load found a profile being written: reload when its writer is done
                if not await asyncio.to_thread(writes.busy, state.writing) and changed(ls, state):
                    state.writing = ()
                continue
            previous = state.last_stamp
            now, budgets_moved = await asyncio.to_thread(_stamps, state)
            if budgets_moved and state.loaded is not None:  # the budgets again, not the profile
                ls.spawn(budget_watch.refresh(ls, state, state.loaded))
            if previous is None or (
                now != previous and changed(ls, state)
            ):  # never loaded to the end: watch from now on
                state.last_stamp = now
