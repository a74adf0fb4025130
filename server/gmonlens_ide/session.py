"""One workspace folder's loaded profile: found, loaded off the event loop, replaced whole.

Contract:
- `load_folder` is synchronous and thread-safe (run it with `asyncio.to_thread`); it never raises:
  every failure becomes `LoadOutcome.blocking` (what stops loading, in the CLI's words) or
  `LoadOutcome.warnings` (the rest).
- A `LoadedFolder`'s fields are never reassigned and its figures never change; it also carries
  caches filled lazily after the load (the `SourceIndex`'s per-file decoding behind its own lock,
  `lens_cache`, the line heat in `heat`), so it is frozen in its identity, not in its memory. It
  carries a `generation` that grows by one with every replacement; request data that names an
  older generation is re-resolved by routine name.
"""

from __future__ import annotations

import functools
import glob
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from gmonlens.common.errors import GmonlensError, reason
from gmonlens.common.model import Profile
from gmonlens.load.program import ProfileFiles, Program
from gmonlens.load.sourcemap import SourceMapper
from gmonlens.profile.certainty import Health, ProfileCertainty, certainty, profile_health, thread_starter

from . import cache_entries, writes
from .budgets import BudgetHolder
from .discovery import PROFILE_PATTERNS, Discovery, _abs, rebuilt_fix, rebuilt_since, search_dirs
from .heat_index import HeatHolder, HeatIndex, build_index, compute
from .index import SourceIndex
from .recordings import manifests
from .settings import CONFIG_FILE, Settings
from .suites import Choice, discover_folder

log = logging.getLogger(__name__)


class Memo:
    """A small thread-safe cache of values built from a loaded profile, keyed by the parameters
    that change them: at most `size` entries, the least recently used dropped first. It lives on
    a `LoadedFolder`, so a reload (a new `LoadedFolder`) starts empty. A build runs under the
    lock: concurrent requests for one key build it once."""

    def __init__(self, size: int = 4) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._values: OrderedDict[Hashable, Any] = OrderedDict()

    def get(self, key: Hashable, build: Callable[[], Any]) -> Any:
        """The value for `key`, built by `build()` when not held (its exceptions propagate, and
        nothing is kept)."""
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
            value = build()
            self._values[key] = value
            while len(self._values) > self.size:
                self._values.popitem(last=False)
            return value


@dataclass(frozen=True)
class LoadedFolder:
    generation: int
    folder: str
    settings: Settings
    binary: str
    profiles: tuple[str, ...]
    profile: Profile
    index: SourceIndex
    program: Program  # the files as this load read them (line table, DWARF, code, samples)
    dwarf_cached: bool = False
    profile_key: str | None = None
    profile_cached: bool = False
    seconds: float = 0.0  # wall time of the load
    lens_cache: dict[str, Any] = field(default_factory=dict, compare=False)  # path -> lenses (JSON)
    comparison: Any = None  # baseline.Comparison when the folder has a baseline
    heat: HeatHolder = field(default_factory=HeatHolder, compare=False)  # line heat, computed once
    health: tuple[Health, ...] = ()  # what makes the whole profile less trustworthy (certainty.py)
    read_as: Any = None  # pinstore.Expected: the binary and profiles as this load read them (pins)

    @functools.cached_property
    def certainty(self) -> ProfileCertainty:
        """Sample counts, errors and estimated parts of every routine (computed on first use; for a
        large profile, kept in the disk cache: the next start of the same profile reads it)."""
        if not kept_in_cache(self.profile):
            return certainty(self.profile)
        found = cache_entries.read_certainty(self.profile_key, self.profile)
        if found is None:
            found = certainty(self.profile)
            cache_entries.write_certainty(self.profile_key, found)
        assert isinstance(found, ProfileCertainty)
        return found

    def certainty_ready(self) -> ProfileCertainty | None:
        """`certainty` when computed already, else None (never waits: a hover shows the figures
        without it, a call hierarchy its arcs without the exact/estimated mark, rather than wait
        seconds for whole-program work; a request after it is ready has them)."""
        done: ProfileCertainty | None = self.__dict__.get("certainty")
        return done

    disasm: dict[str, Any] = field(default_factory=dict, compare=False)  # syntax -> DisasmContext
    flame: Memo = field(default_factory=Memo, compare=False)  # flame trees by their parameters
    # routines by name and their places, for `lookup` (one entry per name table and place asked)
    names: Memo = field(default_factory=lambda: Memo(1 << 20), compare=False)
    # each routine's budgets (the folder's budget file), computed after the load (budgets.py)
    budgets: BudgetHolder = field(default_factory=BudgetHolder, compare=False)

    @property
    def total_seconds(self) -> float | None:
        """The flat profile's total in seconds; None without a sampling rate."""
        p = self.profile
        return p.seconds(p.total_ticks)


