"""One run of the user's command: its environment, its standard error watched, its end and the
CPU time it used (an I/O module: it starts a process).

- Environment (`record_environment`): the user's, plus `GMON_OUT_PREFIX` (DIR/gmon.out: every
  process writes `gmon.out.<pid>` there, whatever its working directory), the helper library in
  `LD_PRELOAD` (after the user's own entries) with its `GMONLENS_RECORD_*` settings, and the
  call-graph buffer's size in `GLIBC_TUNABLES` (added to the user's tunables) when one is asked.
- Standard error: the command's goes through gmonlens, copied unchanged as it comes, and read
  for glibc's profiling messages (`GLIBC_MESSAGES`): through a pseudo-terminal when gmonlens's
  own standard error is a terminal (the command still sees one: colours, progress bars), else a
  pipe. Standard input and output are the command's as they are.
- Signals: while the command runs, SIGINT (a terminal's ^C reaches the command itself) is
  noted, and SIGTERM and SIGHUP sent to gmonlens are noted and passed on to the command, so
  gmonlens outlives it and reports; handlers are Python's, reset in the child by exec.
- CPU time: `os.wait4` gives the user and system time of the command and of every descendant it
  waited for; with `adopt_orphans` gmonlens becomes the child subreaper (Linux
  PR_SET_CHILD_SUBREAPER), so descendants orphaned during the run are reparented to it and reaped
  after the command ends (for ORPHAN_GRACE seconds), their time added. Only for a process that
  reaps no other children (the CLI): `wait4(-1)` would take a server's other children.
- Cancellation (a server's caller, `RunSetup.cancel`): the command then runs in a session and
  process group of its own; when the event is set, the group is sent SIGTERM, and SIGKILL if it
  is still there CANCEL_GRACE seconds later (descendants that left the group are not reached).
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from gmonlens.runs.command import NotExecutable

GLIBC_MESSAGES = (
    (b"mcount: call graph buffer size limit exceeded", "arcs_overflow"),
    (b"_mcleanup:", "profile_not_written"),
    (b"monstartup: out of memory", "out_of_memory"),
    (b"cannot be preloaded", "preload_refused"),
)
ORPHAN_GRACE = 1.0  # seconds to wait for orphaned descendants after the command ends
DRAIN = 0.3  # seconds of quiet on standard error, once the command has ended, before it is let go
MAX_DRAIN = 2.0  # descendants still writing: standard error let go after this long
CANCEL_GRACE = 3.0  # seconds between SIGTERM and SIGKILL to a cancelled command's process group
FORWARDED = (signal.SIGTERM, signal.SIGHUP)
NOTED = (signal.SIGINT, *FORWARDED)


def record_environment(
    base: Mapping[str, str],
    prefix: str,
    *,
    log: str | None = None,
    preload: str | None = None,
    on_signal_exit: bool = False,
    arcs: int | None = None,
) -> dict[str, str]:
    """The command's environment (module docstring); pure."""
    env = dict(base)
    env["GMON_OUT_PREFIX"] = prefix
    if arcs is not None:
        tunables = f"glibc.gmon.minarcs={arcs}:glibc.gmon.maxarcs={max(arcs, 1 << 20)}"
        env["GLIBC_TUNABLES"] = ":".join(t for t in (env.get("GLIBC_TUNABLES", ""), tunables) if t)
        env["GMONLENS_RECORD_ARCS"] = str(arcs)
    if preload is not None:
        env["LD_PRELOAD"] = ":".join(p for p in (env.get("LD_PRELOAD", "").strip(), preload) if p)
        if log is not None:
            env["GMONLENS_RECORD_LOG"] = log
        if on_signal_exit:
            env["GMONLENS_RECORD_SIGNALS"] = "exit"
    return env


@dataclass(frozen=True)
class RunSetup:
    """How to run the command once."""

    path: str  # the file executed
    argv: tuple[str, ...]  # argv[0] as the user gave it
    cwd: str
    env: Mapping[str, str]
    stdout: int | None = None  # the command's standard output (a descriptor; None: gmonlens's)
    stderr: int = 2  # where the command's standard error is copied to
    forward_signals: bool = True  # note SIGINT, pass SIGTERM/SIGHUP on (main thread only)
    adopt_orphans: bool = False
    stdin: int | None = None  # the command's standard input (a descriptor; None: gmonlens's)
    cancel: threading.Event | None = None  # set by another thread: the command is stopped
    started: Callable[[int], None] | None = None  # told the command's pid (its group's, with `cancel`)


