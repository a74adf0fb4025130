"""textDocument/hover: a routine's gprof call-graph entry, at its name (definition or call site);
for a function inlined into others, the line samples of its inlined copies and where they are."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from .. import render
from ..cursor import link_places_of, routines_under_cursor, word_at
from ..server import GmonlensServer, safe
from ..workspace import disasm_docs
from ..workspace.session import LoadedFolder


async def inlined_parts(ls: GmonlensServer, uri: str, position: types.Position) -> list[str]:
    """Where the inlined copies of the function named under the cursor were sampled (line heat)."""
    loaded = ls.loaded_for(uri)
    word = await word_at(ls, uri, position) if loaded is not None else None
    if loaded is None or not word:
        return []
    return await asyncio.to_thread(_inlined, loaded, word)


def _inlined(loaded: LoadedFolder, word: str) -> list[str]:
    out = []
    for name, copies in loaded.heat.inlined_named(word):
        places = link_places_of(loaded, (rid for rid, _ticks in copies.callers))
        out.append(render.inlined_markdown(name, copies, loaded.profile, places))
    return out


MAX_INSTANCES = 5  # call-graph entries shown in full when a line declares several routines


def _entry(loaded: LoadedFolder, rid: int, folder: str | None = None) -> str:
    places = link_places_of(loaded, render.neighbours(loaded.profile, rid))
    text = render.hover_markdown(loaded.profile, places, rid, loaded.certainty_ready())
    if folder is not None:  # its instructions, with samples and calls
        text += "\n\n" + render.disassembly_link(disasm_docs.doc_uri(folder, loaded.profile.routines[rid]))
    if loaded.comparison is not None:
        from ..workspace.baseline import hover_table

        table = hover_table(loaded.comparison, rid, loaded.profile)
        text = f"{table}\n\n---\n\n{text}" if table else text
    return text


def register(server: GmonlensServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @safe()
    async def hover(ls: GmonlensServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        hit = await routines_under_cursor(ls, uri, params.position)
        parts = []
        if hit is not None:
            loaded, rids = hit
            if len(rids) > 1:  # a template's instances: the hottest in full, the others listed
                parts.append(render.instances_markdown(loaded.profile, rids, MAX_INSTANCES))
            state = ls.folder_of(uri)
            folder = state.uri if state is not None and state.loaded is loaded else None
            for rid in rids[:MAX_INSTANCES]:
                parts.append(await asyncio.to_thread(_entry, loaded, rid, folder))
        parts += await inlined_parts(ls, uri, params.position)
        return render.hover("\n\n---\n\n".join(parts), params.position.line) if parts else None
