"""The tests run at `-j N`: up to N at once in worker threads (`execute.run_test`, each test in
its own process group), started as `schedule.Plan` allows, each one's profiles named and summed
in the calling thread as it ends (`execute.Collector`), `progress` told of each result in the
order they end.

Interruption (^C: KeyboardInterrupt in the calling thread, which must be the main thread): every
running test is stopped (its group gets SIGTERM: with the helper's --on-signal=exit its processes
still write their profiles; SIGKILL `runs.launch.CANCEL_GRACE` seconds later); the running tests
are waited for and collected (status `interrupted`), the waiting ones are `not run`. Nothing else
is left running.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from gmonlens.suites.execute import Collector, Helping, Ran, run_test
from gmonlens.suites.model import INTERRUPTED, NOT_RUN, TestResult, TestSpec
from gmonlens.suites.schedule import Plan
from gmonlens.suites.test_dir import OUTPUT, SuiteDir

POLL = 0.25  # seconds between looks at the running tests


class _Loop:
    def __init__(
        self, d: SuiteDir, specs: Sequence[TestSpec], jobs: int, helping: Helping,
        arcs: Callable[[TestSpec], int | None], collector: Collector, progress: Callable[[TestResult, int, int], None],
    ) -> None:  # fmt: skip
        self.d, self.helping, self.arcs, self.collector, self.progress = d, helping, arcs, collector, progress
        self.plan = Plan(specs, jobs)
        self.stops: dict[int, threading.Event] = {}  # a running test's: set, its group is stopped
        self.results: dict[int, TestResult] = {}
        self.futures: dict[Future[Ran], int] = {}
        self.interrupted = False

    def _result(self, ran: Ran) -> TestResult:
        binaries, unknown = self.collector.collect(self.d, ran)
        o = ran.outcome
        status = INTERRUPTED if self.interrupted and o is not None else ran.status
        notes = ran.notes
        if o is not None and not binaries and not unknown and not ran.timed_out and not o.signal:
            notes += ("no profile: its processes were not built with -pg, or none called exit()",)
        if unknown:
            notes += (
                f"{len(unknown)} profile(s) written by a program no executable of the suite fits (--binary FILE)",
            )
        return TestResult(
            ran.spec, status, o.status if o else None, o.wall_seconds if o else 0.0, o.cpu_seconds if o else 0.0,
            ran.folder, f"{ran.folder}/{OUTPUT}" if o is not None else None, binaries, unknown, notes,
        )  # fmt: skip

    def _done(self, i: int, result: TestResult) -> None:
        self.results[i] = result
        self.plan.finish(i, result.status)
        self.progress(result, len(self.results), len(self.plan.specs))

    def _not_run(self, i: int, why: str) -> None:
        spec = self.plan.specs[i]
        folder = self.d.make_folder(spec.name)
        self._done(i, TestResult(spec, NOT_RUN, None, 0.0, 0.0, folder, None, notes=(why,)))

    def _start(self, pool: ThreadPoolExecutor) -> None:
        for i in self.plan.startable():
            why = self.plan.blocked(i)
            if why is not None:
                self._not_run(i, why)
                continue
            self.plan.start(i)
            spec = self.plan.specs[i]
            folder = self.d.make_folder(spec.name)
            stop = self.stops[i] = threading.Event()
            future = pool.submit(run_test, self.d, spec, folder, self.helping, self.arcs(spec), stop)
            self.futures[future] = i

    def _reap(self, timeout: float | None) -> None:
        done, _ = wait(list(self.futures), timeout=timeout, return_when=FIRST_COMPLETED)
        for f in done:
            i = self.futures.pop(f)
            self.stops.pop(i, None)
            spec = self.plan.specs[i]
            try:
                result = self._result(f.result())
            except KeyboardInterrupt:  # while its profiles were summed: kept, without them
                self._done(i, TestResult(spec, INTERRUPTED, None, 0.0, 0.0, "", None, notes=("interrupted",)))
                raise
            except Exception as e:  # a test's own failure to start stays its own
                result = TestResult(
                    spec, NOT_RUN, None, 0.0, 0.0, "", None, notes=(f"could not be run: {e}",)
                )
            self._done(i, result)

    def run(self, pool: ThreadPoolExecutor) -> None:
        while self.plan.pending or self.futures:
            self._start(pool)
            if self.futures:
                self._reap(POLL)

    def stop(self) -> None:
        """After ^C (module docstring)."""
        self.interrupted = True
        for stop in list(self.stops.values()):
            stop.set()
        while self.futures:
            with contextlib.suppress(KeyboardInterrupt):  # a second ^C: SIGKILL follows anyway
                self._reap(None)
        for i in list(self.plan.pending):
            self._not_run(i, "gmonlens was interrupted before it ran")


def run_all(
    d: SuiteDir,
    specs: Sequence[TestSpec],
    jobs: int,
    helping: Helping,
    arcs: Callable[[TestSpec], int | None],
    collector: Collector,
    progress: Callable[[TestResult, int, int], None],
) -> tuple[tuple[TestResult, ...], bool]:
    """Run every test (module docstring); (the results in the tests' order, interrupted)."""
    loop = _Loop(d, specs, jobs, helping, arcs, collector, progress)
    with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="gmonlens-test") as pool:
        try:
            loop.run(pool)
        except KeyboardInterrupt:
            loop.stop()
    return tuple(loop.results[i] for i in sorted(loop.results)), loop.interrupted
