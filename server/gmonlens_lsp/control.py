"""Loading and reloading folders, and telling the client: progress, problems (said once),
`gmonlens/status`, code-lens and inlay-hint refresh.

Problems that stop loading go out as window/showMessage (Warning/Error); the rest as
window/logMessage. A text already said for a folder is not said again until the folder loads
cleanly or the problem changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import uuid
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability

from . import cache, isolation
from .baseline import status_fields
from .heat import warm_lines
from .server import GmonlensServer
from .session import FolderState, LoadOutcome, finish_index, line_heat, load_folder, stamp
from .settings import effective_settings

log = logging.getLogger("gmonlens")
STATUS = "gmonlens/status"


def say(ls: GmonlensServer, state: FolderState, text: str, *, blocking: bool = False) -> None:
    if text in state.said:
        return
    state.said.add(text)
    log.info("%s", text)
    if blocking:
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=text))
    else:
        ls.window_log_message(types.LogMessageParams(type=types.MessageType.Warning, message=text))


def note(ls: GmonlensServer, text: str) -> None:
    log.info("%s", text)
    ls.window_log_message(types.LogMessageParams(type=types.MessageType.Info, message=text))


def routines_with_figures(profile: Any) -> int:
    """The status's routine count: routines with time or calls (those with a lens)."""
    return sum(1 for r in profile.routines if r.has_figures)


def send_status(ls: GmonlensServer, state: FolderState, status: str, message: str) -> None:
    loaded = state.loaded
    ls.protocol.notify(
        STATUS,
        {
            "state": status,
            "message": message,
            "totalSeconds": round(loaded.total_seconds, 6) if loaded else 0.0,
            "routines": routines_with_figures(loaded.profile) if loaded else 0,
            "folder": state.uri,
            "baseline": status_fields(loaded.comparison) if loaded else None,
        },
    )


async def refresh_lenses(ls: GmonlensServer) -> None:
    if get_capability(ls.client_capabilities, "workspace.code_lens.refresh_support", False):
        try:
            await asyncio.wait_for(ls.workspace_code_lens_refresh_async(None), timeout=10)
        except Exception as exc:  # a client that fails the refresh still gets lenses on request
            log.info("codeLens/refresh failed: %s", exc)


async def refresh_inlay_hints(ls: GmonlensServer) -> None:
    """Line heat changes with the profile: ask the client to ask again (when it can)."""
    if get_capability(ls.client_capabilities, "workspace.inlay_hint.refresh_support", False):
        try:
            await asyncio.wait_for(ls.workspace_inlay_hint_refresh_async(None), timeout=10)
        except Exception as exc:  # the client still asks for hints when it shows the file
            log.info("inlayHint/refresh failed: %s", exc)


def reload(ls: GmonlensServer, state: FolderState) -> asyncio.Task[Any]:
    """Start (or restart) loading `state`'s folder; returns the task (awaitable by handlers)."""
    if state.loading is not None and not state.loading.done():
        state.loading.cancel()
    task = ls.spawn(_reload(ls, state))
    state.loading = task
    return task


