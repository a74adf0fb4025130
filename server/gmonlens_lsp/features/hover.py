"""textDocument/hover: a routine's gprof call-graph entry, at its name (definition or call site);
for a function inlined into others, the line samples of its inlined copies and where they are."""

from __future__ import annotations

import asyncio
import re

from lsprotocol import types
from pygls import uris

from .. import render
from ..server import GmonlensServer, safe
from ..session import Loaded

# the part of the word before the cursor may be empty: the cursor can sit on its first character
WORD = re.compile(r"(?:[A-Za-z_~][A-Za-z0-9_]*)?$")
WORD_END = re.compile(r"^[A-Za-z0-9_]*")


def word_at(ls: GmonlensServer, uri: str, position: types.Position) -> str | None:
    """The identifier under the cursor (open document text, else the file on disk)."""
    doc = ls.workspace.get_text_document(uri)
    try:
        word = doc.word_at_position(position, re_start_word=WORD, re_end_word=WORD_END)
    except (IndexError, OSError, UnicodeDecodeError):
        return None
    return word or None


async def routine_under_cursor(
    ls: GmonlensServer, uri: str, position: types.Position
) -> tuple[Loaded, int] | None:
    loaded = ls.loaded_for(uri)
    path = uris.to_fs_path(uri)
    if loaded is None or not path:
        return None
    word = word_at(ls, uri, position)
    if not word:
        return None
    rid = await asyncio.to_thread(loaded.index.routine_at, path, position.line + 1, word)
    return None if rid is None else (loaded, rid)


def inlined_parts(ls: GmonlensServer, uri: str, position: types.Position) -> list[str]:
    """Where the inlined copies of the function named under the cursor were sampled (line heat)."""
    loaded = ls.loaded_for(uri)
    word = word_at(ls, uri, position) if loaded is not None else None
    if loaded is None or not word:
        return []
    return [
        render.inlined_markdown(name, copies, loaded.profile, loaded.index)
        for name, copies in loaded.heat.inlined_named(word)
    ]


def register(server: GmonlensServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @safe()
    async def hover(ls: GmonlensServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        hit = await routine_under_cursor(ls, uri, params.position)
        parts = []
        if hit is not None:
            loaded, rid = hit
            text = await asyncio.to_thread(render.hover_markdown, loaded.profile, loaded.index, rid)
            if loaded.comparison is not None:
                from ..baseline import hover_table

                table = hover_table(loaded.comparison, rid, loaded.profile)
                text = f"{table}\n\n---\n\n{text}" if table else text
            parts.append(text)
        parts += inlined_parts(ls, uri, params.position)
        return render.hover("\n\n---\n\n".join(parts), params.position.line) if parts else None
