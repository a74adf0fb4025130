"""A `gmonlens test` folder (a profile per test) seen from the editor: found beside the workspace,
read, one test's profiles chosen for the folder's load, and which tests reach a routine.

Discovery, zero configuration (`find_suite`):
1. a `profiles` setting naming one folder that holds a `gmonlens test` index: that folder (as
   `gmonlens check`'s `profiles: FOLDER`);
2. else `gmonlens-test` (the default `--out`) in the workspace folder, then in each of its build
   folders (`discovery.search_dirs`: build/, out/, builddir/, build-*/, cmake-build-*/...);
3. else any direct subfolder of those folders holding such an index (at most MAX_SCANNED entries
   looked at in each).
A folder counts when its `index.json` is a regular file whose first HEAD bytes carry the schema
`gmonlens-test/1`; of several, the newest index wins. The index is read by the engine's reader
(`gmonlens.check.test_runs`: bounded, profile paths kept inside the folder). In a workspace the
client does not trust, a suite folder, profile or binary whose real path leaves the workspace
folder is not used (as `settings.fence` and `discovery.expand_profiles` do).

What the folder loads (`Choice`, `chosen`): by default discovery's own profiles and, when there
are none, the whole suite (`Choice(None)`: every test's profiles of the suite's main binary, the
one most tests ran); a chosen test (`Choice("ParserTest.Big")`): that test's profiles of its main
binary. Which tests reach a routine: `reach` over each test's figures (`gmonlens.suites.figures`,
the CLI's one rule), computed once per load in the background (`Reaches`).
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from gmonlens.check.test_runs import INDEX, TestRun, read_test_folder
from gmonlens.common.errors import GmonlensError, reason
from gmonlens.common.units import stderr_seconds
from gmonlens.load.program import Program
from gmonlens.suites.figures import Summer
from gmonlens.suites.model import BinaryProfile

from . import markdown
from .discovery import Discovery, discover, search_dirs
from .settings import Settings

DEFAULT_FOLDER = "gmonlens-test"
SCHEMA_MARK = b'"schema": "gmonlens-test/1"'
HEAD = 4096
MAX_SCANNED = 2_000
MAX_COSTLIEST = 3  # tests named in the hover


@dataclass(frozen=True)
class SuiteTest:
    """One test of the folder: its runs, main binary first (`check.test_runs.TestRun`)."""

    __test__ = False

    name: str
    status: str | None
    duration: float | None
    runs: tuple[TestRun, ...]

    @property
    def main(self) -> TestRun | None:
        return self.runs[0] if self.runs else None


@dataclass(frozen=True)
class Suite:
    """A `gmonlens test` folder, read."""

    path: str
    tests: tuple[SuiteTest, ...]
    stamp: tuple[int, int]  # index.json's (size, mtime ns) when read

    def named(self, name: str) -> SuiteTest | None:
        return next((t for t in self.tests if t.name == name), None)

    def main_binary(self) -> str | None:
        """The binary most tests ran (ties: the first seen)."""
        counts: dict[str, int] = {}
        for t in self.tests:
            if t.main is not None and t.main.binary is not None:
                counts[t.main.binary] = counts.get(t.main.binary, 0) + 1
        return max(counts, key=lambda b: counts[b]) if counts else None


@dataclass(frozen=True)
class Choice:
    """What a folder with a suite loads: one test's profiles, or (`test` None) the whole suite's."""

    test: str | None = None


def index_stamp(path: str) -> tuple[int, int] | None:
    """(size, mtime ns) of `path`/index.json when it is a regular file, else None."""
    try:
        st = os.stat(os.path.join(path, INDEX))
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns) if stat.S_ISREG(st.st_mode) else None


def is_suite(path: str) -> bool:
    """Whether `path` holds a `gmonlens test` index (module docstring)."""
    if index_stamp(path) is None:
        return False
    try:
        fd = os.open(os.path.join(path, INDEX), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        return SCHEMA_MARK in os.read(fd, HEAD)
    except OSError:
        return False
    finally:
        os.close(fd)


def _inside(folder: str, path: str) -> bool:
    root = os.path.realpath(folder)
    real = os.path.realpath(path)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _candidates(folder: str) -> list[str]:
    dirs = search_dirs(folder)
    named = [os.path.join(d, DEFAULT_FOLDER) for d in dirs]
    found = [p for p in named if is_suite(p)]
    if found:
        return found
    for d in dirs:
        try:
            with os.scandir(d) as it:
                for k, entry in enumerate(it):
                    if k >= MAX_SCANNED:
                        break
                    if entry.is_dir(follow_symlinks=False) and is_suite(entry.path):
                        found.append(os.path.normpath(entry.path))
        except OSError:
            continue
    return found


def named_suite(folder: str, profiles: Sequence[str]) -> str | None:
    """The suite folder a `profiles` setting names (one entry, a folder with an index), or None."""
    if len(profiles) != 1:
        return None
    named = os.path.normpath(os.path.join(folder, os.path.expanduser(profiles[0])))
    return named if os.path.isdir(named) and is_suite(named) else None


def find_suite(folder: str, profiles: Sequence[str] = (), trusted: bool = True) -> str | None:
    """The folder's `gmonlens test` folder (module docstring), or None; `profiles`: the setting
    (naming a suite folder, that one; else the rule's search)."""
    named = named_suite(folder, profiles)
    found = [named] if named is not None else _candidates(folder)
    found = [p for p in found if trusted or _inside(folder, p)]
    if not found:
        return None
    return max(found, key=lambda p: (index_stamp(p) or (0, 0))[1])


def read_suite(path: str, folder: str, trusted: bool = True) -> Suite:
    """The tests of the suite folder `path` (GmonlensError when it cannot be read). Untrusted: the
    runs whose profiles or binary lead outside `folder` are dropped."""
    stamp = index_stamp(path) or (0, 0)
    runs = read_test_folder(path)
    tests: dict[str, list[TestRun]] = {}
    for r in runs:
        ok = trusted or (
            all(_inside(folder, p) for p in r.profiles) and (r.binary is None or _inside(folder, r.binary))
        )
        if ok:
            tests.setdefault(r.name, []).append(r)
    return Suite(
        path, tuple(SuiteTest(n, rs[0].status, rs[0].duration, tuple(rs)) for n, rs in tests.items()), stamp
    )


def chosen(suite: Suite, choice: Choice) -> tuple[str, tuple[str, ...]]:
    """(binary, profiles) the folder loads for `choice`; GmonlensError naming the suite when the
    test is unknown or has no profile of a binary."""
    if choice.test is None:
        binary = suite.main_binary()
        if binary is None:
            raise GmonlensError(suite.path, "no test has a profile of a known binary")
        files = tuple(f for t in suite.tests for r in t.runs if r.binary == binary for f in r.profiles)
        return binary, files
    test = suite.named(choice.test)
    if test is None:
        raise GmonlensError(suite.path, f"no test named {choice.test!r}")
    main = test.main
    if main is None or main.binary is None:
        raise GmonlensError(suite.path, f"test {choice.test!r} has no profile of a known binary")
    return main.binary, main.profiles


def _rel(folder: str, path: str) -> str:
    rel = os.path.relpath(path, folder)
    return path if rel.startswith("..") else rel


def _suite_load(path: str, folder: str, settings: Settings, choice: Choice) -> Discovery:
    try:
        suite = read_suite(path, folder, settings.trusted)
        binary, files = chosen(suite, choice)
    except GmonlensError as e:
        return Discovery(None, (), problem=str(e))
    if not files:
        return Discovery(None, (), problem=f"{path}: no profile of {binary} in the tests")
    where = _rel(folder, path)
    if choice.test is None:
        runs = sum(1 for t in suite.tests for r in t.runs if r.binary == binary)
        what = f"the whole suite of {where} ({runs} of {len(suite.tests)} tests ran {_rel(folder, binary)})"
    else:
        what = f"test {choice.test} of {where}"
    note = f"profiles: {what}: {len(files)} files"
    return Discovery(binary, files, notes=(note,), choice=what)


def discover_folder(folder: str, settings: Settings, choice: Choice | None = None) -> Discovery:
    """`discovery.discover` with the folder's `gmonlens test` folder: a chosen test (or the whole
    suite, chosen) first; a `profiles` setting naming the suite folder; and when discovery finds
    no profile of its own, the whole suite (module docstring). Never raises."""
    named = named_suite(folder, settings.profiles)
    if choice is not None or named is not None:
        path = named or find_suite(folder, settings.profiles, settings.trusted)
        if path is None:
            return Discovery(
                None,
                (),
                problem=f"{folder}: no `gmonlens test` folder (index.json) here or in its build folders",
            )
        return _suite_load(path, folder, settings, choice or Choice())
    found = discover(folder, settings)
    if found.profiles or settings.profiles:
        return found
    path = find_suite(folder, (), settings.trusted)
    return found if path is None else _suite_load(path, folder, settings, Choice())


# ---- which tests reach a routine ---------------------------------------------------------------


@dataclass(frozen=True)
class TestFigures:
    """One test's profile of the loaded binary (`gmonlens.suites.figures`)."""

    __test__ = False

    name: str
    status: str | None
    profile: BinaryProfile


@dataclass(frozen=True)
class Costly:
    """A test that reaches the routine, with the routine's figures in it."""

    test: str
    status: str | None
    calls: int
    seconds: float | None  # the routine's total time in the test (self + children)
    error: float | None  # one standard error of it (sqrt of its samples)


@dataclass(frozen=True)
class Reach:
    """Which of a suite's tests reach a routine: `reached` of `tests` (the tests with a profile of
    the binary), the costliest first (total time, then calls)."""

    reached: int
    tests: int
    costliest: tuple[Costly, ...]


def test_figures(suite: Suite, binary: str, program: Program | None = None) -> tuple[TestFigures, ...]:
    """Each test's figures for `binary` (its runs of that binary), in the suite's order; `program`:
    the binary as a load read it (shared: its symbols and code are not read again)."""
    real = os.path.realpath(binary)
    summer = Summer({real: program} if program is not None else None)
    out = []
    for t in suite.tests:
        for r in t.runs:
            if r.binary is not None and os.path.realpath(r.binary) == real:
                out.append(TestFigures(t.name, t.status, summer.figure(binary, r.profiles)))
    return tuple(out)


def reach(figures: Sequence[TestFigures], address: int, top: int = MAX_COSTLIEST) -> Reach:
    """Which tests reach the routine at `address` (module docstring)."""
    found: list[Costly] = []
    for f in figures:
        r = next((x for x in f.profile.routines if x.address == address), None)
        if r is None:
            continue
        hz = f.profile.hz
        found.append(
            Costly(
                f.name,
                f.status,
                r.calls,
                r.total_samples / hz if hz else None,
                stderr_seconds(r.total_samples, hz),
            )
        )
    found.sort(key=lambda c: (-(c.seconds or 0.0), -c.calls, c.test))
    return Reach(len(found), len(figures), tuple(found[:top]))


def _costly_text(c: Costly) -> str:
    parts = []
    if c.seconds is not None and (c.seconds > 0 or c.calls == 0):
        parts.append(f"{c.seconds:.2f} ± {c.error or 0.0:.2f} s")
    parts.append(f"{c.calls:,} calls")
    status = "" if c.status in (None, "passed") else f" ({markdown.text(c.status)})"
    return f"`{_code(c.test)}`{status} {', '.join(parts)}"


def _code(name: str) -> str:
    """A test name inside a code span: backticks and line breaks cannot end it."""
    clean = "".join(ch if ch.isprintable() else " " for ch in name).replace("`", "'")
    return clean if clean.strip() else "?"


def hover_section(r: Reach) -> str:
    """The hover's line: "Tests: reached by 7 of 42 tests; costliest: `ParserTest.Big` 0.81 ±
    0.05 s, 120,000 calls" (then the next ones, at most MAX_COSTLIEST)."""
    if r.reached == 0:
        return f"**Tests**: reached by none of {r.tests} tests"
    head = (
        f"**Tests**: reached by {r.reached:,} of {r.tests:,} tests; costliest: {_costly_text(r.costliest[0])}"
    )
    rest = [f"- {_costly_text(c)}" for c in r.costliest[1:]]
    return "\n".join([head, *rest])


# ---- per load, in the background ----------------------------------------------------------------


class Reaches:
    """The tests' figures for one load, computed once in a thread of their own (`start`), waited
    for a little by a hover (`get`). The suite's index stamp is checked on each `get`: a rerun of
    `gmonlens test` (a new index) computes them again."""

    def __init__(self, folder: str, binary: str, program: Program | None, suite: str, trusted: bool) -> None:
        self.folder, self.binary, self.program, self.suite, self.trusted = (
            folder,
            binary,
            program,
            suite,
            trusted,
        )
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._stamp: tuple[int, int] | None = None
        self.figures: tuple[TestFigures, ...] = ()
        self.problem: str | None = None

    def _compute(self) -> None:
        try:
            suite = read_suite(self.suite, self.folder, self.trusted)
            self.figures = test_figures(suite, self.binary, self.program)
        except GmonlensError as e:
            self.problem = str(e)
        except Exception as e:  # a bug costs this section of the hover only
            self.problem = f"{self.suite}: {type(e).__name__}: {reason(e)}"
        finally:
            self._done.set()

    def start(self) -> None:
        """Compute (again, when the index changed) unless under way."""
        with self._lock:
            stamp = index_stamp(self.suite)
            if self._stamp == stamp and (self._stamp is not None):
                return
            self._stamp = stamp
            self._done = threading.Event()
        threading.Thread(target=self._compute, name="gmonlens-tests", daemon=True).start()

    def get(self, wait: float) -> tuple[TestFigures, ...] | None:
        """The figures, waiting at most `wait` seconds for them; None while not ready."""
        self.start()
        done = self._done
        return self.figures if done.wait(wait) else None


_holders: dict[str, tuple[int, Reaches]] = {}  # folder -> (its load's identity, the figures)
_holders_lock = threading.Lock()


def reaches_for(folder: str, key: int, binary: str, program: Program | None, settings_profiles: Sequence[str],
                trusted: bool) -> Reaches | None:  # fmt: skip
    """The `Reaches` of a folder's current load (`key`: the load's identity, e.g. its generation),
    or None when the folder has no suite. One per folder: a new load's replaces the old one's."""
    with _holders_lock:
        held = _holders.get(folder)
        if held is not None and held[0] == key:
            return held[1]
    suite = find_suite(folder, settings_profiles, trusted)
    if suite is None:
        return None
    holder = Reaches(folder, binary, program, suite, trusted)
    with _holders_lock:
        _holders[folder] = (key, holder)
    return holder
