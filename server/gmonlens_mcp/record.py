"""The `record` tool: run a command under gprof's profiling (`gmonlens record`) and leave its
profile where the other tools find it. Offered only by a server started with `--allow-run`
(`gmonlens mcp --allow-run`): the person who starts the server allows an agent to run commands;
without the flag `tools/list` does not have it and nothing of the workspace is ever run.

The run is `gmonlens_ide.recorder`'s (the language server's `gmonlens/record`): the command
without a shell, standard input /dev/null, its output captured (the last lines returned), in a
process group of its own that a `notifications/cancelled` or `timeout_seconds` stops (SIGTERM,
then SIGKILL). The recording goes to `<workspace>/gmonlens-record/`, where discovery finds it: the
next tool call loads it (the workspace reloads when its `record.json` changes). The answer is the
recording's `gmonlens-record/1` document, with the text `gmonlens record` prints.
"""

from __future__ import annotations

import threading
from typing import Any

from gmonlens_ide import recorder

from .rpc import INVALID_PARAMS, RpcError, ToolResult, cancel_event
from .workspace import ToolFailure, Workspace

DEFAULT_TIMEOUT = 600.0  # seconds a recording may run before its command is stopped
MAX_TIMEOUT = 86_400.0
# the tool's argument names -> recorder.RecordRequest's
KEYS = {"command": "argv", "cwd": "cwd", "runs": "runs", "precision": "precision",
        "on_signal_exit": "on_signal_exit", "arcs": "arcs", "binaries": "binaries", "preload": "preload",
        "env": "env"}  # fmt: skip

PROPERTIES: dict[str, Any] = {
    "command": {"type": "array", "minItems": 1, "maxItems": recorder.MAX_ARGV,
                "items": {"type": "string", "maxLength": recorder.MAX_WORD},
                "description": "The command and its arguments, run without a shell (the program found through PATH "
                "or a path, e.g. [\"./build/app\", \"--size\", \"1000\"]); a script or `make target` that runs the "
                "profiled program works too"},
    "cwd": {"type": "string", "minLength": 1, "maxLength": 4096,
            "description": "Where it runs: relative to the workspace folder (default: the folder)"},
    "runs": {"type": "integer", "minimum": 1, "maximum": recorder.MAX_RUNS,
             "description": "Run it this many times and sum the profiles (with precision: at most this many)"},
    "precision": {"type": "number", "minimum": 0.1, "maximum": 99,
                  "description": "Repeat until the hottest routines' sampling error is at most this many percent"},
    "on_signal_exit": {"type": "boolean", "default": False,
                       "description": "Make SIGINT/SIGTERM/SIGHUP call exit() so that a stopped program still "
                       "writes its profile (a server that runs until stopped, or timeout_seconds)"},
    "arcs": {"type": "integer", "minimum": 1, "maximum": recorder.MAX_ARCS,
             "description": "glibc's call-graph buffer in entries (default: sized from the program's call sites)"},
    "binaries": {"type": "array", "maxItems": recorder.MAX_BINARIES,
                 "items": {"type": "string", "minLength": 1, "maxLength": 4096},
                 "description": "Programs the command runs that may write profiles (to name them)"},
    "preload": {"type": "boolean", "default": True,
                "description": "Preload gmonlens's helper library (built once with cc): names each process's program"},
    "env": {"type": "object", "description": "Environment variables to set for the command (name -> value)"},
    "timeout_seconds": {"type": "number", "minimum": 1, "maximum": MAX_TIMEOUT, "default": DEFAULT_TIMEOUT,
                        "description": "Stop the command after this many seconds (SIGTERM, then SIGKILL)"},
}  # fmt: skip
DESCRIPTION = (
    "Run a command with gprof profiling (gmonlens record) and say what came of it: the profiles it "
    "made (per process and program), each program's hottest routines with their sampling error, and the "
    "diagnosis when no usable profile came (no -pg at compile or link, killed by a signal, _exit, the "
    "call-graph buffer overflowing, ...), each finding with its fix. The program must be built with "
    "gcc -pg -g. Afterwards the other tools answer from the new profile. Runs the command: only "
    "servers started with --allow-run offer it."
)


def record(workspace: Workspace, args: dict[str, Any]) -> ToolResult:
    """The tool's handler (module docstring)."""
    from gmonlens.runs.record_text import render

    fields = {k: v for k, v in args.items() if k in KEYS}
    try:
        request = recorder.parse_request(workspace.folder, fields, KEYS)
    except recorder.RequestProblem as e:
        raise RpcError(INVALID_PARAMS, f"argument `{e.field}` {e.message}", {"argument": e.field}) from None
    cancel = cancel_event() or threading.Event()  # the client's notifications/cancelled sets it
    timed_out = threading.Event()

    def expire() -> None:
        timed_out.set()
        cancel.set()

    stop = threading.Timer(float(args.get("timeout_seconds", DEFAULT_TIMEOUT)), expire)
    stop.daemon = True
    stop.start()
    try:
        outcome = recorder.run(request, recorder.Hooks(cancel=cancel))
    except recorder.RecordFailed as e:
        raise ToolFailure(e.message, {"exit_status": e.status}) from None
    finally:
        stop.cancel()
    text = render(outcome.recording)
    if timed_out.is_set():
        text += f"gmonlens record: stopped after timeout_seconds ({args.get('timeout_seconds', DEFAULT_TIMEOUT):g} s)\n"
    if workspace.profiles or workspace.binary:
        text += "Note: this server was started with its program and profiles named: the other tools still answer from those.\n"
    structured = {
        "recording": outcome.document,
        "output_tail": list(outcome.output_tail),
        "output_dropped": outcome.output_dropped,
        "timed_out": timed_out.is_set(),
    }
    return ToolResult(structured, text, is_error=not outcome.recording.usable)
