"""JSON-RPC 2.0 over stdio as the Model Context Protocol's stdio transport says (revision 2025-06-18,
negotiating 2025-03-26 and 2024-11-05): one JSON message per line, UTF-8, no embedded newline.

Contract of `Server`:
- Lifecycle: before `initialize` only `initialize` and `ping` are answered (others get -32600);
  `initialize` answers the client's revision when it is one of `PROTOCOL_VERSIONS`, else the
  latest; `notifications/initialized` starts `App.warm` (the first load) on the worker.
- Methods: `initialize`, `ping`, `tools/list`, `tools/call`; any other request gets -32601.
  Errors: -32700 for a line that is not JSON (or not UTF-8, or longer than `MAX_LINE`), -32600
  for a message that is not a JSON-RPC 2.0 request or notification, -32602 for bad params, an
  unknown tool or arguments that do not fit the tool's schema (`App.call_tool` raises
  `RpcError`); a tool that fails returns an `isError` result (`ToolResult.is_error`).
- Batches (a JSON array) are answered as an array for clients of 2025-03-26 and 2024-11-05; the
  2025-06-18 revision has none (-32600).
- `tools/call` runs on one worker thread, in arrival order; the reader thread keeps answering
  `ping` and reading `notifications/cancelled`: a cancelled call that has not started is dropped,
  one that is running finishes and its answer is not sent (the specification's rule). A running
  call sees its cancellation in `cancel_event()` (the `record` tool stops its command).
- End of input (the client went away, even in the middle of a call) ends `serve()` at once: the
  worker is a daemon thread and is never waited for. A write that fails (the client closed our
  stdout) stops all further writes.
"""

from __future__ import annotations

import contextvars
import json
import logging
import math
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import IO, Any, Protocol

log = logging.getLogger("gmonlens.mcp")

PROTOCOL_VERSIONS = ("2025-06-18", "2025-03-26", "2024-11-05")
LATEST = PROTOCOL_VERSIONS[0]
MAX_LINE = 16 << 20  # bytes of one message

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


class RpcError(Exception):
    """A JSON-RPC error answer: `code`, one-line `message`, optional `data`."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


@dataclass(frozen=True)
class ToolResult:
    """What a tool answers: structured data, a short text for a reader, and whether it failed."""

    structured: dict[str, Any]
    text: str
    is_error: bool = False


class App(Protocol):
    def list_tools(self, version: str) -> list[dict[str, Any]]: ...

    def call_tool(self, name: str, arguments: Any) -> ToolResult: ...

    def warm(self) -> None: ...


@dataclass(frozen=True)
class ServerInfo:
    name: str
    version: str
    title: str = ""
    instructions: str = ""


def _id(value: Any) -> int | str | None:
    """The id to answer with: a string or an integer, anything else is null."""
    good = isinstance(value, (int, str)) and not isinstance(value, (bool, HugeInt))
    return value if good else None


MAX_DIGITS = 4000  # Python converts at most 4,300 digits to an int (sys.int_info.default_max_str_digits)


class HugeInt(int):
    """An integer written with more than MAX_DIGITS digits: JSON allows it, Python's `int()` refuses
    it (ValueError), so `json.loads` failed and the request got a parse error without its id. It
    stands in as +-10**MAX_DIGITS: beyond every bound a schema sets, refused there by name."""


def _parse_int(text: str) -> int:
    if len(text) <= MAX_DIGITS:
        return int(text)
    return HugeInt(-(10**MAX_DIGITS) if text.startswith("-") else 10**MAX_DIGITS)


def parse(text: bytes) -> Any:
    """One message's JSON (raises ValueError or RecursionError for what is not JSON)."""
    return json.loads(text, parse_int=_parse_int)


def tool_result(result: ToolResult, version: str) -> dict[str, Any]:
    """A `CallToolResult` for `version`: the short text, then the same data as JSON text (what
    2025-06-18 says a tool returning structured content SHOULD give, and all older revisions
    have); from 2025-06-18 on, an answer's data is also `structuredContent` (what its tool's
    `outputSchema` describes). A tool error's facts (the candidates of an ambiguous name, the
    nearest names) are its JSON text only: an error is not the result the schema describes."""
    text = json.dumps(_finite(result.structured), ensure_ascii=False, allow_nan=False)
    content = [{"type": "text", "text": result.text}, {"type": "text", "text": text}]
    out: dict[str, Any] = {"content": content, "isError": result.is_error}
    if version >= "2025-06-18" and not result.is_error:
        out["structuredContent"] = result.structured
    return out


