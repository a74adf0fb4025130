"""How sure each figure is: sampling error of the time figures and the part of children time that
is gprof's estimate (pure; a Profile in, figures out).

Sampling error. Self time is a count of clock samples, Poisson distributed: `n` samples (the
engine's self ticks, fractional where gprof's bin-overlap rule splits a bin between routines) are
uncertain by about `sqrt(n)` samples, so `self_stderr_seconds = sqrt(self_samples) * period`
(gprof's manual, "Statistical Sampling Error"). A total (self + children) is a sum of samples
each scaled by a call fraction <= 1; its tick count bounds its variance from above, so
`total_stderr_seconds = sqrt(total ticks) * period`, the bound `gmonlens diff` tests totals with
(diff.py).

Estimates. gprof shares a callee's time among its callers in proportion to their calls. That share
is exact when the callee has one caller, an estimate otherwise. A routine X's
`children_estimated_seconds` is the part of its children time that passed through such a split:
for each callee node Y outside X's cycle reached by arcs with count > 0 that are not from `-c`,

- the whole time gprof propagates along X's arcs to Y, when Y has more than one distinct caller
  (routines with such an arc to Y, Y's own recursion excluded);
- else (X is Y's only caller) Y's own estimated part, times the share of Y's total the arcs carry
  (1, except where `-E/-F/-N/-n` stop X's time from propagating: then 0).

A cycle counts as one routine (one node): its callers are the routines outside it with an arc to a
member, its estimated part is computed over its members' arcs leaving it, where a callee's callers
are counted as nodes (so two members calling one routine are one caller of it). A member's own
figure counts callers as routines. Exact routines have 0.

Units: samples (ticks) and seconds; `period` is `1 / hz` seconds per sample.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

from gmonlens.common.model import Cycle, Groups, Profile, Routine, as_table
from gmonlens.common.units import period as sample_period

FEW_SAMPLES = 100  # a whole run with fewer samples than this is mostly noise (health)
FEW_ROUTINE_SAMPLES = 10  # a figure resting on fewer samples is marked as uncertain (editor)


@dataclass(frozen=True, slots=True)
class Split:
    """The largest split behind an estimate: the callee (routine id, or -cycle number) whose time
    gprof shared among `callers` callers, and the seconds of the estimate that pass through it."""

    callee: int
    callers: int
    seconds: float | None  # None without a sampling rate


@dataclass(frozen=True, slots=True)
class Certainty:
    """One routine's (or cycle's) certainty figures (module docstring)."""

    self_samples: float  # samples credited (gprof's self ticks; fractional with split bins)
    total_samples: float  # ticks of the call-graph total (self + children, propagated)
    self_stderr_seconds: float | None  # None without a sampling rate (`common.units`)
    total_stderr_seconds: float | None
    children_estimated_seconds: float | None
    split: Split | None  # where most of the estimate comes from; None when exact


@dataclass(frozen=True)
class ProfileCertainty:
    """Certainty of every routine (by routine id) and every cycle (by cycle number - 1)."""

    routines: Sequence[Certainty]  # a `CertaintyTable`: records made when asked
    cycles: Sequence[Certainty]
    callers: tuple[int, ...]  # distinct caller routines of each routine (its cycle counted whole)
    cycle_callers: tuple[int, ...]  # distinct caller routines of each cycle from outside
    total_samples: float  # gprof's total time in samples (the flat profile's base)
    period: float | None  # seconds per sample (None without a sampling rate)

    def estimated_arc(self, p: Profile, arc: int) -> bool:
        """Whether the time gprof propagates along arc `arc` is an estimate (its callee, taken
        whole with its cycle, has more than one caller); arcs inside a cycle carry no time."""
        if not timed(p, arc):
            return False
        c = p.routines[p.arcs[arc].child]
        n = self.cycle_callers[c.cycle - 1] if c.cycle else self.callers[c.id]
        return n > 1


def _times(samples: float, period: float | None) -> float | None:
    return None if period is None else samples * period


def stderr_seconds(samples: float, period: float | None) -> float | None:
    """Standard error of a figure of `samples` Poisson samples, in seconds (None without a rate)."""
    return None if period is None else math.sqrt(max(samples, 0.0)) * period


def timed(p: Profile, arc: int) -> bool:
    """Arcs that can carry time in gprof's propagation: counted calls, not only `-c`'s, not a
    routine's own recursion, not between members of one cycle."""
    a = p.arcs[arc]
    if a.count <= 0 or a.is_static or a.parent == a.child:
        return False
    kp, kc = p.routines[a.parent].cycle, p.routines[a.child].cycle
    return not (kp and kp == kc)


