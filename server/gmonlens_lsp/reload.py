"""Loading and reloading folders off the event loop: one load per folder at a time (a newer one
cancels the older, which stops at its next phase), its progress, what it found told through
`notices`, then the line heat, the cache warm-up subprocess and the index's last pass."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any, TypeVar, cast

from pygls.capabilities import get_capability

from gmonlens_ide import cache_entries, isolation, userfiles, warmup
from gmonlens_ide import figures as fig
from gmonlens_ide.discovery import brief
from gmonlens_ide.heat_index import HeatIndex
from gmonlens_ide.session import (
    FolderState,
    LoadedFolder,
    LoadOutcome,
    finish_index,
    line_heat,
    load_folder,
    watched_stamp,
)
from gmonlens_ide.settings import effective_settings

from . import budget_watch, gcpause, to_lsp
from .notices import (
    health_message,
    log_info,
    refresh_inlay_hints,
    refresh_lenses,
    refresh_listings,
    routines_with_figures,
    send_status,
    warn_once,
)
from .server import GmonlensServer

log = logging.getLogger("gmonlens")
WRITE_SLACK_NS = 20_000_000  # file times lag the clock by up to a tick (coarse kernel time)
T = TypeVar("T")


def heat_task(
    ls: GmonlensServer, state: FolderState, loaded: LoadedFolder, after: asyncio.Future[Any] | None = None
) -> asyncio.Task[HeatIndex | None]:
    """The load's line heat, computed once in the background (started after the load, `after`
    that future is done, or by the first request that needs it); the task's result is the
    `HeatIndex` or None."""
    holder = loaded.heat
    if holder.task is None:
        holder.task = ls.spawn(_compute_heat(ls, state, loaded, after))
    task: asyncio.Task[HeatIndex | None] = holder.task
    return task


async def _compute_heat(
    ls: GmonlensServer, state: FolderState, loaded: LoadedFolder, after: asyncio.Future[Any] | None
) -> HeatIndex | None:
    if after is not None:
        await asyncio.wait([after])  # one whole-program step at a time (GIL)
    await ls.quiet()  # lenses and the requests that come with them first (GIL)
    heat = await asyncio.to_thread(gcpause.run_paused, line_heat, loaded)
    if heat is not None and loaded.heat.answered_pending and state.loaded is loaded:
        await refresh_inlay_hints(ls)  # hints were answered empty meanwhile: ask again
    return heat


def reload(ls: GmonlensServer, state: FolderState) -> asyncio.Task[None]:
    """Start (or restart) loading `state`'s folder; returns the task (awaitable by handlers).

    A superseded load is cancelled and stays quiet; its thread stops at the next phase (generation
    check), and the new load starts only when it has: one load per folder at a time."""
    if state.loading is not None and not state.loading.done():
        state.loading.cancel()
    state.generation += 1
    task = ls.spawn(_reload(ls, state, state.generation))
    state.loading = task
    return task


def in_thread(fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
    """Run `fn(*args)` in a daemon thread of its own (a read that blocks cannot hold up the event
    loop, the executor or the process's exit)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(cast(T, result))  # fn's own result

    def run() -> None:
        result: T | None = None
        error: BaseException | None = None
        try:
            result = fn(*args)
        except BaseException as exc:  # handed to the awaiting task
            error = exc
        with contextlib.suppress(RuntimeError):  # the loop is gone: the process is ending
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name=f"gmonlens-{getattr(fn, '__name__', 'work')}", daemon=True).start()
    return future


async def _reload(ls: GmonlensServer, state: FolderState, generation: int) -> None:
    # one load per folder: wait for a superseded one's thread to stop (cancelled if superseded too)
    if state.worker is not None and not state.worker.done():
        await asyncio.shield(state.worker)

    def stop() -> bool:  # asked from the load's thread
        return state.generation != generation

    client = ls.client_settings_of(state)
    started = time.time_ns()
    before = await asyncio.to_thread(watched_stamp, state)
    outcome: LoadOutcome | None = None
    try:
        state.worker = in_thread(effective_settings, state.path, client)
        settings, problems = await asyncio.shield(state.worker)
        userfiles.set_trust(state.path, settings.trusted)
        state.settings = settings
        state.settings_problems = tuple(problems)
        for p in problems:
            warn_once(ls, state, p)
        send_status(
            ls, state, "loading", f"Loading the profile of {os.path.basename(state.path) or state.path}"
        )
        token = await _begin_progress(ls)
        try:
            chosen = (state.test,) if state.test is not None else ()  # gmonlens.selectTest's choice
            state.worker = in_thread(
                gcpause.run_paused, load_folder, state.path, settings, generation, stop, *chosen
            )
            outcome = await asyncio.shield(state.worker)
        finally:
            if token is not None:
                done = (
                    "Profile loaded"
                    if outcome is not None and outcome.loaded is not None
                    else "A new profile is being written"
                    if outcome is not None and outcome.writing
                    else "No profile"
                )
                ls.work_done_progress.end(token, to_lsp.progress_end(done))
    finally:
        # files read by this load keep the stamp they had before it: a write during the load is
        # seen; a load that failed or was superseded still leaves the folder watched. The stamp
        # is the poller's own (`watched_stamp`, over the inputs this load found), so that a load
        # that changed nothing is not followed by another.
        if not stop() and outcome is not None:
            state.inputs = tuple(dict.fromkeys([*outcome.inputs, *(state.inputs if outcome.writing else ())]))
        if not stop() or state.last_stamp is None:
            now = watched_stamp(state)
            state.last_stamp = {p: before.get(p, _unseen(p, v, started)) for p, v in now.items()}
            # a load that found a profile being written read nothing whole: its stamp is no reason
            # to skip the load that follows the writer's close
            state.read_stamp = None if outcome is not None and outcome.writing else state.last_stamp
    if stop() or outcome is None:
        return
    if outcome.writing:
        being_written(ls, state, outcome.writing, outcome.inputs)
        return
    _apply(ls, state, outcome)
    await refresh_lenses(ls)
    await refresh_inlay_hints(ls)