@dataclass
class _Job:
    request_id: int | str | None
    run: Callable[[], Any]
    future: Future[Any] = field(default_factory=Future)
    cancel: threading.Event = field(default_factory=threading.Event)  # set by notifications/cancelled


_running_cancel: contextvars.ContextVar[threading.Event | None] = contextvars.ContextVar(
    "gmonlens_mcp_cancel", default=None
)


def cancel_event() -> threading.Event | None:
    """The running `tools/call`'s cancellation, set when the client cancels it (on the worker
    thread, inside a call; None elsewhere)."""
    return _running_cancel.get()


class Server:
    """One client connection over a pair of binary streams (see the module contract)."""

    def __init__(self, app: App, reader: IO[bytes], writer: IO[bytes], info: ServerInfo) -> None:
        self.app = app
        self.reader = reader
        self.writer = writer
        self.info = info
        self.version: str | None = None  # negotiated at initialize
        self._write_lock = threading.Lock()
        self._broken = False
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._state_lock = threading.Lock()
        self._cancelled: set[int | str] = set()
        self._pending: dict[int | str, _Job] = {}
        self._worker = threading.Thread(target=self._work, name="gmonlens-mcp-worker", daemon=True)
        self._worker.start()
        self._warmed = False

    # ---- output ------------------------------------------------------------------------------

    def send(self, message: Any) -> None:
        """One message as one line. ASCII with escapes: a file name's undecodable bytes (lone
        surrogates) and U+2028 can neither break the UTF-8 stream nor the line."""
        try:
            data = json.dumps(message, separators=(",", ":"), allow_nan=False)
        except ValueError:  # JSON has no NaN or infinity: null stands for them
            data = json.dumps(_finite(message), separators=(",", ":"))
        line = data.encode("ascii") + b"\n"
        with self._write_lock:
            if self._broken:
                return
            try:
                self.writer.write(line)
                self.writer.flush()
            except (OSError, ValueError):  # the client closed our stdout
                self._broken = True

    @staticmethod
    def _error(rid: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
        err: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            err["data"] = data
        return {"jsonrpc": "2.0", "id": _id(rid), "error": err}

    # ---- input -------------------------------------------------------------------------------

    def _lines(self) -> Any:
        """Message lines; a line over MAX_LINE is skipped to its end and yields None."""
        while True:
            line = self.reader.readline(MAX_LINE + 1)
            if not line:
                return
            if len(line) > MAX_LINE and not line.endswith(b"\n"):
                while True:
                    rest = self.reader.readline(1 << 20)
                    if not rest or rest.endswith(b"\n"):
                        break
                yield None
                continue
            yield line

    def serve(self) -> None:
        """Read and answer messages until the input ends."""
        for line in self._lines():
            if line is None:
                self.send(self._error(None, PARSE_ERROR, f"message longer than {MAX_LINE} bytes"))
                continue
            text = line.strip()
            if not text:
                continue
            try:
                message = parse(text)
            except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
                self.send(self._error(None, PARSE_ERROR, f"not JSON: {str(exc)[:200]}"))
                continue
            self._on_message(message)
            if self._broken:
                break
        with self._state_lock:  # the client is gone: nothing queued will be answered
            self._cancelled.update(self._pending)
        self._jobs.put(None)

    def _on_message(self, message: Any) -> None:
        if isinstance(message, list):
            if not message or self.version in (None, LATEST):
                why = "an empty batch" if not message else f"batches are not part of revision {LATEST}"
                self.send(self._error(None, INVALID_REQUEST, why))
                return
            futures = [f for f in (self._dispatch(m) for m in message) if f is not None]
            if futures:
                answers = [f.result() for f in futures]
                self.send([a for a in answers if a is not None])
            return
        future = self._dispatch(message)
        if future is not None:
            future.add_done_callback(lambda f: self._answer(f.result()))

    def _answer(self, answer: dict[str, Any] | None) -> None:
        if answer is not None:
            self.send(answer)

    def _dispatch(self, msg: Any) -> Future[dict[str, Any] | None] | None:
        """The answer to one message (a future), or None for a notification or a response."""
        if not isinstance(msg, dict):
            return _done(self._error(None, INVALID_REQUEST, "a message must be a JSON object"))
        rid, method = msg.get("id"), msg.get("method")
        is_request = "id" in msg
        if msg.get("jsonrpc") != "2.0":
            return _done(self._error(rid, INVALID_REQUEST, 'jsonrpc must be "2.0"')) if is_request else None
        if method is None and ("result" in msg or "error" in msg):
            return None  # a response: this server sends no requests
        if not isinstance(method, str):
            return _done(self._error(rid, INVALID_REQUEST, "method must be a string")) if is_request else None
        params = msg.get("params", {})
        if not is_request:
            self._notification(method, params)
            return None
        good = _id(rid)
        if good is None:
            return _done(self._error(None, INVALID_REQUEST, "id must be a string or an integer"))
        try:
            return self._request(good, method, params)
        except RpcError as exc:
            return _done(self._error(rid, exc.code, exc.message, exc.data))

    def _notification(self, method: str, params: Any) -> None:
        if method == "notifications/cancelled" and isinstance(params, dict):
            rid = _id(params.get("requestId"))
            if rid is not None:
                with self._state_lock:
                    if rid in self._pending:
                        self._cancelled.add(rid)
                        self._pending[rid].cancel.set()
        elif method == "notifications/initialized" and self.version is not None and not self._warmed:
            self._warmed = True
            self._jobs.put(_Job(None, self.app.warm))

    def _request(self, rid: int | str, method: str, params: Any) -> Future[dict[str, Any] | None]:
        if params is not None and not isinstance(params, dict):
            raise RpcError(INVALID_PARAMS, "params must be an object")
        params = params or {}
        if method == "ping":
            return _done(_ok(rid, {}))
        if method == "initialize":
            return _done(_ok(rid, self._initialize(params)))
        if self.version is None:
            raise RpcError(INVALID_REQUEST, f"{method} before initialize")
        if method == "tools/list":
            cursor = params.get("cursor")
            if cursor is not None:
                raise RpcError(INVALID_PARAMS, "invalid cursor (every tool is on the first page)")
            return _done(_ok(rid, {"tools": self.app.list_tools(self.version)}))
        if method == "tools/call":
            name, arguments = params.get("name"), params.get("arguments", {})
            if not isinstance(name, str):
                raise RpcError(INVALID_PARAMS, "tools/call needs the tool's name (a string)")
            version = self.version
            job = _Job(rid, lambda: tool_result(self.app.call_tool(name, arguments), version))
            with self._state_lock:
                self._pending[rid] = job
            self._jobs.put(job)
            return job.future
        raise RpcError(METHOD_NOT_FOUND, f"method not found: {method}")

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.version is not None:
            raise RpcError(INVALID_REQUEST, "already initialized")
        asked = params.get("protocolVersion")
        if not isinstance(asked, str):
            raise RpcError(INVALID_PARAMS, "initialize needs protocolVersion (a string)")
        version = asked if asked in PROTOCOL_VERSIONS else LATEST
        self.version = version
        info: dict[str, Any] = {"name": self.info.name, "version": self.info.version}
        if version >= "2025-06-18" and self.info.title:
            info["title"] = self.info.title
        out: dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": info,
        }
        if self.info.instructions:
            out["instructions"] = self.info.instructions
        return out

    # ---- worker ------------------------------------------------------------------------------

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            rid = job.request_id
            with self._state_lock:
                skip = rid is not None and rid in self._cancelled
            answer: dict[str, Any] | None = None
            if not skip:
                answer = self._run(job)
            with self._state_lock:
                if rid is not None:
                    self._pending.pop(rid, None)
                    if rid in self._cancelled:
                        self._cancelled.discard(rid)
                        answer = None
            job.future.set_result(answer)

    def _run(self, job: _Job) -> dict[str, Any] | None:
        rid = job.request_id
        token = _running_cancel.set(job.cancel)
        try:
            value = job.run()
        except Exception as exc:
            if rid is None:  # the warm-up: its problem is told again by the first call
                log.warning("loading the profile: %s", exc)
                return None
            return self._failed(rid, exc)
        finally:
            _running_cancel.reset(token)
        return None if rid is None else _ok(rid, value)

    def _failed(self, rid: int | str, exc: Exception) -> dict[str, Any]:
        if isinstance(exc, RpcError):
            return self._error(rid, exc.code, exc.message, exc.data)
        # a bug must not take the server down: this call fails, alone
        log.error("request %r failed", rid, exc_info=exc)
        return self._error(rid, INTERNAL_ERROR, f"internal error: {type(exc).__name__}: {exc}")


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _ok(rid: int | str, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def _done(value: dict[str, Any] | None) -> Future[dict[str, Any] | None]:
    f: Future[dict[str, Any] | None] = Future()
    f.set_result(value)
    return f
