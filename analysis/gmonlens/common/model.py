"""Frozen domain records of the engine.

Units: times are kept in *ticks* (histogram samples, possibly fractional after gprof's bin-overlap
credit) because gprof's printed figures are computed from ticks in a fixed order; divide by
``Profile.hz`` for seconds (``Profile.seconds``). Addresses are link-time addresses as in the ELF
file. Routine ids are positions in the address-sorted symbol table.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, overload

from gmonlens.common.units import seconds


@dataclass(frozen=True, slots=True)
class ElfSymbol:
    """One raw `.symtab` entry, as far as gprof's routine rules need it."""

    name: str
    name_offset: int  # st_name: offset of the name in `.strtab` (for the static-name filter)
    value: int
    class_letter: str  # BFD/nm class letter (T, t, W, U, D, ...)
    is_function: bool  # STT_FUNC


@dataclass(frozen=True, slots=True)
class CodeSection:
    """An executable section's bytes at its link-time address."""

    name: str
    address: int
    data: bytes


@dataclass(frozen=True, slots=True)
class Symbol:
    """A routine of gprof's symbol table (after the §3 keep/alias rules)."""

    name: str  # raw (mangled) symbol name
    address: int
    end_address: int  # inclusive: next symbol's address - 1 (gprof's range rule)
    is_function: bool
    is_static: bool
    file: str | None = None  # source file of `address` per the DWARF line table, as recorded there
    line: int = 0  # 1-based line of `address`, 0 when unknown
    is_line: bool = False  # a -l line symbol (report_lines.py), not a routine


@dataclass(frozen=True, slots=True)
class HistogramRecord:
    """One time histogram: `counts[i]` samples in bin i of [low_pc, high_pc) (an `array` of
    unsigned counts as read, or summed over several profiles)."""

    low_pc: int
    high_pc: int
    counts: Sequence[int]
    prof_rate: int
    dimension: str = "seconds"
    dimension_abbrev: str = "s"

    @property
    def scale(self) -> float:
        """Units (2 bytes) per bin, exactly as gprof computes it."""
        return float((self.high_pc - self.low_pc) // 2) / len(self.counts) if self.counts else 0.0


@dataclass(frozen=True, slots=True)
class RawArc:
    """One call-graph arc record: `from_pc` is the return address in the caller, `self_pc` a pc
    inside the callee (glibc records the return address of the callee's mcount call)."""

    from_pc: int
    self_pc: int
    count: int


class RawArcs(Sequence[RawArc]):
    """Arc records as three columns of unsigned 64-bit machine words (`from_pcs`, `self_pcs`,
    `counts`: 24 bytes a record, where a `RawArc` object with its ints takes over 130); a
    `RawArc` is made on demand for each record asked. Immutable once made; equal to another
    sequence of the same records in the same order."""

    __slots__ = ("counts", "from_pcs", "self_pcs")

    def __init__(self, records: Iterable[tuple[int, int, int]] = ()) -> None:
        self.from_pcs, self.self_pcs, self.counts = array("Q"), array("Q"), array("Q")
        for frm, slf, cnt in records:
            self.from_pcs.append(frm)
            self.self_pcs.append(slf)
            self.counts.append(cnt)

    @classmethod
    def from_columns(cls, from_pcs: array[int], self_pcs: array[int], counts: array[int]) -> RawArcs:
        """Records from equally long "Q" columns (taken, not copied)."""
        if not len(from_pcs) == len(self_pcs) == len(counts):
            raise ValueError("arc columns of different lengths")
        out = cls()
        out.from_pcs, out.self_pcs, out.counts = from_pcs, self_pcs, counts
        return out

    @classmethod
    def joined(cls, parts: Sequence[Sequence[RawArc]]) -> RawArcs:
        """The records of `parts`, one after the other (a lone RawArcs itself, not a copy)."""
        if len(parts) == 1 and isinstance(parts[0], RawArcs):
            return parts[0]
        out = cls()
        for part in parts:
            f, s, c = columns(part)
            out.from_pcs.extend(f)
            out.self_pcs.extend(s)
            out.counts.extend(c)
        return out

    def __len__(self) -> int:
        return len(self.counts)

    @overload
    def __getitem__(self, i: int) -> RawArc: ...
    @overload
    def __getitem__(self, i: slice) -> RawArcs: ...
    def __getitem__(self, i: int | slice) -> RawArc | RawArcs:
        if isinstance(i, slice):
            return RawArcs.from_columns(self.from_pcs[i], self.self_pcs[i], self.counts[i])
        return RawArc(self.from_pcs[i], self.self_pcs[i], self.counts[i])

    def __iter__(self) -> Iterator[RawArc]:
        for f, s, c in zip(self.from_pcs, self.self_pcs, self.counts, strict=True):
            yield RawArc(f, s, c)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RawArcs):
            return columns(self) == columns(other)
        if isinstance(other, (tuple, list)):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable columns inside: not hashable

    def __repr__(self) -> str:
        return f"RawArcs({[(a.from_pc, a.self_pc, a.count) for a in self]!r})"