@dataclass(frozen=True)
class LoadOutcome:
    loaded: LoadedFolder | None
    blocking: str | None = None
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()  # files whose change means "reload"
    choice: str | None = None  # which of several fitting binaries / profile sets discovery took, and why
    superseded: bool = False
    writing: tuple[str, ...] = ()  # profiles still being written: nothing loaded, keep the last one


def profile_health_of(program: Program, profile: Profile) -> tuple[Health, ...]:
    """The profile's health in the editor: samples, arcs, threads (from the binary's symbols) and a
    binary newer than the profile (source files newer than the binary: `finish_index`)."""
    from gmonlens.load.health import binary_changed

    try:
        starter = cache_entries.thread_starter_of(program, thread_starter)
    except GmonlensError:
        starter = None
    found = [*profile_health(profile, starter), binary_changed(program.path, program.profiles.paths)]
    return tuple(h for h in found if h is not None)


def _stale_problems(binary: str, profiles: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    try:
        bin_mtime = os.path.getmtime(binary)
    except OSError:
        return out
    for p in profiles:
        try:
            if bin_mtime > os.path.getmtime(p) + 1.0:
                out.append(f"{p}: the binary {binary} is newer than this profile (rebuilt since the run?)")
        except OSError:
            pass
    return out


# routines + arcs up to which the load computes the certainty itself (SQLite: 14,000, some 30 ms);
# past that it is background work after the first lenses (100,000 routines: 1.2-2 s CPU), and
# what that work computes (the certainty, the line heat) is kept in the disk cache for the next
# start (`kept_in_cache`)
CERTAINTY_IN_LOAD = 30_000


def kept_in_cache(profile: Profile) -> bool:
    """Whether the certainty and the line heat of `profile` are kept in the disk cache (a large
    profile's: a small one's are computed faster than read)."""
    return len(profile.routines) + len(profile.arcs) > CERTAINTY_IN_LOAD


class Superseded(Exception):
    """A newer load of the folder started: this one stops (quietly)."""


def load_folder(
    folder: str,
    settings: Settings,
    generation: int,
    stop: Callable[[], bool] | None = None,
    test: Choice | None = None,
) -> LoadOutcome:
    """Find and load the profile of `folder` (see module contract). `stop` is asked between
    phases; when it says True the load ends early with a `superseded` outcome. `test`: a test of
    the folder's `gmonlens test` folder, or the whole suite, loaded instead (`suites.Choice`)."""

    def check() -> None:
        if stop is not None and stop():
            raise Superseded

    try:
        return _load_folder(folder, settings, generation, check, test)
    except Superseded:
        return LoadOutcome(None, superseded=True)
    except MemoryError:
        return LoadOutcome(None, blocking=f"{folder}: out of memory while loading the profile")
    except Exception as exc:  # a bug must not leave the folder "loading" forever
        log.exception("loading %s failed", folder)
        return LoadOutcome(None, blocking=f"{folder}: internal error: {type(exc).__name__}: {reason(exc)}")


def _load_folder(
    folder: str, settings: Settings, generation: int, check: Callable[[], None], test: Choice | None = None
) -> LoadOutcome:
    started = time.monotonic()
    started_ns = time.time_ns()
    check()
    found: Discovery = discover_folder(folder, settings, test)
    check()
    inputs = [os.path.join(folder, CONFIG_FILE), *found.profiles]
    if found.binary:
        inputs.append(found.binary)
    if found.problem or not found.binary or not found.profiles:
        pending = writes.written_since(found.profiles, started_ns)
        if pending:  # a profile read in the middle of its write: not a problem, not loaded yet
            return LoadOutcome(None, writing=tuple(pending), notes=found.notes, inputs=tuple(inputs))
        return LoadOutcome(
            None,
            blocking=found.problem or f"{folder}: no profile",
            notes=found.notes,
            inputs=tuple(inputs),
        )
    program = found.program or Program(found.binary, ProfileFiles(found.profiles, keep_open=True))
    try:
        outcome = _load_program(folder, settings, generation, check, found, program, inputs, started)
    finally:
        handles = program.profiles.close_handles()
    try:
        fds = {p: fh.fileno() for p, fh in handles.items()}
        pending = writes.unfinished(program.profiles.read_as, fds) or (
            writes.written_since(found.profiles, started_ns) if outcome.loaded is None else []
        )
    finally:
        for fh in handles.values():
            fh.close()
    if pending:  # what was read may be a torn profile: keep showing the last complete one
        return LoadOutcome(None, writing=tuple(pending), notes=found.notes, inputs=tuple(inputs))
    return outcome


def _load_program(
    folder: str,
    settings: Settings,
    generation: int,
    check: Callable[[], None],
    found: Discovery,
    program: Program,
    inputs: list[str],
    started: float,
) -> LoadOutcome:
    assert found.binary is not None
    try:
        from gmonlens.common.options import AnalysisOptions
        from gmonlens.load.loader import load_profile

        options = AnalysisOptions(
            static_call_graph=settings.static_call_graph, clones_apart=settings.clones_apart
        )
        pkey = cache_entries.profile_key(program, options)
        profile = cache_entries.read_profile(pkey)
        profile_cached = isinstance(profile, Profile)
        if not profile_cached:
            _entry_lines(program)
            profile = load_profile(program, options=options)
    except GmonlensError as exc:
        text = str(exc)
        if "does not fit" in text and rebuilt_since(found.binary, found.profiles):
            certain = _ran_with(program) == os.path.realpath(found.binary)
            text += f"; {rebuilt_fix(found.binary, certain)}"
        return LoadOutcome(None, blocking=text, notes=found.notes, inputs=tuple(inputs))
    except Exception as exc:  # an engine bug must not take the server down
        log.exception("loading %s failed", found.binary)
        return LoadOutcome(
            None, blocking=f"{found.binary}: {type(exc).__name__}: {reason(exc)}", inputs=tuple(inputs)
        )
    check()
    dwarf = program.dwarf()
    check()
    mapper = SourceMapper(folder, dict(settings.source_map))
    index = SourceIndex(
        profile,
        dwarf,
        mapper,
        program.line_table,
        program.call_finder,
        program.routine_lines,
        program.lines_of,
    )
    warnings = [*profile.problems, *_stale_problems(found.binary, found.profiles)]
    comparison = _compare(folder, settings, program, profile, options, warnings, inputs)
    read_as = _read_as(program)
    program.release_profile_inputs()  # the symbol records and gmon.out bytes: 26 MB at 100k routines
    loaded = LoadedFolder(
        generation=generation,
        folder=folder,
        settings=settings,
        binary=found.binary,
        profiles=found.profiles,
        profile=profile,
        index=index,
        program=program,
        dwarf_cached=program.dwarf_cached,
        profile_key=pkey,
        profile_cached=profile_cached,
        seconds=time.monotonic() - started,
        comparison=comparison,
        health=profile_health_of(program, profile),
        read_as=read_as,
    )
    if len(profile.routines) + len(profile.arcs) <= CERTAINTY_IN_LOAD:
        _ = loaded.certainty  # small: ready for the first hover (a large one: reload._finish)
    return LoadOutcome(
        loaded,
        warnings=tuple(dict.fromkeys(warnings)),
        notes=found.notes,
        inputs=tuple(inputs),
        choice=found.choice,
    )


def _ran_with(program: Program) -> str | None:
    """The binary the profiles were last loaded with (`cache_entries.binary_that_ran`)."""
    try:
        return cache_entries.binary_that_ran(program.profiles.content_keys())
    except GmonlensError:
        return None


def _read_as(program: Program) -> Any:
    """The binary and profiles as the load read them (`pinstore.Expected`: a pin copies exactly
    these, or refuses), or None."""
    from .pinstore import Expected

    try:
        keys = program.profiles.content_keys()
        cache_entries.remember_binary(keys, program.path)  # a rebuild's refusal then says so
        return Expected(program.identity(), tuple(keys))
    except GmonlensError:
        return None


def _entry_lines(program: Program) -> None:
    """Read the static routines' entry lines (what the engine's load asks for: gprof names files
    for statics) from the line programs of only the units holding them (`Program.routine_lines`
    with `units`, the same answers), so a cold load does not decode every unit's line program
    (1.1 s CPU at 100,000 routines); the first lenses look up their file's routines the same way
    (`SourceIndex`). A failure here is left to the load (which reports it)."""
    if not program.image.has_debug_info:
        return
    try:
        program.routine_lines(statics=True, units=True)
    except Exception as exc:  # a broken line table: the load says so in its own words
        log.info("entry lines of %s not read: %s", program.path, exc)


def _compare(
    folder: str,
    settings: Settings,
    program: Program,
    profile: Profile,
    options: Any,
    warnings: list[str],
    inputs: list[str],
) -> Any:
    """The comparison with the folder's baseline (baseline.py), or None; problems become warnings."""
    from . import baseline

    found, problems = baseline.configured(folder, settings, program.path)
    from .pinstore import CURRENT, pin_dir

    pins = pin_dir(folder, settings.pin_folder)
    if pins is not None:  # a pin made or cleared elsewhere (another window) is seen
        inputs.append(os.path.join(pins, CURRENT))
    warnings += problems
    if found is None:
        return None
    base_binary, base_profiles, label = found
    inputs += [base_binary, *base_profiles]
    try:
        return baseline.compare(profile, base_binary, base_profiles, label, options, program)
    except GmonlensError as exc:
        warnings.append(f"baseline not loaded: {exc}")
        return None


def line_heat(loaded: LoadedFolder) -> HeatIndex | None:
    """The load's line heat (computed on first use, thread-safe; None when it cannot be had)."""
    if not loaded.profile.has_histogram:
        return None
    index = loaded.index
    samples = loaded.program.gmon  # the load's records, read once (the cached Profile has no samples)
    profile, key = loaded.profile, loaded.profile_key

    def make() -> HeatIndex:
        kept = kept_in_cache(profile)
        heat = cache_entries.read_heat(key, profile) if kept else None
        if heat is not None:  # a previous start of the same profile computed it
            return build_index(heat, profile, index.resolve)
        found = compute(profile, samples().histograms, index.line_table(), index.resolve)
        if kept:
            cache_entries.write_heat(key, found.heat.spans)
        return found

    return loaded.heat.get(make)


def finish_index(loaded: LoadedFolder) -> list[str]:
    """After a load (and the cache warm-up): report source files newer than the binary, and fill
    what the warm-up could not (no cache). Returns the problems (log messages)."""
    problems: list[str] = []
    index = loaded.index
    dwarf = index.dwarf
    try:
        if cache_entries.cache_dir() is None:
            index.prepare_lines()
        if dwarf is None:
            return problems
        bin_mtime = os.path.getmtime(loaded.binary)
        with index.lock:
            units = dwarf.units()
        for unit in units:
            if not unit.name:
                continue
            path = index.resolve(unit.name)
            if path and index.mapper.inside(path) and os.path.getmtime(path) > bin_mtime + 1.0:
                problems.append(
                    f"{path}: source file is newer than the binary {loaded.binary} (rebuild to refresh)"
                )
    except (GmonlensError, OSError) as exc:
        problems.append(str(exc))
    except Exception as exc:  # a malformed DWARF section (pyelftools' errors)
        problems.append(f"{loaded.binary}: DWARF unreadable: {reason(exc)}")
    return problems


MAX_POLLED_FILES = 64


@dataclass
class FolderState:
    """Mutable holder of one folder's state; touched only on the event-loop thread."""

    uri: str
    path: str
    loaded: LoadedFolder | None = None
    problem: str | None = None
    generation: int = 0
    inputs: tuple[str, ...] = ()
    said: set[str] = field(default_factory=set)
    loading: Any = None  # asyncio.Task of the load in progress
    worker: Any = None  # asyncio.Future of the load's thread (one at a time)
    settings_problems: tuple[str, ...] = ()
    settings: Settings = field(default_factory=Settings)
    last_stamp: dict[str, tuple[int, int]] | None = None  # what the poller last saw
    read_stamp: dict[str, tuple[int, int]] | None = None  # what the last load read (its `last_stamp`)
    writing: tuple[str, ...] = ()  # profiles a load found still being written (reload when done)
    pin_serial: int = 0  # pins and clears asked (a pin's answer says when a later one replaced it)
    client_settings: Any = None  # the client's `gmonlens` section for this folder (scopeUri)
    test: Choice | None = None  # a test (or the whole suite) of its `gmonlens test` folder, chosen
    budget_problems: tuple[str, ...] = ()  # the budgets' problems last told (budgets.py)
    budget_broken: str | None = None  # the budget file that could not be used, last told

    def watch_paths(self) -> list[str]:
        """The files to poll, at most about `MAX_POLLED_FILES` whatever the number of profiles: the
        settings file, the binary, the profiles and the baseline's files (past that many profiles,
        their folders' listings stand for them: `watch_dirs`), and the default profiles present
        where discovery looks (without a `profiles` setting)."""
        config = os.path.join(self.path, CONFIG_FILE)
        binary = self.loaded.binary if self.loaded is not None else None
        files = [p for p in self.inputs if p not in (config, binary)]
        for d in self._default_dirs():  # where default profiles would appear (or be rewritten)
            for pattern in PROFILE_PATTERNS:
                files += glob.glob(os.path.join(glob.escape(d), pattern))
        files = list(dict.fromkeys(files))
        if len(files) > MAX_POLLED_FILES:
            files = []
        records = manifests(self._default_dirs())  # a recording's record.json, written after its profiles
        return list(dict.fromkeys([config, *([binary] if binary else []), *files, *records]))

    def _default_dirs(self) -> list[str]:
        return search_dirs(self.path) if not self.settings.profiles else []

    def watch_dirs(self) -> dict[str, tuple[str, ...]]:
        """Folders whose profile names are watched (a profile appearing, going or renamed there
        means "reload"; any other file there, an editor's swap file or a build's output, does not):
        discovery's folders without a `profiles` setting, and past `MAX_POLLED_FILES` profiles
        the folders holding them; each with the name patterns that count."""
        patterns = [*PROFILE_PATTERNS, *(os.path.basename(p) for p in self.settings.profiles)]
        dirs = dict.fromkeys(self._default_dirs(), tuple(PROFILE_PATTERNS))
        for p in self.settings.profiles:  # `profiles: [runs/*.gmon]`: a new run in runs/
            head, name = os.path.split(_abs(self.path, p))
            if glob.has_magic(name) and not glob.has_magic(head):
                dirs[head] = tuple(dict.fromkeys([*dirs.get(head, ()), name]))
        config = os.path.join(self.path, CONFIG_FILE)
        binary = self.loaded.binary if self.loaded is not None else None
        profiles = [p for p in self.inputs if p not in (config, binary)]
        if len(profiles) > MAX_POLLED_FILES:
            for d in sorted({os.path.dirname(p) for p in profiles}):
                dirs[d] = tuple(dict.fromkeys([*dirs.get(d, ()), *patterns]))
        return dirs


def watched_stamp(state: FolderState) -> dict[str, tuple[int, int]]:
    """What the poller compares: `stamp(state.watch_paths())` and, for each of `watch_dirs()`
    holding profiles, the names of those (`names_stamp`, keyed by the folder's path and a
    separator). Nothing else of a folder counts: the folder's own mtime changes with every file
    created in it (vim's swap files, git, a build). For a thread: at 100,000 routines the folder
    holds 2,000 files and this took 52-391 ms of the event loop beside the background work
    (bench/loopwatch.py)."""
    out = stamp(state.watch_paths())
    for d, patterns in state.watch_dirs().items():
        names = names_stamp(d, patterns)
        if names is not None:
            out[os.path.join(d, "")] = names
    return out


def names_stamp(directory: str, patterns: tuple[str, ...]) -> tuple[int, int] | None:
    """(how many, a hash of the sorted names) of the names in `directory` matching `patterns`;
    None when there are none (or it cannot be listed)."""
    import fnmatch
    import zlib

    try:
        names = sorted(n for n in os.listdir(directory) if any(fnmatch.fnmatchcase(n, p) for p in patterns))
    except OSError:
        return None
    if not names:
        return None
    return len(names), zlib.crc32("\0".join(names).encode("utf-8", "surrogateescape"))


def stamp(paths: list[str]) -> dict[str, tuple[int, int]]:
    """(size, mtime ns) of each path; (-1, -1) when missing."""
    out: dict[str, tuple[int, int]] = {}
    for p in paths:
        try:
            st = os.stat(p)
            out[p] = (st.st_size, st.st_mtime_ns)
        except OSError:
            out[p] = (-1, -1)
    return out
