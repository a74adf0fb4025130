"""Line heat on the code: textDocument/inlayHint at the end of each hot line (requested range only)
and the custom request `gmonlens/lineHeat` (a file's per-line figures; PROTOCOL.md)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from lsprotocol import types

from gmonlens_ide.heat_index import FileHeat, HeatIndex
from gmonlens_ide.linemap import LineMap
from gmonlens_ide.session import LoadedFolder
from gmonlens_ide.sourcetext import file_locator

from .. import notices, reload, to_lsp, uris, wire
from ..from_lsp import line_map, open_doc
from ..server import GmonlensServer, safe

LINE_HEAT = "gmonlens/lineHeat"


async def heat_for(
    ls: GmonlensServer, uri: str, wait: bool = True
) -> tuple[LoadedFolder, HeatIndex | None, str] | None:
    """The folder's loaded profile (waiting for a load in progress), its heat and the file's path.
    The heat is computed once per load in the background (`reload.heat_task`); until it is ready,
    `wait=False` gives None for it instead of waiting."""
    state = ls.folder_of(uri)
    path = uris.to_fs_path(uri)
    if state is None or not path:
        return None
    loaded = await reload.loaded_or_wait(ls, state)
    if loaded is None or not loaded.profile.has_histogram:
        return None
    heat = loaded.heat.ready
    if heat is None and not loaded.heat.failed:
        task = reload.heat_task(ls, state, loaded)
        if not wait:
            return loaded, None, path
        heat = await asyncio.shield(task)
    return None if heat is None else (loaded, heat, path)


async def _text_lines(ls: GmonlensServer, uri: str, path: str) -> Any:
    """Line texts (`.line(i)`) of the open document, else of the file on disk (a `LineLocator`,
    read off the event loop)."""
    doc = open_doc(ls, uri)
    if doc is None:
        return await asyncio.to_thread(file_locator, path)
    return doc


def register(server: GmonlensServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, to_lsp.inlay_hint_options())
    @safe()
    async def inlay_hints(ls: GmonlensServer, params: types.InlayHintParams) -> list[types.InlayHint] | None:
        uri = params.text_document.uri
        refresh = notices.can_refresh_hints(ls)
        hit = await heat_for(ls, uri, wait=not refresh)
        if hit is None:
            return None
        loaded, heat, path = hit
        if heat is None:  # still being computed: nothing yet, workspace/inlayHint/refresh follows
            loaded.heat.answered_pending = True
            return []
        file_heat = heat.for_path(path)
        if file_heat is None:
            return None
        rng = params.range
        minimum = loaded.settings.line_heat_min_percent
        template = loaded.settings.line_heat_label
        text = await _text_lines(ls, uri, path)
        moved = line_map(ls, uri, loaded)
        if moved is None:
            return [
                to_lsp.inlay_hint(h, text.line(h.line - 1), template)
                for h in file_heat.between(rng.start.line + 1, rng.end.line + 1)
                if h.samples > 0 and h.percent >= minimum
            ]
        # unsaved edits: each hot line where it is now (a line retyped: in its place); none where
        # the edits changed the number of lines
        first, last = moved.base(rng.start.line), moved.base(rng.end.line)
        hints = []
        for h in file_heat.between((first or 0) + 1, (last + 1) if last is not None else 1 << 40):
            now = moved.line(h.line - 1)
            if (
                now is not None
                and rng.start.line <= now <= rng.end.line
                and h.samples > 0
                and h.percent >= minimum
            ):
                hints.append(to_lsp.inlay_hint(replace(h, line=now + 1), text.line(now), template))
        return hints

    @server.feature(LINE_HEAT)
    @safe()
    async def line_heat_request(ls: GmonlensServer, params: Any) -> wire.LineHeat | None:
        doc = getattr(params, "textDocument", None)
        uri = getattr(doc, "uri", None)
        if not isinstance(uri, str):
            return None
        hit = await heat_for(ls, uri)
        heat = hit[1] if hit is not None else None
        if hit is None or heat is None:
            return None
        file_heat = heat.for_path(hit[2])
        moved = line_map(ls, uri, hit[0])
        if moved is not None and file_heat is not None:
            file_heat = _moved(file_heat, moved)
        return wire.line_heat(uri, heat, file_heat)


def _moved(file_heat: FileHeat, moved: LineMap) -> FileHeat:
    """The file's hot lines where unsaved edits moved them (`LineMap.line`)."""
    lines = []
    for h in file_heat.lines:
        now = moved.line(h.line - 1)
        if now is not None:
            lines.append(replace(h, line=now + 1))
    return FileHeat(file_heat.path, tuple(lines), tuple(h.line for h in lines))
