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
from collections.abc import Sequence
from dataclasses import dataclass

from .model import Profile

FEW_SAMPLES = 100  # a whole run with fewer samples than this is mostly noise (health)
FEW_ROUTINE_SAMPLES = 10  # a figure resting on fewer samples is marked as uncertain (editor)


@dataclass(frozen=True, slots=True)
class Split:
    """The largest split behind an estimate: the callee (routine id, or -cycle number) whose time
    gprof shared among `callers` callers, and the seconds of the estimate that pass through it."""

    callee: int
    callers: int
    seconds: float


@dataclass(frozen=True, slots=True)
class Certainty:
    """One routine's (or cycle's) certainty figures (module docstring)."""

    self_samples: float  # samples credited (gprof's self ticks; fractional with split bins)
    total_samples: float  # ticks of the call-graph total (self + children, propagated)
    self_stderr_seconds: float
    total_stderr_seconds: float
    children_estimated_seconds: float
    split: Split | None  # where most of the estimate comes from; None when exact


@dataclass(frozen=True)
class ProfileCertainty:
    """Certainty of every routine (by routine id) and every cycle (by cycle number - 1)."""

    routines: tuple[Certainty, ...]
    cycles: tuple[Certainty, ...]
    callers: tuple[int, ...]  # distinct caller routines of each routine (its cycle counted whole)
    cycle_callers: tuple[int, ...]  # distinct caller routines of each cycle from outside
    total_samples: float  # gprof's total time in samples (the flat profile's base)
    period: float  # seconds per sample (0.0 without a histogram)

    def estimated_arc(self, p: Profile, arc: int) -> bool:
        """Whether the time gprof propagates along arc `arc` is an estimate (its callee, taken
        whole with its cycle, has more than one caller); arcs inside a cycle carry no time."""
        if not timed(p, arc):
            return False
        c = p.routines[p.arcs[arc].child]
        n = self.cycle_callers[c.cycle - 1] if c.cycle else self.callers[c.id]
        return n > 1


def stderr_seconds(samples: float, period: float) -> float:
    """Standard error of a figure of `samples` Poisson samples, in seconds."""
    return math.sqrt(max(samples, 0.0)) * period


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


TimedArc = tuple[int, int, int, int, float]  # parent, child, parent node, child node, ticks along it


def timed_arcs(p: Profile) -> list[TimedArc]:
    """The arcs `timed` accepts, with their nodes (`node_of`) and propagated ticks, in arc order."""
    n = len(p.routines)
    node = [n + r.cycle - 1 if r.cycle else r.id for r in p.routines]
    cyc = [r.cycle for r in p.routines]
    out: list[TimedArc] = []
    for a in p.arcs:
        x, y = a.parent, a.child
        if a.count <= 0 or a.is_static or x == y or (cyc[x] and cyc[x] == cyc[y]):
            continue
        out.append((x, y, node[x], node[y], a.self_ticks + a.child_ticks))
    return out


def node_order(p: Profile, arcs: Sequence[TimedArc] | None = None) -> list[int]:
    """All nodes (routines outside cycles, and cycles) callees first, over the timed arcs."""
    n = len(p.routines)
    total = n + len(p.cycles)
    out_nodes: list[list[int]] = [[] for _ in range(total)]
    for _x, _y, px, py, _t in timed_arcs(p) if arcs is None else arcs:
        out_nodes[px].append(py)
    state = [0] * total
    order: list[int] = []
    for start in range(total):
        if state[start] or (start < n and p.routines[start].cycle):
            continue
        state[start] = 1
        stack = [(start, 0)]
        while stack:
            v, i = stack[-1]
            if i < len(out_nodes[v]):
                stack[-1] = (v, i + 1)
                w = out_nodes[v][i]
                if not state[w]:
                    state[w] = 1
                    stack.append((w, 0))
            else:
                stack.pop()
                order.append(v)
    return order


def _caller_counts(p: Profile, arcs: Sequence[TimedArc]) -> tuple[list[int], list[int], list[int]]:
    """Distinct callers over timed arcs: of each routine (as routines; a cycle member's callers are
    its cycle's), of each cycle (as routines), and of each node (as nodes)."""
    n = len(p.routines)
    by_routine: list[set[int]] = [set() for _ in range(n)]
    by_node: list[set[int]] = [set() for _ in range(n + len(p.cycles))]
    for x, y, px, py, _t in arcs:
        by_routine[y].add(x)
        by_node[py].add(px)
    cyc: list[set[int]] = [set() for _ in p.cycles]
    for c in p.cycles:
        for m in c.members:
            cyc[c.number - 1] |= by_routine[m]
    routine_counts = [len(cyc[r.cycle - 1]) if r.cycle else len(by_routine[r.id]) for r in p.routines]
    return routine_counts, [len(s) for s in cyc], [len(s) for s in by_node]


