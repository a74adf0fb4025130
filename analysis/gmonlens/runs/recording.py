"""`record`: run a command under gprof's profiling, as many times as asked, and say what came of it.
The engine's entry point for `gmonlens record`, and the one the editors' "Record a Profile" will
call:

    record(argv, cwd, out_dir, RecordOptions(...)) -> Recording   (frozen; `record_json.to_json`
                                                                   is its `--json` document)

Steps: COMMAND resolved through PATH (`command.py`); its executable read before the run
(`preflight.py`: profiling calls, gprof's start-up, units without -pg, the call-graph buffer it
needs, `arcs.py`); DIR checked or created (`outdir.py`); the helper library built or taken from
the cache (`preload.py`); then each run (`launch.py`): every process writes DIR/gmon.out.<pid>,
the profiles that appeared are matched with the program that wrote them (`collect.py`, with the
helper's process log, `processes.py`), and summed per program (`summary.py`). `--runs N` repeats
the run N times; `--precision P` repeats it (at most `runs`, default DEFAULT_PRECISION_RUNS) until
the hottest routines' relative sampling error (1/sqrt(n) for n samples, summed over the runs as
gprof sums gmon.out files) is at most P percent. The loop also stops after a run that made no
profile, or that gmonlens was interrupted in. Last, the diagnosis (`diagnose.py`), and the
recording written to DIR/record.json.

Callers other than the CLI: a server calls `record` from a worker thread with the command's
output sent where the client shows it (`RecordOptions.stdout`/`stderr`: descriptors), with
`forward_signals=False` (signal handlers are the main thread's) and `adopt_orphans=False` (it
reaps no children but its own), standard input not the server's (`stdin`: a descriptor), and a
`cancel` event (set from another thread: the command's process group is stopped, SIGTERM then
SIGKILL, and no further run starts); `notify` hears the findings before the run, `on_run` each
run as it starts (its number, and the most there may be), `on_start` each run's pid once it
runs (with `cancel`, the id of its process group: a server ending kills it). An editor that runs
`gmonlens record` in a terminal instead reads DIR/record.json, the same document. Nothing here
runs a command unless `record` is called: the caller stands for the user's request.

Design for `gmonlens test` (issue 29): a test runner is one command whose processes are the
tests; `collect.Identifier` takes the test binaries as named candidates, `processes.histories`
gives each pid's parent, programs and CPU time and `processes.descendants` a process's tree (forks
and child programs summed with their test), `summary.summarize` sums any set of profiles of one
binary, and `diagnose` works on any such set of facts. Only this module's loop is tied to one
command per recording.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from gmonlens.common.errors import GmonlensError, UsageError
from gmonlens.common.files import read_regular
from gmonlens.load.program import Program
from gmonlens.runs.collect import Identifier, ProcessProfile
from gmonlens.runs.command import ResolvedCommand, resolve_command
from gmonlens.runs.diagnose import Diagnosis, Facts, any_usable, build_findings, diagnose, is_wsl1
from gmonlens.runs.launch import RunOutcome, RunSetup, profiling_clock_ticks, record_environment, run_once
from gmonlens.runs.outdir import RecordDir, open_record_dir
from gmonlens.runs.preflight import PROFILING_CALLS, STARTUP, Preflight, preflight
from gmonlens.runs.preload import Preload, build_preload
from gmonlens.runs.processes import ProcessHistory, histories, parse_log
from gmonlens.runs.record_json import to_json_bytes
from gmonlens.runs.results import Helper, Precision, Recording
from gmonlens.runs.summary import TOP, BinarySummary, summarize, worst_error

DEFAULT_OUT = "gmonlens-record"
DEFAULT_PRECISION_RUNS = 20  # --precision without --runs: at most this many runs
PROGRAMS_READ = 16  # programs of the process log read when none left a profile


@dataclass(frozen=True)
class RecordOptions:
    """How to record (the CLI's options; defaults are the CLI's, but `adopt_orphans`)."""

    runs: int | None = None  # --runs N (with precision: at most N)
    precision: float | None = None  # --precision P: percent
    on_signal_exit: bool = False  # --on-signal=exit
    arcs: int | str | None = None  # --arcs: None/"auto", "default" or a number of entries
    binaries: tuple[str, ...] = ()  # --binary: more executables that may have written profiles
    preload: bool = True  # the helper library (--no-preload: without)
    env: Mapping[str, str] | None = None  # the command's environment (None: this process's)
    stdout: int | None = None  # the command's standard output (a descriptor; None: inherited)
    stderr: int = 2  # where the command's standard error is copied
    forward_signals: bool = True  # main thread only
    adopt_orphans: bool = False  # only where this process has no other children (the CLI)
    top: int = TOP
    notify: Callable[[Diagnosis], None] | None = field(default=None, compare=False)  # told before the run
    stdin: int | None = None  # the command's standard input (a descriptor; None: inherited)
    cancel: threading.Event | None = field(default=None, compare=False)  # set: stop (module docstring)
    on_run: Callable[[int, int], None] | None = field(default=None, compare=False)  # (run, most runs)
    on_start: Callable[[int], None] | None = field(default=None, compare=False)  # each run's pid


def _preflight(command: ResolvedCommand, options: RecordOptions) -> tuple[Preflight | None, str | None]:
    """The command's executable read before the run, or why it cannot be when it is a profiled
    program (a stripped -pg build: its profile cannot be read)."""
    if command.kind != "elf":
        return None, None
    program = Program(command.path)
    try:
        return preflight(program, options.arcs), None
    except GmonlensError as e:
        # a stripped launcher (sh, make) is no concern; a stripped -pg program still imports them
        imports = {n.split("@", 1)[0] for n in program.dynamic_symbol_names()}
        return None, str(e) if imports & {*PROFILING_CALLS, *STARTUP} else None


def _arcs_request(pre: Preflight | None, options: RecordOptions) -> int | None:
    """The call-graph buffer's entries to ask for: the executable's plan, else `--arcs N`."""
    if pre is not None:
        return pre.arcs.requested
    return options.arcs if isinstance(options.arcs, int) else None


def _helper(
    options: RecordOptions, env: Mapping[str, str], cwd: str, pre: Preflight | None
) -> tuple[Helper, Preload | None]:
    """Build or find the helper library, or say why it is not used."""
    if not options.preload:
        return Helper(False, None, (), "turned off (--no-preload)"), None
    if pre is not None and pre.sanitizer:
        return Helper(
            False, None, (), f"the program links a sanitizer ({pre.sanitizer}), which must be loaded first"
        ), None
    built = build_preload(env, cwd)
    if built.path is None:
        return Helper(False, None, built.compiler, built.problem), built
    if any(c in built.path for c in ": "):
        return Helper(
            False, None, built.compiler, f"its path has a ':' or ' ' LD_PRELOAD cannot hold ({built.path})"
        ), built
    if pre is not None and (_MACHINES.get(pre.machine, -1), pre.address_size == 8) != (
        built.machine,
        built.wide,
    ):
        return Helper(
            False, None, built.compiler, f"cc builds for another machine than {pre.binary}'s"
        ), built
    return Helper(True, built.path, built.compiler, None), built


_MACHINES = {
    "EM_386": 3,
    "EM_X86_64": 62,
    "EM_AARCH64": 183,
    "EM_ARM": 40,
    "EM_PPC64": 21,
    "EM_RISCV": 243,
    "EM_S390": 22,
}


@dataclass
class _State:
    """What the runs gathered so far."""

    runs: list[RunOutcome] = field(default_factory=list)
    profiles: list[ProcessProfile] = field(default_factory=list)
    history: list[tuple[int, float | None, float]] = field(default_factory=list)
    processes: dict[int, ProcessHistory] = field(default_factory=dict)
    watched: str | None = None


def _summaries(profiles: Sequence[ProcessProfile], top: int) -> list[BinarySummary]:
    groups: dict[str, list[ProcessProfile]] = {}
    for p in profiles:
        if p.binary is not None:
            groups.setdefault(p.binary, []).append(p)
    return [summarize(b, [p.path for p in ps], [p.pid for p in ps], top) for b, ps in groups.items()]


def _watched(summaries: Sequence[BinarySummary], command: ResolvedCommand) -> BinarySummary | None:
    """The binary the precision loop watches: the command's own, else the most sampled."""
    own = [
        s
        for s in summaries
        if s.problem is None and os.path.realpath(s.binary) == os.path.realpath(command.path)
    ]
    rest = sorted((s for s in summaries if s.problem is None), key=lambda s: -s.samples)
    chosen = own or rest
    return chosen[0] if chosen else None


