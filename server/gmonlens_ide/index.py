"""Routines <-> source positions for one loaded profile (no LSP types here).

Contract:
- Lines are 1-based and columns 1-based character positions, as DWARF records them; `render`
  converts to LSP's 0-based UTF-16 positions.
- A routine's `Place` is its DWARF declaration (origin's source for clones and out-of-line inline
  copies), else the line table's file/line of its entry (as gprof -l has it); the path is the
  file on this machine when `SourceMapper` finds one, else the recorded path (`resolved` False).
- `routines_in(path)` is the routines whose `Place` is in that file: it decodes only the DWARF
  units whose file tables name the file (lazily, once), then adds the routines no unit-level DIE
  describes (lambdas, members of function-local classes, C++ functions folded by -fipa-icf)
  that the line table puts there.
- Thread-safe: every public method holds one lock (DWARF decoding is not re-entrant).
"""

from __future__ import annotations

import logging
import os
import threading
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from gmonlens.common.model import Arc, Profile, Routine
from gmonlens.dwarf.declarations import DwarfIndex, SourceDecl
from gmonlens.dwarf.line_table import LineTable
from gmonlens.load.sourcemap import SourceMapper
from gmonlens.profile.call_sites import CallFinder, arc_call_sites

from .srcnames import source_name

log = logging.getLogger("gmonlens")
T = TypeVar("T")
# The links of one answer (a hover's callers and callees, a call hierarchy's) decode DWARF units
# within the request up to this many bytes of .debug_info in all (`info_reader`: 0.1-0.3 us a byte,
# so at most some 70 ms; a unit of a hundred functions is 10 KB; the main.c of
# bench/scale_bench.py, which declares every routine, is 192 KB at 25,000 routines and 770 KB at
# 100,000); the other links point at the line of the routine's entry. (With a budget per link, a
# hover on the 50,000-routine program decoded three or four units in pyelftools: 216 ms.)
LINK_DECODE_BYTES = 256 * 1024


def link_budget() -> list[int]:
    """A fresh budget for one answer's links (`SourceIndex.link_place`): LINK_DECODE_BYTES."""
    return [LINK_DECODE_BYTES]


class LineLookup(Protocol):
    def lookup(self, address: int) -> tuple[str, int] | None: ...


@dataclass(frozen=True, slots=True)
class Place:
    path: str  # file on this machine (resolved) or as recorded
    resolved: bool
    line: int  # 1-based, 0 when unknown
    column: int  # 1-based, 0 when unknown
    name: str  # the identifier written at the declaration (no template arguments)