def node_of(p: Profile, rid: int) -> int:
    """The call-graph node of routine `rid`: itself, or `len(routines) + cycle - 1` for a member."""
    k = p.routines[rid].cycle
    return len(p.routines) + k - 1 if k else rid


@dataclass(frozen=True, slots=True)
class _Timed:
    """The arcs `timed` accepts, as columns in arc order: caller and callee routine (`x`, `y`),
    their nodes (`node_of`: `px`, `py`) and the ticks propagated along each."""

    x: array[int]
    y: array[int]
    px: array[int]
    py: array[int]
    ticks: array[float]


def timed_columns(p: Profile, cyc: Sequence[int] | None = None) -> _Timed:
    """The arcs `timed` accepts, as columns in arc order (`cyc`: each routine's cycle number, when
    the caller has them)."""
    if cyc is None:
        cyc = [r.cycle for r in p.routines]
    n = len(p.routines)
    t = as_table(p.arcs)
    out = _Timed(array("q"), array("q"), array("q"), array("q"), array("d"))
    ax, ay, apx, apy, at = out.x.append, out.y.append, out.px.append, out.py.append, out.ticks.append
    for x, y, k, static, st, ct in zip(
        t.parent, t.child, t.counts, t.static, t.self_ticks, t.child_ticks, strict=True
    ):
        if k <= 0 or static or x == y:
            continue
        kx, ky = cyc[x], cyc[y]
        if kx and kx == ky:
            continue
        ax(x)
        ay(y)
        apx(n + kx - 1 if kx else x)
        apy(n + ky - 1 if ky else y)
        at(st + ct)
    return out


def _node_order(p: Profile, cyc: Sequence[int], tm: _Timed, out_arcs: Groups) -> list[int]:
    """All nodes (routines outside cycles, and cycles) callees first, over the timed arcs
    (`out_arcs`: their positions grouped by caller node, in arc order)."""
    n = len(p.routines)
    total = n + len(p.cycles)
    at, ids, py = out_arcs.at, out_arcs.ids, tm.py
    state = bytearray(total)
    order: list[int] = []
    for start in range(total):
        if state[start] or (start < n and cyc[start]):
            continue
        state[start] = 1
        nodes, nxt = [start], [at[start]]
        while nodes:
            v, i = nodes[-1], nxt[-1]
            if i < at[v + 1]:
                nxt[-1] = i + 1
                w = py[ids[i]]
                if not state[w]:
                    state[w] = 1
                    nodes.append(w)
                    nxt.append(at[w])
            else:
                nodes.pop()
                nxt.pop()
                order.append(v)
    return order


