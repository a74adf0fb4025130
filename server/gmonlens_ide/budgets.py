"""A workspace folder's budget file (`gmonlens check`'s: README, "gmonlens check") and what the
editors and agents are shown of it: each routine's budgets on the folder's load (the hover's
"Budget: calls 1,000,000 of 1,200,000 allowed · pass", the lens's " · over budget"), and the file
the MCP `check` tool checks when none is named. Plain data; the adapters render it.

Which file (`find_budgets`), zero configuration:
1. the `budgets` setting (gmonlens.yaml's or the client's; relative to the folder): that file,
   whatever program it names (a note says so when it is not the loaded one);
2. else the first of `gmonlens-budgets.yaml` and `budgets.yaml` (`NAMES`) in the folder, its
   `perf/` (where the README's CI recipe keeps it) and its build folders (`discovery.search_dirs`)
   that is a budget file (a YAML mapping with `rules`) about the loaded program
   (`routine_budgets.about_binary`: the same file, or the same name where either is missing).
   A file of those names that is not a budget file (another tool's `budgets.yaml`) is passed over
   quietly; one that is but cannot be read is reported and passed over.
Budget files are untrusted input: read and checked by the engine's loader (`check.budget_file`:
bounded, plain data, one line per problem). Unless the client trusts the workspace, a file found
by name whose real path leaves the folder is not read, nor a baseline or test folder a budget file
names outside it (one problem each); a gmonlens.yaml `budgets` leading outside is dropped by
`settings.fence`.

Which rules (`compute`): the budget file's profiles and the folder's load, compared by their files:
- the load is one test of the file's per-test profiles (a `gmonlens test` folder): that test's
  rules (those without `tests:` and those whose patterns match it) on the loaded profile;
- the load is the whole suite (the tests' profiles summed): the rules are per test, so each test's
  profile is checked (read here, the load's binary shared) and a routine shows its worst test
  ("over budget in ParserTest.Big", "fails in 2 of 42 tests");
- otherwise (the program's own run): the rules without `tests:` on the loaded profile.
Rules against a baseline use the file's baseline (read here: per test, the test's own when both
sides are per test). Rules over the whole program (`no_new_arcs`, `no_new_routines`) and scaling
rules have no routine to show: `gmonlens check` and the MCP `check` tool give them.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from gmonlens.common.errors import GmonlensError

from .discovery import _abs, search_dirs
from .settings import UNTRUSTED, Settings, outside

if TYPE_CHECKING:
    from gmonlens.check.profiles import Profiles, ProfileSet
    from gmonlens.check.routine_budgets import RoutineBudget
    from gmonlens.check.rules import Budgets
    from gmonlens.common.model import Profile

log = logging.getLogger(__name__)
NAMES = ("gmonlens-budgets.yaml", "budgets.yaml")
SUBDIRS = ("perf",)  # besides the folder and its build folders
HOVER_WAIT = 0.5  # seconds a hover waits for the budgets (a whole suite's tests take longer)
MAX_SUITE_TESTS = 1_000  # tests checked one by one for a whole suite's load; past that, none
MAX_HOVER_LINES = 8  # budgets of one routine in a hover; the rest counted
Verdict = Literal["pass", "fail", "undecided"]
NOTES = (": over budget", ": below the minimum", ": not enough samples to decide")  # routine_budgets'
_RANK = {"pass": 0, "undecided": 1, "fail": 2}
Stamp = tuple[tuple[str, int, int, int], ...]


def stamp(paths: Sequence[str]) -> Stamp:
    """(path, inode, size, mtime ns) of each path; -1s when missing."""
    out = []
    for p in paths:
        try:
            st = os.stat(p)
            out.append((p, st.st_ino, st.st_size, st.st_mtime_ns))
        except OSError:
            out.append((p, -1, -1, -1))
    return tuple(out)


def candidates(folder: str) -> list[str]:
    """Where a budget file is looked for by name, in order (module doc)."""
    dirs = search_dirs(folder)
    subs = [os.path.join(folder, d) for d in SUBDIRS if os.path.isdir(os.path.join(folder, d))]
    ordered = list(dict.fromkeys(os.path.normpath(d) for d in [folder, *subs, *dirs]))
    return [os.path.join(d, n) for d in ordered for n in NAMES]


@dataclass(frozen=True)
class Found:
    """The budget file of a folder, or why there is none: `problems` go to the user (once),
    `notes` to the log; `broken`: the first problem of a budget file that cannot be used."""

    path: str | None
    budgets: Budgets | None
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    broken: str | None = None


def watched_paths(folder: str, settings: Settings) -> list[str]:
    """The files whose change means "look for the budgets again": the one the setting names, else
    every name `find_budgets` looks at."""
    return [_abs(folder, settings.budgets)] if settings.budgets else candidates(folder)


_RULES_KEY = re.compile(rb"^rules[ \t]*:", re.MULTILINE)


def _says_rules(path: str) -> bool:
    """Whether a file that is not valid YAML has a top-level `rules:` line: a budget file being
    written (its problem is said), not another tool's file."""
    from gmonlens.common.files import read_regular
    from gmonlens.common.safe_yaml import MAX_BYTES

    try:
        return _RULES_KEY.search(read_regular(path, MAX_BYTES, "budget file")) is not None
    except GmonlensError:
        return False


