"""The language server under faults (issue 33): a gmon.out written slowly is never shown half
written (the last complete profile stays, the status says a new one is being written, no popup);
the writer is a test that holds the file open between its chunks, so no timing decides it."""

from __future__ import annotations

import asyncio
import os
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest

from .lspclient import session, wait_status
from .workspaces import build_moved

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio]


def _field(status: Any, key: str) -> Any:
    return status.get(key) if isinstance(status, dict) else getattr(status, key, None)


def shown(status: Any) -> tuple[Any, ...]:
    """What a `loaded` status says of the profile shown."""
    health = tuple(sorted(_field(h, "code") for h in _field(status, "health") or ()))
    return _field(status, "totalSeconds"), _field(status, "routines"), health


def histogram_end(data: bytes) -> int:
    """Where the first (GNU, 64-bit) histogram record of `data` ends: the arcs follow."""
    assert data[:4] == b"gmon" and data[20] == 0
    nbins = struct.unpack_from("<I", data, 20 + 1 + 16)[0]
    return 20 + 1 + 16 + 8 + 16 + 2 * nbins


async def wait_for(client: Any, after: int, predicate: Any, timeout: float = 60.0) -> Any:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        for s in client.statuses[after:]:
            if predicate(s):
                return s
        await asyncio.sleep(0.05)
    raise AssertionError(f"no such status; got {client.statuses[after:]}")


@pytest.mark.parametrize("cut", ["after the histogram", "inside an arc record"])
async def test_a_profile_written_in_slow_chunks_is_never_shown_half_written(tmp_path: Path, cut: str) -> None:
    """Issue 33 (5, 8): with the program's writes stalled the server showed 3 wrong profiles (and a
    wrong "compile with -pg" notice; 7 "truncated" popups from another slow rewrite)."""
    ws = build_moved("cproject", tmp_path / "ws")
    gmon = ws / "build" / "gmon.out"
    old = gmon.read_bytes()
    subprocess.run([str(ws / "build" / "app"), "1500"], cwd=ws / "build", check=True, capture_output=True)
    new = gmon.read_bytes()
    gmon.write_bytes(old)
    os.utime(gmon, ns=(gmon.stat().st_mtime_ns - 10**10,) * 2)
    end = histogram_end(new)
    first = end if cut == "after the histogram" else end + 1 + 11  # the arc's tag and part of it
    async with session([ws], tmp_path / "cache") as client:
        before = shown(await wait_status(client, ("loaded",)))
        popups = len(client.messages)
        n = len(client.statuses)
        fd = os.open(gmon, os.O_WRONLY | os.O_TRUNC)  # as glibc's write_gmon does
        try:
            os.write(fd, new[:first])
            status = await wait_for(
                client,
                n,
                lambda s: "being written" in str(_field(s, "message")) or _field(s, "state") == "loaded",
            )
            assert "a new profile is being written" in _field(status, "message"), status
            assert _field(status, "state") == "loaded" and shown(status) == before  # the last profile stays
            os.write(fd, new[first : (first + len(new)) // 2])
            await asyncio.sleep(0.6)  # the poller looks again meanwhile (nothing here depends on it)
            os.write(fd, new[(first + len(new)) // 2 :])
        finally:
            os.close(fd)
        done = await wait_for(
            client,
            n,
            lambda s: _field(s, "state") == "loaded" and "being written" not in str(_field(s, "message")),
        )
        after = shown(done)
        assert after != before and "no_arcs" not in after[2], after
        seen = {shown(s) for s in client.statuses[n:] if _field(s, "state") == "loaded"}
        assert seen <= {before, after}, seen  # nothing half-written was ever shown
        assert not [s for s in client.statuses[n:] if _field(s, "state") == "problem"]
        assert len(client.messages) == popups, client.messages[popups:]


async def _lens_lines(client: Any, u: str) -> dict[str, tuple[int, str]]:
    from lsprotocol import types

    result = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=u))
    )
    return {lens.command.arguments[2]: (lens.range.start.line, lens.command.title) for lens in result or []}


async def test_lenses_follow_unsaved_edits(cproject: Path, tmp_path: Path) -> None:
    """Issue 33 (6): after lines were inserted above a routine its lens stayed at the old line,
    over other code. Lenses are moved through the document's edits since the build; a routine
    whose body was edited is marked; a hover at the moved line finds the routine."""
    from lsprotocol import types

    from .lspclient import open_doc, position_of

    util_c = cproject / "src" / "util.c"
    async with session([cproject], tmp_path / "cache") as client:
        await wait_status(client, ("loaded",))
        u = await open_doc(client, util_c)
        before = await _lens_lines(client, u)
        assert {"helper", "util_sum"} <= set(before), before

        def edit(version: int, line: int, start: int, end: int, text: str) -> None:
            at, to = types.Position(line, start), types.Position(line, end)
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=u, version=version),
                    content_changes=[
                        types.TextDocumentContentChangePartial(range=types.Range(at, to), text=text)
                    ],
                )
            )

        edit(2, 0, 0, 0, "// one\n// two\n// three\n")  # three lines above everything
        moved = await _lens_lines(client, u)
        assert {n: (line - 3, title) for n, (line, title) in moved.items()} == before, (before, moved)
        acc = position_of(util_c, "acc * 31").line + 3
        edit(3, acc, 0, 0, "    ")  # the body of helper, retyped
        edited = await _lens_lines(client, u)
        assert edited["helper"][1] == before["helper"][1] + " · changed since the build", edited
        assert edited["util_sum"] == moved["util_sum"], edited  # untouched: as it was
        pos = position_of(util_c, "util_sum")
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=u),
                position=types.Position(pos.line + 3, pos.character),
            )
        )
        assert hover is not None and "util_sum" in hover.contents.value


async def test_a_pin_copies_the_profile_shown_or_refuses(tmp_path: Path) -> None:
    """Issue 33 (4): a pin copied whatever was on disk: within a moment of a rerun it pinned the new
    run while the old one was on screen. Here the file on disk is another run's bytes while the
    editor still shows the first (same size and mtime: the watcher has not seen it): the pin is
    refused in one line, and nothing is pinned."""
    from lsprotocol import types
    from pygls.exceptions import JsonRpcException

    from .lspclient import uri

    ws = build_moved("cproject", tmp_path / "ws")
    gmon = ws / "build" / "gmon.out"
    old = gmon.read_bytes()
    subprocess.run([str(ws / "build" / "app"), "401"], cwd=ws / "build", check=True, capture_output=True)
    other = gmon.read_bytes()
    gmon.write_bytes(old)
    assert len(other) == len(old) and other != old
    async with session([ws], tmp_path / "cache") as client:
        await wait_status(client, ("loaded",))
        st = gmon.stat()
        with open(gmon, "r+b") as fh:  # the bytes of another run, size and mtime as they were
            fh.write(other)
        os.utime(gmon, ns=(st.st_atime_ns, st.st_mtime_ns))
        with pytest.raises(JsonRpcException) as refused:
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="gmonlens.pinBaseline", arguments=[uri(ws)])
            )
        assert "gmon.out: changed since the profile shown was loaded" in str(refused.value), refused.value
        assert "\n" not in str(refused.value)
        pins = tmp_path / "cache" / ".local" / "share" / "gmonlens" / "baselines"
        assert not any(p.name.startswith("pin-") for p in pins.rglob("*"))