def _one_run(
    d: RecordDir, setup: RunSetup, identifier: Identifier, state: _State, run: int
) -> list[ProcessProfile]:
    before = d.snapshot()
    outcome = run_once(setup)
    state.runs.append(outcome)
    state.processes = histories(parse_log(d.read_log()))
    logged = list(dict.fromkeys(p for h in state.processes.values() for p in h.programs))
    new = [
        identifier.identify(path, pid, run, state.processes.get(pid), logged)
        for path, pid in d.new_profiles(before)
    ]
    state.profiles += new
    return new


def _loop(
    d: RecordDir, setup: RunSetup, identifier: Identifier, command: ResolvedCommand, options: RecordOptions
) -> _State:
    """Run once, or repeat (module docstring)."""
    state = _State()
    most = options.runs or (DEFAULT_PRECISION_RUNS if options.precision is not None else 1)
    for run in range(1, most + 1):
        if options.cancel is not None and options.cancel.is_set():
            break
        if options.on_run is not None:
            options.on_run(run, most)
        new = _one_run(d, setup, identifier, state, run)
        if most > 1:
            watched = _watched(_summaries(state.profiles, options.top), command)
            state.watched = watched.binary if watched else None
            error = worst_error(watched) if watched else None
            state.history.append((run, error, watched.samples if watched else 0.0))
            if options.precision is not None and error is not None and error <= options.precision:
                break
        if state.runs[-1].interrupted or not new:
            break
    return state