def columns(arcs: Sequence[RawArc]) -> tuple[array[int], array[int], array[int]]:
    """(from_pcs, self_pcs, counts) of any sequence of arc records; a `RawArcs`' own columns (not
    copies: do not change them)."""
    if isinstance(arcs, RawArcs):
        return arcs.from_pcs, arcs.self_pcs, arcs.counts
    return (
        array("Q", [a.from_pc for a in arcs]),
        array("Q", [a.self_pc for a in arcs]),
        array("Q", [a.count for a in arcs]),
    )


@dataclass(frozen=True, slots=True)
class GmonData:
    """The accumulated content of one or more profile files, summed as gprof sums them."""

    histograms: tuple[HistogramRecord, ...] = ()
    arcs: Sequence[RawArc] = ()  # record order across files (a `RawArcs` when read from files)
    hz: int = 0  # 0 when no histogram was read
    dimension: str = "seconds"
    dimension_abbrev: str = "s"
    has_histogram: bool = False
    has_call_graph: bool = False
    bb_count: int = 0  # basic-block records seen (reported, not used)
    last_hist_header: bytes = b""  # gprof's in-memory copy of the last histogram header (for -s)

    @property
    def scale(self) -> float:
        return self.histograms[0].scale if self.histograms else 0.0


@dataclass(frozen=True, slots=True)
class Routine:
    """A routine's figures, exactly as gprof computes them."""

    id: int  # position in address order
    name: str  # raw (mangled) name: sort key
    display_name: str  # demangled for display, as gprof shows it
    address: int
    end_address: int  # inclusive
    is_static: bool
    is_function: bool
    file: str | None  # DWARF line-table file of `address` (None without debug info)
    line: int  # 1-based, 0 when unknown
    self_ticks: float  # histogram credit (gprof's `time`)
    child_ticks: float  # time received from callees, not scaled by fract (flat total/call)
    prop_self_ticks: float  # pself: self time scaled by fract (call graph)
    prop_child_ticks: float  # pchild: children time scaled by fract (call graph)
    calls: int  # calls from other routines (gprof's reduced ncalls)
    self_calls: int  # recursive calls (self arc count)
    cycle: int  # cycle number, 0 when not in a cycle
    index: int  # call-graph index (1-based); printed entries have gaps
    printed: bool  # gprof's print_flag (call graph entry shown)
    in_flat: bool  # allowed in the flat profile by -p/-P
    fract: float  # share of the routine's time that propagates (1.0 normally; -F/-E change it)
    is_line: bool = False  # a -l line symbol: never printed as a call-graph entry

    @property
    def total_ticks(self) -> float:
        return self.prop_self_ticks + self.prop_child_ticks

    @property
    def has_figures(self) -> bool:
        """Self time, calls (recursive ones too) or time from callees: what gprof's report shows
        for it is not all zero (the routines the editor gives a lens and the status counts)."""
        return bool(self.calls or self.self_calls or self.self_ticks or self.total_ticks)


@dataclass(frozen=True, slots=True)
class Arc:
    """A caller -> callee arc after tallying (duplicates summed) and propagation."""

    parent: int  # routine id
    child: int  # routine id
    count: int
    self_ticks: float  # callee self time propagated along the arc (scaled by parent's fract)
    child_ticks: float  # callee children time propagated along the arc
    is_static: bool = False  # found only in the machine code (-c); count 0, no time
    call_sites: tuple[tuple[int, int], ...] = ()  # (return address in caller, count) as recorded

    @property
    def is_self(self) -> bool:
        return self.parent == self.child