def being_written(
    ls: GmonlensServer, state: FolderState, paths: tuple[str, ...], inputs: tuple[str, ...] = ()
) -> None:
    """A profile is still being written: keep showing the last complete profile (or none), say so
    on the status (no popup), and reload once the writer is done (`watching`)."""
    state.writing = tuple(dict.fromkeys([*state.writing, *paths]))
    state.inputs = tuple(dict.fromkeys([*state.inputs, *inputs]))
    text = f"a new profile is being written ({brief(state.writing)})"
    log.info("%s", text)
    loaded = state.loaded
    if loaded is None:
        send_status(ls, state, "loading", text)
        return
    figures = routines_with_figures(loaded.profile)
    send_status(ls, state, "loaded", f"{fig.shown(loaded.total_seconds)} s in {figures} routines; {text}")


def _unseen(path: str, now: tuple[int, int], started: int) -> tuple[int, int]:
    """The stamp to keep for a file first known from the load (its binary and profiles on the
    first load): as it is now, unless written since the load began (then one the poller sees
    differ). A stamp missing here made the poller reload every folder once after its first load.
    A folder's profile names (`watched_stamp`) are kept as they are now."""
    if path.endswith(os.sep):
        return now
    return (-2, -2) if now[1] >= started - WRITE_SLACK_NS else now


async def _begin_progress(ls: GmonlensServer) -> str | None:
    """A work-done progress token, begun (None when the client does not support or refuses it)."""
    if not get_capability(ls.client_capabilities, "window.work_done_progress", False):
        return None
    token = str(uuid.uuid4())
    try:
        await asyncio.wait_for(ls.work_done_progress.create_async(token), timeout=5)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        log.info("work done progress refused: %s", exc)
        return None
    ls.work_done_progress.begin(token, to_lsp.progress_begin("gmonlens", "Loading the profile"))
    return token


def _apply(ls: GmonlensServer, state: FolderState, outcome: LoadOutcome) -> None:
    """Tell the client what a (current) load found, and keep it."""
    state.inputs = outcome.inputs
    state.writing = ()
    for n in outcome.notes:
        log_info(ls, n)
    if outcome.loaded is None:
        state.loaded = None
        # one popup per episode of trouble: while the folder has not loaded since the last one, a
        # new text about the same file (another offset in a damaged profile) goes to the log
        episode = state.problem is not None and _subject(state.problem) == _subject(outcome.blocking)
        state.problem = outcome.blocking
        warn_once(ls, state, outcome.blocking or "no profile", blocking=not episode)
        send_status(ls, state, "problem" if outcome.blocking and "no gmon.out" not in outcome.blocking else "idle",
                    outcome.blocking or "no profile")  # fmt: skip
        return
    replaced = state.loaded is not None
    state.loaded = outcome.loaded  # replaced whole
    if replaced:  # the previous profile's reference cycles (DWARF objects) must be collected
        gc.unfreeze()
        gc.collect()
    gc.freeze()  # the profile lives until the next load: keep its objects out of GC passes
    state.problem = None
    lo = outcome.loaded
    health = health_message(lo.health)
    state.said = {
        t for t in state.said if t in outcome.warnings or t in state.settings_problems or t == health
    }
    for w in outcome.warnings:
        warn_once(ls, state, w)
    if health:  # one message for the whole profile's health, said once
        warn_once(ls, state, health, blocking=True)
    figures = routines_with_figures(lo.profile)
    log_info(
        ls,
        f"loaded {lo.binary} with {brief(lo.profiles)}: {figures} routines with figures, "
        f"{fig.shown(lo.total_seconds)} s ({lo.seconds:.2f} s to load"
        + (", profile from cache" if lo.profile_cached else "")
        + (", DWARF index from cache)" if lo.dwarf_cached else ")"),
    )
    message = f"{fig.shown(lo.total_seconds)} s in {figures} routines"
    if outcome.choice and outcome.choice not in state.said:  # which binary/profiles, said once
        warn_once(ls, state, outcome.choice)
        message += f" ({outcome.choice})"
    send_status(ls, state, "loaded", message)
    if replaced:
        ls.spawn(refresh_listings(ls, state.uri))
    ls.spawn(_finish(ls, state, lo))
    ls.spawn(budget_watch.after_load(ls, state, lo))


