"""Call hierarchy while the figures' certainty is still computing (a large profile computes it in
the background after the first lenses: 2 s CPU at 100,000 routines): prepare, incoming and
outgoing calls answer at once without the estimated/exact marks, and with them once it is ready
(issue 17: every call-hierarchy request answered whatever background work is running)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from gmonlens_ide import session
from gmonlens_lsp import reload

from .conftest import line_of
from .test_heat_requests import Served

pytestmark = pytest.mark.integration  # builds its inputs with gcc/g++ at test time

MARKS = (" · exact", " · estimated (callee has several callers)")


@pytest.mark.asyncio
async def test_call_hierarchy_without_certainty(c_ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session, "CERTAINTY_IN_LOAD", 0)  # computed in the background, as a large one
    started, release = threading.Event(), threading.Event()
    real = session.certainty

    def held(profile: Any) -> Any:
        started.set()
        release.wait(60)
        return real(profile)

    monkeypatch.setattr(session, "certainty", held)
    # computed, not read back from the disk cache (a large profile's certainty is kept there)
    monkeypatch.setattr(session.cache_entries, "read_certainty", lambda *args: None)
    s = Served(c_ws, True, monkeypatch)
    loaded = s.state.loaded
    assert loaded is not None and loaded.certainty_ready() is None
    computing = s.server.spawn(reload._certainty(loaded))
    features = s.server.protocol.fm.features
    doc = types.TextDocumentIdentifier(s.main_c.as_uri())
    at = types.Position(line_of(s.main_c, "long work(int n)") - 1, 6)
    prepare = features[types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY]
    incoming = features[types.CALL_HIERARCHY_INCOMING_CALLS]
    outgoing = features[types.CALL_HIERARCHY_OUTGOING_CALLS]

    async def ask() -> tuple[list[str], list[str]]:
        items = await asyncio.wait_for(prepare(types.CallHierarchyPrepareParams(doc, at)), 20)
        assert items and items[0].name.startswith("work")
        ins = await asyncio.wait_for(incoming(types.CallHierarchyIncomingCallsParams(items[0])), 20)
        outs = await asyncio.wait_for(outgoing(types.CallHierarchyOutgoingCallsParams(items[0])), 20)
        assert ins and outs, "work has callers and callees"
        return [c.from_.detail for c in ins], [c.to.detail for c in outs]

    try:
        assert await asyncio.to_thread(started.wait, 30)
        ins, outs = await ask()
        assert not computing.done()  # all of it while the certainty was held
        # the figures without a mark: nothing said of what is not known yet
        assert all("calls ·" in d and not d.endswith(MARKS) for d in ins + outs), ins + outs
    finally:
        release.set()
    await asyncio.wait_for(asyncio.shield(computing), 30)
    assert loaded.certainty_ready() is not None
    ins, outs = await ask()  # a later request: marked
    assert all(d.endswith(MARKS) for d in ins + outs if "calls ·" in d), ins + outs
    assert any(d.endswith(MARKS) for d in ins) and any(d.endswith(MARKS) for d in outs)


@pytest.mark.asyncio
async def test_call_graph_panel_without_certainty(c_ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The call graph panel's request answers while the certainty is held, its edges' estimate
    marks null and `certaintyPending` set; once it is ready they are booleans again."""
    monkeypatch.setattr(session, "CERTAINTY_IN_LOAD", 0)
    started, release = threading.Event(), threading.Event()
    real = session.certainty

    def held(profile: Any) -> Any:
        started.set()
        release.wait(60)
        return real(profile)

    monkeypatch.setattr(session, "certainty", held)
    # computed, not read back from the disk cache (a large profile's certainty is kept there)
    monkeypatch.setattr(session.cache_entries, "read_certainty", lambda *args: None)
    s = Served(c_ws, True, monkeypatch)
    loaded = s.state.loaded
    assert loaded is not None and loaded.certainty_ready() is None
    computing = s.server.spawn(reload._certainty(loaded))
    graph = s.server.protocol.fm.features["gmonlens/callGraph"]
    params = {"whole": True, "nodeThreshold": 0, "edgeThreshold": 0}
    try:
        assert await asyncio.to_thread(started.wait, 30)
        g = await asyncio.wait_for(graph(params), 20)
        assert not computing.done()  # answered while the certainty was held
        assert g["certaintyPending"] is True
        assert g["edges"] and all(e["estimated"] is None for e in g["edges"])
    finally:
        release.set()
    await asyncio.wait_for(asyncio.shield(computing), 30)
    g = await asyncio.wait_for(graph(params), 20)  # a later request: marked
    assert g["certaintyPending"] is False
    outside = [e for e in g["edges"] if not e["inCycle"]]
    assert outside and all(isinstance(e["estimated"], bool) for e in outside)
