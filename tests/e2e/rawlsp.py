"""A raw JSON-RPC client on `gmonlens serve` (threads, no pygls): sends any bytes, including
messages no typed client can build, answers the server's requests, and records everything.

`RawServer.request` returns the whole response message (`result` or `error`) or None on time-out.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote


def uri(path: Path | str) -> str:
    """The file: URI of an absolute path, raw bytes percent-encoded (as editors write them)."""
    return "file://" + quote(os.fsencode(str(path)))


def server_env(cache: Path, **extra: str) -> dict[str, str]:
    return {"XDG_CACHE_HOME": str(cache), "PATH": "/usr/bin:/bin", "HOME": str(cache), **extra}


class RawServer:
    def __init__(
        self,
        cache: Path,
        *,
        cwd: Path | str | None = None,
        cmd: list[str] | None = None,
        env: dict[str, str] | None = None,
        reply_delay: float = 0.0,
    ) -> None:
        self.cmd = cmd or [sys.executable, "-m", "gmonlens_lsp", "serve", "--stdio"]
        self.proc = subprocess.Popen(
            self.cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=str(cwd) if cwd is not None else None,
            env=env if env is not None else server_env(cache),
        )
        self.reply_delay = reply_delay  # seconds before answering the server's requests
        self.messages: list[dict[str, Any]] = []  # everything the server sent
        self.responses: dict[Any, dict[str, Any]] = {}
        self.stderr = bytearray()
        self._next = 0
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._out: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()
        threading.Thread(target=self._write, daemon=True).start()

    # ---- wire ----------------------------------------------------------------------------------

    def _write(self) -> None:
        assert self.proc.stdin is not None
        while (data := self._out.get()) is not None:
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                return

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        while chunk := self.proc.stderr.read1(65536):
            self.stderr += chunk

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    with self._arrived:
                        self._arrived.notify_all()
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii", "replace").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            if length is None:
                continue
            msg = json.loads(out.read(length))
            with self._arrived:
                self.messages.append(msg)
                if "id" in msg and "method" not in msg:
                    self.responses[msg["id"]] = msg
                self._arrived.notify_all()
            if "id" in msg and "method" in msg:
                threading.Thread(target=self._answer, args=(msg,), daemon=True).start()

    def _answer(self, msg: dict[str, Any]) -> None:
        if self.reply_delay:
            time.sleep(self.reply_delay)
        result: Any = None
        if msg["method"] == "workspace/configuration":
            result = [None] * len(msg.get("params", {}).get("items", []))
        self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})

    def send_bytes(self, data: bytes) -> None:
        self._out.put(data)

    def send_body(self, body: bytes) -> None:
        self.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def send(self, msg: Any) -> None:
        self.send_body(json.dumps(msg).encode())

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def new_id(self) -> int:
        self._next += 1
        return self._next

    def request_async(self, method: str, params: Any = None, *, omit_params: bool = False) -> int:
        msg_id = self.new_id()
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if not omit_params:
            msg["params"] = params
        self.send(msg)
        return msg_id

    def wait_response(self, msg_id: Any, timeout: float = 10.0) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        with self._arrived:
            while msg_id not in self.responses:
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and msg_id not in self.responses):
                    return self.responses.get(msg_id)
                self._arrived.wait(min(left, 0.1))
            return self.responses[msg_id]

    def request(
        self, method: str, params: Any = None, timeout: float = 10.0, **kw: Any
    ) -> dict[str, Any] | None:
        return self.wait_response(self.request_async(method, params, **kw), timeout)

    # ---- session -------------------------------------------------------------------------------

    def initialize(self, folder: Path, *, capabilities: dict[str, Any] | None = None,
                   init_options: Any = None) -> dict[str, Any]:  # fmt: skip
        caps = capabilities if capabilities is not None else {
            "window": {"workDoneProgress": True},
            "workspace": {"codeLens": {"refreshSupport": True}, "configuration": True},
        }  # fmt: skip
        resp = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": uri(folder),
                "capabilities": caps,
                "workspaceFolders": [{"uri": uri(folder), "name": folder.name}],
                "initializationOptions": init_options,
            },
            timeout=30,
        )
        assert resp is not None and "result" in resp, resp
        self.notify("initialized", {})
        return resp

    def notifications(self, method: str) -> list[Any]:
        with self._lock:
            return [m.get("params") for m in self.messages if m.get("method") == method and "id" not in m]

    def statuses(self) -> list[dict[str, Any]]:
        return self.notifications("gmonlens/status")

    def shown(self) -> list[str]:
        return [p["message"] for p in self.notifications("window/showMessage")]

    def logged(self) -> list[str]:
        return [p["message"] for p in self.notifications("window/logMessage")]

    def wait_for(self, predicate: Any, timeout: float = 60.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return True
            time.sleep(0.05)
        return bool(predicate())

    def wait_state(self, states: tuple[str, ...] = ("loaded", "problem", "idle"), after: int = 0,
                   timeout: float = 60.0) -> dict[str, Any] | None:  # fmt: skip
        found: list[dict[str, Any]] = []

        def hit() -> bool:
            found[:] = [s for s in self.statuses()[after:] if s.get("state") in states]
            return bool(found)

        self.wait_for(hit, timeout)
        return found[0] if found else None

    def shutdown_and_exit(self, timeout: float = 10.0) -> int | None:
        self.request("shutdown", None, timeout=timeout)
        self.notify("exit")
        return self.wait_exit(timeout)

    def wait_exit(self, timeout: float = 10.0) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._out.put(None)

    def __enter__(self) -> RawServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.kill()