@dataclass(frozen=True)
class RunOutcome:
    """How one run ended and what it cost."""

    pid: int
    exit_code: int | None  # None when killed by a signal
    signal: int | None
    user_seconds: float
    system_seconds: float
    wall_seconds: float
    messages: tuple[tuple[str, str], ...] = ()  # (kind, the line) of glibc's messages seen
    interrupted: int = 0  # a signal gmonlens itself received during the run
    orphans_left: bool = False  # descendants still running when gmonlens stopped waiting
    adopted: int = 0  # orphaned descendants reaped (their time is counted)

    @property
    def cpu_seconds(self) -> float:
        return self.user_seconds + self.system_seconds

    @property
    def status(self) -> int:
        """The exit status a shell reports: the code, or 128 + the signal."""
        return self.exit_code if self.exit_code is not None else 128 + (self.signal or 0)


@dataclass
class _Watch:
    """Standard error's copy, and what was seen in it."""

    read_fd: int
    dest: int
    found: list[tuple[str, str]] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)

    def pump(self) -> None:
        """Copy and scan until the command's side closes, or quiet after it ended."""
        with contextlib.suppress(OSError, ValueError):  # the descriptor closed under a late pump
            self._pump()

    def _pump(self) -> None:
        tail = b""
        quiet_since: float | None = None
        ended_at: float | None = None
        while True:
            ready, _, _ = select.select([self.read_fd], [], [], 0.05)
            now = time.monotonic()
            if ready:
                try:
                    data = os.read(self.read_fd, 1 << 16)
                except OSError:  # a pseudo-terminal whose other side closed: EIO
                    data = b""
                if not data:
                    return
                _write_all(self.dest, data)
                tail = self._scan(tail + data)
                quiet_since = None
            elif self.done.is_set():
                ended_at = ended_at or now
                quiet_since = quiet_since or now
                if now - quiet_since >= DRAIN or now - ended_at >= MAX_DRAIN:
                    return

    def _scan(self, data: bytes) -> bytes:
        for needle, kind in GLIBC_MESSAGES:
            at = data.find(needle)
            while at >= 0:
                start = max(data.rfind(b"\n", 0, at), data.rfind(b"\r", 0, at)) + 1
                end = min(
                    (e for e in (data.find(b"\n", at), data.find(b"\r", at)) if e >= 0), default=len(data)
                )
                line = data[start:end].decode("utf-8", "replace").strip()[:300]
                if (kind, line) not in self.found and len(self.found) < 32:
                    self.found.append((kind, line))
                at = data.find(needle, end)
        return data[-512:]


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    with contextlib.suppress(OSError):
        while view:
            view = view[os.write(fd, view) :]


def _stderr_pair(dest: int) -> tuple[int, int]:
    """(the command's end, gmonlens's end): a pseudo-terminal when `dest` is a terminal."""
    if os.isatty(dest):
        with contextlib.suppress(OSError):
            import fcntl
            import pty
            import termios
            import tty

            master, slave = pty.openpty()
            tty.setraw(slave)
            with contextlib.suppress(OSError):
                fcntl.ioctl(slave, termios.TIOCSWINSZ, fcntl.ioctl(dest, termios.TIOCGWINSZ, b"\0" * 8))
            return slave, master
    r, w = os.pipe()
    return w, r