class ArcTable(Sequence[Arc]):
    """A profile's arcs as columns (position = gprof's arc order), an `Arc` record made on demand
    for each arc asked: about 60 bytes an arc where a record with its floats and call-site tuples
    takes about 300. Columns: `parent`, `child` (routine ids), `counts`, `self_ticks`,
    `child_ticks`, `static` (0/1 bytes), and the call sites grouped by arc: arc i's are
    `site_pc[site_at[i]:site_at[i + 1]]` with `site_count` alike. Immutable once made; equal to
    any sequence of the same records."""

    __slots__ = (
        "child",
        "child_ticks",
        "counts",
        "parent",
        "self_ticks",
        "site_at",
        "site_count",
        "site_pc",
        "static",
    )

    def __init__(self, arcs: Iterable[Arc] = ()) -> None:
        self.parent, self.child = array("q"), array("q")
        self.counts: list[int] = []
        self.self_ticks, self.child_ticks = array("d"), array("d")
        self.static = bytearray()
        self.site_at, self.site_pc = array("q", [0]), array("Q")
        self.site_count: list[int] = []
        for a in arcs:
            self.parent.append(a.parent)
            self.child.append(a.child)
            self.counts.append(a.count)
            self.self_ticks.append(a.self_ticks)
            self.child_ticks.append(a.child_ticks)
            self.static.append(1 if a.is_static else 0)
            for pc, n in a.call_sites:
                self.site_pc.append(pc)
                self.site_count.append(n)
            self.site_at.append(len(self.site_pc))

    def __len__(self) -> int:
        return len(self.counts)

    @overload
    def __getitem__(self, i: int) -> Arc: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[Arc, ...]: ...
    def __getitem__(self, i: int | slice) -> Arc | tuple[Arc, ...]:
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self))))
        if i < 0:
            i += len(self.counts)
        lo, hi = self.site_at[i], self.site_at[i + 1]
        sites = () if lo == hi else tuple(zip(self.site_pc[lo:hi], self.site_count[lo:hi], strict=True))
        return Arc(
            self.parent[i], self.child[i], self.counts[i], self.self_ticks[i], self.child_ticks[i],
            bool(self.static[i]), sites,
        )  # fmt: skip

    def __iter__(self) -> Iterator[Arc]:
        for i in range(len(self.counts)):
            yield self[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (ArcTable, tuple, list)):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ArcTable({list(self)!r})"

    def to_plain(self) -> tuple[Any, ...]:
        """The columns as bytes and tuples of ints (for a disk cache; `from_plain` reads it)."""
        return (
            self.parent.tobytes(), self.child.tobytes(), tuple(self.counts), self.self_ticks.tobytes(),
            self.child_ticks.tobytes(), bytes(self.static), self.site_at.tobytes(), self.site_pc.tobytes(),
            tuple(self.site_count),
        )  # fmt: skip

    @classmethod
    def from_plain(cls, value: Any, routines: int) -> ArcTable:
        """An ArcTable from `to_plain` data, after checking its shape: types, equal lengths, routine
        ids below `routines`, call-site groups in order (raises ValueError)."""

        def ok(cond: bool) -> None:
            if not cond:
                raise ValueError("arc table of the wrong shape")

        ok(isinstance(value, tuple) and len(value) == 9)
        ok(all(type(value[k]) is bytes for k in (0, 1, 3, 4, 5, 6, 7)))
        ok(type(value[2]) is tuple and type(value[8]) is tuple)
        out = cls()
        for col, k in ((out.parent, 0), (out.child, 1), (out.self_ticks, 3), (out.child_ticks, 4),
                       (out.site_at, 6), (out.site_pc, 7)):  # fmt: skip
            ok(len(value[k]) % col.itemsize == 0)
            if k == 6:
                del col[:]
            col.frombytes(value[k])
        out.counts, out.static, out.site_count = list(value[2]), bytearray(value[5]), list(value[8])
        m, at = len(out.counts), out.site_at
        ok(len(out.parent) == len(out.child) == len(out.self_ticks) == len(out.child_ticks) == m)
        ok(len(out.static) == m and len(at) == m + 1 and set(out.static) <= {0, 1})
        ok(set(map(type, out.counts)) <= {int} and set(map(type, out.site_count)) <= {int})
        ok(len(out.site_pc) == len(out.site_count) and at[0] == 0 and at[m] == len(out.site_pc))
        ok(all(a <= b for a, b in pairwise(at)))
        ok(m == 0 or (min(out.parent) >= 0 and min(out.child) >= 0 and max(out.parent) < routines))
        ok(m == 0 or max(out.child) < routines)
        return out


def as_table(arcs: Sequence[Arc]) -> ArcTable:
    """`arcs` as an ArcTable: itself when it is one (a computed profile's), else its columns made."""
    return arcs if isinstance(arcs, ArcTable) else ArcTable(arcs)


@dataclass(frozen=True, slots=True)
class Cycle:
    """A cycle collapsed into one node (gprof's `<cycle N as a whole>`)."""

    number: int
    index: int  # call-graph index
    members: tuple[int, ...]  # routine ids in chain order (head first)
    member_order: tuple[int, ...]  # routine ids in print order
    self_ticks: float  # sum of members' self time (with fract != 0)
    prop_self_ticks: float
    prop_child_ticks: float
    calls: int  # calls from outside the cycle
    self_calls: int  # calls between members (self arcs excluded)
    printed: bool

    @property
    def total_ticks(self) -> float:
        return self.prop_self_ticks + self.prop_child_ticks


