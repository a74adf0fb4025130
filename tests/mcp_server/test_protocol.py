"""The MCP stdio protocol of `gmonlens_mcp.rpc` with a stand-in application (no compiler, no
profile): lifecycle and version negotiation, JSON-RPC errors, tool results per revision, batches,
cancellation and a client that goes away in the middle of a call."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gmonlens_mcp import rpc
from gmonlens_mcp.rpc import RpcError, Server, ServerInfo, ToolResult
from gmonlens_mcp.schema import check

LIMIT = 30.0


class FakeApp:
    """Tools `echo` (returns its arguments), `fail` (a tool error), `block` (waits for `release`),
    `nan` (a non-finite figure), `limited` (checks `limit` against a schema) and `bad` (raises
    invalid params)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()
        self.warmed = threading.Event()
        self.calls: list[str] = []

    def list_tools(self, version: str) -> list[dict[str, Any]]:
        return [{"name": "echo", "description": "v" + version, "inputSchema": {"type": "object"}}]

    def call_tool(self, name: str, arguments: Any) -> ToolResult:
        self.calls.append(name)
        if name == "block":
            self.started.set()
            assert self.release.wait(LIMIT)
            return ToolResult({"done": True}, "done")
        if name == "fail":
            return ToolResult({"error": "no such routine"}, "no such routine", is_error=True)
        if name == "nan":
            return ToolResult({"x": float("nan"), "y": [float("inf"), 1.5]}, "nan")
        if name == "echo":
            return ToolResult({"arguments": arguments}, "echo")
        if name == "limited":
            limit = {"type": "integer", "minimum": 1, "maximum": 500}
            return ToolResult(check({"type": "object", "properties": {"limit": limit}}, arguments), "ok")
        raise RpcError(rpc.INVALID_PARAMS, f"unknown tool: {name}")

    def warm(self) -> None:
        self.warmed.set()


class Wire:
    """A server on pipes, run on a thread; `send` a message, `receive` the next answer."""

    def __init__(self, app: FakeApp) -> None:
        r_in, self._w_in = os.pipe()
        self._r_out, w_out = os.pipe()
        self.server = Server(
            app, os.fdopen(r_in, "rb"), os.fdopen(w_out, "wb"), ServerInfo("t", "1", "T", "use me")
        )
        self.out = os.fdopen(self._r_out, "rb")
        self.input = os.fdopen(self._w_in, "wb")
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()
        self._next = 0

    def _serve(self) -> None:
        self.server.serve()
        self.server.writer.close()

    def send_raw(self, data: bytes) -> None:
        self.input.write(data)
        self.input.flush()

    def send(self, message: Any) -> None:
        self.send_raw(json.dumps(message).encode() + b"\n")

    def receive(self) -> Any:
        result: list[bytes] = []
        t = threading.Thread(target=lambda: result.append(self.out.readline()), daemon=True)
        t.start()
        t.join(LIMIT)
        assert result and result[0], "no answer"
        return json.loads(result[0])

    def request(self, method: str, params: Any = None, rid: Any = None) -> Any:
        self._next += 1
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next if rid is None else rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return self.receive()

    def initialize(self, version: str = "2025-06-18") -> Any:
        answer = self.request("initialize", {"protocolVersion": version, "capabilities": {},
                                             "clientInfo": {"name": "x", "version": "0"}})  # fmt: skip
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def close(self) -> None:
        self.input.close()
        self.thread.join(LIMIT)
        assert not self.thread.is_alive(), "serve() did not return at end of input"


@pytest.fixture
def app() -> FakeApp:
    return FakeApp()


@pytest.fixture
def wire(app: FakeApp) -> Iterator[Wire]:
    w = Wire(app)
    yield w
    app.release.set()
    if not w.input.closed:
        w.close()


@pytest.mark.parametrize(
    ("asked", "answered"),
    [
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("2025-11-25", "2025-06-18"),
        ("1999-01-01", "2025-06-18"),
    ],
)
def test_version_negotiation(wire: Wire, app: FakeApp, asked: str, answered: str) -> None:
    result = wire.initialize(asked)["result"]
    assert result["protocolVersion"] == answered
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"]["name"] == "t" and result["instructions"] == "use me"
    assert ("title" in result["serverInfo"]) == (answered == "2025-06-18")
    assert app.warmed.wait(LIMIT)  # notifications/initialized starts the first load
    assert wire.request("tools/list")["result"]["tools"][0]["description"] == "v" + answered


