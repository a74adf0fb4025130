"""A folder's budgets in the language server (`gmonlens_ide.budgets`): computed after each load
once requests pause, and again when the budget file changes (the poller asks
`BudgetHolder.changed`: the profile is not loaded again); their problems told once per episode (a
budget file that cannot be used in a popup, the rest in the log); the lenses refreshed when a
routine's verdict changed."""

from __future__ import annotations

import asyncio
import logging

from gmonlens_ide import budgets
from gmonlens_ide.budgets import FolderBudgets, Stopped
from gmonlens_ide.session import FolderState, LoadedFolder

from . import gcpause
from .notices import log_info, refresh_lenses, warn_once
from .server import GmonlensServer

log = logging.getLogger("gmonlens")


async def after_load(ls: GmonlensServer, state: FolderState, loaded: LoadedFolder) -> None:
    """The budgets of a new load, once the first requests are answered (a hover that comes first
    computes them itself)."""
    await ls.quiet()
    await _compute(ls, state, loaded, force=False)


async def refresh(ls: GmonlensServer, state: FolderState, loaded: LoadedFolder) -> None:
    """A watched budget file changed: the budgets again, on the same load."""
    await _compute(ls, state, loaded, force=True)


def _failing(value: FolderBudgets | None) -> set[int]:
    if value is None:
        return set()
    return {rid for rid in value.routines if value.fails(rid)}


async def _compute(ls: GmonlensServer, state: FolderState, loaded: LoadedFolder, force: bool) -> None:
    before = loaded.budgets.ready()

    def stop() -> bool:  # asked between tests, from the thread
        return state.loaded is not loaded

    try:
        value = await asyncio.to_thread(
            gcpause.run_paused, loaded.budgets.compute, budgets.facts(loaded), stop, force
        )
    except Stopped:
        return
    except Exception:  # a bug costs the budgets only
        log.exception("budgets of %s", state.path)
        return
    if state.loaded is not loaded:
        return
    tell(ls, state, value)
    if _failing(before) != _failing(value) or (force and value.routines):
        await refresh_lenses(ls)


def tell(ls: GmonlensServer, state: FolderState, value: FolderBudgets) -> None:
    """Say the budgets' problems: each once while it lasts (a problem gone and back is said
    again), a budget file that cannot be used in a popup once per episode (while it stays
    unusable, its new problems go to the log)."""
    for note in value.notes:  # which file was applied, which were passed over and why
        log_info(ls, note)
    told = set(state.budget_problems)
    popup = value.broken is not None and state.budget_broken is None
    state.budget_problems = value.problems
    state.budget_broken = value.broken
    for p in value.problems:
        if p in told:
            continue
        state.said.discard(p)
        warn_once(ls, state, p, blocking=popup and p == value.broken)
