"""An independent minimal MCP client over stdio (one JSON message per line), for the tests: it
starts a command, speaks the 2025-06-18 lifecycle and reads answers with a time limit."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from typing import Any

LIMIT = 120.0  # seconds to wait for one answer before the test fails (a hang, not a timing)


def facts(result: dict[str, Any]) -> Any:
    """A tool result's data: `structuredContent`, else (an error, or a revision before 2025-06-18)
    the JSON text that follows the short text."""
    if "structuredContent" in result:
        return result["structuredContent"]
    return json.loads(result["content"][-1]["text"])


class McpClient:
    def __init__(self, argv: list[str], cwd: str | None = None, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._next = 0

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def send(self, message: Any) -> None:
        self.send_raw(json.dumps(message).encode() + b"\n")

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def receive(self, limit: float = LIMIT) -> Any:
        line = self._lines.get(timeout=limit)
        assert line is not None, "the server closed its output"
        assert line.endswith(b"\n") and b"\n" not in line[:-1]
        return json.loads(line)

    def request(self, method: str, params: Any = None) -> Any:
        """The whole answer (result or error) to one request."""
        self._next += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        answer = self.receive()
        assert answer.get("id") == self._next, answer
        return answer

    def initialize(self, version: str = "2025-06-18") -> Any:
        answer = self.request(
            "initialize",
            {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "tests", "version": "0"}},
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer["result"]

    def call(self, tool: str, **arguments: Any) -> Any:
        """The result of a tools/call that must not be a JSON-RPC error."""
        answer = self.request("tools/call", {"name": tool, "arguments": arguments})
        assert "result" in answer, answer
        return answer["result"]

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(LIMIT)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
        return code

    def __enter__(self) -> McpClient:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.close()
