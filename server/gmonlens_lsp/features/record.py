"""The custom request `gmonlens/record` (PROTOCOL.md): run a command under gprof's profiling as
`gmonlens record` does, for clients without a terminal command of their own (Neovim, Emacs; VS
Code runs `gmonlens record` in a terminal the person sees), and load what it made.

Only on the client's explicit request, and only in a folder the client says is trusted (its
`trustedWorkspace` setting: never a workspace's own file); the command is the request's, nothing
of the workspace decides it. The recording runs in a thread of its own (`gmonlens_ide.recorder`:
stdin /dev/null, the command's process group its own); its progress is `$/progress` (cancellable),
each line the command writes a `window/logMessage` (type Log). `$/cancelRequest`, or cancelling
the progress, stops the command's process group (SIGTERM, then SIGKILL); the server's exit kills
it. The answer is the recording's `gmonlens-record/1` document, once the folder is reloaded:
discovery finds the recording in `<folder>/gmonlens-record/` (`gmonlens_ide.recordings`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import threading
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcInvalidParams

from gmonlens_ide import recorder
from gmonlens_ide.session import FolderState
from gmonlens_ide.settings import effective_settings

from .. import reload, to_lsp, wire
from ..from_lsp import folder_for
from ..notices import log_info
from ..protocol import RequestFailed
from ..server import GmonlensServer

if TYPE_CHECKING:  # the engine's recording modules load with the first recording, not at start-up
    from gmonlens.runs.diagnose import Diagnosis

log = logging.getLogger("gmonlens")
RECORD = "gmonlens/record"
UNTRUSTED = (
    "gmonlens/record runs a command, which it does only in a trusted workspace (VS Code: trust the "
    "folder; other clients: trustedWorkspace in the initializationOptions)"
)
TOP_KEYS = ("folder", "argv", "cwd", "options", "workDoneToken")
OPTION_KEYS = ("runs", "precision", "onSignalExit", "arcs", "binaries", "preload", "env")


class Recording:
    """A recording that runs (killed at the server's exit: `GmonlensServer.children`)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.cancel = threading.Event()
        self.groups: list[int] = []  # each run's process group

    def kill(self) -> None:
        self.cancel.set()
        for pgid in self.groups:
            with contextlib.suppress(OSError):
                os.killpg(pgid, signal.SIGKILL)


def _fields(params: Any) -> tuple[str | None, dict[str, Any], Any]:
    """(folder uri, the recorder's fields, the client's progress token) of the params; raises
    InvalidParams naming a field that does not fit."""
    if not isinstance(params, dict):
        raise JsonRpcInvalidParams(f"{RECORD}: params must be an object with argv @ $.params")
    unknown = sorted(set(params) - set(TOP_KEYS))
    if unknown:
        raise JsonRpcInvalidParams(f"{RECORD}: unknown key {unknown[0]!r} @ $.params")
    folder, options = params.get("folder"), params.get("options") or {}
    if folder is not None and not isinstance(folder, str):
        raise JsonRpcInvalidParams(f"{RECORD}: folder must be a folder's URI @ $.params.folder")
    if not isinstance(options, dict) or set(options) - set(OPTION_KEYS):
        raise JsonRpcInvalidParams(f"{RECORD}: options must be an object of {', '.join(OPTION_KEYS)}")
    fields = {k: params[k] for k in ("argv", "cwd") if k in params}
    return folder, {**fields, **options}, params.get("workDoneToken")


async def _trusted(ls: GmonlensServer, state: FolderState) -> bool:
    settings, _problems = await asyncio.to_thread(
        effective_settings, state.path, ls.client_settings_of(state)
    )
    return settings.trusted


class Progress:
    """The recording's `$/progress`: the client's token, else one the server creates where the
    client supports it; cancellable (cancelling it sets `cancel`). Safe to call from any thread."""

    def __init__(self, ls: GmonlensServer, token: Any) -> None:
        self.ls = ls
        self.token: str | int | None = (
            token if isinstance(token, (str, int)) and not isinstance(token, bool) else None
        )
        self.loop = asyncio.get_running_loop()

    async def begin(self, title: str, text: str, cancel: threading.Event) -> None:
        if self.token is None and get_capability(
            self.ls.client_capabilities, "window.work_done_progress", False
        ):
            token = str(uuid.uuid4())
            try:
                await asyncio.wait_for(self.ls.work_done_progress.create_async(token), timeout=5)
                self.token = token
            except Exception as exc:  # a client that refuses still gets the answer
                log.info("work done progress refused: %s", exc)
        if self.token is None:
            return
        self.ls.work_done_progress.begin(self.token, to_lsp.progress_begin(title, text, cancellable=True))
        future = self.ls.work_done_progress.tokens.get(self.token)
        if future is not None:  # window/workDoneProgress/cancel cancels it
            future.add_done_callback(lambda f: cancel.set() if f.cancelled() else None)

    def report(self, text: str) -> None:
        if self.token is not None:
            token = self.token
            self._soon(lambda: self.ls.work_done_progress.report(token, to_lsp.progress_report(text)))

    def end(self, text: str) -> None:
        if self.token is not None:
            self.ls.work_done_progress.end(self.token, to_lsp.progress_end(text))
            self.ls.work_done_progress.tokens.pop(self.token, None)
            self.token = None

    def _soon(self, fn: Callable[[], None]) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone: the server is ending
            self.loop.call_soon_threadsafe(fn)


def _hooks(ls: GmonlensServer, running: Recording, progress: Progress) -> recorder.Hooks:
    loop = asyncio.get_running_loop()

    def say(kind: str, text: str) -> None:
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(ls.window_log_message, to_lsp.log_message(kind, text))

    def finding(d: Diagnosis) -> None:
        say("warning", f"gmonlens record: {d.severity} [{d.code}]: {d.message}; fix: {d.fix}")
        progress.report(f"{d.code}: {d.message}")

    def run(k: int, most: int) -> None:
        progress.report(f"run {k} of at most {most}" if most > 1 else "running")

    return recorder.Hooks(
        output=lambda line: say("log", line),
        finding=finding,
        run=run,
        cancel=running.cancel,
        started=running.groups.append,
    )


def _summary(doc: dict[str, Any]) -> str:
    errors = [d for d in doc.get("diagnosis", []) if d.get("severity") == "error"]
    if doc.get("usable"):
        n = len(doc.get("profiles", []))
        return f"{n} profile{'s' if n != 1 else ''} recorded"
    return f"no usable profile: {errors[0]['message']}" if errors else "no usable profile"


async def record(ls: GmonlensServer, params: Any) -> wire.Recording:
    folder, fields, token = _fields(params)
    state = folder_for(ls, folder) if folder else next(iter(ls.folders.values()), None)
    if state is None:
        raise RequestFailed(f"{RECORD}: no workspace folder {folder or ''}".rstrip())
    if not await _trusted(ls, state):
        raise RequestFailed(UNTRUSTED)
    try:
        request = recorder.parse_request(state.path, fields)
    except recorder.RequestProblem as e:
        raise JsonRpcInvalidParams(f"{RECORD}: {e} @ $.params") from None
    if any(isinstance(c, Recording) and c.folder == state.path for c in ls.children):
        raise RequestFailed(f"{RECORD}: a recording already runs in {state.path}")
    running = Recording(state.path)
    ls.children.add(running)  # at once, no await since the check: one recording per folder
    try:
        progress = Progress(ls, token)
        await progress.begin("gmonlens record", " ".join(request.argv)[:200], running.cancel)
        job = reload.in_thread(recorder.run, request, _hooks(ls, running, progress))
    except BaseException:
        ls.children.discard(running)
        raise
    job.add_done_callback(lambda _f: ls.children.discard(running))  # when the thread ends
    try:
        outcome = await asyncio.shield(job)
    except asyncio.CancelledError:
        running.cancel.set()
        progress.end("cancelled: the command was stopped")
        raise
    except recorder.RecordFailed as e:
        progress.end(e.message)
        raise RequestFailed(e.message, data={"exit_status": e.status}) from None
    progress.end(_summary(outcome.document))
    await _load(ls, state, outcome)
    return wire.recording(outcome.document)


async def _load(ls: GmonlensServer, state: FolderState, outcome: recorder.Outcome) -> None:
    """Say what came of it (the text `gmonlens record` prints), then reload the folder (discovery
    finds the recording) and wait for that load."""
    from gmonlens.runs.record_text import render

    for line in render(outcome.recording).splitlines():
        log_info(ls, line)
    if state.settings.profiles:
        ls.window_log_message(
            to_lsp.log_message(
                "warning",
                f"{state.path}: the `profiles` setting names this folder's profiles, so the recording in "
                f"{outcome.recording.out_dir} is not shown: clear the setting to see it",
            )
        )
    await asyncio.wait([reload.reload(ls, state)])  # a newer load superseding it ends the wait too


def register(server: GmonlensServer) -> None:
    server.protocol.keep_json(RECORD)  # `env` names need not be Python names

    @server.feature(RECORD)
    async def record_request(ls: GmonlensServer, params: Any) -> wire.Recording:
        return await record(ls, params)
