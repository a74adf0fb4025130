"""textDocument/codeLens: one lens per routine declared in the document, with gprof's figures."""

from __future__ import annotations

import asyncio

from lsprotocol import types
from pygls import uris

from .. import control, render
from ..server import GmonlensServer, safe


def register(server: GmonlensServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    @safe()
    async def code_lens(ls: GmonlensServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
        state = ls.folder_of(params.text_document.uri)
        path = uris.to_fs_path(params.text_document.uri)
        if state is None or not path:
            return None
        loaded = await control.loaded_or_wait(ls, state)
        if loaded is None:
            return None
        placed = await asyncio.to_thread(loaded.index.routines_in, path)
        template = loaded.settings.lens_title
        return [
            render.code_lens(loaded.profile, rid, place, template, loaded.generation) for rid, place in placed
        ] or None