def _read(path: str, named: bool) -> tuple[Budgets | None, list[str], bool]:
    """(the budgets, problems, whether it is a budget file) of `path`; a file found by name that
    is not a budget file (a YAML mapping with `rules`; when not valid YAML, a `rules:` line) is
    not one (no problem)."""
    from gmonlens.check.budget_file import budgets_from
    from gmonlens.common.safe_yaml import YamlFileError, read_yaml

    try:
        doc = read_yaml(path, "budget file")
    except YamlFileError as e:
        ours = named or os.path.basename(path) == NAMES[0] or _says_rules(path)
        return None, e.lines if ours else [], ours
    if not named and not (isinstance(doc.data, dict) and "rules" in doc.data):
        return None, [], False
    try:
        return budgets_from(doc, path), [], True
    except YamlFileError as e:
        return None, e.lines, True


def _named(path: str, binary: str | None) -> Found:
    """The file the `budgets` setting names (used whatever program it is about)."""
    from gmonlens.check.routine_budgets import about_binary

    found, problems, _ = _read(path, named=True)
    notes = []
    if (
        found is not None
        and found.current is not None
        and binary is not None
        and not about_binary(found, binary)
    ):
        notes.append(f"{path}: about {found.current.binary}, checked on the loaded {binary}")
    broken = problems[0] if problems else None
    return Found(path if found else None, found, tuple(problems), tuple(notes), broken)


def find_budgets(folder: str, settings: Settings, binary: str | None) -> Found:
    """The budget file of `folder` for the program at `binary` (None: any program), by the
    module's rule; never raises."""
    from gmonlens.check.routine_budgets import about_binary

    if settings.budgets:
        return _named(_abs(folder, settings.budgets), binary)
    problems: list[str] = []
    notes: list[str] = []
    broken = None
    for path in candidates(folder):
        if not os.path.lexists(path):
            continue
        if not settings.trusted and outside(folder, path):
            problems.append(f"{path}: {UNTRUSTED}; budgets ignored")
            continue
        found, said, ours = _read(path, named=False)
        problems += said
        broken = broken or (said[0] if said else None)
        if found is None:
            if not ours:
                notes.append(f"{path}: not a gmonlens budget file; passed over")
            continue
        if binary is None or about_binary(found, binary):
            return Found(path, found, tuple(problems), tuple(notes), broken)
        notes.append(
            f"{path}: budgets of {found.current.binary if found.current else '?'}, not of {binary}; passed over"
        )
    return Found(None, None, tuple(problems), tuple(notes), broken)


def named_paths(budgets: Budgets) -> list[str]:
    """Every file or folder `budgets` names (the programs, profiles, test folders, the scaling
    rules' runs), as the file resolves them."""
    from gmonlens.check.rules import ScalingRule

    out: list[str] = []
    for side in (budgets.current, budgets.baseline):
        if side is not None:
            out.append(side.binary)
            out += [side.profiles.folder] if side.profiles.folder else list(side.profiles.files)
    for r in budgets.rules:
        if isinstance(r, ScalingRule):
            out.append(r.binary)
            out += [f for _, files in r.sizes for f in files]
    return list(dict.fromkeys(out))


def outside_paths(folder: str, budgets: Budgets, trusted: bool) -> list[str]:
    """The paths `budgets` names that lead outside `folder` (none when `trusted`)."""
    return [] if trusted else [p for p in named_paths(budgets) if outside(folder, p)]


# ---- each routine's budgets on a load ------------------------------------------------------------


