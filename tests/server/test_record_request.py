"""The language server's `gmonlens/record` request, in the test's process (the protocol's own reader
and writer, `tests/protocol/wire_client.py`): refused unless the client says the workspace is
trusted; bad params named; the command's output as log lines and its progress as `$/progress`;
`$/cancelRequest` and the progress's cancel stop the command's process group; and what a
recording made is loaded. The commands are /bin/sh scripts (no compiler; the helper library is
not built): one copies the protocol examples' profile where gprof would write it."""

from __future__ import annotations

import asyncio
import gc
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from gmonlens_lsp import reload
from gmonlens_lsp.factory import create_server
from processes import alive, wait_ended
from protocol.example_program import MAIN_C, SOURCE, assemble, elf, gmon
from protocol.wire_client import WireClient

LIMIT = 60.0


@pytest.fixture(autouse=True)
def _quiet_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    async def no_warm_up(ls: Any, args: list[str]) -> None:
        return None

    monkeypatch.setattr(reload, "_warm", no_warm_up)
    monkeypatch.setattr(gc, "freeze", lambda: None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _session(ws: Path, trusted: bool, body: Callable[[WireClient], Awaitable[None]]) -> None:
    async def run() -> None:
        client = WireClient(create_server())
        folder = ws.as_uri()
        await client.request(
            "initialize",
            {
                "processId": None,
                "rootUri": folder,
                "capabilities": {},
                "workspaceFolders": [{"uri": folder, "name": "ws"}],
                "initializationOptions": {"gmonlens": {"trustedWorkspace": trusted}},
            },
        )
        client.notify("initialized", {})
        await client.notification("gmonlens/status", lambda p: p["state"] in ("idle", "problem", "loaded"))
        await body(client)

    asyncio.run(asyncio.wait_for(run(), 2 * LIMIT))


def _error(answer: dict[str, Any]) -> dict[str, Any]:
    assert "error" in answer, answer
    error: dict[str, Any] = answer["error"]
    return error


def test_refused_in_an_untrusted_workspace(tmp_path: Path) -> None:
    marker = tmp_path / "ran"

    async def body(c: WireClient) -> None:
        params = {"argv": ["/bin/sh", "-c", f"touch {marker}"], "options": {"preload": False}}
        error = _error(await c.answer(c.send_request("gmonlens/record", params)))
        assert error["code"] == -32803 and "trusted workspace" in error["message"]

    _session(tmp_path, False, body)
    assert not marker.exists()


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({}, "argv"),
        ({"argv": []}, "argv"),
        ({"argv": [5]}, "argv[0]"),
        ({"argv": ["x"], "cwd": "no/such/dir"}, "cwd"),
        ({"argv": ["x"], "options": {"runs": 0}}, "runs"),
        ({"argv": ["x"], "options": {"precision": 100}}, "precision"),
        ({"argv": ["x"], "options": {"onSignalExit": "yes"}}, "onSignalExit"),
        ({"argv": ["x"], "options": {"arcs": "many"}}, "arcs"),
        ({"argv": ["x"], "options": {"env": {"A=B": "1"}}}, "env"),
        ({"argv": ["x"], "options": {"bogus": 1}}, "options"),
        ({"argv": ["x"], "extra": 1}, "extra"),
        ([], "params"),
    ],
)
def test_bad_params_are_named(tmp_path: Path, params: Any, field: str) -> None:
    async def body(c: WireClient) -> None:
        error = _error(await c.answer(c.send_request("gmonlens/record", params)))
        assert error["code"] == -32602 and field in error["message"], error

    _session(tmp_path, True, body)


def test_output_progress_and_the_document(tmp_path: Path) -> None:
    async def body(c: WireClient) -> None:
        params = {
            "argv": ["sh", "-c", "echo to-stdout; echo to-stderr >&2; env | grep ^class=; cat; exit 3"],
            "options": {"preload": False, "env": {"class": "x"}},  # not a Python name: kept
            "workDoneToken": "rec-1",
        }
        answer = await c.answer(c.send_request("gmonlens/record", params), LIMIT)
        doc = answer["result"]
        assert doc["schema"] == "gmonlens-record/1" and doc["command_status"] == 3 and not doc["usable"]
        assert doc["out_dir"] == str((tmp_path / "gmonlens-record").resolve())
        assert doc["command"]["cwd"] == str(tmp_path) and doc["exit_status"] == 125
        logs = [(m["type"], m["message"]) for m in c.notifications("window/logMessage")]
        assert (4, "to-stdout") in logs and (4, "to-stderr") in logs  # type 4: Log
        assert (4, "class=x") in logs  # `cat` read /dev/null, not the server's stdin
        assert any("gmonlens record:" in text for _, text in logs)  # the summary, as the CLI says it
        kinds = [p["value"]["kind"] for p in c.notifications("$/progress") if p["token"] == "rec-1"]
        assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds
        begin = next(p["value"] for p in c.notifications("$/progress") if p["value"]["kind"] == "begin")
        assert begin["cancellable"] is True

    _session(tmp_path, True, body)
    assert (tmp_path / "gmonlens-record" / "record.json").is_file()


def test_command_not_found(tmp_path: Path) -> None:
    async def body(c: WireClient) -> None:
        answer = await c.answer(c.send_request("gmonlens/record", {"argv": ["no-such-command-here"]}))
        error = _error(answer)
        assert error["code"] == -32803 and error["data"] == {"exit_status": 127}
        assert "no-such-command-here" in error["message"]

    _session(tmp_path, True, body)


