"""A routine's annotated disassembly as a read-only document (PROTOCOL.md): the custom request
`gmonlens/disassembly` (text and what each line shows), LSP 3.18's `workspace/textDocumentContent`
for `gmonlens-disasm:` URIs (the text alone), and the command `gmonlens.showDisassembly`. The
listing is the engine's (`gmonlens.disasm.listing`, through `workspace.disasm_docs`)."""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types

from gmonlens.common.errors import GmonlensError
from gmonlens_ide.session import FolderState, LoadedFolder

from .. import listings, reload, to_lsp, wire
from ..from_lsp import folder_for, routines_under_cursor
from ..server import GmonlensServer, safe

DISASSEMBLY = "gmonlens/disassembly"
SHOW_DISASSEMBLY = "gmonlens.showDisassembly"


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(key, default)
    return getattr(obj, key, default)


Target = tuple[FolderState, LoadedFolder, int, str, bool]  # folder, load, routine, syntax, compact


async def _by_uri(ls: GmonlensServer, uri: str) -> Target | None:
    parsed = listings.parse_uri(uri)
    if parsed is None:
        return None
    folder, name, address, syntax, compact = parsed
    state = folder_for(ls, folder)
    if state is None or (loaded := await reload.loaded_or_wait(ls, state)) is None:
        return None
    rid = listings.find(loaded, name, address)
    return None if rid is None else (state, loaded, rid, syntax, compact)


async def _target(ls: GmonlensServer, params: Any) -> Target | None:
    """The routine asked for: a listing URI, the cursor in a source, or a name in a folder."""
    syntax = "intel" if _get(params, "syntax") == "intel" else "att"
    compact = _get(params, "compact") is True
    uri = _get(params, "uri")
    if isinstance(uri, str) and uri.startswith(listings.SCHEME + ":"):
        return await _by_uri(ls, uri)
    doc, position = _get(params, "textDocument"), _get(params, "position")
    doc_uri = _get(doc, "uri")
    if isinstance(doc_uri, str) and position is not None:
        state = ls.folder_of(doc_uri)
        pos = to_lsp.position(int(_get(position, "line", 0)), int(_get(position, "character", 0)))
        hit = await routines_under_cursor(ls, doc_uri, pos)
        if state is None or hit is None:
            return None
        loaded, rids = hit
        symbol = _get(params, "symbol")
        chosen = [r for r in rids if loaded.profile.routines[r].name == symbol] or rids
        return state, loaded, chosen[0], syntax, compact
    name, folder = _get(params, "name"), _get(params, "folder")
    if not isinstance(name, str):
        return None
    states = [s for s in ls.folders.values() if not isinstance(folder, str) or s.uri == folder]
    for state in states:
        found = await reload.loaded_or_wait(ls, state)
        rid = listings.find(found, name, None) if found is not None else None
        if found is not None and rid is not None:
            return state, found, rid, syntax, compact
    return None


DisassemblyAnswer = wire.Disassembly | wire.DisasmError


async def disassembly(ls: GmonlensServer, params: Any) -> DisassemblyAnswer | None:
    target = await _target(ls, params)
    if target is None:
        return None
    state, loaded, rid, syntax, compact = target
    try:
        doc = await asyncio.to_thread(listings.document, loaded, state.uri, rid, syntax, compact)
        ls.listings.add(doc["uri"])
        return doc
    except GmonlensError as e:  # a routine without code, a binary changed under us
        return {"error": str(e)}


def register(server: GmonlensServer) -> None:
    @server.feature(DISASSEMBLY)
    @safe()
    async def disassembly_request(ls: GmonlensServer, params: Any) -> DisassemblyAnswer | None:
        return await disassembly(ls, params)

    @server.feature(
        types.WORKSPACE_TEXT_DOCUMENT_CONTENT, to_lsp.text_document_content_options([listings.SCHEME])
    )
    @safe()
    async def text_document_content(
        ls: GmonlensServer, params: types.TextDocumentContentParams
    ) -> types.TextDocumentContentResult:
        doc: dict[str, Any] = dict(await disassembly(ls, {"uri": params.uri}) or {})
        text, error = doc.get("text"), doc.get("error")
        return to_lsp.document_content(
            text if isinstance(text, str) else None,
            error
            if isinstance(error, str) and error
            else "no listing: no profile loaded, or no such routine",
        )

    @server.command(SHOW_DISASSEMBLY)
    @safe()
    async def show_disassembly(ls: GmonlensServer, *args: Any) -> DisassemblyAnswer | None:
        """`[uri, {line, character}, symbol?]` (a lens's arguments) or `[{"name", "folder"?}]`."""
        params: Any
        if len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], dict):
            params = {"textDocument": {"uri": args[0]}, "position": args[1]}
            params["symbol"] = args[2] if len(args) > 2 else None
        else:
            params = args[0] if args and isinstance(args[0], dict) else {}
        return await disassembly(ls, params)