@contextlib.contextmanager
def _signals(child: list[int], noted: list[int], active: bool) -> Iterator[None]:
    """Note SIGINT/SIGTERM/SIGHUP, pass SIGTERM/SIGHUP on to `child[0]` (module docstring)."""
    if not active or threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, _frame: object) -> None:
        noted.append(signum)
        if signum in FORWARDED and child:
            with contextlib.suppress(OSError):
                os.kill(child[0], signum)

    old = {s: signal.signal(s, handler) for s in NOTED}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def profiling_clock_ticks(cpu_seconds: float = 0.05) -> bool | None:
    """Whether ITIMER_PROF fires in this process within `cpu_seconds` of CPU time (a 1 ms
    interval): whether the system has a profiling clock (WSL1 has none). None when it cannot be
    checked here (not the main thread: signal handlers are the main thread's)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    fired: list[int] = []
    old = signal.signal(signal.SIGPROF, lambda signum, _frame: fired.append(signum))
    try:
        signal.setitimer(signal.ITIMER_PROF, 0.001, 0.001)
        start = time.process_time()
        while not fired and time.process_time() - start < cpu_seconds:
            pass
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)
    return bool(fired)


def become_subreaper() -> bool:
    """Make this process the child subreaper of its descendants (Linux); whether it could."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(36, 1, 0, 0, 0)) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def _reap_orphans() -> tuple[float, float, int, bool]:
    """(user, system seconds, processes reaped, some still running) of orphans reparented here."""
    user = sys_ = 0.0
    reaped = 0
    deadline = time.monotonic() + ORPHAN_GRACE
    while True:
        try:
            pid, _status, ru = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return user, sys_, reaped, False
        if pid == 0:
            if time.monotonic() >= deadline:
                return user, sys_, reaped, True
            time.sleep(0.05)
            continue
        user, sys_, reaped = user + ru.ru_utime, sys_ + ru.ru_stime, reaped + 1


def _canceller(pgid: int, cancel: threading.Event, ended: threading.Event) -> None:
    """Wait for `cancel` (or the command's end); then SIGTERM to the process group, SIGKILL after
    CANCEL_GRACE seconds if the command has not ended."""
    while not ended.is_set():
        if cancel.wait(0.05):
            break
    if ended.is_set():
        return
    for signum in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(OSError):
            os.killpg(pgid, signum)
        if ended.wait(CANCEL_GRACE):
            return


def _watch_cancel(setup: RunSetup, pid: int, ended: threading.Event) -> None:
    if setup.cancel is not None:
        args = (pid, setup.cancel, ended)
        threading.Thread(target=_canceller, args=args, name="gmonlens-record-cancel", daemon=True).start()


def run_once(setup: RunSetup) -> RunOutcome:
    """Run the command and wait for it (module docstring); raises NotExecutable when it cannot
    be started."""
    if setup.adopt_orphans:
        become_subreaper()
    child_err, watch_fd = _stderr_pair(setup.stderr)
    watch = _Watch(watch_fd, setup.stderr)
    pump = threading.Thread(target=watch.pump, name="gmonlens-record-stderr", daemon=True)
    child: list[int] = []
    noted: list[int] = []
    start = time.monotonic()
    ended = threading.Event()
    try:
        with _signals(child, noted, setup.forward_signals):
            proc = _spawn(setup, child_err)
            child.append(proc.pid)
            _watch_cancel(setup, proc.pid, ended)
            if setup.started is not None:
                setup.started(proc.pid)
            os.close(child_err)
            child_err = -1
            pump.start()
            _pid, status, ru = os.wait4(proc.pid, 0)
            ended.set()
            proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - start
        user, sys_, adopted, left = _reap_orphans() if setup.adopt_orphans else (0.0, 0.0, 0, False)
    finally:
        ended.set()
        if child_err >= 0:
            os.close(child_err)
        watch.done.set()
        if pump.is_alive():
            pump.join(MAX_DRAIN + 1)
        os.close(watch_fd)
    code = proc.returncode
    return RunOutcome(
        proc.pid,
        code if code >= 0 else None,
        -code if code < 0 else None,
        ru.ru_utime + user,
        ru.ru_stime + sys_,
        wall,
        tuple(watch.found),
        noted[0] if noted else 0,
        left,
        adopted,
    )


def _spawn(setup: RunSetup, stderr: int) -> subprocess.Popen[bytes]:
    """Start the command; a file the kernel will not execute (no #! line) is run by /bin/sh, as
    execvp(3) runs it."""
    argv, path = list(setup.argv), setup.path
    for attempt in (0, 1):
        try:
            return subprocess.Popen(
                argv,
                executable=path,
                cwd=setup.cwd,
                env=dict(setup.env),
                stdin=setup.stdin,
                stdout=setup.stdout,
                stderr=stderr,
                close_fds=True,
                start_new_session=setup.cancel is not None,
            )
        except OSError as e:
            if e.errno == errno.ENOEXEC and not attempt:
                argv, path = ["sh", setup.path, *setup.argv[1:]], "/bin/sh"
                continue
            raise NotExecutable(setup.path, f"cannot run: {e.strerror or e}") from None
    raise AssertionError("unreachable")
