"""Incoming calls while the whole line table is still being decoded (1.25 s CPU at 100,000
routines, cold): the call sites' lines (`fromRanges`) come from the line programs of only the
units holding them (`Program.lines_of`), the same lines the whole table gives once it is read
(issue 17: every call-hierarchy request answered whatever background work is running)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from gmonlens.load.program import Program

from .conftest import line_of
from .test_heat_requests import Served

pytestmark = pytest.mark.integration  # builds its inputs with gcc/g++ at test time


@pytest.mark.asyncio
async def test_incoming_calls_while_line_table_decodes(c_ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started, release = threading.Event(), threading.Event()
    real = Program.line_table

    def held(self: Program, *, bfd: bool = False) -> Any:
        if not bfd:
            started.set()
            release.wait(60)
        return real(self, bfd=bfd)

    monkeypatch.setattr(Program, "line_table", held)
    s = Served(c_ws, True, monkeypatch)
    loaded = s.state.loaded
    assert loaded is not None
    reading = threading.Thread(target=loaded.index.line_table, daemon=True)  # the heat's reading
    reading.start()
    features = s.server.protocol.fm.features
    doc = types.TextDocumentIdentifier(s.main_c.as_uri())
    at = types.Position(line_of(s.main_c, "long work(int n)") - 1, 6)
    prepare = features[types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY]
    incoming = features[types.CALL_HIERARCHY_INCOMING_CALLS]

    async def ask() -> list[tuple[str, list[int]]]:
        items = await asyncio.wait_for(prepare(types.CallHierarchyPrepareParams(doc, at)), 20)
        assert items and items[0].name.startswith("work")
        ins = await asyncio.wait_for(incoming(types.CallHierarchyIncomingCallsParams(items[0])), 20)
        assert ins, "work has callers"
        return sorted((c.from_.name, [r.start.line for r in c.from_ranges]) for c in ins)

    try:
        assert await asyncio.to_thread(started.wait, 30)
        during = await ask()
        assert reading.is_alive()  # all of it while the whole table was held
    finally:
        release.set()
    await asyncio.to_thread(reading.join, 30)
    assert loaded.index.line_table() is not None
    after = await ask()  # from the whole table now
    assert during == after
    call = line_of(s.main_c, "result += work") - 1
    assert any(name.startswith("main") and lines == [call] for name, lines in during), during
