"""One test run under profiling, and its profiles named and summed (I/O: it runs the test
through `runs.launch.run_once`, the engine's one way to start the user's command).

`run_test` (any thread): the test gets a folder of its own (`test_dir.SuiteDir.make_folder`, made by the caller), its
processes write their profiles there (`GMON_OUT_PREFIX=DIR/<test>/gmon.out`, absolute: every
process of the test, forks and child programs included, whatever its working directory, and
never another test's folder, at any -j), its output goes to `output.txt` there, the helper
library (`runs.preload`) logs its processes to `.processes` there, its standard input is
/dev/null, and it runs in a process group of its own (`runs.launch`'s cancellation: its time limit,
or ^C, stops the whole group). `collect` (one thread: the caller's)
names the program of each profile (`runs.collect.Identifier`: the process log, the test's own
executable, the suite's other executables) and sums each program's profiles (`figures.Summer`):
the test's profile per binary, its main binary first (the test's own executable when it wrote a
profile, else the binary with the most samples, then calls).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from gmonlens.common.errors import GmonlensError
from gmonlens.load.program import Program
from gmonlens.runs.collect import Identifier, ProcessProfile
from gmonlens.runs.command import CommandNotFound, NotExecutable, resolve_command
from gmonlens.runs.launch import RunOutcome, RunSetup, record_environment, run_once
from gmonlens.runs.processes import histories, parse_log
from gmonlens.suites.figures import Summer
from gmonlens.suites.model import FAILED, NOT_RUN, SKIPPED, BinaryProfile, TestSpec
from gmonlens.suites.status import decide
from gmonlens.suites.test_dir import MAX_OUTPUT_READ, OUTPUT, PROCESS_LOG, SuiteDir

MAX_LOG_BYTES = 64 << 20


@dataclass(frozen=True)
class Helping:
    """What every test's environment gets: the helper library (None: without), --on-signal=exit."""

    preload: str | None = None
    on_signal_exit: bool = True


@dataclass(frozen=True)
class Ran:
    """A test's run, before its profiles are named."""

    spec: TestSpec
    folder: str
    status: str
    outcome: RunOutcome | None  # None: it could not be started
    executable: str | None  # the file executed (absolute), when it was
    notes: tuple[str, ...] = ()
    timed_out: bool = False  # stopped by its time limit


def _signal_name(n: int) -> str:
    with contextlib.suppress(ValueError):
        return signal.Signals(n).name
    return f"signal {n}"


def _notes(outcome: RunOutcome, spec: TestSpec, timed_out: bool) -> tuple[str, ...]:
    notes = []
    if timed_out:
        notes.append(f"stopped after its time limit of {spec.timeout:g} s")
    elif outcome.signal:
        notes.append(
            f"killed by {_signal_name(outcome.signal)}: no profile is written by a process that does not exit"
        )
    notes += [line for _kind, line in outcome.messages]
    return tuple(notes)


def _limited(spec: TestSpec, stop: threading.Event, setup: RunSetup) -> tuple[RunOutcome, bool]:
    """Run the test; its time limit sets `stop` (the test's process group is then stopped, as
    `runs.launch` stops a cancelled command: SIGTERM, SIGKILL CANCEL_GRACE seconds later).
    (outcome, whether the limit stopped it)."""
    fired = threading.Event()

    def expire() -> None:
        fired.set()
        stop.set()

    timer = threading.Timer(spec.timeout, expire) if spec.timeout is not None else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        outcome = run_once(setup)
    finally:
        if timer is not None:
            timer.cancel()
    return outcome, fired.is_set()


