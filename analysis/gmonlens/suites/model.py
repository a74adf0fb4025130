"""The frozen records of `gmonlens test`: the tests a runner lists (`TestSpec`), what running one
did (`TestResult`), each binary's profile of it (`BinaryProfile`) and the whole suite
(`SuiteRun`). Times in seconds; samples are gprof's (histogram ticks, fractional where the
bin-overlap rule splits a bin).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

# a test's status: its own verdict as its runner states it, or what kept it from running
PASSED = "passed"
FAILED = "failed"
SKIPPED = "skipped"
TIMEOUT = "timeout"
NOT_RUN = "not run"  # could not be started, or a test it depends on failed
INTERRUPTED = "interrupted"  # gmonlens was interrupted while it ran
STATUSES = (PASSED, FAILED, SKIPPED, TIMEOUT, NOT_RUN, INTERRUPTED)


@dataclass(frozen=True)
class Verdict:
    """How a test's own runner decides pass or fail from its end (`status.py`)."""

    will_fail: bool = False  # CTest WILL_FAIL: a failure passes, a pass fails
    skip_codes: tuple[int, ...] = ()  # exit codes that mean skipped (CTest SKIP_RETURN_CODE, 77)
    error_codes: tuple[int, ...] = ()  # exit codes that mean a hard error (meson's 99)
    pass_patterns: tuple[str, ...] = ()  # CTest PASS_REGULAR_EXPRESSION (any matches: pass)
    fail_patterns: tuple[str, ...] = ()  # CTest FAIL_REGULAR_EXPRESSION (any matches: fail)
    skip_patterns: tuple[str, ...] = ()  # CTest SKIP_REGULAR_EXPRESSION
    protocol: str = "exitcode"  # meson's: exitcode, tap, gtest, rust
    gtest_skip: bool = False  # a GoogleTest run: "[  SKIPPED ]" with exit 0 and no pass is skipped


@dataclass(frozen=True)
class TestSpec:
    """One test as its runner lists it: what to run, where, with what, and how it is judged."""

    __test__ = False  # not a pytest test class

    name: str
    argv: tuple[str, ...]  # () when the runner lists a test it cannot run (`problem`)
    cwd: str
    env: Mapping[str, str] = field(default_factory=dict)  # the whole environment it runs with
    timeout: float | None = None  # seconds
    verdict: Verdict = Verdict()
    depends: tuple[str, ...] = ()  # tests that must end first (CTest DEPENDS, fixtures)
    requires: tuple[str, ...] = ()  # fixtures: not run when a setup test of one failed
    setups: tuple[str, ...] = ()  # fixtures this test sets up
    locks: tuple[str, ...] = ()  # CTest RESOURCE_LOCK: no two tests holding one run together
    serial: bool = False  # runs alone (CTest RUN_SERIAL, meson is_parallel: false)
    processors: int = 1  # the job slots it takes (CTest PROCESSORS)
    labels: tuple[str, ...] = ()  # CTest labels, meson suites, Catch2 tags
    file: str | None = None  # where it is defined, when the runner says
    line: int = 0
    problem: str | None = None  # why it cannot run (no command, disabled)
    disabled: bool = False
    caveat: str | None = None  # said with a failure the runner's listing cannot explain (meson)


@dataclass(frozen=True)
class RoutineCalls:
    """A routine's figures in one test's profile of one binary."""

    name: str  # as gprof's index prints it (statics: `name (file.c)`)
    address: int  # the routine's (its symbol's) address: the same routine in every profile of a build
    calls: int  # all calls into it, recursive ones included (gprof's `calls+self`)
    self_samples: float
    total_samples: float  # self + children, as gprof's call graph propagates them


@dataclass(frozen=True)
class BinaryProfile:
    """One binary's profiles of one test, summed (gprof's rule)."""

    binary: str  # absolute
    profiles: tuple[str, ...]  # absolute paths
    pids: tuple[int, ...]
    samples: float  # gprof's total time, in samples
    hz: int  # 0: no histogram (or a rate of 0)
    routines: tuple[RoutineCalls, ...] = ()  # every routine reached (calls or samples), by name
    problem: str | None = None  # why the profiles could not be summed

    @property
    def seconds(self) -> float | None:
        return self.samples / self.hz if self.hz > 0 else None

    @property
    def seconds_error(self) -> float | None:
        """One standard error of `seconds` (Poisson: sqrt(samples) samples)."""
        return self.samples**0.5 / self.hz if self.hz > 0 else None

    @property
    def calls(self) -> int:
        return sum(r.calls for r in self.routines)


@dataclass(frozen=True)
class TestResult:
    """What running one test did."""

    __test__ = False

    spec: TestSpec
    status: str  # one of STATUSES
    exit_status: int | None  # as a shell reports it (128 + N for signal N); None: not run
    duration: float  # wall seconds
    cpu_seconds: float  # user + system of the test and the descendants it waited for
    directory: str  # its folder in the output (relative to it)
    output: str | None  # its output file (relative to the output folder)
    binaries: tuple[BinaryProfile, ...] = ()  # the main binary first (`main`)
    unknown: tuple[str, ...] = ()  # profiles no known program fits
    notes: tuple[str, ...] = ()  # why it has no profile, why not run, glibc's messages

    @property
    def main(self) -> BinaryProfile | None:
        return self.binaries[0] if self.binaries else None

    @property
    def seconds(self) -> float | None:
        """The profiled seconds over its binaries (None when none has a rate)."""
        parts = [b.seconds for b in self.binaries if b.seconds is not None]
        return sum(parts) if parts else None


@dataclass(frozen=True)
class SuiteRun:
    """A whole `gmonlens test`: the runner, every test in order, and where it all went."""

    runner: str  # ctest, gtest, catch2, meson, commands
    argv: tuple[str, ...]
    cwd: str
    out_dir: str
    jobs: int
    per: str  # "test" or "suite" (GoogleTest, Catch2)
    tests: tuple[TestResult, ...]
    helper: str | None = None  # why the helper library was not used (None: it was)
    interrupted: bool = False
    notes: tuple[str, ...] = ()

    def count(self, status: str) -> int:
        return sum(1 for t in self.tests if t.status == status)

    @property
    def binaries(self) -> tuple[str, ...]:
        """Every binary with profiles, in order of first appearance."""
        return tuple(dict.fromkeys(b.binary for t in self.tests for b in t.binaries))