@dataclass(frozen=True)
class BudgetLine:
    """One budget of a routine, as a hover shows it. Per test (a whole suite's load): the worst
    test's figure (`test`), and how many tests were checked and failed."""

    text: str  # "calls 1,000 of 1,200 allowed", with the verdict's note (": over budget")
    verdict: Verdict
    rule: int  # 1-based index in the file
    line: int  # the rule's line in the file (0: unknown)
    reason: str = ""
    test: str | None = None
    tests: int = 0
    failing: int = 0
    undecided: int = 0

    @property
    def noted(self) -> bool:
        """Whether `text` says its verdict already (": over budget", ...)."""
        return self.text.endswith(NOTES)


def _line_of(b: RoutineBudget) -> BudgetLine:
    return BudgetLine(b.text, b.verdict, b.rule, b.line, b.reason)


@dataclass(frozen=True)
class FolderBudgets:
    """The budgets of one load: the file applied (None: none), each routine's budgets by routine
    id, and what to tell (`problems`: once per episode, `notes`: the log)."""

    path: str | None
    routines: dict[int, tuple[BudgetLine, ...]] = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    broken: str | None = None  # the first problem of a budget file that cannot be used at all
    per_test: bool = False  # each test of a whole suite checked on its own profile
    watched: tuple[str, ...] = ()  # the files whose change means "look again" (`watched_paths`)
    stamp: Stamp = ()  # theirs before they were read

    def of(self, rid: int) -> tuple[BudgetLine, ...]:
        return self.routines.get(rid, ())

    def fails(self, rid: int) -> bool:
        return any(b.verdict == "fail" for b in self.of(rid))


class Stopped(Exception):
    """A newer load replaced the one these budgets were for."""


Shown = tuple[Literal["run", "test", "suite"], tuple["ProfileSet", ...]]


def _shown(budgets: Budgets, files: Sequence[str], folder: str, trusted: bool, problems: list[str]) -> Shown:
    """What the load shows of the budget file's profiles: one of its tests, its whole suite, or
    neither (module doc); compared by the profiles' real paths."""
    from gmonlens.check.profiles import profile_sets

    cur = budgets.current
    if cur is None or cur.profiles.folder is None:
        return "run", ()
    if not trusted and outside(folder, cur.profiles.folder):
        problems.append(f"{budgets.path}: `profiles` {cur.profiles.folder!r} {UNTRUSTED}; its tests not read")
        return "run", ()
    try:
        sets, _ = profile_sets(cur.binary, cur.profiles)
    except GmonlensError as e:
        problems.append(f"{budgets.path}: profiles: {e}")
        return "run", ()
    loaded = {os.path.realpath(p) for p in files}
    for s in sets:
        if {os.path.realpath(p) for p in s.files} == loaded:
            return "test", (s,)
    if {os.path.realpath(p) for s in sets for p in s.files} == loaded:
        return "suite", sets
    return "run", ()


class _Baselines:
    """The budget file's baseline, read once per set asked (module doc); None and a problem
    when it cannot be had."""

    def __init__(self, budgets: Budgets, folder: str, trusted: bool, profiles: Profiles) -> None:
        self.budgets, self.profiles = budgets, profiles
        self.problems: list[str] = []
        self.sets: dict[str | None, ProfileSet] | None = None
        self._read: dict[str | None, Profile | None] = {}
        side = budgets.baseline
        if side is None or not any(r.needs_baseline for r in budgets.rules):
            return
        far = [
            p
            for p in (side.binary, side.profiles.folder, *side.profiles.files)
            if p and not trusted and outside(folder, p)
        ]
        if far:
            self.problems.append(
                f"{budgets.path}: baseline {far[0]!r} {UNTRUSTED}; the rules against it not shown"
            )
            return
        from gmonlens.check.profiles import profile_sets, summed

        try:
            sets, per_test = profile_sets(side.binary, side.profiles)
        except GmonlensError as e:
            self.problems.append(f"{budgets.path}: baseline: {e}")
            return
        self.sets = {s.test: s for s in sets} if per_test else {None: summed(sets)}

    def for_test(self, test: str | None) -> Profile | None:
        """The baseline of test `test` (its own when the baseline is per test, else the one)."""
        if self.sets is None:
            return None
        key = test if test in self.sets else None
        if key not in self.sets:
            return None
        if key not in self._read:
            s = self.sets[key]
            try:
                self._read[key] = self.profiles.load(s.binary, s.files)
            except GmonlensError as e:
                self.problems.append(f"{self.budgets.path}: baseline not read: {e}")
                self._read[key] = None
        return self._read[key]


