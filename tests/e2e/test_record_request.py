"""`gmonlens/record` on a real `gmonlens serve` over stdio (the raw client, tests/e2e/rawlsp.py), on
the C fixture built with gcc -pg: a recording of `./build/app 300` is loaded (the lens above `work`
turns from the build's 400 calls to 300) with its progress on the client's token; a command that
reads standard input reads /dev/null, not the protocol; the server's exit stops a recording that
still runs (its process group)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from .lspclient import position_of
from .rawlsp import RawServer, uri

pytestmark = pytest.mark.e2e
LIMIT = 180.0


@pytest.fixture()
def ws(cproject: Path, tmp_path: Path) -> Path:
    """A copy of the built fixture (a recording must not change the session's fixture)."""
    copy = tmp_path / "ws"
    shutil.copytree(cproject, copy)
    return copy


def _session(ws: Path, cache: Path) -> RawServer:
    server = RawServer(cache, cwd="/")
    server.initialize(ws, init_options={"gmonlens": {"trustedWorkspace": True}})
    status = server.wait_state()
    assert status is not None and status["state"] == "loaded", (status, server.stderr.decode()[-2000:])
    return server


def test_record_and_load(ws: Path, tmp_path: Path) -> None:
    server = _session(ws, tmp_path / "cache")
    try:
        # `cat` reads the command's stdin: /dev/null, so it ends at once and the protocol is intact
        reader = server.request(
            "gmonlens/record",
            {"argv": ["sh", "-c", "cat; echo stdin-closed"], "options": {"preload": False}},
            timeout=60,
        )
        assert reader is not None and "result" in reader, reader
        assert "stdin-closed" in server.logged()
        before = len(server.statuses())
        answer = server.request(
            "gmonlens/record", {"argv": ["./build/app", "300"], "workDoneToken": "rec"}, timeout=LIMIT
        )
        assert answer is not None and "result" in answer, (answer, server.stderr.decode()[-2000:])
        doc = answer["result"]
        assert doc["usable"] and doc["binaries"][0]["binary"] == str(ws / "build" / "app"), doc["diagnosis"]
        assert server.wait_state(("loaded",), after=before) is not None  # reloaded before the answer
        progress = [p["value"]["kind"] for p in server.notifications("$/progress") if p["token"] == "rec"]
        assert progress[0] == "begin" and progress[-1] == "end", progress
        main_c = ws / "src" / "main.c"
        lenses = server.request("textDocument/codeLens", {"textDocument": {"uri": uri(main_c)}}, timeout=30)
        assert lenses is not None
        work = position_of(main_c, "work(int n)", offset=1).line
        titles = {lens["range"]["start"]["line"]: lens["command"]["title"] for lens in lenses["result"]}
        assert titles[work].endswith("300 calls"), titles  # the recording's run, not the build's 400
    finally:
        assert server.shutdown_and_exit() == 0


def test_the_servers_exit_stops_a_recording(ws: Path, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    script = f"sleep 300 & echo $! > {pids}.tmp; echo $$ >> {pids}.tmp; mv {pids}.tmp {pids}; wait"
    server = _session(ws, tmp_path / "cache")
    server.request_async(
        "gmonlens/record", {"argv": ["/bin/sh", "-c", script], "options": {"preload": False}}
    )
    assert server.wait_for(pids.exists, 60), server.stderr.decode()[-2000:]
    started = [int(p) for p in pids.read_text().split()]
    server.notify("exit")  # without shutdown: the process ends at once
    assert server.wait_exit(30) is not None
    deadline = time.monotonic() + 10
    alive = started
    while alive and time.monotonic() < deadline:
        alive = [p for p in alive if _alive(p)]
        time.sleep(0.05)
    assert not alive, f"still running after the server's exit: {alive}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