@dataclass(frozen=True, slots=True)
class GraphEntry:
    """A position in gprof's call-graph order: a routine (cycle == 0) or a cycle object."""

    routine: int = -1  # routine id, or -1 for a cycle
    cycle: int = 0  # cycle number when routine == -1


class GraphOrder(Sequence[GraphEntry]):
    """gprof's call-graph order as one array (a routine id, or -N for cycle N), each `GraphEntry`
    made on demand: 8 bytes an entry where a record takes over 60, and nothing for the garbage
    collector to walk. Immutable once made; equal to any sequence of the same entries."""

    __slots__ = ("codes",)

    def __init__(self, entries: Iterable[GraphEntry] = ()) -> None:
        self.codes = array("q", (e.routine if e.routine >= 0 else -e.cycle for e in entries))

    @classmethod
    def of_codes(cls, codes: array[int]) -> GraphOrder:
        """From codes (routine id >= 0, or -N for cycle N), taken as they are."""
        out = cls()
        out.codes = codes
        return out

    def __len__(self) -> int:
        return len(self.codes)

    @overload
    def __getitem__(self, i: int) -> GraphEntry: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[GraphEntry, ...]: ...
    def __getitem__(self, i: int | slice) -> GraphEntry | tuple[GraphEntry, ...]:
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self))))
        e = self.codes[i]
        return GraphEntry(e, 0) if e >= 0 else GraphEntry(-1, -e)

    def __iter__(self) -> Iterator[GraphEntry]:
        for e in self.codes:
            yield GraphEntry(e, 0) if e >= 0 else GraphEntry(-1, -e)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (GraphOrder, tuple, list)):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"GraphOrder({list(self)!r})"

    def to_plain(self) -> bytes:
        return self.codes.tobytes()

    @classmethod
    def from_plain(cls, value: Any, routines: int, cycles: int) -> GraphOrder:
        """From `to_plain` bytes, each entry a routine id below `routines` or a cycle number up
        to `cycles` (raises ValueError)."""
        if type(value) is not bytes or len(value) % 8:
            raise ValueError("graph order of the wrong shape")
        codes = array("q")
        codes.frombytes(value)
        if codes and (max(codes) >= routines or min(codes) < -cycles):
            raise ValueError("graph order entry out of range")
        return cls.of_codes(codes)