def _estimates(
    p: Profile, arcs: Sequence[TimedArc], routine_callers: Sequence[int], node_callers: Sequence[int]
) -> tuple[list[float], list[Split | None], list[float], list[Split | None]]:
    """children_estimated ticks and largest split (its `seconds` in ticks here) of every node, then
    of every routine."""
    n = len(p.routines)
    totals = [r.total_ticks for r in p.routines] + [c.total_ticks for c in p.cycles]
    est = [0.0] * (n + len(p.cycles))
    split: list[Split | None] = [None] * len(est)
    out: dict[int, dict[int, float]] = {}  # node -> callee node -> propagated ticks
    rout: dict[int, dict[int, float]] = {}  # routine -> callee node -> ticks (routine's own arcs)
    for x, _y, px, y, t in arcs:
        d = out.setdefault(px, {})
        d[y] = d.get(y, 0.0) + t
        e = rout.setdefault(x, {})
        e[y] = e.get(y, 0.0) + t

    def fold(callees: dict[int, float], callers_of: Sequence[int]) -> tuple[float, Split | None]:
        total, best = 0.0, None
        here: Split | None
        for y, t in callees.items():
            if callers_of[y] > 1:
                part, here = t, Split(_callee_id(p, y), callers_of[y], t)
            else:
                share = min(1.0, t / totals[y]) if totals[y] > 0 else 0.0
                part = est[y] * share
                s = split[y]
                here = None if s is None else Split(s.callee, s.callers, s.seconds * share)
            total += part
            if here is not None and here.seconds > 0 and (best is None or here.seconds > best.seconds):
                best = here
        return total, best

    for v in node_order(p, arcs):
        est[v], split[v] = fold(out.get(v, {}), node_callers)
    by_routine = [routine_callers[r.id] for r in p.routines]
    callers_of = [*by_routine, *(node_callers[n + k] for k in range(len(p.cycles)))]
    # a callee node's callers as routines: a cycle's are those of any member
    for c in p.cycles:
        callers_of[n + c.number - 1] = routine_callers[c.members[0]]
    r_est = [0.0] * n
    r_split: list[Split | None] = [None] * n
    for r in p.routines:
        if r.cycle:
            r_est[r.id], r_split[r.id] = fold(rout.get(r.id, {}), callers_of)
        else:
            r_est[r.id], r_split[r.id] = est[r.id], split[r.id]
    return est, split, r_est, r_split


def _callee_id(p: Profile, node: int) -> int:
    n = len(p.routines)
    return node if node < n else -(node - n + 1)


def certainty(p: Profile) -> ProfileCertainty:
    """Every routine's and cycle's certainty figures (module docstring)."""
    period = 1.0 / p.hz if p.hz else 0.0
    arcs = timed_arcs(p)
    routine_callers, cycle_callers, node_callers = _caller_counts(p, arcs)
    est, split, r_est, r_split = _estimates(p, arcs, routine_callers, node_callers)
    n = len(p.routines)

    def sec_split(s: Split | None) -> Split | None:
        return None if s is None else Split(s.callee, s.callers, s.seconds * period)

    routines = tuple(
        Certainty(
            self_samples=r.self_ticks,
            total_samples=r.total_ticks,
            self_stderr_seconds=stderr_seconds(r.self_ticks, period),
            total_stderr_seconds=stderr_seconds(r.total_ticks, period),
            children_estimated_seconds=r_est[r.id] * period,
            split=sec_split(r_split[r.id]),
        )
        for r in p.routines
    )
    cycles = tuple(
        Certainty(
            self_samples=c.self_ticks,
            total_samples=c.total_ticks,
            self_stderr_seconds=stderr_seconds(c.self_ticks, period),
            total_stderr_seconds=stderr_seconds(c.total_ticks, period),
            children_estimated_seconds=est[n + c.number - 1] * period,
            split=sec_split(split[n + c.number - 1]),
        )
        for c in p.cycles
    )
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
    if not any(a.count > 0 for a in p.arcs):
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
