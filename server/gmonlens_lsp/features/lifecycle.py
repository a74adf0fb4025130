"""initialize / initialized / configuration / workspace folders: settings in, folders loaded.

Trust (`trustedWorkspace`) is taken from `initializationOptions` only: the client's launch
configuration, which the user writes. Settings pulled (`workspace/configuration`) or pushed
(`didChangeConfiguration`) later may come from the workspace's own files (eglot answers from a
repository's `.dir-locals.el`, VS Code from `.vscode/settings.json`), so they never grant it;
VS Code restarts the server when the user trusts the folder."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability

from gmonlens_ide.settings import client_section

from .. import reload, textsync, to_lsp, watching
from ..server import GmonlensServer, safe

log = logging.getLogger("gmonlens")


async def pull_configuration(ls: GmonlensServer) -> None:
    """Ask the client for its `gmonlens` section (workspace/configuration), globally and for each
    workspace folder (per-folder values win), when it can answer."""
    if not get_capability(ls.client_capabilities, "workspace.configuration", False):
        return
    states = list(ls.folders.values())
    params = to_lsp.configuration("gmonlens", [s.uri for s in states])
    try:
        result = await asyncio.wait_for(ls.workspace_configuration_async(params), timeout=5)
    except Exception as exc:
        log.info("workspace/configuration failed: %s", exc)
        return
    if not result:
        return
    if result[0] is not None:
        ls.client_settings = result[0]
    for state, value in zip(states, result[1:], strict=False):
        state.client_settings = value


def reload_all(ls: GmonlensServer) -> None:
    for state in ls.folders.values():
        reload.reload(ls, state)


def register(server: GmonlensServer) -> None:
    @server.feature(types.INITIALIZE)
    @safe()
    def on_initialize(ls: GmonlensServer, params: types.InitializeParams) -> None:
        textsync.install(ls.workspace)  # edits of large documents spliced, not re-split
        ls.client_settings = client_section(params.initialization_options)
        # the workspace's trust is the client's launch configuration's alone (module docstring)
        ls.client_trust = (
            isinstance(ls.client_settings, Mapping) and ls.client_settings.get("trustedWorkspace") is True
        )
        ls.sync_folders()

    @server.feature(types.INITIALIZED)
    @safe()
    async def on_initialized(ls: GmonlensServer, params: types.InitializedParams) -> None:
        await pull_configuration(ls)
        if get_capability(
            ls.client_capabilities, "workspace.did_change_configuration.dynamic_registration", False
        ):
            await ls.register_dynamically(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
        ls.sync_folders()
        reload_all(ls)
        await watching.start(ls)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    @safe()
    async def on_configuration(ls: GmonlensServer, params: types.DidChangeConfigurationParams) -> None:
        settings: Any = client_section(params.settings)
        if isinstance(settings, dict) and settings:
            ls.client_settings = settings
        await pull_configuration(ls)
        reload_all(ls)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    @safe()
    async def on_folders(ls: GmonlensServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        for state in ls.sync_folders():
            reload.reload(ls, state)
        await watching.start(ls)

    @server.feature(types.SHUTDOWN)
    @safe()
    def on_shutdown(ls: GmonlensServer, params: Any) -> None:
        for task in list(ls.background):
            task.cancel()

    @server.feature(types.EXIT)
    def on_exit(ls: GmonlensServer, params: Any) -> None:
        # the specification: 0 after `shutdown`, else 1; at once, whatever a load is doing
        ls.terminate(0 if ls.protocol.shut_down else 1)