async def _started(pids: Path) -> list[int]:
    deadline = time.monotonic() + LIMIT
    while time.monotonic() < deadline:
        if pids.exists() and len(pids.read_text().split()) == 2:
            return [int(p) for p in pids.read_text().split()]
        await asyncio.sleep(0.02)
    raise TimeoutError("the command did not start")


@pytest.mark.parametrize("how", ["$/cancelRequest", "window/workDoneProgress/cancel"])
def test_cancel_stops_the_command(tmp_path: Path, how: str) -> None:
    pids = tmp_path / "pids"
    script = f"sleep 120 & echo $! > {pids}.tmp; echo $$ >> {pids}.tmp; mv {pids}.tmp {pids}; wait"

    async def body(c: WireClient) -> None:
        params = {"argv": ["/bin/sh", "-c", script], "options": {"preload": False}, "workDoneToken": "t"}
        rid = c.send_request("gmonlens/record", params)
        started = await _started(pids)
        # one recording per folder at a time
        second = _error(await c.answer(c.send_request("gmonlens/record", params)))
        assert second["code"] == -32803 and "already runs" in second["message"]
        if how == "$/cancelRequest":
            c.notify("$/cancelRequest", {"id": rid})
            assert _error(await c.answer(rid))["code"] == -32800  # RequestCancelled
        else:
            c.notify("window/workDoneProgress/cancel", {"token": "t"})
            answer = await c.answer(rid, LIMIT)  # the recording of a stopped command
            assert answer["result"]["runs"][0]["signal"] == "SIGTERM"
            assert "killed_by_signal" in [d["code"] for d in answer["result"]["diagnosis"]]
        for pid in started:
            await asyncio.to_thread(wait_ended, pid)  # stopped (a pytest-timeout if never)
            assert not alive(pid), f"{pid} still runs"

    _session(tmp_path, True, body)


def test_what_a_recording_made_is_loaded(tmp_path: Path) -> None:
    """The command writes the example's profile where gprof would ($GMON_OUT_PREFIX.<pid>); the
    recording names it after `prog` (`binaries`), discovery finds it in gmonlens-record/, and the
    folder loads it."""
    ws = tmp_path / "ws"
    (ws / "bin").mkdir(parents=True)
    (ws / "src").mkdir()
    (ws / SOURCE).write_text(MAIN_C)
    a = assemble()
    (ws / "bin" / "prog").write_bytes(elf(a))
    os.chmod(ws / "bin" / "prog", 0o755)
    (tmp_path / "run.gmon").write_bytes(gmon(a, baseline=False))
    script = f'cp {tmp_path / "run.gmon"} "$GMON_OUT_PREFIX.$$"'

    async def body(c: WireClient) -> None:
        params = {"argv": ["/bin/sh", "-c", script], "options": {"preload": False, "binaries": ["bin/prog"]}}
        doc = (await c.answer(c.send_request("gmonlens/record", params), LIMIT))["result"]
        assert doc["usable"] and doc["binaries"][0]["binary"] == str(ws / "bin" / "prog")
        status = c.notifications("gmonlens/status")[-1]  # the answer came after the reload
        assert status["state"] == "loaded" and status["routines"] > 0, status
        lenses = await c.request("textDocument/codeLens", {"textDocument": {"uri": (ws / SOURCE).as_uri()}})
        assert {lens["command"]["arguments"][2] for lens in lenses} >= {"main", "work", "leaf"}
        hottest = await c.command("gmonlens.hottest", ["self", 3])
        assert hottest[0]["name"] == "leaf"

    _session(ws, True, body)


class _ClaimingClient(WireClient):
    """A client whose `workspace/configuration` answers claim trust for every scope: what eglot
    answers when a repository's `.dir-locals.el` sets `eglot-workspace-configuration`."""

    def write(self, data: bytes) -> None:
        super().write(data)
        m = self.received[-1]
        if m.get("method") == "workspace/configuration" and "id" in m:
            items = m["params"]["items"]
            self._send({"jsonrpc": "2.0", "id": m["id"], "result": [{"trustedWorkspace": True}] * len(items)})


def test_pulled_settings_never_grant_trust(tmp_path: Path) -> None:
    """Only `initializationOptions` say the workspace is trusted: settings the workspace's own files
    can write (pulled or pushed later) do not, so the record request stays refused."""
    marker = tmp_path / "ran"

    async def run() -> None:
        client = _ClaimingClient(create_server())
        folder = tmp_path.as_uri()
        await client.request("initialize", {
            "processId": None, "rootUri": folder, "workspaceFolders": [{"uri": folder, "name": "ws"}],
            "capabilities": {"workspace": {"configuration": True}},
            "initializationOptions": {"gmonlens": {}},
        })  # fmt: skip
        client.notify("initialized", {})
        await client.notification("gmonlens/status", lambda p: p["state"] in ("idle", "problem", "loaded"))
        assert any(m.get("method") == "workspace/configuration" for m in client.received)
        client.notify(
            "workspace/didChangeConfiguration", {"settings": {"gmonlens": {"trustedWorkspace": True}}}
        )
        params = {"argv": ["/bin/sh", "-c", f"touch {marker}"], "options": {"preload": False}}
        error = _error(await client.answer(client.send_request("gmonlens/record", params)))
        assert error["code"] == -32803 and "trusted workspace" in error["message"]

    asyncio.run(asyncio.wait_for(run(), LIMIT))
    assert not marker.exists()