def test_before_initialize(wire: Wire) -> None:
    assert wire.request("ping") == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert wire.request("tools/list")["error"]["code"] == rpc.INVALID_REQUEST
    assert wire.request("initialize", {})["error"]["code"] == rpc.INVALID_PARAMS
    assert wire.initialize()["result"]["protocolVersion"] == "2025-06-18"
    assert (
        wire.request("initialize", {"protocolVersion": "2025-06-18"})["error"]["code"] == rpc.INVALID_REQUEST
    )


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b"{not json\n", rpc.PARSE_ERROR),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "ping"\xff}\n', rpc.PARSE_ERROR),
        (b"42\n", rpc.INVALID_REQUEST),
        (b'{"jsonrpc": "1.0", "id": 7, "method": "ping"}\n', rpc.INVALID_REQUEST),
        (b'{"jsonrpc": "2.0", "id": 7, "method": 3}\n', rpc.INVALID_REQUEST),
        (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}\n', rpc.INVALID_REQUEST),
        (b'{"jsonrpc": "2.0", "id": null, "method": "ping"}\n', rpc.INVALID_REQUEST),
        (b'{"jsonrpc": "2.0", "id": 7, "method": "resources/list"}\n', rpc.METHOD_NOT_FOUND),
        (b'{"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": [1]}\n', rpc.INVALID_PARAMS),
        (
            b'{"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"cursor": "x"}}\n',
            rpc.INVALID_PARAMS,
        ),
        (b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {}}\n', rpc.INVALID_PARAMS),
        (
            b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "nope"}}\n',
            rpc.INVALID_PARAMS,
        ),
        (b"[]\n", rpc.INVALID_REQUEST),
        (
            b'[{"jsonrpc": "2.0", "id": 7, "method": "ping"}]\n',
            rpc.INVALID_REQUEST,
        ),  # no batches in 2025-06-18
    ],
)
def test_errors(wire: Wire, raw: bytes, code: int) -> None:
    wire.initialize()
    wire.send_raw(b"\n")  # blank lines are skipped
    wire.send_raw(raw)
    answer = wire.receive()
    assert answer["jsonrpc"] == "2.0" and answer["error"]["code"] == code, answer
    assert answer["id"] in (None, 7)
    assert wire.request("ping")["result"] == {}  # and the server goes on


@pytest.mark.parametrize("digits", ["1" + "0" * 5000, "-" + "7" * 4400, "9" * 100_000])
def test_an_integer_of_many_digits_is_answered(wire: Wire, digits: str) -> None:
    """JSON puts no bound on an integer's digits; Python's int() refuses more than 4,300, and the
    request got a parse error without its id. Now it is answered under its id: the tool's schema
    refuses it by name; as an id, it is an invalid request."""
    wire.initialize()
    wire.send_raw(b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "limited", '
                  b'"arguments": {"limit": %s}}}\n' % digits.encode())  # fmt: skip
    answer = wire.receive()
    assert answer["id"] == 7 and answer["error"]["code"] == rpc.INVALID_PARAMS, answer
    assert "`limit` must be at " in answer["error"]["message"]
    wire.send_raw(b'{"jsonrpc": "2.0", "id": %s, "method": "ping"}\n' % digits.encode())
    answer = wire.receive()
    assert answer["id"] is None and answer["error"]["code"] == rpc.INVALID_REQUEST
    assert rpc.parse(b"[12, -3, 4.5]") == [12, -3, 4.5]


def test_notifications_and_responses_get_no_answer(wire: Wire) -> None:
    wire.initialize()
    wire.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
    wire.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}})
    wire.send({"jsonrpc": "2.0", "id": 5, "result": {}})  # a response to nothing we asked
    assert wire.request("ping", rid="after") == {"jsonrpc": "2.0", "id": "after", "result": {}}


def test_tool_results_per_revision(app: FakeApp) -> None:
    for version in ("2025-06-18", "2025-03-26"):
        w = Wire(app)
        w.initialize(version)
        ok = w.request("tools/call", {"name": "echo", "arguments": {"a": 1}})["result"]
        failed = w.request("tools/call", {"name": "fail"})["result"]
        assert failed["isError"] is True and failed["content"][0] == {
            "type": "text",
            "text": "no such routine",
        }
        assert ok["isError"] is False and ok["content"][0]["text"] == "echo"
        # the JSON follows the short text (2025-06-18: a tool returning structured content SHOULD)
        assert json.loads(ok["content"][1]["text"]) == {"arguments": {"a": 1}} and len(ok["content"]) == 2
        if version == "2025-06-18":
            assert ok["structuredContent"] == {"arguments": {"a": 1}}
        else:  # no structured content before 2025-06-18
            assert "structuredContent" not in ok
        # an error's facts are JSON text only: it is not the result an outputSchema describes
        assert "structuredContent" not in failed and json.loads(failed["content"][1]["text"]) == {
            "error": "no such routine"
        }
        nan = w.request("tools/call", {"name": "nan"})["result"]  # JSON has no NaN: null
        figures = (
            nan["structuredContent"] if version == "2025-06-18" else json.loads(nan["content"][1]["text"])
        )
        assert figures == {"x": None, "y": [None, 1.5]}
        w.close()