def run_test(
    d: SuiteDir,
    spec: TestSpec,
    folder: str,
    helping: Helping,
    arcs: int | None,
    stop: threading.Event,
) -> Ran:
    """Run `spec` with its files in `folder` of DIR (module docstring); `stop` (set by its time
    limit, or by the caller on ^C) stops its process group. Never raises for the test's own
    problems (not found, not executable, no working directory): its status says."""
    if spec.problem is not None or not spec.argv:
        return Ran(
            spec, folder, SKIPPED if spec.disabled else NOT_RUN, None, None, (spec.problem or "no command",)
        )
    if not os.path.isdir(spec.cwd):
        return Ran(spec, folder, NOT_RUN, None, None, (f"its working directory {spec.cwd} does not exist",))
    try:
        command = resolve_command(spec.argv, spec.cwd, spec.env)
    except (CommandNotFound, NotExecutable) as e:
        return Ran(spec, folder, NOT_RUN, None, None, (str(e),))
    if helping.preload:
        os.close(d.create(folder, PROCESS_LOG))
    env = record_environment(
        spec.env,
        os.path.join(d.path, folder, "gmon.out"),
        log=os.path.join(d.path, folder, PROCESS_LOG) if helping.preload else None,
        preload=helping.preload,
        on_signal_exit=helping.on_signal_exit and helping.preload is not None,
        arcs=arcs,
    )
    out = d.create(folder, OUTPUT)
    try:
        with open(os.devnull, "rb") as nothing:
            setup = RunSetup(command.path, command.argv, spec.cwd, env, stdout=out, stderr=out,
                             forward_signals=False, stdin=nothing.fileno(), cancel=stop)  # fmt: skip
            outcome, timed_out = _limited(spec, stop, setup)
    except NotExecutable as e:
        return Ran(spec, folder, NOT_RUN, None, command.path, (str(e),))
    finally:
        os.close(out)
    text = d.read(folder, OUTPUT, MAX_OUTPUT_READ).decode("utf-8", "replace")
    status = decide(spec.verdict, outcome.status, text, timed_out=timed_out)
    exe = command.path if command.kind == "elf" else None
    caveat = (spec.caveat,) if spec.caveat and status == FAILED else ()
    return Ran(spec, folder, status, outcome, exe, (*_notes(outcome, spec, timed_out), *caveat), timed_out)


def _main_first(found: list[BinaryProfile], own: str | None) -> list[BinaryProfile]:
    real = os.path.realpath(own) if own else None

    def rank(b: BinaryProfile) -> tuple[int, float, int]:
        return (0 if real and os.path.realpath(b.binary) == real else 1, -b.samples, -b.calls)

    return sorted(found, key=rank)


class Collector:
    """Names and sums tests' profiles (module docstring); one per suite, one thread."""

    def __init__(self, executables: Sequence[str], programs: dict[str, Program | None] | None = None) -> None:
        """`programs`: the executables read so far, by real path (shared: each read once)."""
        self.executables = tuple(dict.fromkeys(executables))
        self._programs: dict[str, Program | None] = {} if programs is None else programs
        self.summer = Summer(self._programs)

    def identify(self, d: SuiteDir, ran: Ran) -> list[ProcessProfile]:
        try:
            log = d.read(ran.folder, PROCESS_LOG, MAX_LOG_BYTES)
        except (OSError, GmonlensError):
            log = b""
        processes = histories(parse_log(log))
        logged = list(dict.fromkeys(p for h in processes.values() for p in h.programs))
        identifier = Identifier(ran.executable, self.executables, self._programs)
        return [
            identifier.identify(path, pid, 1, processes.get(pid), logged)
            for path, pid in d.profiles(ran.folder)
        ]

    def collect(self, d: SuiteDir, ran: Ran) -> tuple[tuple[BinaryProfile, ...], tuple[str, ...]]:
        """(the test's profile per binary, main first; the profiles no program fits)."""
        named = self.identify(d, ran)
        groups: dict[str, list[ProcessProfile]] = {}
        for p in named:
            if p.binary is not None:
                groups.setdefault(p.binary, []).append(p)
        found = [self.summer.figure(b, [p.path for p in ps], [p.pid for p in ps]) for b, ps in groups.items()]
        unknown = tuple(p.path for p in named if p.binary is None)
        return tuple(_main_first(found, ran.executable)), unknown
