"""`gmonlens test`: a test suite run with a profile per test. A thin front end: arguments in
(`parse_test_args`), the engine's `suites.suite.run_suite`, a line per test as it ends and the
table of tests by time (text), or `--json` (the index, on standard output), `--markdown FILE`."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from gmonlens.common.errors import UsageError

USAGE = """usage: gmonlens test [options] -- RUNNER [ARGS...]

Runs a test suite with a gprof profile per test: every process of a test (forks and the
programs it runs) writes into that test's folder of DIR, and is summed into its profile, per
binary, at any -j. RUNNER: `ctest [ARGS]` (its -L/-LE/-R/-E selection), `meson test [ARGS]`, a
GoogleTest or Catch2 binary [ARGS], or a .yaml list of commands (README, "gmonlens test").
A test's own verdict is kept; a failing test still gets its profile.

options:
  -o, --out DIR         where the per-test profiles go (default: gmonlens-test; created 0700; a
                        symbolic link, or a directory others may write to, is refused)
  --json                print the index (schema gmonlens-test/1, also DIR/index.json) on
                        standard output; the tests' progress goes to standard error
  -j, --jobs N          run N tests at once (default: the runner's own setting, ctest -j /
                        CTEST_PARALLEL_LEVEL, meson's; else 1); -j alone: one per processor
  --per test|suite      GoogleTest and Catch2: a process per test case (default) or per suite
                        (Catch2: per source file)
  --runner KIND         ctest, gtest, catch2, meson or commands, when RUNNER does not say
  --timeout S           time limit of the tests without one of their own (seconds)
  --markdown FILE       write a Markdown summary (tests by time, hottest routines per test)
  --binary FILE         a program the tests may run, to name its profiles; repeat
  --on-signal=exit|default
                        exit (default): a test stopped by its time limit or ^C still writes its
                        profile (SIGINT/SIGTERM/SIGHUP call exit(); needs the helper library)
  --no-preload          without gmonlens's helper library (no process log: child programs are
                        named from the suite's executables and --binary only)
  -h, --help            this help

exit status: 0 every test passed (or was skipped), 1 a test failed, timed out or did not run,
125 the tests ran but none wrote a usable profile, 126/127 RUNNER cannot be executed / is not
found, 2 usage, or the suite could not be listed or DIR used, 130 interrupted.
"""

NO_PROFILE = 125
_VALUED = {"-o": "out", "--out": "out", "-j": "jobs", "--jobs": "jobs", "--per": "per", "--runner": "runner",
           "--timeout": "timeout", "--markdown": "markdown", "--binary": "binary", "--on-signal": "on_signal"}  # fmt: skip


@dataclass
class TestArgs:
    __test__ = False  # not a pytest test class

    out: str = "gmonlens-test"
    json: bool = False
    jobs: int | None = None
    per: str = "test"
    runner: str | None = None
    timeout: float | None = None
    markdown: str | None = None
    binaries: list[str] = field(default_factory=list)
    on_signal_exit: bool = True
    preload: bool = True
    help: bool = False
    command: list[str] = field(default_factory=list)


def _number(option: str, text: str, kind: type) -> float:
    try:
        value = kind(text)
    except ValueError:
        raise UsageError(None, f"{option} needs a number, not '{text}'") from None
    if value <= 0:
        raise UsageError(None, f"{option} needs a number above 0, not '{text}'")
    return float(value)


def _set(args: TestArgs, option: str, value: str) -> None:
    name = _VALUED[option]
    if name == "jobs":
        args.jobs = int(_number(option, value, int))
    elif name == "timeout":
        args.timeout = _number(option, value, float)
    elif name == "per":
        if value not in ("test", "suite"):
            raise UsageError(None, f"--per takes 'test' or 'suite', not '{value}'")
        args.per = value
    elif name == "on_signal":
        if value not in ("exit", "default"):
            raise UsageError(None, f"--on-signal takes 'exit' or 'default', not '{value}'")
        args.on_signal_exit = value == "exit"
    elif name == "binary":
        args.binaries.append(value)
    else:
        setattr(args, name, value)


def _flag(args: TestArgs, word: str) -> bool:
    if word == "--json":
        args.json = True
    elif word == "--no-preload":
        args.preload = False
    elif word in ("-h", "--help"):
        args.help = True
    elif word.startswith("-j") and word[2:].isdigit():
        args.jobs = max(1, int(word[2:]))
    else:
        return False
    return True


def parse_test_args(argv: Sequence[str]) -> TestArgs:
    """Options up to `--` or the first word that is not one; the rest is RUNNER and its arguments."""
    args = TestArgs()
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--":
            i += 1
            break
        if not word.startswith("-") or word == "-":
            break
        name, eq, value = word.partition("=")
        if _flag(args, word):
            pass
        elif name in _VALUED:
            if not eq:
                if name in ("-j", "--jobs") and (i + 1 >= len(argv) or not argv[i + 1].isdigit()):
                    args.jobs = os.cpu_count() or 1
                    i += 1
                    continue
                if i + 1 >= len(argv):
                    raise UsageError(None, f"{name} needs a value")
                i += 1
                value = argv[i]
            _set(args, name, value)
        else:
            raise UsageError(None, f"unknown option '{word}' (gmonlens test --help)")
        i += 1
    args.command = list(argv[i:])
    if not args.command and not args.help:
        raise UsageError(None, "no test runner given (gmonlens test [options] -- RUNNER [ARGS...])")
    return args


def _stop_on_signals() -> None:
    """SIGTERM and SIGHUP (a CI job cancelled, a terminal closed) stop the suite as ^C does."""
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.default_int_handler)


def _exit_status(run: object) -> int:
    from gmonlens.suites.model import FAILED, INTERRUPTED, NOT_RUN, TIMEOUT, SuiteRun

    assert isinstance(run, SuiteRun)
    if run.interrupted:
        return 130
    if any(t.status in (FAILED, TIMEOUT, NOT_RUN, INTERRUPTED) for t in run.tests):
        return 1
    ran = [t for t in run.tests if t.exit_status is not None]
    if ran and not any(b.problem is None and (b.samples > 0 or b.calls > 0) for t in ran for b in t.binaries):
        return NO_PROFILE
    return 0


def run_test_command(args: TestArgs) -> int:
    """Run the suite, print, and return the exit status (module docstring)."""
    import json

    from gmonlens.common.errors import GmonlensError
    from gmonlens.common.files import write_file
    from gmonlens.common.safe_yaml import YamlFileError
    from gmonlens.runs.command import CommandNotFound, NotExecutable
    from gmonlens.suites.index_json import to_json
    from gmonlens.suites.model import TestResult
    from gmonlens.suites.render_markdown import render_markdown
    from gmonlens.suites.render_text import progress_line, render
    from gmonlens.suites.suite import SuiteOptions, run_suite

    def progress(result: TestResult, done: int, total: int) -> None:
        print(progress_line(result, done, total), file=sys.stderr, flush=True)

    options = SuiteOptions(
        runner=args.runner, jobs=args.jobs, per=args.per, timeout=args.timeout, preload=args.preload,
        on_signal_exit=args.on_signal_exit, binaries=tuple(args.binaries), progress=progress,
        notify=lambda line: print(f"gmonlens test: {line}", file=sys.stderr, flush=True),
    )  # fmt: skip
    _stop_on_signals()
    try:
        run = run_suite(args.command, os.getcwd(), args.out, options)
    except CommandNotFound as e:
        print(f"gmonlens test: {e}", file=sys.stderr)
        return 127
    except NotExecutable as e:
        print(f"gmonlens test: {e}", file=sys.stderr)
        return 126
    except YamlFileError as e:
        for line in e.lines:
            print(f"gmonlens test: {line}", file=sys.stderr)
        return 2
    except GmonlensError as e:
        print(f"gmonlens test: {e}", file=sys.stderr)
        return 2
    text = render(run)
    if args.json:
        sys.stderr.write(text)
        json.dump(to_json(run), sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(text)
    sys.stdout.flush()
    if args.markdown:
        try:
            write_file(
                args.markdown, render_markdown(run).encode("utf-8", "surrogateescape"), "Markdown summary"
            )
        except GmonlensError as e:
            print(f"gmonlens test: {e}", file=sys.stderr)
            return 2
    return _exit_status(run)