def test_batch_for_older_revisions(wire: Wire) -> None:
    wire.initialize("2025-03-26")
    wire.send([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 3, "method": "nope"},
    ])  # fmt: skip
    answers = wire.receive()
    assert [a["id"] for a in answers] == [1, 2, 3]
    assert answers[1]["result"]["isError"] is False and answers[2]["error"]["code"] == rpc.METHOD_NOT_FOUND


def test_cancelled_calls_get_no_answer(wire: Wire, app: FakeApp) -> None:
    wire.initialize()
    wire.send({"jsonrpc": "2.0", "id": "slow", "method": "tools/call", "params": {"name": "block"}})
    assert app.started.wait(LIMIT)
    wire.send({"jsonrpc": "2.0", "id": "queued", "method": "tools/call", "params": {"name": "echo"}})
    # the reader still answers while a call runs
    assert wire.request("ping", rid="p1")["id"] == "p1"
    for rid in ("slow", "queued"):
        wire.send(
            {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": rid, "reason": "x"},
            }
        )
    assert wire.request("ping", rid="p2")["id"] == "p2"  # the reader has read the cancellations
    app.release.set()
    after = wire.request("tools/call", {"name": "echo"}, rid="after")
    assert after["id"] == "after"  # the next answer: neither cancelled call was answered
    assert app.calls == ["block", "echo"]  # the queued one never ran


def test_disconnect_in_the_middle_of_a_call(wire: Wire, app: FakeApp) -> None:
    wire.initialize()
    wire.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "block"}})
    wire.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo"}})
    assert app.started.wait(LIMIT)
    wire.close()  # serve() returns although the call still runs
    app.release.set()


class Broken(io.RawIOBase):
    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        raise BrokenPipeError


def test_client_closed_our_output(app: FakeApp) -> None:
    lines = [json.dumps({"jsonrpc": "2.0", "id": i, "method": "ping"}).encode() + b"\n" for i in range(3)]
    server = Server(app, io.BytesIO(b"".join(lines)), Broken(), ServerInfo("t", "1"))  # type: ignore[arg-type]
    server.serve()  # returns, no exception


def test_line_too_long(monkeypatch: pytest.MonkeyPatch, app: FakeApp) -> None:
    monkeypatch.setattr(rpc, "MAX_LINE", 64)
    ping = b'{"jsonrpc": "2.0", "id": 2, "method": "ping"}\n'
    out = io.BytesIO()
    Server(app, io.BytesIO(b"[" + b" " * 500 + b"]\n" + ping), out, ServerInfo("t", "1")).serve()
    first, second = (json.loads(x) for x in out.getvalue().splitlines())
    assert first["error"]["code"] == rpc.PARSE_ERROR and second == {"jsonrpc": "2.0", "id": 2, "result": {}}


SCHEMA = {
    "type": "object",
    "properties": {
        "routine": {"type": "string", "minLength": 1, "maxLength": 10},
        "by": {"type": "string", "enum": ["self", "total"], "default": "self"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 5, "default": 2},
        "z": {"type": "number", "minimum": 0},
        "flag": {"type": "boolean"},
        "files": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1, "maxItems": 2},
    },
    "required": ["routine"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("arguments", "why"),
    [
        ({}, "`routine` is required"),
        ([], "arguments must be an object"),
        ({"routine": "f", "x": 1}, "unknown argument `x`"),
        ({"routine": 3}, "must be a string, not integer"),
        ({"routine": ""}, "must not be empty"),
        ({"routine": "f" * 11}, "at most 10 characters"),
        ({"routine": "a\0b"}, "NUL"),
        ({"routine": "f", "by": "calls"}, "must be one of 'self', 'total'"),
        ({"routine": "f", "limit": True}, "must be an integer, not boolean"),
        ({"routine": "f", "limit": 1.5}, "must be an integer, not number"),
        ({"routine": "f", "limit": 0}, "at least 1"),
        ({"routine": "f", "limit": 6}, "at most 5"),
        ({"routine": "f", "z": "1"}, "must be a number"),
        ({"routine": "f", "flag": 1}, "must be a boolean"),
        ({"routine": "f", "files": []}, "at least 1"),
        ({"routine": "f", "files": ["a", "b", "c"]}, "at most 2 items"),
        ({"routine": "f", "files": ["a", 2]}, "`files[1]` must be a string"),
    ],
)
def test_schema_refuses(arguments: Any, why: str) -> None:
    with pytest.raises(RpcError) as err:
        check(SCHEMA, arguments)
    assert err.value.code == rpc.INVALID_PARAMS and why in err.value.message