def _caller_counts(p: Profile, cyc: Sequence[int], tm: _Timed) -> tuple[list[int], list[int], list[int]]:
    """Distinct callers over timed arcs: of each routine (as routines; a cycle member's callers are
    its cycle's), of each cycle (as routines), and of each node (as nodes). A profile's arcs are
    distinct (caller, callee) pairs (gprof's tally), so only arcs to or from a cycle can repeat a
    pair of nodes."""
    n, ncyc = len(p.routines), len(p.cycles)
    total = n + ncyc
    by_routine, by_node, by_cycle = [0] * n, [0] * total, [0] * ncyc
    node_pairs: set[int] = set()
    cycle_pairs: set[int] = set()
    for x, y, px, py in zip(tm.x, tm.y, tm.px, tm.py, strict=True):
        by_routine[y] += 1
        if px >= n or py >= n:
            node_pairs.add(px * total + py)
        else:
            by_node[py] += 1
        ky = cyc[y]
        if ky:
            cycle_pairs.add((ky - 1) * n + x)
    for key in node_pairs:
        by_node[key % total] += 1
    for key in cycle_pairs:
        by_cycle[key // n] += 1
    routine_counts = [by_cycle[k - 1] if k else by_routine[r] for r, k in enumerate(cyc)]
    return routine_counts, by_cycle, by_node


@dataclass(frozen=True, slots=True)
class _Estimates:
    """Estimated ticks of each node (`est`) and its largest split as columns (callee, callers,
    ticks; callers 0: no split), and the same per routine (`r_*`)."""

    est: array[float]
    callee: array[int]
    callers: array[int]
    ticks: array[float]
    r_est: array[float]
    r_callee: array[int]
    r_callers: array[int]
    r_ticks: array[float]


def _fold(
    pairs: Sequence[tuple[int, float]],
    callers_of: Sequence[int],
    totals: Sequence[float],
    e: _Estimates,
    n: int,
) -> tuple[float, tuple[int, int, float] | None]:
    """The estimated ticks of one caller over its (callee node, ticks) pairs, and the largest
    split (callee id, callers, ticks)."""
    total, best = 0.0, None
    here: tuple[int, int, float] | None
    for y, t in pairs:
        if callers_of[y] > 1:
            part, here = t, ((y if y < n else -(y - n + 1)), callers_of[y], t)
        else:
            share = min(1.0, t / totals[y]) if totals[y] > 0 else 0.0
            part = e.est[y] * share
            here = None if e.callers[y] == 0 else (e.callee[y], e.callers[y], e.ticks[y] * share)
        total += part
        if here is not None and here[2] > 0 and (best is None or here[2] > best[2]):
            best = here
    return total, best


def _summed(ids: Sequence[int], key: Sequence[int], ticks: Sequence[float]) -> list[tuple[int, float]]:
    """(callee node, ticks) of arcs `ids`, summed per callee in order of first appearance."""
    acc: dict[int, float] = {}
    for a in ids:
        y = key[a]
        acc[y] = acc.get(y, 0.0) + ticks[a]
    return list(acc.items())


def _zeros(code: str, n: int) -> array[Any]:
    return array(code, bytes(8 * n))


def _estimates(
    p: Profile, cyc: Sequence[int], tm: _Timed, routine_callers: Sequence[int], node_callers: Sequence[int]
) -> _Estimates:
    """children_estimated ticks and largest split of every node, then of every routine."""
    n, ncyc = len(p.routines), len(p.cycles)
    total = n + ncyc
    totals = array("d", (r.total_ticks for r in p.routines))
    totals.extend(c.total_ticks for c in p.cycles)
    e = _Estimates(_zeros("d", total), _zeros("q", total), _zeros("q", total), _zeros("d", total),
                   _zeros("d", n), _zeros("q", n), _zeros("q", n), _zeros("d", n))  # fmt: skip
    out_arcs = Groups.by_key(tm.px, total)
    for v in _node_order(p, cyc, tm, out_arcs):
        pairs = _summed(out_arcs.ids[out_arcs.at[v] : out_arcs.at[v + 1]], tm.py, tm.ticks)
        e.est[v], best = _fold(pairs, node_callers, totals, e, n)
        if best is not None:
            e.callee[v], e.callers[v], e.ticks[v] = best
    callers_of = array("q", routine_callers)
    callers_of.extend(node_callers[n + k] for k in range(ncyc))
    # a callee node's callers as routines: a cycle's are those of any member
    for c in p.cycles:
        callers_of[n + c.number - 1] = routine_callers[c.members[0]]
    own = Groups.by_key(tm.x, n)  # a cycle member's own arcs
    for r in range(n):
        if cyc[r]:
            pairs = _summed(own.ids[own.at[r] : own.at[r + 1]], tm.py, tm.ticks)
            e.r_est[r], best = _fold(pairs, callers_of, totals, e, n)
            if best is not None:
                e.r_callee[r], e.r_callers[r], e.r_ticks[r] = best
        else:
            e.r_est[r], e.r_callee[r], e.r_callers[r], e.r_ticks[r] = (
                e.est[r],
                e.callee[r],
                e.callers[r],
                e.ticks[r],
            )
    return e


class CertaintyTable(Sequence[Certainty]):
    """The certainty of each routine (or cycle) of a profile, a `Certainty` record made when asked
    from the profile's figures and the estimate's columns (a whole profile's records would be
    100,000s of objects for the garbage collector to walk, and most are never asked)."""

    __slots__ = ("_callee", "_callers", "_est", "_items", "_period", "_ticks")

    def __init__(
        self,
        items: Sequence[Routine] | Sequence[Cycle],
        est: Sequence[float],
        split: tuple[Sequence[int], Sequence[int], Sequence[float]],
        period: float | None,
    ) -> None:
        self._items, self._est, self._period = items, est, period
        self._callee, self._callers, self._ticks = split

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, i: int) -> Certainty: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[Certainty, ...]: ...
    def __getitem__(self, i: int | slice) -> Certainty | tuple[Certainty, ...]:
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self))))
        r, period = self._items[i], self._period
        if i < 0:
            i += len(self._items)
        callers = self._callers[i]
        return Certainty(
            self_samples=r.self_ticks,
            total_samples=r.total_ticks,
            self_stderr_seconds=stderr_seconds(r.self_ticks, period),
            total_stderr_seconds=stderr_seconds(r.total_ticks, period),
            children_estimated_seconds=_times(self._est[i], period),
            split=Split(self._callee[i], callers, _times(self._ticks[i], period)) if callers else None,
        )

    def __iter__(self) -> Iterator[Certainty]:
        for i in range(len(self._items)):
            yield self[i]

    def columns(self) -> tuple[Sequence[float], Sequence[int], Sequence[int], Sequence[float]]:
        """The estimate's columns (estimated ticks, split callee, split callers, split ticks): what
        the table holds beyond its profile (`certainty_columns`)."""
        return self._est, self._callee, self._callers, self._ticks

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (CertaintyTable, tuple, list)):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


