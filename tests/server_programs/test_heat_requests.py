"""The inlay-hint and `gmonlens/lineHeat` handlers on a real load (cproject), driven without a
client: the heat is computed once per load in the background (after the lenses being computed);
until it is ready, a client that can refresh gets no hints and then `workspace/inlayHint/refresh`,
another client waits; hint positions follow the open document's edits; a reload computes anew."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.workspace import Workspace

from gmonlens_ide.session import FolderState, load_folder
from gmonlens_ide.settings import Settings
from gmonlens_lsp import reload
from gmonlens_lsp.factory import create_server
from gmonlens_lsp.server import GmonlensServer

from .conftest import line_of

pytestmark = pytest.mark.integration  # builds its inputs with gcc/g++ at test time


def caps(refresh: bool) -> types.ClientCapabilities:
    hints = types.InlayHintWorkspaceClientCapabilities(refresh_support=refresh)
    return types.ClientCapabilities(workspace=types.WorkspaceClientCapabilities(inlay_hint=hints))


class Served:
    def __init__(self, ws: Path, refresh: bool, monkeypatch: pytest.MonkeyPatch) -> None:
        self.server: GmonlensServer = create_server()
        self.ws = ws
        folder = ws.as_uri()
        proto = self.server.protocol
        proto._workspace = Workspace(folder, workspace_folders=[types.WorkspaceFolder(folder, ws.name)])
        proto.client_capabilities = caps(refresh)
        self.state = FolderState(uri=folder, path=str(ws))
        self.server.folders[folder] = self.state
        self.refreshes = 0

        async def refreshed(ls: Any) -> None:
            self.refreshes += 1

        monkeypatch.setattr(reload, "refresh_inlay_hints", refreshed)
        self.main_c = ws / "src" / "main.c"
        self.reload()

    def reload(self) -> None:
        self.state.generation += 1
        outcome = load_folder(str(self.ws), Settings(), self.state.generation)
        assert outcome.loaded is not None
        self.state.loaded = outcome.loaded

    async def hints(self) -> list[types.InlayHint] | None:
        whole = types.Range(types.Position(0, 0), types.Position(10_000, 0))
        params = types.InlayHintParams(types.TextDocumentIdentifier(self.main_c.as_uri()), whole)
        result: list[types.InlayHint] | None = await self.server.protocol.fm.features[
            types.TEXT_DOCUMENT_INLAY_HINT
        ](params)
        return result

    async def line_heat(self) -> Any:
        params = type("P", (), {"textDocument": type("D", (), {"uri": self.main_c.as_uri()})()})()
        return await self.server.protocol.fm.features["gmonlens/lineHeat"](params)


@pytest.mark.asyncio
async def test_pending_hints_then_refresh(c_ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = Served(c_ws, True, monkeypatch)
    loaded = s.state.loaded
    assert loaded is not None
    s.server.lens_jobs = 1  # a lens is being computed: the heat waits for it
    assert await s.hints() == []  # not ready: nothing yet, no waiting
    task = loaded.heat.task
    assert task is not None and loaded.heat.ready is None
    await asyncio.sleep(0.2)
    assert loaded.heat.ready is None and s.refreshes == 0  # still behind the lens
    s.server.lens_jobs = 0
    heat = await asyncio.wait_for(asyncio.shield(task), 30)
    assert heat is not None and loaded.heat.ready is heat
    assert s.refreshes == 1  # hints were answered empty: the client is asked to ask again
    got = await s.hints()
    assert got, "no hint in main.c once the heat is ready"
    texts = s.main_c.read_text().splitlines()
    assert all(h.position.character == len(texts[h.position.line]) for h in got)
    assert loaded.heat.task is task  # computed once per load


@pytest.mark.asyncio
async def test_client_without_refresh_waits(c_ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = Served(c_ws, False, monkeypatch)
    got = await asyncio.wait_for(s.hints(), 30)
    assert got, "a client that cannot refresh gets the hints on its first request"
    assert s.refreshes == 0
    heat = await s.line_heat()
    assert heat is not None and heat["lines"]


@pytest.mark.asyncio
async def test_hints_follow_edits_and_reloads(c_ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = Served(c_ws, True, monkeypatch)
    uri = s.main_c.as_uri()
    text = s.main_c.read_text()
    workspace = s.server.workspace
    workspace.put_text_document(types.TextDocumentItem(uri, "c", 1, text))
    loaded = s.state.loaded
    assert loaded is not None
    await asyncio.wait_for(reload.heat_task(s.server, s.state, loaded), 30)
    before = {h.position.line: h.position.character for h in await s.hints() or []}
    assert before
    line = min(before)
    # an edit on the hot line: its hint moves to the line's new end (the document's text, not the file's)
    at = types.Position(line, 0)
    workspace.update_text_document(
        types.VersionedTextDocumentIdentifier(2, uri),
        types.TextDocumentContentChangePartial(types.Range(at, at), "/* edited */ "),
    )
    after = {h.position.line: h.position.character for h in await s.hints() or []}
    assert after == {**before, line: before[line] + len("/* edited */ ")}
    # a whole new text (same length would not do: a new text is a new string)
    lines = text.split("\n")
    lines[line] = lines[line].replace(" ", "\t")
    workspace.update_text_document(
        types.VersionedTextDocumentIdentifier(3, uri),
        types.TextDocumentContentChangeWholeDocument("\n".join(lines)),
    )
    assert {h.position.line: h.position.character for h in await s.hints() or []} == before
    # a reload: new heat, computed anew for the new load (never the old load's)
    old_task = loaded.heat.task
    s.reload()
    reloaded = s.state.loaded
    assert reloaded is not None and reloaded is not loaded
    assert reloaded.heat.ready is None and reloaded.heat.task is None
    assert await s.hints() == []  # pending for the new load
    assert reloaded.heat.task is not None and reloaded.heat.task is not old_task
    await asyncio.wait_for(asyncio.shield(reloaded.heat.task), 30)
    assert s.refreshes == 1
    assert {h.position.line: h.position.character for h in await s.hints() or []} == before


@pytest.mark.asyncio
async def test_requests_answered_while_the_heat_computes(c_ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hover and a call-hierarchy item are answered while the line heat is still reading the
    whole line table (held here on an event): what they need (the lenses' places, the routine's
    entry) is not behind the heat's work or its locks (issue 17: the first hover after the lenses)."""
    s = Served(c_ws, True, monkeypatch)
    loaded = s.state.loaded
    assert loaded is not None
    started, release = threading.Event(), threading.Event()
    index = loaded.index
    real = index._line_table_factory
    assert real is not None

    def held() -> Any:
        started.set()
        release.wait(60)
        return real()

    index._line_table_factory = held
    heat = reload.heat_task(s.server, s.state, loaded)
    try:
        assert await asyncio.to_thread(started.wait, 30)
        uri = s.main_c.as_uri()
        at = types.Position(line_of(s.main_c, "long work(int n)") - 1, 6)
        doc = types.TextDocumentIdentifier(uri)
        features = s.server.protocol.fm.features
        hover = await asyncio.wait_for(features[types.TEXT_DOCUMENT_HOVER](types.HoverParams(doc, at)), 20)
        assert hover is not None and "work" in hover.contents.value
        prepare = features[types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY]
        items = await asyncio.wait_for(prepare(types.CallHierarchyPrepareParams(doc, at)), 20)
        assert items and items[0].name.startswith("work")
        assert not heat.done()  # all of it while the heat was still held
    finally:
        release.set()
    assert await asyncio.wait_for(asyncio.shield(heat), 30) is not None