def test_schema_defaults() -> None:
    assert check(SCHEMA, {"routine": "f", "limit": 3.0}) == {"routine": "f", "by": "self", "limit": 3}
    assert check({"type": "object", "properties": {}}, None) == {}


def test_no_pygls() -> None:
    """The MCP server imports neither pygls nor lsprotocol (nor runs the language server)."""
    code = (
        "import sys, gmonlens_mcp.main, gmonlens_mcp.tools, gmonlens_mcp.handlers, gmonlens_mcp.compare;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol', 'cattrs')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_config_file_name_is_the_settings() -> None:
    """workspace.py names gmonlens.yaml without importing the settings module (start-up time)."""
    from gmonlens_ide import settings
    from gmonlens_mcp import workspace

    assert workspace.CONFIG_FILE == settings.CONFIG_FILE


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
METHODS = st.sampled_from(
    ["initialize", "ping", "tools/list", "tools/call", "nope", "notifications/cancelled"]
)
MESSAGE = st.fixed_dictionaries(
    {"jsonrpc": st.sampled_from(["2.0", "2.0", "1.0"]), "method": METHODS | JSON},
    optional={"id": st.integers(-5, 5) | st.text(max_size=3) | JSON, "params": JSON},
)


@settings(max_examples=150, deadline=None)
@given(st.lists(MESSAGE | JSON, max_size=6))
def test_any_messages_get_well_formed_answers(messages: list[Any]) -> None:
    """Whatever arrives, each line is answered at most once with a JSON-RPC 2.0 response (a
    result or an error with an integer code), and the server never raises."""
    app = FakeApp()
    app.release.set()
    lines = b"".join(json.dumps(m).encode() + b"\n" for m in messages)
    out = io.BytesIO()
    server = Server(app, io.BytesIO(lines), out, ServerInfo("t", "1"))
    server.serve()
    server._worker.join(LIMIT)  # the input ended: the worker drains and stops
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    assert len(answers) <= len(messages)
    for a in answers:
        for r in a if isinstance(a, list) else [a]:
            assert r["jsonrpc"] == "2.0" and "id" in r and ("result" in r) != ("error" in r), r
            if "error" in r:
                assert isinstance(r["error"]["code"], int) and isinstance(r["error"]["message"], str)


def test_one_ascii_line_whatever_the_names(app: FakeApp) -> None:
    """Undecodable bytes of a file name (lone surrogates) and line separators stay inside one
    ASCII line and read back as they were."""
    weird = "caf\udcc3 \u2028 ▲ \n"
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"f": weird}},
    }
    w = Wire(app)
    w.send(init)
    w.receive()
    w.send(call)
    raw = w.out.readline()
    assert raw.endswith(b"\n") and raw.count(b"\n") == 1 and raw.isascii()
    assert json.loads(raw)["result"]["structuredContent"] == {"arguments": {"f": weird}}
    w.close()


def _gmonlens() -> str:
    from pathlib import Path

    exe = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "gmonlens"
    if not exe.exists():
        pytest.skip("run `make install` first")
    return str(exe)


def test_command_without_a_profile(tmp_path: Any) -> None:
    """`gmonlens mcp` in a folder with no profile: the protocol works, every tool says why."""
    from .mcpclient import McpClient

    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    with McpClient([_gmonlens(), "mcp", "--workspace", str(tmp_path)], env=env) as c:
        assert c.initialize()["serverInfo"]["name"] == "gmonlens"
        assert len(c.request("tools/list")["result"]["tools"]) == 10
        out = c.call("profile_summary")
        assert out["isError"] is True and "no gmon.out" in out["content"][0]["text"]
        assert c.call("top_routines")["isError"] is True
        assert c.request("ping")["result"] == {}
        assert c.close() == 0
    assert not any(tmp_path.iterdir()) or [p.name for p in tmp_path.iterdir()] == ["cache"]  # nothing written


@pytest.mark.parametrize(
    "argv", [["mcp", "only-a-binary"], ["mcp", "--workspace", "/nonexistent/dir"], ["mcp", "--bogus"]]
)
def test_command_usage_errors(argv: list[str]) -> None:
    done = subprocess.run(
        [_gmonlens(), *argv], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 2 and done.stdout == "" and "gmonlens mcp" in done.stderr