def _programs(state: _State) -> dict[str, Preflight]:
    """The programs of the process log, read (only when no profile came: to say which could)."""
    if state.profiles:
        return {}
    out: dict[str, Preflight] = {}
    for path in list(dict.fromkeys(p for h in state.processes.values() for p in h.programs))[:PROGRAMS_READ]:
        with contextlib.suppress(GmonlensError, OSError):
            out[path] = preflight(Program(path), "default")
    return out


def _wsl1() -> bool:
    try:
        return is_wsl1(
            read_regular("/proc/sys/kernel/osrelease", 4096, "kernel release").decode("utf-8", "replace")
        )
    except GmonlensError:
        return False


def _clock(binaries: Sequence[BinarySummary], runs: Sequence[RunOutcome]) -> bool | None:
    """Whether the profiling clock ticks here, checked only when a run used CPU time and no
    sample was taken (it costs up to 50 ms of CPU)."""
    sampled = [b for b in binaries if b.problem is None and b.has_histogram]
    if not sampled or any(b.samples > 0 for b in sampled) or sum(r.cpu_seconds for r in runs) < 0.1:
        return None
    return profiling_clock_ticks()


def _check_options(options: RecordOptions) -> None:
    if options.runs is not None and options.runs < 1:
        raise UsageError(None, "--runs must be at least 1")
    if options.precision is not None and not 0 < options.precision < 100:
        raise UsageError(None, "--precision must be a percentage above 0 and below 100")
    if options.on_signal_exit and not options.preload:
        raise UsageError(None, "--on-signal=exit needs the helper library: drop --no-preload")