CertaintyColumns = dict[str, Sequence[float] | Sequence[int]]
_COLUMNS = ("est", "callee", "callers", "ticks")


def certainty_columns(c: ProfileCertainty) -> CertaintyColumns:
    """What `c` holds beyond its profile, as columns (`r_est`, `c_est`, ... per routine and per
    cycle, `callers`, `cycle_callers`): `certainty_from_columns` with the same profile gives `c`
    back (for a cache)."""
    out: CertaintyColumns = {"callers": c.callers, "cycle_callers": c.cycle_callers}
    for side, table in (("r", c.routines), ("c", c.cycles)):
        assert isinstance(table, CertaintyTable)
        for name, column in zip(_COLUMNS, table.columns(), strict=True):
            out[f"{side}_{name}"] = column
    return out


def certainty_from_columns(p: Profile, cols: CertaintyColumns) -> ProfileCertainty:
    """The certainty of `p` from `certainty_columns` of it (lengths checked by the caller)."""
    period = sample_period(p.hz)
    tables = [
        CertaintyTable(items, cols[f"{side}_est"], (cols[f"{side}_callee"], cols[f"{side}_callers"],
                                                    cols[f"{side}_ticks"]), period)  # type: ignore[arg-type]
        for side, items in (("r", p.routines), ("c", p.cycles))
    ]  # fmt: skip
    callers = tuple(int(x) for x in cols["callers"])
    cycle_callers = tuple(int(x) for x in cols["cycle_callers"])
    return ProfileCertainty(tables[0], tables[1], callers, cycle_callers, p.total_ticks, period)


