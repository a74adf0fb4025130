"""`gmonlens record` for the servers: the language server's `gmonlens/record` request and the MCP
server's `record` tool. What a client asks for is checked (`parse_request`), the engine's
`runs.recording.record` runs it (`run`, on the caller's worker thread, never an event loop), and
the recording comes back with its document (`gmonlens-record/1`, as `gmonlens record --json`
prints it and DIR/record.json holds it).

Who may call `run`: only an adapter standing for a person's explicit request (a client's request
in a workspace the client says is trusted; an MCP server started with `--allow-run`). Nothing here
reads the workspace to decide what to run: the command is the request's.

How it runs (the engine's contract for a server): standard input /dev/null (a server's stdin is
its protocol), standard output and error into one pipe read here (`OutputPump`: each line handed
to `Hooks.output`, at most MAX_FORWARDED lines, the last TAIL_LINES kept), no signal handlers
(`forward_signals=False`) and no orphans adopted (a server has children of its own), a `cancel`
event that stops the command's process group. DIR is `<folder>/gmonlens-record`, where discovery
finds the recording (`recordings.py`).
"""

from __future__ import annotations

import collections
import contextlib
import os
import select
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .recordings import RECORD_DIR

if TYPE_CHECKING:  # the engine's recording modules load with the first recording (server start-up)
    from gmonlens.runs.diagnose import Diagnosis
    from gmonlens.runs.results import Recording

MAX_ARGV = 4096  # words of a command line
MAX_WORD = 1 << 16  # characters of one word (a path, an argument, an environment value)
MAX_ENV = 256  # variables a request may set
MAX_BINARIES = 64
MAX_RUNS = 1000
MAX_ARCS = 1 << 24
MAX_FORWARDED = 2000  # output lines handed on (the rest counted)
MAX_LINE = 2000  # characters of a line handed on
TAIL_LINES = 40  # the last lines of output kept for the answer
DRAIN = 1.0  # seconds the output is read after the command ended (a descendant may hold it open)


class RequestProblem(ValueError):
    """The request cannot be run as given: one line naming the field (`field`: its name)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class RecordFailed(Exception):
    """`record` refused or could not start the command: one line, and the exit status the
    command line gives for it (127 not found, 126 not executable, 2 usage, 1 DIR or helper)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass(frozen=True)
class RecordRequest:
    """A checked request: the command (argv), where it runs, and `gmonlens record`'s options."""

    folder: str  # the workspace folder (absolute); DIR is <folder>/gmonlens-record
    argv: tuple[str, ...]
    cwd: str  # absolute
    runs: int | None = None
    precision: float | None = None
    on_signal_exit: bool = False
    arcs: int | str | None = None
    binaries: tuple[str, ...] = ()  # absolute
    preload: bool = True
    env: tuple[tuple[str, str], ...] = ()  # set over the server's environment

    @property
    def out_dir(self) -> str:
        return os.path.join(self.folder, RECORD_DIR)


# the request's keys as a client writes them (LSP: camelCase) -> RecordRequest's
KEYS = {"argv": "argv", "cwd": "cwd", "runs": "runs", "precision": "precision", "onSignalExit": "on_signal_exit",
        "arcs": "arcs", "binaries": "binaries", "preload": "preload", "env": "env"}  # fmt: skip


def _word(field: str, value: Any) -> str:
    if not isinstance(value, str):
        raise RequestProblem(field, "must be a string")
    if "\0" in value or len(value) > MAX_WORD:
        raise RequestProblem(field, f"must hold no NUL and at most {MAX_WORD} characters")
    return value