def _subject(problem: str | None) -> str:
    """The file a one-line problem names (its text up to the first ": ")."""
    return (problem or "").partition(": ")[0]


async def _certainty(loaded: Any) -> None:
    """Compute `loaded.certainty` in a thread (hover and call hierarchy answer without it
    meanwhile: `certainty_ready`; a request that needs it waits for this computation instead of
    starting its own: functools.cached_property)."""
    try:
        await asyncio.to_thread(gcpause.run_paused, getattr, loaded, "certainty")
    except Exception:  # a bug costs the certainty figures only; the request that asks says why
        log.exception("certainty failed")


async def _finish(ls: GmonlensServer, state: FolderState, loaded: LoadedFolder) -> None:
    """After a load, once the first lenses are answered and requests pause (`quiet`): the
    figures' certainty, then the line heat, in threads; the warm-up subprocess meanwhile (started
    before, it took a core from the first lenses: 2 cores, 100,000 routines); then the index's
    last pass. Whole-program work here never runs beside the first lenses."""
    await asyncio.sleep(0.5)  # let the first requests go first
    await ls.quiet()
    profile_stored = loaded.profile_cached
    if not profile_stored and cache_entries.cache_dir() is not None:
        # the profile this load computed, written first (its encoding's memory then adds to the
        # load's alone, not to the certainty's and the heat's): the warm-up would otherwise
        # compute it a second time
        profile_stored = await asyncio.to_thread(
            gcpause.run_paused, cache_entries.write_profile, loaded.profile_key, loaded.profile
        )
    # certainty (hover, call hierarchy, graph: 2 s CPU at 100,000 routines) first: a hover
    # or a call hierarchy meanwhile answers without it, the call graph panel waits for it
    certain = ls.spawn(_certainty(loaded))
    # line heat once per load, in a thread (it holds the GIL for 0.1-0.3 s on SQLite; beside the
    # first lenses' DWARF decoding it slowed them by a second or more)
    heat = heat_task(ls, state, loaded, after=certain)
    from gmonlens.disasm.session import has_listing_data

    complete = (
        loaded.dwarf_cached
        and profile_stored
        and loaded.program.has_scopes()
        and has_listing_data(loaded.program)
    )
    if cache_entries.cache_dir() is not None and not complete:
        args = [loaded.binary, *loaded.profiles]
        if loaded.settings.static_call_graph:
            args.append("--static-call-graph")
        if loaded.settings.clones_apart:
            args.append("--clones-apart")
        await _warm(ls, args)
    await asyncio.shield(heat)
    problems = await asyncio.to_thread(finish_index, loaded)
    # inlined copies (hover) need every DWARF scope: from the cache the warm-up filled
    await asyncio.to_thread(
        loaded.heat.inlined, loaded.program, loaded.profile, cache_entries.cache_dir() is None
    )
    if state.loaded is loaded:
        for p in problems:
            warn_once(ls, state, p)


async def _warm(ls: GmonlensServer, args: list[str]) -> None:
    """Run `warmup.main(args)` in an isolated interpreter from "/" (see `isolation`), at most
    `warmup.MAX_CONCURRENT` at once over all folders, each under `warmup.memory_limit`."""
    async with ls.warm_slots:
        await _warm_now(ls, args)


async def _warm_now(ls: GmonlensServer, args: list[str]) -> None:
    limit = await asyncio.to_thread(warmup.memory_limit, args[0])
    cmd = isolation.python_command(
        "gmonlens_ide.warmup", [f"--max-memory={limit}", f"--parent={os.getpid()}", *args]
    )
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


async def settled(state: FolderState, timeout: float = 120.0) -> None:
    """Wait until no load of `state` runs (following the reloads that replace one), up to
    `timeout` seconds; a cancelled load is waited for, never re-raised here."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while state.loading is not None and not state.loading.done():
        left = deadline - loop.time()
        if left <= 0:
            return
        await asyncio.wait([state.loading], timeout=left)


async def loaded_or_wait(
    ls: GmonlensServer, state: FolderState, timeout: float = 60.0
) -> LoadedFolder | None:
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
