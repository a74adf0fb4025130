"""Line heat on the code: textDocument/inlayHint at the end of each hot line (requested range only)
and the custom request `gmonlens/lineHeat` (a file's per-line figures; PROTOCOL.md)."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any

from lsprotocol import types

from .. import control, render
from .. import fsuri as uris
from ..heat import HeatIndex, disk_lines
from ..server import GmonlensServer, safe
from ..session import Loaded, line_heat

LINE_HEAT = "gmonlens/lineHeat"


async def heat_for(ls: GmonlensServer, uri: str) -> tuple[Loaded, HeatIndex, str] | None:
    """The folder's loaded profile (waiting for a load in progress), its heat and the file's path."""
    state = ls.folder_of(uri)
    path = uris.to_fs_path(uri)
    if state is None or not path:
        return None
    loaded = await control.loaded_or_wait(ls, state)
    if loaded is None:
        return None
    heat = loaded.heat.ready or await asyncio.to_thread(line_heat, loaded)
    return None if heat is None else (loaded, heat, path)


_LINES: OrderedDict[str, tuple[Any, int, tuple[str, ...]]] = OrderedDict()  # uri -> (version, size, lines)


def _text_lines(ls: GmonlensServer, uri: str, path: str) -> Any:
    """Line texts of the open document (else of the file on disk), by 0-based line. A document
    whose text is the file's on disk uses the file's lines (read once, ahead of requests); an edited
    one is split once per version (pygls splits the whole text on every `lines`: 50 ms and more on
    SQLite's 9 MB sqlite3.c)."""
    doc = ls.workspace.text_documents.get(uri)
    disk = disk_lines(path)
    lines: tuple[str, ...] = ()
    if doc is None:
        lines = disk[2] if disk else ()
    else:
        source = doc.source
        if disk is not None and disk[0] == len(source) and disk[1] == hash(source):
            lines = disk[2]
        else:
            hit = _LINES.get(uri)
            if hit is None or hit[0] != doc.version or hit[1] != len(source):
                hit = (doc.version, len(source), tuple(source.split("\n")))  # LSP lines: \n, \r\n
                _LINES[uri] = hit
                while len(_LINES) > 8:
                    _LINES.popitem(last=False)
            _LINES.move_to_end(uri)
            lines = hit[2]
    return lambda i: lines[i].rstrip("\r") if 0 <= i < len(lines) else ""


def register(server: GmonlensServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    @safe()
    async def inlay_hints(ls: GmonlensServer, params: types.InlayHintParams) -> list[types.InlayHint] | None:
        uri = params.text_document.uri
        hit = await heat_for(ls, uri)
        if hit is None:
            return None
        loaded, heat, path = hit
        file_heat = heat.for_path(path)
        if file_heat is None:
            return None
        rng = params.range
        minimum = loaded.settings.line_heat_min_percent
        template = loaded.settings.line_heat_label
        text = _text_lines(ls, uri, path)
        return [
            render.inlay_hint(h, text(h.line - 1), template)
            for h in file_heat.between(rng.start.line + 1, rng.end.line + 1)
            if h.seconds > 0 and h.percent >= minimum
        ]

    @server.feature(LINE_HEAT)
    @safe()
    async def line_heat_request(ls: GmonlensServer, params: Any) -> dict[str, Any] | None:
        doc = getattr(params, "textDocument", None)
        uri = getattr(doc, "uri", None)
        if not isinstance(uri, str):
            return None
        hit = await heat_for(ls, uri)
        if hit is None:
            return None
        _loaded, heat, path = hit
        return render.line_heat_result(uri, heat, heat.for_path(path))