def certainty(p: Profile) -> ProfileCertainty:
    """Every routine's and cycle's certainty figures (module docstring)."""
    period = sample_period(p.hz)
    cyc = [r.cycle for r in p.routines]
    tm = timed_columns(p, cyc)
    routine_callers, cycle_callers, node_callers = _caller_counts(p, cyc, tm)
    e = _estimates(p, cyc, tm, routine_callers, node_callers)
    n = len(p.routines)
    routines = CertaintyTable(p.routines, e.r_est, (e.r_callee, e.r_callers, e.r_ticks), period)
    cycles = CertaintyTable(p.cycles, e.est[n:], (e.callee[n:], e.callers[n:], e.ticks[n:]), period)
    return ProfileCertainty(
        routines, cycles, tuple(routine_callers), tuple(cycle_callers), p.total_ticks, period
    )


@dataclass(frozen=True, slots=True)
class Health:
    """One thing that makes a whole profile less trustworthy, and what to do about it."""

    code: str  # few_samples, no_samples, no_arcs, binary_changed, sources_newer, threads
    message: str
    fix: str


# Symbols whose presence (defined, or imported from a shared library) means the program can start
# threads: POSIX and C11 thread creation, Linux's clone, libstdc++'s std::thread start.
THREAD_STARTERS = frozenset({"pthread_create", "thrd_create", "clone", "clone3", "__clone"})
STD_THREAD_START = "_ZNSt6thread15_M_start_thread"  # std::thread::_M_start_thread(...)


def thread_starter(symbol_names: Sequence[str]) -> str | None:
    """The first name in `symbol_names` (ELF `.symtab` names, versions such as `@GLIBC_2.34`
    ignored) that starts threads, or None."""
    for name in symbol_names:
        base = name.split("@", 1)[0]
        if base in THREAD_STARTERS or base.startswith(STD_THREAD_START):
            return base
    return None


def profile_health(p: Profile, thread_symbol: str | None = None) -> list[Health]:
    """What the profile itself says about its trustworthiness (no file is read): no samples, few
    samples, no arcs, and threads (`thread_symbol`: what `thread_starter` found in the binary)."""
    out: list[Health] = []
    if not p.has_histogram or p.total_ticks <= 0:
        out.append(
            Health(
                "no_samples",
                "the profile holds no time samples: every time figure is 0",
                "run the program longer (the clock samples every 1/hz s of CPU time), or check that it "
                "ran to its normal exit: gmon.out is written by exit(), not after a crash or _exit()",
            )
        )
    elif p.total_ticks < FEW_SAMPLES:
        out.append(
            Health(
                "few_samples",
                f"only {p.total_ticks:.0f} samples in the whole run: the time figures are mostly noise "
                f"(a figure of n samples is uncertain by about sqrt(n))",
                "run longer, or run several times: gmon.out.* files (GMON_OUT_PREFIX) are summed",
            )
        )
    if not any(k > 0 for k in as_table(p.arcs).counts):
        out.append(
            Health(
                "no_arcs",
                "the profile records no calls: no call counts, no children time, no call graph",
                "compile and link with -pg both: a program compiled with -pg but linked without it "
                "(or the reverse) records no arcs",
            )
        )
    if thread_symbol is not None:
        out.append(
            Health(
                "threads",
                f"the program can start threads ({thread_symbol}): gprof's clock samples the CPU time "
                "of every thread, so self times add up all threads (the total can exceed the run's "
                "wall time); a thread's start routine, called from the C library, gets no arc for "
                "that call; and children time is split over the calls of all threads together",
                "read the times as CPU time summed over threads; for one thread's picture, profile a "
                "run that does the work on a single thread",
            )
        )
    return out