class Groups(Sequence[tuple[int, ...]]):
    """A tuple of ints for each of n keys, held as two arrays: group r is
    `ids[at[r]:at[r + 1]]` (`Profile.parents`/`children`: arc positions of each routine). A
    group's tuple is made when asked. Immutable once made; equal to any sequence of the same
    tuples."""

    __slots__ = ("at", "ids")

    def __init__(self, groups: Iterable[Sequence[int]] = ()) -> None:
        self.at, self.ids = array("q", [0]), array("q")
        for g in groups:
            self.ids.extend(g)
            self.at.append(len(self.ids))

    @classmethod
    def of_arrays(cls, at: array[int], ids: array[int]) -> Groups:
        out = cls()
        out.at, out.ids = at, ids
        return out

    @classmethod
    def by_key(cls, keys: Sequence[int], n: int) -> Groups:
        """Positions 0..len(keys)-1 grouped by their key (0..n-1), each group in position order:
        group r holds the positions i with keys[i] == r."""
        at = array("q", bytes(8 * (n + 1)))
        for k in keys:
            at[k + 1] += 1
        total = 0
        for r in range(n + 1):
            total += at[r]
            at[r] = total
        fill = array("q", at)
        ids = array("q", bytes(8 * len(keys)))
        for i, k in enumerate(keys):
            ids[fill[k]] = i
            fill[k] += 1
        return cls.of_arrays(at, ids)

    def __len__(self) -> int:
        return len(self.at) - 1

    @overload
    def __getitem__(self, i: int) -> tuple[int, ...]: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[tuple[int, ...], ...]: ...
    def __getitem__(self, i: int | slice) -> tuple[int, ...] | tuple[tuple[int, ...], ...]:
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self))))
        if i < 0:
            i += len(self.at) - 1
        if not 0 <= i < len(self.at) - 1:
            raise IndexError("group index out of range")
        return tuple(self.ids[self.at[i] : self.at[i + 1]])

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        at, ids = self.at, self.ids
        for i in range(len(at) - 1):
            yield tuple(ids[at[i] : at[i + 1]])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Groups, tuple, list)):
            return len(other) == len(self) and all(a == tuple(b) for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Groups({list(self)!r})"

    def to_plain(self) -> tuple[bytes, bytes]:
        return self.at.tobytes(), self.ids.tobytes()

    @classmethod
    def from_plain(cls, value: Any, groups: int, bound: int) -> Groups:
        """From `to_plain` data: `groups` groups of ints in [0, bound) (raises ValueError)."""

        def ok(cond: bool) -> None:
            if not cond:
                raise ValueError("groups of the wrong shape")

        ok(
            isinstance(value, tuple)
            and len(value) == 2
            and all(type(v) is bytes and len(v) % 8 == 0 for v in value)
        )
        at, ids = array("q"), array("q")
        at.frombytes(value[0])
        ids.frombytes(value[1])
        ok(len(at) == groups + 1 and at[0] == 0 and at[-1] == len(ids))
        ok(all(a <= b for a, b in pairwise(at)))
        ok(not ids or (min(ids) >= 0 and max(ids) < bound))
        return cls.of_arrays(at, ids)


class LazyGroups(Groups):
    """`Groups` computed when first read: `make()` gives (at, ids), called once (thread-safe),
    when `at` or `ids` is first asked (an unset slot reads through `__getattr__`; once set, a
    read costs what a plain `Groups`' does). For figures a first answer does not need:
    `Profile.parents` and `children` (sorting 300,000 arcs in gprof's print order: 0.3-0.4 s at
    100,000 routines, not needed by the editor's first lenses)."""

    __slots__ = ("_lock", "_make")

    def __init__(self, make: Callable[[], tuple[array[int], array[int]]]) -> None:
        self._make: Callable[[], tuple[array[int], array[int]]] | None = make
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        if name not in ("at", "ids"):
            raise AttributeError(name)
        with self._lock:
            make = self._make
            if make is not None:
                self.at, self.ids = make()
                self._make = None
        return object.__getattribute__(self, name)


@dataclass(frozen=True, slots=True)
class FoldedSymbol:
    """A routine gprof folds into the routine before it (a static whose name its filter rejects:
    GCC's `.isra.N`, `.part.N`, `.cold`, ...): gprof credits its samples and calls to `routine`."""

    routine: int  # id of the routine that absorbed it
    name: str  # raw symbol name, e.g. "find_slot.isra.0"
    address: int
    end_address: int  # inclusive: the next routine's or folded symbol's address - 1
    self_ticks: float  # samples credited to its bytes (gprof's bin-overlap rule), inside routine's
    calls: int  # calls recorded into it from other routines (inside routine's calls)


INDIRECT_CHILD = -1  # a static arc's callee for a MIPS `jalr` (-c): gprof's `<indirect child>`


@dataclass(frozen=True)
class Profile:
    """Everything gprof computes from one binary and its profile files.

    `parents[r]` / `children[r]` hold arc positions in gprof's print order for routine id `r`.
    """

    routines: tuple[Routine, ...]
    arcs: Sequence[Arc]  # an `ArcTable` as computed
    cycles: tuple[Cycle, ...]
    graph_order: Sequence[GraphEntry]  # a `GraphOrder` as computed
    parents: Sequence[tuple[int, ...]]  # `Groups` as computed
    children: Sequence[tuple[int, ...]]
    hz: int
    dimension: str
    dimension_abbrev: str
    scale: float  # histogram units per bin (0.0 without histogram)
    total_ticks: float  # gprof's total_time (flat profile percent base)
    print_ticks: float  # gprof's print_time (call graph percent base)
    has_histogram: bool
    has_call_graph: bool
    static_call_graph: bool = False
    problems: tuple[str, ...] = field(default=())
    folded: tuple[FoldedSymbol, ...] = ()  # clones gprof credits to the routine before them
    # -c on MIPS: routine id -> where its `<indirect child>` line goes among its children lines
    indirect_children: Mapping[int, int] = field(default_factory=dict)

    def folded_into(self, routine: int) -> tuple[FoldedSymbol, ...]:
        """The symbols folded into routine id `routine`, in address order."""
        return tuple(f for f in self.folded if f.routine == routine)

    def seconds(self, ticks: float) -> float | None:
        """`ticks` samples in seconds (`common.units.seconds`): None without a sampling rate."""
        return seconds(ticks, self.hz)

    def routine_named(self, name: str) -> Routine | None:
        for r in self.routines:
            if r.name == name or r.display_name == name:
                return r
        return None

    def cycle(self, number: int) -> Cycle:
        return self.cycles[number - 1]