def _lines(view_budgets: Sequence[RoutineBudget]) -> dict[int, tuple[BudgetLine, ...]]:
    out: dict[int, list[BudgetLine]] = {}
    for b in view_budgets:
        out.setdefault(b.routine, []).append(_line_of(b))
    return {rid: tuple(lines) for rid, lines in out.items()}


def _worst(found: list[tuple[str | None, RoutineBudget]]) -> BudgetLine:
    """One budget over the tests: the test with the worst verdict and, of those, the largest figure
    (the nearest to its limit)."""
    test, b = max(found, key=lambda tb: (_RANK[tb[1].verdict], tb[1].measured or 0.0))
    n = {v: sum(1 for _, x in found if x.verdict == v) for v in ("fail", "undecided")}
    return BudgetLine(
        b.text, b.verdict, b.rule, b.line, b.reason, test, len(found), n["fail"], n["undecided"]
    )


def _per_test(
    budgets: Budgets,
    sets: Sequence[ProfileSet],
    profile: Profile,
    binary: str,
    checked: tuple[Profiles, _Baselines],
    stop: Callable[[], bool],
) -> tuple[dict[int, tuple[BudgetLine, ...]], list[str]]:
    """Each test's profile checked on its own; per routine and budget, the worst test's."""
    from gmonlens.check.routine_budgets import routine_budgets

    profiles, baselines = checked
    by_address = {r.address: r.id for r in profile.routines if not r.is_line}
    groups: dict[tuple[int, int, int], list[tuple[str | None, RoutineBudget]]] = {}
    problems: dict[str, None] = {}
    for s in sets:
        if stop():
            raise Stopped
        try:
            p = profiles.load(s.binary, s.files)
        except GmonlensError as e:
            problems[f"{budgets.path}: profiles (test {s.test}): {e}"] = None
            continue
        view = routine_budgets(budgets, p, binary, baseline=baselines.for_test(s.test), test=s.test)
        problems.update(dict.fromkeys(view.problems))
        seen: dict[tuple[int, int], int] = {}
        for b in view.budgets:
            rid = by_address.get(p.routines[b.routine].address)
            if rid is not None:
                j = seen[(rid, b.rule)] = seen.get((rid, b.rule), -1) + 1
                groups.setdefault((rid, b.rule, j), []).append((s.test, b))
    out: dict[int, list[BudgetLine]] = {}
    for key in sorted(groups):
        out.setdefault(key[0], []).append(_worst(groups[key]))
    return {rid: tuple(lines) for rid, lines in out.items()}, list(problems)


@dataclass(frozen=True)
class LoadFacts:
    """What `compute` needs of a load (`session.LoadedFolder`'s fields)."""

    folder: str
    settings: Settings
    binary: str
    profiles: tuple[str, ...]
    profile: Profile
    program: Any  # load.program.Program: the binary as the load read it (shared, not read again)


def compute(load: LoadFacts, stop: Callable[[], bool] = lambda: False) -> FolderBudgets:
    """The budgets of `load` (module doc): never raises but `Stopped`."""
    from gmonlens.check.profiles import Profiles
    from gmonlens.check.routine_budgets import routine_budgets

    found = find_budgets(load.folder, load.settings, load.binary)
    budgets = found.budgets
    if budgets is None or found.path is None:
        return FolderBudgets(None, {}, found.problems, found.notes, found.broken)
    problems = list(found.problems)
    trusted = load.settings.trusted
    kind, sets = _shown(budgets, load.profiles, load.folder, trusted, problems)
    profiles = Profiles([load.program]) if load.program is not None else Profiles()
    baselines = _Baselines(budgets, load.folder, trusted, profiles)
    shown = os.path.relpath(load.binary, load.folder)
    per_test = kind == "suite" and len(sets) <= MAX_SUITE_TESTS
    notes = [
        *found.notes,
        f"budgets: {found.path}" + (f" ({len(sets)} tests, each checked)" if per_test else ""),
    ]
    if kind == "suite" and not per_test:
        problems.append(f"{found.path}: {len(sets)} tests: budgets are shown per test for at most "
                        f"{MAX_SUITE_TESTS}; select a test to see its budgets")  # fmt: skip
    if per_test:
        routines, more = _per_test(budgets, sets, load.profile, shown, (profiles, baselines), stop)
        problems += more
    elif kind != "suite":
        test = sets[0].test if kind == "test" else None
        view = routine_budgets(budgets, load.profile, shown, baseline=baselines.for_test(test), test=test)
        routines = _lines(view.budgets)
        problems += view.problems
    else:
        routines = {}
    problems += baselines.problems
    return FolderBudgets(found.path, routines, tuple(dict.fromkeys(problems)), tuple(notes), None, per_test)


