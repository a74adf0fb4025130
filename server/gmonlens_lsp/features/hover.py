"""textDocument/hover: a routine's gprof call-graph entry, at its name (definition or call site);
for a function inlined into others, the line samples of its inlined copies and where they are.
The folder and the word under the cursor are read once (`from_lsp.cursor_at`); the entry is
built in one thread."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from gmonlens_ide import budgets, suite_views
from gmonlens_ide.baseline import hover_table
from gmonlens_ide.session import LoadedFolder

from .. import listings, to_lsp
from ..from_lsp import Cursor, cursor_at, link_places_of
from ..server import GmonlensServer, safe

MAX_INSTANCES = 5  # call-graph entries shown in full when a line declares several routines


def _inlined(loaded: LoadedFolder, word: str) -> list[str]:
    """Where the inlined copies of the function `word` were sampled (line heat)."""
    out = []
    for name, copies in loaded.heat.inlined_named(word):
        places = link_places_of(loaded, (rid for rid, _ticks in copies.callers))
        out.append(to_lsp.inlined_markdown(name, copies, loaded.profile, places))
    return out


def _entry(loaded: LoadedFolder, rid: int, folder: str) -> str:
    places = link_places_of(loaded, to_lsp.neighbours(loaded.profile, rid))
    text = to_lsp.hover_markdown(loaded.profile, places, rid, loaded.certainty_ready())
    # its instructions, with samples and calls
    text += "\n\n" + to_lsp.disassembly_link(listings.doc_uri(folder, loaded.profile.routines[rid]))
    if loaded.comparison is not None:
        table = hover_table(loaded.comparison, rid, loaded.profile)
        text = f"{table}\n\n---\n\n{text}" if table else text
    budget = to_lsp.budget_markdown(budgets.routine_budgets_of(loaded, rid))  # under a budget: first
    return f"{budget}\n\n{text}" if budget else text


def hover_parts(at: Cursor) -> list[str]:
    """The hover's sections at the cursor (reads DWARF and files: call off the event loop)."""
    loaded, parts = at.loaded, []
    rids = at.routines()
    if len(rids) > 1:  # a template's instances: the hottest in full, the others listed
        parts.append(to_lsp.instances_markdown(loaded.profile, rids, MAX_INSTANCES))
    # copies without figures (a header's static in units that never call it) are counted above
    active = [rid for rid in rids if loaded.profile.routines[rid].has_figures] or rids[:1]
    parts += [_entry(loaded, rid, at.state.uri) for rid in active[:MAX_INSTANCES]]
    tests = suite_views.hover_text(loaded, rids[0]) if rids else None  # which tests reach it: first
    return ([tests] if tests else []) + parts + _inlined(loaded, at.word)


def register(server: GmonlensServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @safe()
    async def hover(ls: GmonlensServer, params: types.HoverParams) -> types.Hover | None:
        at = await cursor_at(ls, params.text_document.uri, params.position)
        parts = await asyncio.to_thread(hover_parts, at) if at is not None else []
        return to_lsp.hover("\n\n---\n\n".join(parts), params.position.line) if parts else None