async def _reload(ls: GmonlensServer, state: FolderState) -> None:
    client = state.client_settings if state.client_settings is not None else ls.client_settings
    settings, problems = effective_settings(state.path, client)
    state.settings = settings
    for p in problems:
        say(ls, state, p)
    send_status(ls, state, "loading", f"Loading the profile of {os.path.basename(state.path) or state.path}")
    token = str(uuid.uuid4())
    progress = bool(get_capability(ls.client_capabilities, "window.work_done_progress", False))
    if progress:
        try:
            await asyncio.wait_for(ls.work_done_progress.create_async(token), timeout=5)
            ls.work_done_progress.begin(
                token,
                types.WorkDoneProgressBegin(
                    title="gmonlens", message="Loading the profile", cancellable=False
                ),
            )
        except Exception as exc:
            log.info("work done progress refused: %s", exc)
            progress = False
    before = stamp(state.watch_paths())
    outcome: LoadOutcome | None = None
    try:
        state.generation += 1
        outcome = await asyncio.to_thread(load_folder, state.path, settings, state.generation)
    finally:
        if progress:
            done = "Profile loaded" if outcome is not None and outcome.loaded is not None else "No profile"
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=done))
    state.inputs = outcome.inputs
    # files read by this load keep the stamp they had before it: a write during the load is seen
    now = stamp(state.watch_paths())
    state.last_stamp = {p: before.get(p, v) for p, v in now.items()}
    for n in outcome.notes:
        note(ls, n)
    if outcome.loaded is None:
        state.loaded = None
        state.problem = outcome.blocking
        say(ls, state, outcome.blocking or "no profile", blocking=True)
        send_status(ls, state, "problem" if outcome.blocking and "no gmon.out" not in outcome.blocking else "idle",
                    outcome.blocking or "no profile")  # fmt: skip
    else:
        replaced = state.loaded is not None
        state.loaded = outcome.loaded  # replaced whole
        if replaced:  # the previous profile's reference cycles (DWARF objects) must be collected
            gc.unfreeze()
            gc.collect()
        gc.freeze()  # the profile lives until the next load: keep its objects out of GC passes
        state.problem = None
        state.said = {t for t in state.said if t in outcome.warnings}
        for w in outcome.warnings:
            say(ls, state, w)
        lo = outcome.loaded
        note(
            ls,
            f"loaded {lo.binary} with {', '.join(lo.profiles)}: {routines_with_figures(lo.profile)} routines with figures, "
            f"{lo.total_seconds:.2f} s ({lo.seconds:.2f} s to load"
            + (", profile from cache" if lo.profile_cached else "")
            + (", DWARF index from cache)" if lo.dwarf_cached else ")"),
        )
        message = f"{lo.total_seconds:.2f} s in {routines_with_figures(lo.profile)} routines"
        if outcome.choice and outcome.choice not in state.said:  # which binary/profiles, said once
            say(ls, state, outcome.choice)
            message += f" ({outcome.choice})"
        send_status(ls, state, "loaded", message)
        ls.spawn(_finish(ls, state, lo))
    await refresh_lenses(ls)
    await refresh_inlay_hints(ls)


async def _finish(ls: GmonlensServer, state: FolderState, loaded: Any) -> None:
    await asyncio.sleep(0.5)  # let the first requests go first
    complete = loaded.dwarf_cached and loaded.profile_cached and cache.has_scopes(loaded.binary)
    if cache.cache_dir() is not None and not complete:
        args = [loaded.binary, *loaded.profiles]
        if loaded.settings.static_call_graph:
            args.append("--static-call-graph")
        await _warm(ls, args)
    # line heat once per load (unless a request asked first), after the warm-up: computing it while
    # the first lenses decode DWARF slowed them (GIL) by a second or more on SQLite
    heat = await asyncio.to_thread(line_heat, loaded)
    if heat is not None:
        await asyncio.to_thread(warm_lines, heat)
    problems = await asyncio.to_thread(finish_index, loaded)
    # inlined copies (hover) need every DWARF scope: from the cache the warm-up filled
    await asyncio.to_thread(loaded.heat.inlined, loaded.binary, loaded.profile, cache.cache_dir() is None)
    if state.loaded is loaded:
        for p in problems:
            say(ls, state, p)


async def _warm(ls: GmonlensServer, args: list[str]) -> None:
    """Run `warm.main(args)` in an isolated interpreter from "/" (see `isolation`)."""
    cmd = isolation.python_command("gmonlens_lsp.warm", args)
    if cmd is None:
        return
    try:
        proc = await asyncio.create_subprocess_exec(
            *cmd, cwd="/", env=isolation.child_env(),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
    except OSError as exc:
        log.info("cache warm-up failed: %s", exc)
        return
    ls.children.add(proc)
    try:
        await proc.wait()
    finally:
        ls.children.discard(proc)
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()


async def loaded_or_wait(ls: GmonlensServer, state: FolderState, timeout: float = 60.0) -> Any:
    """The folder's profile; while none is loaded and a load runs, wait for it (up to `timeout`
    seconds, following reloads that replace the running one)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    # a request can arrive before `initialized` has started the first load (it waits for the
    # client's configuration first): give it a moment to start
    start_by = loop.time() + 5.0
    while state.loaded is None and state.loading is None and loop.time() < start_by:
        await asyncio.sleep(0.05)
    while state.loaded is None and state.loading is not None and not state.loading.done():
        left = deadline - loop.time()
        if left <= 0:
            break
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(state.loading), left)
    return state.loaded
