"""JSON-RPC as the LSP specification says, where pygls 2.1 falls short (see PROTOCOL.md, "Errors").

- A request whose params do not fit the method's type gets InvalidParams (-32602); one that is not
  a JSON-RPC 2.0 request (bad `jsonrpc`, `method` not a string, not an object) InvalidRequest
  (-32600). pygls raises from its JSON object hook and answers nothing.
- Before `initialize`, requests get ServerNotInitialized (-32002) and notifications are dropped;
  after `shutdown`, requests get InvalidRequest (pygls stays silent).
- A malformed notification is dropped with one log line.
- A client's answer to a server request that was given up (a superseded load, a time-out) is
  dropped quietly: pygls set the result on the cancelled future, raised "CANCELLED", and showed
  the client "Error in server: CANCELLED".
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Generator
from typing import Any

import attrs
from cattrs.errors import ClassValidationError
from cattrs.v import transform_error
from lsprotocol import types
from lsprotocol.types import ResponseErrorMessage
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcMethodNotFound
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage
from pygls.protocol.language_server import lsp_method

from . import to_lsp

log = logging.getLogger("gmonlens")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002
REQUEST_FAILED = -32803


class RequestFailed(JsonRpcException):
    """LSP's RequestFailed (-32803): a request that was understood and could not be done (one line;
    `data` optional facts). Raised by a handler, it is the answer."""

    CODE = REQUEST_FAILED


@attrs.define
class Rejected:
    """A message that could not be read; requests among them get `code`."""

    id: Any
    method: Any
    code: int
    reason: str
    is_request: bool


def _id(value: Any) -> int | str | None:
    """The id to answer with: JSON-RPC ids are strings or integers, anything else is null."""
    return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None


@attrs.define
class PlainRequest:
    """A request whose params stay JSON (dicts, lists): pygls turns a custom request's params
    into namedtuples, which rename keys that are not Python names (an environment variable
    `MY-VAR` in `gmonlens/record`'s `env`). For the methods given to `keep_json`."""

    id: Any
    method: str
    params: Any = None
    jsonrpc: str = "2.0"


class GmonlensProtocol(LanguageServerProtocol):
    json_params: frozenset[str] = frozenset()  # methods whose params stay JSON (`keep_json`)

    def keep_json(self, method: str) -> None:
        """Hand the params of request `method` to its handler as JSON (`PlainRequest`)."""
        self.json_params = self.json_params | {method}

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Generator[Any, Any, types.InitializeResult]:
        """pygls's initialize, plus the LSP 3.18 capability pygls 2.1 does not build:
        `workspace.textDocumentContent` (the schemes of a registered content feature)."""
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        options = self.fm.feature_options.get(types.WORKSPACE_TEXT_DOCUMENT_CONTENT)
        workspace = result.capabilities.workspace
        if options is not None and workspace is not None:
            workspace.text_document_content = options
        return result

    @property
    def shut_down(self) -> bool:
        return bool(self._shutdown)

    @property
    def initialized(self) -> bool:
        return self._workspace is not None

    def structure_message(self, data: dict[str, Any]) -> Any:
        """JSON object -> message (pygls's object hook, also called on nested objects)."""
        if "jsonrpc" not in data:
            return data
        is_request = "id" in data and "method" in data
        method = data.get("method")
        if data.get("jsonrpc") != self.VERSION or ("method" in data and not isinstance(method, str)):
            return Rejected(
                _id(data.get("id")), method, INVALID_REQUEST, "not a JSON-RPC 2.0 message", is_request
            )
        try:
            if "id" in data and "method" not in data:
                if "error" in data:
                    return self._converter.structure(data, ResponseErrorMessage)
                kind = self._result_types.pop(data["id"], None) or JsonRPCResponseMessage
                return self._converter.structure(data, kind)
            if is_request:
                kind = PlainRequest if method in self.json_params else self.get_message_type(method)
                message = self._converter.structure(data, kind or JsonRPCRequestMessage)
                if not hasattr(message, "id"):  # a notification's method, sent as a request
                    return Rejected(
                        _id(data["id"]), method, INVALID_REQUEST, f"{method} is a notification", True
                    )
                return message
            return self._converter.structure(data, self.get_message_type(method or "") or JsonRPCNotification)
        except Exception as exc:  # cattrs' validation errors, and anything a hostile payload provokes
            reason = f"invalid params for {method}: {_first_line(exc)}"
            if "id" in data and "method" not in data:  # a malformed answer: fail the waiting request
                return to_lsp.error_response(_id(data["id"]), INVALID_PARAMS, "malformed response")
            return Rejected(_id(data.get("id")), method, INVALID_PARAMS, reason, is_request)

    last_message = 0.0  # time.monotonic() of the last message read (background work waits for quiet)

    def handle_message(self, message: Any) -> None:
        self.last_message = time.monotonic()
        if isinstance(message, Rejected):
            if message.is_request:
                self.reply_error(message.id, message.code, message.reason)
            else:
                log.warning("dropped a notification: %s", message.reason)
            return
        if isinstance(message, dict) or not hasattr(message, "jsonrpc"):
            # not a JSON-RPC object at all (an array, a number, an object without `jsonrpc`)
            if isinstance(message, dict) and "id" in message and "method" in message:
                self.reply_error(_id(message["id"]), INVALID_REQUEST, "not a JSON-RPC 2.0 message")
            else:
                log.warning("dropped a message that is not JSON-RPC 2.0")
            return
        method = getattr(message, "method", None)
        is_request = method is not None and hasattr(message, "id")
        if method is not None and method != types.EXIT:
            if not self.initialized and method != types.INITIALIZE:
                if is_request:
                    self.reply_error(message.id, SERVER_NOT_INITIALIZED, "the server is not initialized")
                return
            if self.shut_down:
                if is_request:
                    self.reply_error(message.id, INVALID_REQUEST, "the server is shut down")
                return
        super().handle_message(message)

    def _handle_response(self, msg_id: Any, result: Any | None = None, error: Any | None = None) -> None:
        future = self._request_futures.get(msg_id)
        if future is not None and future.done():  # given up (cancelled): nobody waits for this
            self._request_futures.pop(msg_id, None)
            return
        super()._handle_response(msg_id, result, error)

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        """Cancel a request of the client's (never one of ours to the client: those ids are in the
        same table, and a cancelled one would end a load silently)."""
        if _id(msg_id) is None:
            log.warning("dropped $/cancelRequest: bad id")
            return
        future = self._request_futures.get(msg_id)
        if isinstance(future, asyncio.Future) and future.cancel():
            self._request_futures.pop(msg_id, None)

    def reply_error(self, msg_id: Any, code: int, message: str) -> None:
        self._send_response(msg_id, error=to_lsp.response_error(code, message))


def _first_line(exc: BaseException) -> str:
    if isinstance(exc, ClassValidationError):  # "invalid value for type, expected int @ $.params..."
        with contextlib.suppress(Exception):
            return "; ".join(transform_error(exc, path="$"))[:300]
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


MAX_MESSAGE = 256 << 20  # bytes of one message body


async def read_loop(reader: Any, protocol: GmonlensProtocol) -> None:
    """Read framed messages from `reader` (readline/readexactly awaitables) until end of input and
    hand them to `protocol` (pygls's loop, but: header names are case-insensitive; a body that is
    not JSON gets ParseError (-32700); a body over MAX_MESSAGE is skipped; nothing is fatal)."""
    while True:
        length: int | None = None
        while True:
            line = await reader.readline()
            if not line:
                return
            if not line.strip():
                if length is not None:
                    break
                continue  # a blank line before any Content-Length
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                text = value.strip()
                length = int(text) if text.isdigit() and len(text) < 12 else None
        if length > MAX_MESSAGE:
            log.warning("skipping a message of %d bytes (limit %d)", length, MAX_MESSAGE)
            while length > 0:
                chunk = await reader.readexactly(min(length, 1 << 20))
                if not chunk:
                    return
                length -= len(chunk)
            continue
        body = b""
        while len(body) < length:
            chunk = await reader.readexactly(length - len(body))
            if not chunk:
                return
            body += chunk
        try:
            message = json.loads(body, object_hook=protocol.structure_message)
        except (ValueError, RecursionError) as exc:  # not JSON (or nested beyond reason)
            log.warning("a message is not JSON: %s", _first_line(exc))
            protocol.reply_error(None, PARSE_ERROR, "parse error: the message is not JSON")
            continue
        try:
            protocol.handle_message(message)
        except Exception:  # a bug: keep serving
            log.exception("handling a message failed")


class QuietClientErrors(logging.Filter):
    """pygls logs client mistakes (unknown method or command, bad arguments) with a traceback;
    keep one line for those."""

    def filter(self, record: logging.LogRecord) -> bool:
        quiet = (JsonRpcInvalidParams, JsonRpcMethodNotFound, RequestFailed)
        if record.exc_info and isinstance(record.exc_info[1], quiet):
            record.msg = f"{record.getMessage()}: {record.exc_info[1]}"
            record.args = None
            record.exc_info = None
            record.exc_text = None
        return True
