"""The language server object (`GmonlensServer`) and the `safe` handler wrapper. It imports no
feature: `factory.create_server` builds a server and asks each feature module to register.

Invariants: handlers fetch state, call `index`/`render`, and return an lsprotocol object or None;
a failing handler logs to stderr and answers empty (`safe`); only the protocol writes to stdout.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
import os
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, BinaryIO, Protocol, TypeVar

from pygls.exceptions import JsonRpcException
from pygls.io_ import StdinAsyncReader, StdoutWriter
from pygls.lsp.server import LanguageServer

from gmonlens import __version__
from gmonlens_ide.session import FolderState, LoadedFolder
from gmonlens_ide.warmup import MAX_CONCURRENT

from . import to_lsp, uris
from .protocol import GmonlensProtocol, read_loop

log = logging.getLogger("gmonlens")
F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


def safe(default: Any = None) -> Callable[[F], F]:
    """Make a handler answer `default` instead of raising (the error is logged to stderr); a
    `JsonRpcException` it raises is answered as that error."""

    def wrap(fn: F) -> F:
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await fn(*args, **kwargs)
                except (asyncio.CancelledError, JsonRpcException):  # an error answer is meant
                    raise
                except Exception:
                    log.exception("%s failed", fn.__name__)
                    return default() if callable(default) else default

            return run_async  # type: ignore[return-value]

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except Exception:
                log.exception("%s failed", fn.__name__)
                return default() if callable(default) else default

        return run  # type: ignore[return-value]

    return wrap


class Killable(Protocol):
    """A process the server started (the cache warm-up, a recorded command): killed at exit."""

    def kill(self) -> None: ...


class GmonlensServer(LanguageServer):
    protocol: GmonlensProtocol

    def __init__(self) -> None:
        super().__init__("gmonlens", __version__, protocol_cls=GmonlensProtocol)
        self.children: set[Killable] = set()  # subprocesses (warm-up, recordings), killed at exit
        self.warm_slots = asyncio.Semaphore(MAX_CONCURRENT)  # warm-up processes at once
        self.client_settings: Any = None  # the client's `gmonlens` section, camelCase
        self.client_trust = False  # `trustedWorkspace` of initializationOptions (never pulled settings)
        self.folders: dict[str, FolderState] = {}  # folder uri -> state
        self.background: set[asyncio.Task[Any]] = set()
        self.watching_by_client = False
        self.poller: asyncio.Task[Any] | None = None
        self.debounce: dict[str, asyncio.Task[Any]] = {}
        self.lens_jobs = 0  # lens computations running (DWARF decoding): background work waits
        self.lens_done = 0.0  # time.monotonic() when the last lens answer was made
        self.listings: set[str] = set()  # listing documents served (gmonlens-disasm: URIs)

    async def quiet(self, gap: float = 0.2, limit: float = 10.0) -> None:
        """Wait (up to `limit` seconds) until no lens computation runs and neither a message came
        nor a lens answer was made for `gap` seconds (the requests a client sends on seeing the
        lenses come first): CPU-bound work in a thread slows requests through the GIL (SQLite's
        first lenses decode DWARF for ~2 s after the load; the requests that follow them answer in
        15 ms alone, 40-70 ms beside the line heat's computation)."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            idle_since = max(self.protocol.last_message, self.lens_done)
            if self.lens_jobs == 0 and time.monotonic() - idle_since >= gap:
                return
            await asyncio.sleep(0.05)

    # ---- folders -------------------------------------------------------------------------------

    def sync_folders(self) -> list[FolderState]:
        """Make `folders` match the workspace's folders; returns the new ones."""
        wanted: dict[str, str] = {}
        for folder in self.workspace.folders.values():  # keyed by pygls's lossy unquote: use .uri
            uri = folder.uri
            path = uris.to_fs_path(uri)
            if path:
                wanted[uri] = os.path.abspath(path)
        if not wanted and self.workspace.root_uri:
            path = uris.to_fs_path(self.workspace.root_uri)
            if path:
                wanted[self.workspace.root_uri] = os.path.abspath(path)
        for uri in list(self.folders):
            if uri not in wanted:
                state = self.folders.pop(uri)
                if state.loading is not None:
                    state.loading.cancel()
        added = []
        for uri, path in wanted.items():
            if uri not in self.folders:
                self.folders[uri] = FolderState(uri=uri, path=path)
                added.append(self.folders[uri])
        return added

    def folder_of(self, doc_uri: str) -> FolderState | None:
        """The innermost workspace folder containing the document."""
        path = uris.to_fs_path(doc_uri)
        if not path:
            return None
        path = os.path.abspath(path)
        best: FolderState | None = None
        for state in self.folders.values():
            root = state.path.rstrip(os.sep) + os.sep
            if (path.startswith(root) or path == state.path) and (
                best is None or len(state.path) > len(best.path)
            ):
                best = state
        if best is None:
            # a file outside every folder (a library header, say): any loaded folder that knows it
            for state in self.folders.values():
                if state.loaded is not None and state.loaded.index.knows(path):
                    return state
        return best

    def client_settings_of(self, state: FolderState) -> Any:
        """The client's `gmonlens` section for a folder (its own, else the global one), with
        `trustedWorkspace` as `initialize` said it: settings pulled or pushed later may come from
        the workspace's own files (eglot answers from `.dir-locals.el`, VS Code from
        `.vscode/settings.json`), so they never grant trust."""
        client = state.client_settings if state.client_settings is not None else self.client_settings
        section = dict(client) if isinstance(client, Mapping) else {}
        section["trustedWorkspace"] = self.client_trust
        return section

    def loaded_for(self, doc_uri: str) -> LoadedFolder | None:
        state = self.folder_of(doc_uri)
        return state.loaded if state is not None else None

    async def register_dynamically(self, method: str, options: object = None) -> bool:
        """Ask the client to register `method` (client/registerCapability); False when it fails
        or does not answer within 5 s."""
        params = to_lsp.registration(str(uuid.uuid4()), method, options)
        try:
            await asyncio.wait_for(self.client_register_capability_async(params), timeout=5)
            return True
        except Exception as exc:
            log.info("registering %s failed: %s", method, exc)
            return False

    # ---- process ---------------------------------------------------------------------------------

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve on stdin/stdout until `exit` (or the client closes stdin, or SIGTERM, SIGHUP or
        SIGINT arrives), then end the process at once, its subprocesses (the cache warm-up) killed
        first: a load stuck in a read (a FIFO, a slow disk) must not keep it alive."""
        self._stop_event = threading.Event()
        reader = StdinAsyncReader(stdin or sys.stdin.buffer, self.thread_pool)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))

        async def serve() -> None:
            assert self._stop_event is not None
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):  # as `exit` does: children too
                with contextlib.suppress(ValueError, OSError, RuntimeError, NotImplementedError):
                    loop.add_signal_handler(sig, self.terminate, 128 + sig)
            code = 1
            try:
                await read_loop(reader, self.protocol)
                code = 0 if self.protocol.shut_down else 1  # stdin closed without `exit`
            except BrokenPipeError:
                log.warning("the client closed the connection")
            finally:
                self.terminate(code)

        asyncio.run(serve())
        self.terminate(1)

    def terminate(self, code: int) -> None:
        """End the process now: kill our subprocesses, flush, `os._exit` (no thread is joined)."""
        for proc in list(self.children):
            with contextlib.suppress(Exception):
                proc.kill()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        logging.shutdown()
        os._exit(code)

    def report_server_error(self, error: Exception, source: object) -> None:
        """Errors outside a request (a message that cannot be read, a failing notification handler)
        go to stderr; pygls would show each one to the person as a popup."""
        log.warning("%s: %s", getattr(source, "__name__", source), error)

    def spawn(self, coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """Run a coroutine in the background, keeping a reference until it ends."""
        task: asyncio.Task[T] = asyncio.ensure_future(coro)
        self.background.add(task)
        task.add_done_callback(self.background.discard)
        return task