def _argv(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or len(value) > MAX_ARGV:
        raise RequestProblem("argv", f"must be the command and its arguments: 1 to {MAX_ARGV} strings")
    words = tuple(_word(f"argv[{i}]", w) for i, w in enumerate(value))
    if not words[0]:
        raise RequestProblem("argv[0]", "must name the command")
    return words


def _path(folder: str, field: str, value: Any) -> str:
    text = _word(field, value)
    return os.path.normpath(
        os.path.join(folder, os.path.expanduser(text.replace("${workspaceFolder}", folder)))
    )


def _number(field: str, value: Any, lo: float, hi: float, integer: bool) -> float:
    ok = isinstance(value, int if integer else (int, float)) and not isinstance(value, bool)
    if not ok or not lo <= value <= hi or value != value:
        kind = "an integer" if integer else "a number"
        raise RequestProblem(field, f"must be {kind} from {lo:g} to {hi:g}")
    return float(value)


def _flag(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise RequestProblem(field, "must be true or false")
    return value


def _arcs(value: Any) -> int | str:
    if value in ("auto", "default"):
        return str(value)
    return int(_number("arcs", value, 1, MAX_ARCS, integer=True))


def _env(value: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, Mapping) or len(value) > MAX_ENV:
        raise RequestProblem("env", f"must map at most {MAX_ENV} variable names to strings")
    out = []
    for name, v in value.items():
        if not isinstance(name, str) or not name or "=" in name or "\0" in name:
            raise RequestProblem("env", f"{name!r} is not a variable name")
        out.append((name, _word(f"env.{name}", v)))
    return tuple(out)


def _binaries(folder: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or len(value) > MAX_BINARIES:
        raise RequestProblem("binaries", f"must be at most {MAX_BINARIES} paths")
    return tuple(_path(folder, f"binaries[{i}]", v) for i, v in enumerate(value))


def parse_request(folder: str, params: Mapping[str, Any], keys: Mapping[str, str] = KEYS) -> RecordRequest:
    """A request from a client's parameters (`keys`: the client's names of the fields; a key not
    among them is refused); raises RequestProblem. `cwd` and `binaries` are taken from `folder`
    when relative (`~` and `${workspaceFolder}` expanded); `cwd` must be a directory."""
    names = {v: k for k, v in keys.items()}
    unknown = sorted(k for k in params if k not in keys)
    if unknown:
        raise RequestProblem(unknown[0], f"unknown (known: {', '.join(keys)})")
    got = {keys[k]: v for k, v in params.items() if v is not None}
    if "argv" not in got:
        raise RequestProblem(names["argv"], "missing: the command and its arguments")
    folder = os.path.abspath(folder)
    cwd = _path(folder, names["cwd"], got["cwd"]) if "cwd" in got else folder
    if not os.path.isdir(cwd):
        raise RequestProblem(names["cwd"], f"{cwd} is not a directory")
    runs = got.get("runs")
    precision = got.get("precision")
    return RecordRequest(
        folder,
        _argv(got["argv"]),
        cwd,
        runs=None if runs is None else int(_number(names["runs"], runs, 1, MAX_RUNS, integer=True)),
        precision=None if precision is None else _precision(names["precision"], precision),
        on_signal_exit=_flag(names["on_signal_exit"], got.get("on_signal_exit", False)),
        arcs=_arcs(got["arcs"]) if "arcs" in got else None,
        binaries=_binaries(folder, got.get("binaries", [])),
        preload=_flag(names["preload"], got.get("preload", True)),
        env=_env(got.get("env", {})),
    )


def _precision(field: str, value: Any) -> float:
    p = _number(field, value, 0, 100, integer=False)
    if not 0 < p < 100:
        raise RequestProblem(field, "must be a percentage above 0 and below 100")
    return p


@dataclass
class Hooks:
    """What the caller hears while a recording runs (each called on the recording's threads)."""

    output: Callable[[str], None] = lambda line: None  # a line the command wrote (stdout or stderr)
    finding: Callable[[Diagnosis], None] = lambda d: None  # said before the run
    run: Callable[[int, int], None] = lambda run, most: None  # (run, most runs) as each starts
    cancel: threading.Event = field(default_factory=threading.Event)  # set: stop the command
    started: Callable[[int], None] = lambda pid: None  # each run's process group


class OutputPump:
    """The command's output: read from a pipe on a thread of its own, split into lines (`\\n` or
    `\\r`), each (cut to MAX_LINE) handed to `on_line` up to MAX_FORWARDED, the last TAIL_LINES
    kept in `tail`, the rest counted in `dropped`."""

    def __init__(self, on_line: Callable[[str], None]) -> None:
        self.read_fd, self.write_fd = os.pipe()
        os.set_inheritable(self.write_fd, False)
        self.on_line = on_line
        self.tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
        self.forwarded = 0
        self.dropped = 0
        self._partial = b""
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._pump, name="gmonlens-record-output", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while True:
                ready, _, _ = select.select([self.read_fd], [], [], 0.05)
                if not ready:
                    if self._done.is_set():
                        return
                    continue
                data = os.read(self.read_fd, 1 << 16)
                if not data:
                    return
                self._take(data)

    def _take(self, data: bytes) -> None:
        parts = (self._partial + data).replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        self._partial = parts.pop()[-MAX_WORD:]
        for raw in parts:
            self._line(raw)

    def _line(self, raw: bytes) -> None:
        line = raw.decode("utf-8", "replace").rstrip()[:MAX_LINE]
        if not line:
            return
        self.tail.append(line)
        if self.forwarded < MAX_FORWARDED:
            self.forwarded += 1
            with contextlib.suppress(Exception):  # a hook that fails costs its line only
                self.on_line(line)
        else:
            self.dropped += 1

    def close(self) -> None:
        """After the command ended: read what is left (at most DRAIN seconds: a descendant may
        hold the pipe open), then let go of both ends."""
        with contextlib.suppress(OSError):
            os.close(self.write_fd)
        self._thread.join(DRAIN)
        self._done.set()
        self._thread.join(1.0)
        if self._partial:
            self._line(self._partial)
            self._partial = b""
        with contextlib.suppress(OSError):
            os.close(self.read_fd)


@dataclass(frozen=True)
class Outcome:
    """What `run` gives: the recording, its document, the output's last lines."""

    recording: Recording
    document: dict[str, Any]
    output_tail: tuple[str, ...]
    output_dropped: int  # lines not handed to Hooks.output (past MAX_FORWARDED)


def run(request: RecordRequest, hooks: Hooks | None = None) -> Outcome:
    """Record `request` (module docstring) on this thread; raises RecordFailed."""
    from gmonlens.common.errors import GmonlensError, UsageError
    from gmonlens.runs.command import CommandNotFound, NotExecutable
    from gmonlens.runs.record_json import to_json
    from gmonlens.runs.recording import RecordOptions, record

    hooks = hooks or Hooks()
    env = dict(os.environ)
    env.update(request.env)
    null = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
    pump = OutputPump(hooks.output)
    options = RecordOptions(
        runs=request.runs,
        precision=request.precision,
        on_signal_exit=request.on_signal_exit,
        arcs=request.arcs,
        binaries=request.binaries,
        preload=request.preload,
        env=env,
        stdin=null,
        stdout=pump.write_fd,
        stderr=pump.write_fd,
        forward_signals=False,
        adopt_orphans=False,
        notify=hooks.finding,
        cancel=hooks.cancel,
        on_run=hooks.run,
        on_start=hooks.started,
    )
    try:
        rec = record(request.argv, request.cwd, request.out_dir, options)
    except CommandNotFound as e:
        raise RecordFailed(str(e), 127) from None
    except NotExecutable as e:
        raise RecordFailed(str(e), 126) from None
    except UsageError as e:
        raise RecordFailed(str(e), 2) from None
    except GmonlensError as e:
        raise RecordFailed(str(e), 1) from None
    finally:
        os.close(null)
        pump.close()
    return Outcome(rec, to_json(rec), tuple(pump.tail), pump.dropped)
