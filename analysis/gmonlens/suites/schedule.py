"""Which test may start now, at `-j N` (pure): the tests start in their runner's order as soon as
- the tests they depend on (CTest `DEPENDS`, which includes the fixtures' setup tests CTest adds)
  have ended;
- none of the resource locks they hold (`RESOURCE_LOCK`) is held by a running test;
- a `serial` test (CTest `RUN_SERIAL`, meson `is_parallel: false`) runs with nothing else, and
  nothing starts beside it;
- their processors (`PROCESSORS`, at most N) fit in the job slots left.
A test that requires a fixture (`FIXTURES_REQUIRED`) whose setup test did not pass is not run
(CTest's rule); `blocked` says why. A name a test depends on that is not in the run is ignored;
when nothing runs and nothing may start (a cycle of DEPENDS), the first waiting test starts.
"""

from __future__ import annotations

from collections.abc import Sequence

from gmonlens.suites.model import PASSED, SKIPPED, TestSpec


class Plan:
    """The tests' states (module docstring); `start` and `finish` move them."""

    def __init__(self, specs: Sequence[TestSpec], jobs: int) -> None:
        self.specs = tuple(specs)
        self.jobs = max(1, jobs)
        self.pending: list[int] = list(range(len(specs)))
        self.running: set[int] = set()
        self.status: dict[str, str] = {}
        names = {s.name for s in specs}
        self._waits = [{n for n in s.depends if n in names and n != s.name} for s in specs]
        self._setups: dict[str, list[str]] = {}
        for s in specs:
            for fixture in s.setups:
                self._setups.setdefault(fixture, []).append(s.name)

    def _slots(self, i: int) -> int:
        return min(self.specs[i].processors, self.jobs)

    def _may_start(self, i: int) -> bool:
        spec = self.specs[i]
        if any(n not in self.status for n in self._waits[i]):
            return False
        if self.running and (spec.serial or any(self.specs[r].serial for r in self.running)):
            return False
        held = {lock for r in self.running for lock in self.specs[r].locks}
        if held & set(spec.locks):
            return False
        return sum(self._slots(r) for r in self.running) + self._slots(i) <= self.jobs

    def startable(self) -> list[int]:
        """The waiting tests that may start now, in order (taking each one's slots as it goes)."""
        chosen: list[int] = []
        for i in self.pending:
            if self._may_start(i):
                chosen.append(i)
                self.running.add(i)  # so the next ones see its slots and locks
        for i in chosen:
            self.running.discard(i)
        if not chosen and not self.running and self.pending:
            chosen = [self.pending[0]]
        return chosen

    def blocked(self, i: int) -> str | None:
        """Why test `i` must not run: a fixture it requires whose setup did not pass."""
        for fixture in self.specs[i].requires:
            for setup in self._setups.get(fixture, ()):
                status = self.status.get(setup)
                if status is not None and status not in (PASSED, SKIPPED):
                    return f"the setup test {setup!r} of fixture {fixture!r} did not pass ({status})"
        return None

    def start(self, i: int) -> None:
        self.pending.remove(i)
        self.running.add(i)

    def finish(self, i: int, status: str) -> None:
        self.running.discard(i)
        if i in self.pending:
            self.pending.remove(i)
        name = self.specs[i].name
        # a name run twice (meson subprojects): a failure is remembered
        if self.status.get(name) in (None, PASSED, SKIPPED):
            self.status[name] = status
