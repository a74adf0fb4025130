"""`run_suite(argv, cwd, out_dir, SuiteOptions(...)) -> SuiteRun`: `gmonlens test`'s engine
entry point. A profile per test, from one command:

1. the runner (`detect.py`: CTest, GoogleTest, Catch2, meson, a YAML list of commands) lists its
   tests, with the user's selection (`ctest.py`, `gtest.py`, `catch2.py`, `meson.py`,
   `command_list.py`; listing commands run by `listing.py`, their own profiles kept out of the
   user's folders);
2. DIR is checked or created and the previous run's files cleared (`test_dir.py`); meson's build
   is brought up to date unless `--no-rebuild`;
3. each distinct test executable is read once before the runs (`runs.preflight`: whether it was
   built with -pg, said through `notify`; the call-graph buffer it needs); the helper library is
   built or found (`runs.preload`);
4. the tests run at -j N (`parallel.py`, `schedule.py`, `execute.py`): each in its own folder,
   process group and time limit, judged as its runner judges it (`status.py`), its profiles
   named and summed per binary (`figures.py`) as it ends;
5. DIR/index.json is written (`index_json.py`), also after an interruption.
Nothing here runs a command unless `run_suite` is called: the caller stands for the user's request.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from gmonlens.common.errors import GmonlensError
from gmonlens.load.program import Program
from gmonlens.runs.command import resolve_command
from gmonlens.runs.diagnose import Diagnosis, build_findings
from gmonlens.runs.launch import RunSetup, run_once
from gmonlens.runs.preflight import PROFILING_CALLS, STARTUP, Preflight, preflight
from gmonlens.runs.preload import build_preload
from gmonlens.suites.catch2 import list_catch2
from gmonlens.suites.command_list import read_command_list
from gmonlens.suites.ctest import list_ctest
from gmonlens.suites.detect import detect
from gmonlens.suites.execute import Collector, Helping
from gmonlens.suites.gtest import list_gtest
from gmonlens.suites.index_json import to_bytes
from gmonlens.suites.meson import MesonArgs, list_meson
from gmonlens.suites.model import SuiteRun, TestResult, TestSpec
from gmonlens.suites.parallel import run_all
from gmonlens.suites.test_dir import SuiteDir, open_suite_dir

DEFAULT_OUT = "gmonlens-test"
MAX_PREFLIGHTS = 64  # distinct test executables read before the run


@dataclass(frozen=True)
class SuiteOptions:
    """How to run the suite (the CLI's options)."""

    runner: str | None = None  # --runner: else told from RUNNER
    jobs: int | None = None  # -j N: else the runner's own setting (CTest's -j, meson's), else 1
    per: str = "test"  # "test" or "suite" (GoogleTest, Catch2)
    timeout: float | None = None  # --timeout: tests without a limit of their own
    preload: bool = True
    on_signal_exit: bool = True  # a stopped test (its time limit, ^C) still writes its profile
    binaries: tuple[str, ...] = ()  # --binary: more programs the tests may run
    env: Mapping[str, str] | None = None
    progress: Callable[[TestResult, int, int], None] | None = field(
        default=None, compare=False
    )  # (result, done, total)
    notify: Callable[[str], None] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class _Listed:
    specs: tuple[TestSpec, ...]
    jobs: int | None
    meson: MesonArgs | None = None


def _env_jobs(env: Mapping[str, str], name: str) -> int | None:
    text = env.get(name, "").strip()
    return max(1, int(text)) if text.isdigit() else None


def _list(
    kind: str, argv: Sequence[str], cwd: str, env: Mapping[str, str], scratch: str, o: SuiteOptions
) -> _Listed:
    if kind == "ctest":
        specs, args = list_ctest(argv, cwd, env, scratch)
        return _Listed(specs, args.jobs or _env_jobs(env, "CTEST_PARALLEL_LEVEL"))
    if kind == "meson":
        specs, margs = list_meson(argv, cwd, env, scratch)
        return _Listed(specs, margs.jobs or _env_jobs(env, "MESON_TESTTHREADS") or os.cpu_count() or 1, margs)
    if kind == "commands":
        if len(argv) > 1:
            raise GmonlensError(argv[0], "a list of tests takes no arguments")
        return _Listed(read_command_list(os.path.join(cwd, argv[0]), env), None)
    lister = list_gtest if kind == "gtest" else list_catch2
    return _Listed(lister(argv, cwd, env, scratch, o.per), None)


def _with_timeout(specs: tuple[TestSpec, ...], timeout: float | None) -> tuple[TestSpec, ...]:
    if timeout is None:
        return specs
    from dataclasses import replace

    return tuple(s if s.timeout is not None else replace(s, timeout=timeout) for s in specs)


def _rebuild(meson: str, args: MesonArgs, env: Mapping[str, str]) -> None:
    """`meson compile -C BUILDDIR`, its output on standard error (as `meson test` rebuilds)."""
    command = resolve_command([meson, "compile", "-C", args.builddir], args.builddir, env)
    outcome = run_once(RunSetup(command.path, command.argv, args.builddir, dict(env), 2, 2, False, False))
    if outcome.status != 0:
        raise GmonlensError(
            args.builddir, f"meson compile failed (exit status {outcome.status}); nothing was run"
        )


def _executables(specs: Sequence[TestSpec]) -> dict[str, str]:
    """Each test's executable (absolute) when it is an ELF file, by test name."""
    out: dict[str, str] = {}
    for s in specs:
        if s.argv and s.problem is None:
            with contextlib.suppress(GmonlensError, OSError):
                command = resolve_command(s.argv, s.cwd, s.env)
                if command.kind == "elf":
                    out[s.name] = command.path
    return out


def _preflights(
    executables: Sequence[str], notify: Callable[[str], None] | None, programs: dict[str, Program | None]
) -> dict[str, Preflight]:
    found: dict[str, Preflight] = {}
    for exe in list(dict.fromkeys(executables))[:MAX_PREFLIGHTS]:
        real = os.path.realpath(exe)
        try:
            pre = preflight(
                programs.get(real) or programs.setdefault(real, Program(real)) or Program(real), "auto"
            )
        except GmonlensError as e:
            if notify is not None:
                notify(f"{exe}: {e.message}")
            continue
        found[exe] = pre
        for finding in build_findings(pre, before_run=False):
            if notify is not None and finding.severity != "note":
                notify(_finding_line(finding))
    return found


def _profiled(program: Program) -> bool:
    """Whether a program the preflight could not read still imports gprof's calls (a stripped
    -pg build, whose profiles cannot be read)."""
    try:
        imports = {n.split("@", 1)[0] for n in program.dynamic_symbol_names()}
    except GmonlensError:
        return False
    return bool(imports & {*PROFILING_CALLS, *STARTUP})


def _finding_line(d: Diagnosis) -> str:
    return f"{d.severity} [{d.code}]: {d.message}" + (f"\n    fix: {d.fix}" if d.fix else "")


def _helping(o: SuiteOptions, env: Mapping[str, str], cwd: str) -> tuple[Helping, str | None, str | None]:
    """(what each test gets, why the helper is not used, a temporary folder to remove)."""
    if not o.preload:
        return Helping(None, False), "turned off (--no-preload)", None
    built = build_preload(env, cwd)
    if built.path is None or any(c in built.path for c in ": "):
        return Helping(None, False), built.problem or "its path cannot be preloaded", built.temporary
    return Helping(built.path, o.on_signal_exit), None, built.temporary


def run_suite(
    argv: Sequence[str], cwd: str, out_dir: str = DEFAULT_OUT, options: SuiteOptions | None = None
) -> SuiteRun:
    """Run the suite `argv` names with a profile per test (module docstring). Raises UsageError
    (the runner cannot be told), CommandNotFound / NotExecutable (RUNNER), YamlFileError (a bad
    list of tests) or GmonlensError (DIR, the runner's list); a test's own problems are its
    status."""
    o = options or SuiteOptions()
    env = dict(o.env if o.env is not None else os.environ)
    cwd = os.path.abspath(cwd)
    programs: dict[str, Program | None] = {}  # every executable read, once (real path)
    kind = detect(argv, cwd, env, o.runner, programs)
    with open_suite_dir(out_dir, cwd) as d:
        d.clear_previous()
        try:
            listed = _list(kind, argv, cwd, env, d.scratch(), o)
        finally:
            d.clear_scratch()
        if listed.meson is not None and listed.meson.rebuild:
            _rebuild(argv[0], listed.meson, env)
        return _run(d, kind, argv, cwd, listed, o, env, programs)


def _run(
    d: SuiteDir,
    kind: str,
    argv: Sequence[str],
    cwd: str,
    listed: _Listed,
    o: SuiteOptions,
    env: Mapping[str, str],
    programs: dict[str, Program | None],
) -> SuiteRun:
    specs = _with_timeout(listed.specs, o.timeout)
    jobs = o.jobs or listed.jobs or 1
    exes = _executables(specs)
    pre = _preflights(list(exes.values()), o.notify, programs)
    helping, problem, temporary = _helping(o, env, cwd)
    collector = Collector([*exes.values(), *(os.path.abspath(b) for b in o.binaries)], programs)

    def arcs(spec: TestSpec) -> int | None:
        p = pre.get(exes.get(spec.name, ""))
        return p.arcs.requested if p is not None else None

    try:
        results, interrupted = run_all(
            d, specs, jobs, helping, arcs, collector, o.progress or (lambda _r, _d, _t: None)
        )
    finally:
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)
    per = o.per if kind in ("gtest", "catch2") else "test"
    suite = SuiteRun(kind, tuple(argv), cwd, d.path, jobs, per, results, problem, interrupted)
    d.write_index(to_bytes(suite))
    return suite
