"""workspace/didChangeWatchedFiles: a change to a folder's profile, binary or settings schedules
its reload (`watching.changed`)."""

from __future__ import annotations

from lsprotocol import types

from .. import uris
from ..server import GmonlensServer, safe
from ..watching import changed, relevant


def register(server: GmonlensServer) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @safe()
    def on_watched(ls: GmonlensServer, params: types.DidChangeWatchedFilesParams) -> None:
        for event in params.changes:
            path = uris.to_fs_path(event.uri)
            if not path:
                continue
            for state in ls.folders.values():
                if relevant(state, path):
                    changed(ls, state)