def record(
    argv: Sequence[str], cwd: str, out_dir: str = DEFAULT_OUT, options: RecordOptions | None = None
) -> Recording:
    """Run `argv` in `cwd` with its profiles written under `out_dir` (module docstring). Raises
    CommandNotFound / NotExecutable (the command), UsageError (options) or GmonlensError (DIR,
    the helper that --on-signal=exit needs); everything else is in the Recording."""
    options = options or RecordOptions()
    _check_options(options)
    env = dict(options.env if options.env is not None else os.environ)
    cwd = os.path.abspath(cwd)
    command = resolve_command(argv, cwd, env)
    pre, unreadable = _preflight(command, options)
    for finding in build_findings(pre, before_run=True, unreadable=unreadable):
        if options.notify is not None:
            options.notify(finding)
    with open_record_dir(out_dir, cwd) as d:
        d.clear_previous()
        helper, built = _helper(options, env, cwd, pre)
        try:
            if options.on_signal_exit and not helper.used:
                raise GmonlensError(
                    None,
                    f"--on-signal=exit needs gmonlens's helper library, which is not available: {helper.problem}",
                )
            state = _record_runs(d, command, cwd, env, options, pre, helper)
        finally:
            if built is not None and built.temporary:
                shutil.rmtree(built.temporary, ignore_errors=True)
        recording = _finish(d, command, cwd, options, (pre, unreadable), helper, state)
    return recording


def _record_runs(
    d: RecordDir,
    command: ResolvedCommand,
    cwd: str,
    env: Mapping[str, str],
    options: RecordOptions,
    pre: Preflight | None,
    helper: Helper,
) -> _State:
    log = d.new_log() if helper.used else None
    run_env = record_environment(
        env,
        d.prefix,
        log=log,
        preload=helper.path,
        on_signal_exit=options.on_signal_exit,
        arcs=_arcs_request(pre, options),
    )
    setup = RunSetup(
        command.path,
        command.argv,
        cwd,
        run_env,
        options.stdout,
        options.stderr,
        options.forward_signals,
        options.adopt_orphans,
        options.stdin,
        options.cancel,
        options.on_start,
    )
    identifier = Identifier(command.path if command.kind == "elf" else None, options.binaries)
    return _loop(d, setup, identifier, command, options)


def _finish(
    d: RecordDir,
    command: ResolvedCommand,
    cwd: str,
    options: RecordOptions,
    read: tuple[Preflight | None, str | None],
    helper: Helper,
    state: _State,
) -> Recording:
    """The recording from the runs' state: summaries, diagnosis, record.json. `read`: the
    preflight, or why the command's executable could not be read."""
    pre, unreadable = read
    binaries = tuple(_summaries(state.profiles, options.top))
    facts = Facts(
        command,
        pre,
        tuple(state.runs),
        tuple(state.profiles),
        binaries,
        state.processes,
        _programs(state),
        options.on_signal_exit,
        _arcs_request(pre, options),
        helper.used,
        _wsl1(),
        _clock(binaries, state.runs),
        unreadable,
    )
    most = options.runs or (DEFAULT_PRECISION_RUNS if options.precision is not None else 1)
    recording = Recording(
        command,
        cwd,
        d.path,
        pre,
        helper,
        pre.arcs if pre is not None else None,
        tuple(state.runs),
        tuple(state.profiles),
        binaries,
        tuple(state.processes.values()),
        Precision(options.precision, most, state.watched, tuple(state.history)),
        diagnose(facts),
        any_usable(state.profiles, binaries),
        tuple(sorted(set(d.snapshot()) - {os.path.basename(p.path) for p in state.profiles})),
    )
    with contextlib.suppress(GmonlensError, OSError):
        d.write_manifest(to_json_bytes(recording))
    return recording
