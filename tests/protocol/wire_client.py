"""An LSP client in the test's own process: JSON-RPC messages in and out of a real `GmonlensServer`,
as bytes on the wire would be, without a subprocess or a pipe.

What goes in is JSON text read by the server's own reader (`GmonlensProtocol.structure_message`,
the hook `read_loop` gives `json.loads`) and handed to `handle_message`; what comes out is what the
server's writer would put on stdout (pygls's `json.dumps` of the message), parsed back. So a
request's params and its result here are exactly a client's and the server's messages; only the
framing (Content-Length) is left out.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from gmonlens_lsp.server import GmonlensServer


class WireClient:
    def __init__(self, server: GmonlensServer) -> None:
        self.server = server
        self.protocol = server.protocol
        self.received: list[dict[str, Any]] = []  # every message the server wrote, in order
        self._next_id = 0
        self.protocol.set_writer(self, include_headers=False)

    def write(self, data: bytes) -> None:
        """The server's writer: one JSON-RPC message."""
        self.received.append(json.loads(data))

    def _send(self, message: dict[str, Any]) -> None:
        text = json.dumps(message)
        self.protocol.handle_message(json.loads(text, object_hook=self.protocol.structure_message))

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: Any, timeout: float = 60.0) -> Any:
        """Send a request and wait for its answer; its `result` (an error response fails)."""
        answer = await self.answer(self.send_request(method, params), timeout)
        assert "error" not in answer, f"{method} answered an error: {answer['error']}"
        return answer.get("result")

    def send_request(self, method: str, params: Any) -> int:
        """Send a request; its id (`answer` waits for the answer)."""
        self._next_id += 1
        self._send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        return self._next_id

    async def answer(self, rid: int, timeout: float = 60.0) -> dict[str, Any]:
        """The whole answer (result or error) to request `rid`, once it comes."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            for m in self.received:
                if m.get("id") == rid and "method" not in m:
                    return m
            await asyncio.sleep(0.01)
        raise TimeoutError(f"request {rid}: no answer in {timeout} s")

    async def command(self, command: str, arguments: list[Any]) -> Any:
        return await self.request("workspace/executeCommand", {"command": command, "arguments": arguments})

    def notifications(self, method: str) -> list[Any]:
        """The params of every notification `method` the server sent so far."""
        return [m.get("params") for m in self.received if m.get("method") == method and "id" not in m]

    async def notification(self, method: str, match: Any = None, timeout: float = 60.0) -> Any:
        """Wait for a notification `method` whose params satisfy `match` (a predicate)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            for params in self.notifications(method):
                if match is None or match(params):
                    return params
            await asyncio.sleep(0.02)
        raise TimeoutError(f"no {method} notification in {timeout} s")
