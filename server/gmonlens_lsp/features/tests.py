"""workspace/executeCommand: `gmonlens.tests` (a folder's `gmonlens test` folder, its tests, and
what the folder loads) and `gmonlens.selectTest` (load one test's profile instead of the whole
suite's, the whole suite's, or discovery's again); arguments and results: PROTOCOL.md. The
folder's load is replaced (`reload`): the lenses, hover, call hierarchy, call graph and flame graph
then show that test."""

from __future__ import annotations

import asyncio
from typing import Any

from gmonlens_ide.session import FolderState
from gmonlens_ide.suite_views import listing
from gmonlens_ide.suites import Choice

from .. import reload, wire
from ..from_lsp import folder_for
from ..server import GmonlensServer, safe


def _folders(ls: GmonlensServer, folder_uri: object) -> list[FolderState]:
    if isinstance(folder_uri, str) and folder_uri:
        state = folder_for(ls, folder_uri)
        return [state] if state is not None else []
    return list(ls.folders.values())


async def _listed(state: FolderState) -> wire.TestsList:
    s = state.settings
    found = await asyncio.to_thread(listing, state.path, s.profiles, s.trusted, state.test)
    return wire.tests_list(state.uri, found)


def choice_of(value: object) -> Choice | None:
    """`gmonlens.selectTest`'s second argument: `{"test": NAME}` one test, `{"test": null}` the
    whole suite, null (or absent) discovery's profiles again."""
    if isinstance(value, dict) and "test" in value:
        test = value["test"]
        return Choice(test if isinstance(test, str) and test else None)
    return None


def register(server: GmonlensServer) -> None:
    @server.command("gmonlens.tests")
    @safe(default=list)
    async def tests_cmd(ls: GmonlensServer, *args: Any) -> list[wire.TestsList]:
        return [await _listed(state) for state in _folders(ls, args[0] if args else None)]

    @server.command("gmonlens.selectTest")
    @safe()
    async def select_cmd(ls: GmonlensServer, *args: Any) -> wire.TestsList | None:
        state = folder_for(ls, args[0]) if args and isinstance(args[0], str) else None
        if state is None:
            return None
        state.test = choice_of(args[1] if len(args) > 1 else None)
        await reload.reload(ls, state)
        return await _listed(state)