# ---- held by a load ------------------------------------------------------------------------------


class BudgetHolder:
    """A load's budgets (`session.LoadedFolder.budgets`): computed once, in a thread, by the
    first of the server's task after the load and a hover that cannot wait for it (`compute`),
    again when a watched budget file changed (`changed`, then `compute(force=True)`: the profile
    is not loaded again). `ready()` never waits; `get(wait)` waits up to `wait` seconds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done = threading.Event()
        self.value: FolderBudgets | None = None
        self._seen: Stamp | None = None  # a changed stamp seen once by `changed` (stability)
        self._started = False
        self._pending = False  # `changed` said so, and the computation has not run yet

    def ready(self) -> FolderBudgets | None:
        return self.value

    def compute(
        self, load: LoadFacts, stop: Callable[[], bool] = lambda: False, force: bool = False
    ) -> FolderBudgets:
        """The budgets, computed now unless held already (`force`: again); raises `Stopped`."""
        self._started = True
        with self._lock:
            if self.value is not None and not force:
                return self.value
            watched = watched_paths(load.folder, load.settings)
            before = stamp(watched)  # taken before the read: a write during it is seen next
            value = replace(compute(load, stop), watched=tuple(watched), stamp=before)
            self.value = value
            self._seen = None
            self._pending = False
            self._done.set()
            return value

    def get(self, load: LoadFacts, wait: float = HOVER_WAIT) -> FolderBudgets | None:
        """The budgets, waiting at most `wait` seconds (starting their computation when nobody
        has: a hover right after the load); None while not ready."""
        if not self._started:
            self._started = True
            threading.Thread(
                target=self._quiet_compute, args=(load,), name="gmonlens-budgets", daemon=True
            ).start()
        self._done.wait(wait)
        return self.value

    def _quiet_compute(self, load: LoadFacts) -> None:
        try:
            self.compute(load)
        except Exception:  # a bug costs the budgets only
            log.exception("budgets of %s", load.folder)
            self._done.set()

    def changed(self) -> bool:
        """Whether a watched budget file changed since the budgets were computed and has then
        kept its new size and time for one more look (a write finished); for the poller, in a
        thread."""
        value = self.value
        if value is None or self._pending or self._lock.locked():
            return False
        now = stamp(value.watched)
        if now == value.stamp:
            self._seen = None
            return False
        if now != self._seen:
            self._seen = now
            return False
        self._pending = True
        return True


# ---- what the adapters show ----------------------------------------------------------------------


def facts(loaded: Any) -> LoadFacts:
    """The `LoadFacts` of a `session.LoadedFolder`."""
    return LoadFacts(
        loaded.folder, loaded.settings, loaded.binary, loaded.profiles, loaded.profile, loaded.program
    )


@dataclass(frozen=True)
class RoutineBudgets:
    """A routine's budgets for a hover: the file (its path, and as the folder names it), the
    budgets (at most MAX_HOVER_LINES), how many more, and whether each test was checked."""

    path: str
    label: str
    lines: tuple[BudgetLine, ...]
    more: int = 0
    per_test: bool = False


def routine_budgets_of(loaded: Any, rid: int, wait: float = HOVER_WAIT) -> RoutineBudgets | None:
    """Routine `rid`'s budgets on `loaded` (a `session.LoadedFolder`), or None (no budget file,
    none about it, or not ready after `wait` seconds)."""
    value = loaded.budgets.get(facts(loaded), wait)
    if value is None or value.path is None:
        return None
    lines = value.of(rid)
    if not lines:
        return None
    rel = os.path.relpath(value.path, loaded.folder)
    label = value.path if rel.startswith("..") else rel
    return RoutineBudgets(
        value.path, label, lines[:MAX_HOVER_LINES], max(len(lines) - MAX_HOVER_LINES, 0), value.per_test
    )


OVER = " · over budget"


def lens_suffix(loaded: Any, rid: int) -> str:
    """ " · over budget" when routine `rid` fails a budget (the budgets at hand: never waits)."""
    value = loaded.budgets.ready()
    return OVER if value is not None and value.fails(rid) else ""