def _norm(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


class SourceIndex:
    def __init__(
        self,
        profile: Profile,
        dwarf: DwarfIndex | None,
        mapper: SourceMapper,
        line_table: Callable[[], LineLookup | None] | None = None,
        call_finder: Callable[[], CallFinder | None] | None = None,
        routine_lines: Callable[[], dict[int, tuple[str, int]]] | None = None,
        lines_of: Callable[[list[int], threading.RLock], dict[int, tuple[str, int]]] | None = None,
    ) -> None:
        self.profile = profile
        self._dwarf = dwarf
        self._mapper = mapper
        self._line_table_factory = line_table
        self._line_table: LineLookup | None = None
        self._line_table_tried = False
        self._finder_factory = call_finder
        self._finder: CallFinder | None = None
        self._finder_tried = False
        self._entry_lines_factory = routine_lines
        self._entry_lines: dict[int, tuple[str, int]] | None = None
        self._unit_entries: dict[int, tuple[str, int] | None] = {}  # from the units' programs
        self._lines_of = lines_of
        self._lock: threading.RLock = threading.RLock()
        self._io_lock = threading.Lock()  # the line table, read once
        self._finder_lock = threading.Lock()  # the code, read once (not behind the line table)
        self._entry_lock = threading.Lock()  # the routines' entry lines, read once
        starts = sorted((r.address, r.id) for r in profile.routines)
        self._starts = [a for a, _ in starts]
        self._start_ids = [i for _, i in starts]
        self._places: dict[int, Place | None] = {}
        self._by_file: dict[str, list[tuple[int, Place]]] = {}
        self._recorded_for: dict[str, set[str]] | None = None
        self._names: dict[str, list[int]] | None = None
        self._symbols: dict[str, list[int]] | None = None
        self._by_line_file: dict[str, list[int]] | None = None

    @property
    def dwarf(self) -> DwarfIndex | None:
        return self._dwarf

    @property
    def lock(self) -> threading.RLock:
        return self._lock

    @property
    def mapper(self) -> SourceMapper:
        return self._mapper

    def resolve(self, recorded: str) -> str | None:
        with self._lock:
            return self._mapper.resolve(recorded)

    # ---- address -> routine --------------------------------------------------------------------

    def routine_at_address(self, pc: int) -> int | None:
        i = bisect_right(self._starts, pc) - 1
        if i < 0:
            return None
        rid = self._start_ids[i]
        return rid if pc <= self.profile.routines[rid].end_address else None

    def _routines_in_ranges(self, ranges: Iterable[tuple[int, int]]) -> list[int]:
        out: list[int] = []
        for lo, hi in ranges:
            i = bisect_right(self._starts, lo - 1)
            while i < len(self._starts) and self._starts[i] < hi:
                out.append(self._start_ids[i])
                i += 1
        return out

    # ---- places --------------------------------------------------------------------------------

    def _resolve(self, recorded: str) -> tuple[str, bool]:
        hit = self._mapper.resolve(recorded)
        return (hit, True) if hit else (recorded, False)

    def _place_from_decl(self, r: Routine, decl: SourceDecl) -> Place | None:
        if not decl.file:
            return None
        path, ok = self._resolve(decl.file)
        return Place(path, ok, decl.line, decl.column, source_name(decl.name, r.display_name))

    def place(self, rid: int) -> Place | None:
        """Where routine `rid` is declared (see module contract)."""
        with self._lock:
            if rid in self._places:
                return self._places[rid]
            r = self.profile.routines[rid]
            result: Place | None = None
            dwarf = self._dwarf
            if dwarf is not None:
                decl = self._guard(lambda: dwarf.decl_at(r.address))
                if decl is None:  # gcc's identical-code folding: the DIE of this name has no code
                    names = tuple(dict.fromkeys((r.name, source_name("", r.name))))
                    decl = self._guard(lambda: dwarf.decl_named(names, r.address))
                if decl is not None:
                    result = self._place_from_decl(r, decl)
            at = self._line_of(r) if result is None else None
            if at is not None:
                path, ok = self._resolve(at[0])
                result = Place(path, ok, at[1], 0, source_name("", r.display_name))
            self._places[rid] = result
            return result

    def link_place(self, rid: int, budget: list[int] | None = None) -> Place | None:
        """Where a link to routine `rid` from another routine's figures (a hover's callers and
        callees, the call hierarchy's) points, cheaply enough for a request: `place(rid)` when it
        is known or its compilation unit is already decoded or fits the request's `budget` (bytes
        of .debug_info still to decode, shared by the request's links and spent here; one of
        LINK_DECODE_BYTES when not given); otherwise the line table's line of the routine's entry
        (the unit, e.g. a `main.c` that declares 100,000 functions, is decoded by the warm-up or a
        later lookup, and `place` answers from then on)."""
        if budget is None:
            budget = link_budget()
        with self._lock:
            if rid in self._places:
                return self._places[rid]
            r = self.profile.routines[rid]
            dwarf = self._dwarf
            pending = self._guard(lambda: dwarf.pending_bytes(r.address)) if dwarf is not None else 0
            if not pending or pending <= budget[0]:
                budget[0] -= pending or 0
                return self.place(rid)
            at = self._line_of(r)
            if at is None:
                return self.place(rid)
            path, ok = self._resolve(at[0])
            return Place(path, ok, at[1], 0, source_name("", r.display_name))

    def _line_of(self, r: Routine) -> tuple[str, int] | None:
        """The line table's (file, line) of the routine's entry, as gprof -l has it: the engine's
        (static routines) or looked up here. A global C++ function that gcc folded into an
        identical one (-fipa-icf) keeps its code but its DIE has none, and only a bare
        declaration's line (libsass's Prelexer::re_pseudo_selector): the line table places it.
        Until every routine's entry line is read (never on a cold load: only `_line_table_file`
        asks for them), from the line programs of only the units holding the entry
        (`Program.lines_of`: the same answer; the whole table once the heat has read it)."""
        if r.file and r.line:
            return r.file, r.line
        if "thunk to " in r.display_name:  # a compiler-made entry point: no source of its own
            return None
        if self._entry_lines is None and self._lines_of is not None and r.address not in self._unit_entries:
            try:  # the units holding it: not every routine's entry line for one (a link, a hover)
                with self._lock:
                    self._unit_entries[r.address] = self._lines_of([r.address], self._lock).get(r.address)
            except Exception:  # a broken line program or DWARF: every routine's entry line instead
                self._lines_of = None
        if self._entry_lines is None and r.address in self._unit_entries:
            hit = self._unit_entries[r.address]
            return hit if hit is not None and hit[1] > 0 else None
        entries = self._routine_lines()
        if entries is not None:
            hit = entries.get(r.address)
            return hit if hit is not None and hit[1] > 0 else None
        table = self._lines()
        hit = table.lookup(r.address) if table is not None else None
        return hit if hit is not None and hit[1] > 0 else None

    def _recorded_paths_for(self, path: str) -> set[str]:
        if self._recorded_for is None:
            dwarf = self._dwarf

            def read() -> dict[str, set[str]]:
                table: dict[str, set[str]] = {}
                for unit in dwarf.units() if dwarf is not None else ():
                    for recorded in (unit.name, *unit.files):
                        if recorded:
                            hit = self._mapper.resolve(recorded)
                            if hit:
                                table.setdefault(_norm(hit), set()).add(recorded)
                return table

            self._recorded_for = self._guard(read) or {}
        return self._recorded_for.get(_norm(path), set())

    def knows(self, path: str) -> bool:
        """Whether the DWARF units name the file `path` (cheap once the file tables are read)."""
        with self._lock:
            return bool(self._recorded_paths_for(path))

    def routines_in(self, path: str) -> list[tuple[int, Place]]:
        """Routines declared in the file `path`, as (routine id, place), by line."""
        key = _norm(path)
        cached = self._by_file.get(key)
        if cached is not None:
            return cached
        with self._lock:
            cached = self._by_file.get(key)
            if cached is not None:
                return cached
            dwarf = self._dwarf
            found: dict[int, Place] | None = None
            if dwarf is not None:
                found = self._guard(lambda: self._declared_in(dwarf, path) if dwarf.has_debug_info else None)
            if found is None:
                found = {}
                for r in self.profile.routines:
                    if r.file and r.line:
                        hit = self._mapper.resolve(r.file)
                        if hit and _norm(hit) == key:
                            found[r.id] = Place(hit, True, r.line, 0, source_name("", r.display_name))
            result = sorted(found.items(), key=lambda item: (item[1].line, item[0]))
            self._by_file[key] = result
            return result

    def _declared_in(self, dwarf: DwarfIndex, path: str) -> dict[int, Place]:
        key = _norm(path)
        found: dict[int, Place] = {}
        recorded = self._recorded_paths_for(path)
        for unit in dwarf.units_naming(recorded):
            for decl in dwarf.decls_of_unit(unit):
                if decl.file not in recorded:
                    continue
                # a DIE without code is placed by name (`place` decides whether it is that routine's)
                rids = self._routines_in_ranges(decl.ranges) if decl.ranges else self._by_symbol(decl)
                for rid in rids:
                    if rid in found:
                        continue
                    # one place per routine, the declaration at its address: a routine that
                    # two units describe gets one lens, in one file
                    place = self.place(rid)
                    if place is not None and _norm(place.path) == key:
                        found[rid] = place
        # routines no unit-level DIE describes (members of function-local classes, lambdas: their
        # DIEs sit inside a function's body) are placed by the line table: here if it says so
        units = self._unit_line_file(dwarf, key, recorded)
        for rid in units if units is not None else self._line_table_file(key):
            if rid not in found:
                place = self.place(rid)
                if place is not None and _norm(place.path) == key:
                    found[rid] = place
        return found

    def _unit_line_file(self, dwarf: DwarfIndex, key: str, recorded: set[str]) -> list[int] | None:
        """Routines whose entry the line table puts in the file `key` (normalised), looked up
        in the line programs of only the units naming the file (`Program.lines_of`): a row's
        file is one of its unit's file table, and a routine's entry row is in the program of a
        unit whose code holds it. None when every routine's entry line is read already (or
        cannot be read this way): `_line_table_file` answers."""
        if self._entry_lines is not None or self._lines_of is None or self._by_line_file is not None:
            return None
        try:
            ranges = dwarf.unit_code_ranges(dwarf.units_naming(recorded))
            rids = list(dict.fromkeys(self._routines_in_ranges(ranges)))
            routines = self.profile.routines
            need = [
                routines[rid].address
                for rid in rids
                if not (routines[rid].file and routines[rid].line)
                and routines[rid].address not in self._unit_entries
            ]
            if need:
                found = self._lines_of(need, self._lock)
                for a in need:
                    self._unit_entries[a] = found.get(a)
        except Exception:  # a broken line program or DWARF: every routine's entry line instead
            self._lines_of = None
            return None
        out = []
        for rid in rids:
            at = self._line_of(self.profile.routines[rid])
            hit = self._mapper.resolve(at[0]) if at is not None else None
            if hit and _norm(hit) == key:
                out.append(rid)
        return out

    def _line_table_file(self, key: str) -> list[int]:
        """Routines whose entry the line table puts in the file `key` (normalised)."""
        if self._by_line_file is None:
            table: dict[str, list[int]] = {}
            norms: dict[str, str] = {}
            for r in self.profile.routines:
                at = self._line_of(r)
                hit = self._mapper.resolve(at[0]) if at is not None else None
                if hit:
                    norm = norms.get(hit) or norms.setdefault(hit, _norm(hit))
                    table.setdefault(norm, []).append(r.id)
            self._by_line_file = table
        return self._by_line_file.get(key, [])

    def _by_symbol(self, decl: SourceDecl) -> list[int]:
        """Routines whose symbol (or its clone's base name) is the name a codeless DIE declares."""
        if self._symbols is None:
            table: dict[str, list[int]] = {}
            for r in self.profile.routines:
                for n in dict.fromkeys((r.name, source_name("", r.name))):
                    table.setdefault(n, []).append(r.id)
            self._symbols = table
        return self._symbols.get(decl.linkage_name or decl.name, [])

    def _guard(self, query: Callable[[], T]) -> T | None:
        """Run a DWARF query. A malformed section (pyelftools raises many kinds of errors) turns
        DWARF off for this load, with one warning: places then come from the line table."""
        try:
            return query()
        except Exception as exc:
            if self._dwarf is not None:
                log.warning("DWARF unreadable, routines placed by the line table: %s", exc)
            self._dwarf = None
            return None

    # ---- names ---------------------------------------------------------------------------------

    def routines_named(self, word: str) -> list[int]:
        """Routines whose source identifier is `word`, hottest first."""
        with self._lock:
            if self._names is None:
                names: dict[str, list[int]] = {}
                for r in self.profile.routines:
                    names.setdefault(source_name("", r.display_name), []).append(r.id)
                    if r.name != r.display_name:
                        names.setdefault(r.name, []).append(r.id)
                self._names = names
            ids = list(dict.fromkeys(self._names.get(word, [])))
        routines = self.profile.routines
        return sorted(ids, key=lambda i: (-routines[i].total_ticks, -routines[i].calls, i))

    # ---- call sites ----------------------------------------------------------------------------

    def _lines(self) -> LineLookup | None:
        """The line table, read once (under its own lock: reading it must not block other queries)."""
        with self._io_lock:
            if not self._line_table_tried:
                if self._line_table_factory is not None:
                    try:
                        self._line_table = self._line_table_factory()
                    except Exception:  # a broken line table only costs call-site ranges
                        self._line_table = None
                self._line_table_tried = True
        return self._line_table

    def _routine_lines(self) -> dict[int, tuple[str, int]] | None:
        """The line table's (file, line) at every routine symbol's address, as `lookup` gives it
        (`Program.routine_lines`: the load read it; far cheaper than the whole table, which the
        first lenses then need not wait for). None without one: the whole table answers."""
        if self._entry_lines is None and self._entry_lines_factory is not None:
            with self._entry_lock:  # not _io_lock: the whole table's reading must not hold this up
                if self._entry_lines is None and self._entry_lines_factory is not None:
                    try:
                        self._entry_lines = self._entry_lines_factory()
                    except Exception:  # a broken line table: the whole table is tried instead
                        self._entry_lines_factory = None
        return self._entry_lines

    def line_table(self) -> LineTable | None:
        """The binary's line table (read once; None when unreadable)."""
        table = self._lines()
        return table if isinstance(table, LineTable) else None

    def prepare_lines(self) -> None:
        """Read the line table and the code now (call sites need them)."""
        self._lines()
        self._calls()

    def _calls(self) -> CallFinder | None:
        with self._finder_lock:
            if not self._finder_tried:
                if self._finder_factory is not None:
                    try:
                        self._finder = self._finder_factory()
                    except Exception:  # without it, call sites fall back to the recorded address
                        self._finder = None
                self._finder_tried = True
        return self._finder

    def call_site_lines(self, arc: Arc) -> list[tuple[str, int]]:
        """(file, 1-based line) of each call site of `arc` (`call_sites.call_site`: the call
        instruction behind each recorded return address, the rule the exports share),
        deduplicated, in record order."""
        finder = self._calls()
        with self._lock:
            sites = [address for address, _count in arc_call_sites(self.profile, arc, finder)]
        found = self._site_lines(sites)
        with self._lock:
            out: dict[tuple[str, int], None] = {}
            for address in sites:
                hit = found.get(address)
                if hit is not None and hit[1] > 0:
                    path, _ok = self._resolve(hit[0])
                    out[(path, hit[1])] = None
            return list(out)

    def _site_lines(self, sites: list[int]) -> dict[int, tuple[str, int]]:
        """The line table's (file, line) at each address of `sites` that a row covers: from the
        lines of only the units holding them (`Program.lines_of`, the DWARF index under this
        index's lock) until the whole table is read, which then answers."""
        if self._lines_of is not None and not self._line_table_tried:
            try:
                return self._lines_of(sites, self._lock)
            except Exception:  # a broken line program or DWARF: the whole table is tried instead
                self._lines_of = None
        table = self._lines()
        if table is None:
            return {}
        return {a: hit for a in sites if (hit := table.lookup(a)) is not None}

    def body_ends(self, items: list[tuple[int, Place]]) -> dict[int, int]:
        """Routine id -> the 1-based line of its last instruction (the end of its body as built),
        for the routines of `items` whose last instruction is in the file of their place and not
        above it."""
        routines = self.profile.routines
        ends = self._site_lines([routines[rid].end_address for rid, _ in items])
        out: dict[int, int] = {}
        with self._lock:
            for rid, place in items:
                hit = ends.get(routines[rid].end_address)
                if hit is not None and hit[1] >= place.line and self._resolve(hit[0])[0] == place.path:
                    out[rid] = hit[1]
        return out

    def routine_at(self, path: str, line: int, word: str | None) -> int | None:
        """The routine named at (path, 1-based line): the first of `routines_at`."""
        rids = self.routines_at(path, line, word)
        return rids[0] if rids else None

    def routines_at(self, path: str, line: int, word: str | None) -> list[int]:
        """The routines named at (path, 1-based line), hottest first: those declared there and
        called `word` (several: a template's instances, or a header included several times); else
        a call from the routine enclosing that line whose recorded call site is on that line; else
        every routine declared there, whatever `word` is (names a macro makes: `f_##name` in an
        X-macro list, `LIBM_DD(floor)`, a `#define` rename such as a flex scanner's `yy` prefix,
        so no identifier written on the line is the routine's name); else (by name) the hottest
        routine called `word`, preferring those declared in `path`."""
        here = self.routines_in(path)
        on_line = [rid for rid, p in here if p.line == line]
        named = [rid for rid in on_line if word and self._place_name(rid) == word]
        if named:
            return self._hottest(named)
        called = self._called_on_line(here, path, line, word) if word else None
        if called is not None:
            return [called]
        if on_line:
            return self._hottest(on_line)
        named = self.routines_named(word) if word else []
        if not named:
            return []
        local = {rid for rid, _ in here}
        in_file = [rid for rid in named if rid in local]
        return [in_file[0] if in_file else named[0]]

    def _hottest(self, rids: list[int]) -> list[int]:
        rs = self.profile.routines
        return sorted(rids, key=lambda i: (-rs[i].prop_self_ticks, -rs[i].total_ticks, -rs[i].calls))

    def _called_on_line(self, here: list[tuple[int, Place]], path: str, line: int, word: str) -> int | None:
        """The routine called `word` that the routine enclosing `line` calls from that line."""
        enclosing = [rid for rid, p in here if 0 < p.line <= line]
        if not enclosing:
            return None
        best_line = max(self._place_line(rid) for rid in enclosing)
        key = _norm(path)
        for parent in (rid for rid in enclosing if self._place_line(rid) == best_line):
            for arc_pos in self.profile.children[parent]:
                arc = self.profile.arcs[arc_pos]
                if source_name("", self.profile.routines[arc.child].display_name) != word:
                    continue
                if any(_norm(p) == key and ln == line for p, ln in self.call_site_lines(arc)):
                    return arc.child
        return None

    def _place_name(self, rid: int) -> str:
        p = self.place(rid)
        return p.name if p else ""

    def _place_line(self, rid: int) -> int:
        p = self.place(rid)
        return p.line if p else 0

    def warm(self, paths: Iterable[str]) -> None:
        """Decode the units of `paths` ahead of requests."""
        for p in paths:
            self.routines_in(p)
