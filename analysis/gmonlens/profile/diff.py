"""Two profiles side by side: routines matched across builds, each time change tested against
sampling noise (pure; no I/O).

Matching (the binaries may differ): a global routine is the same routine when its raw (for C++
mangled) name is the same; a static one when its name and source file are (the full recorded path,
else the file's base name, else the name alone when that is unique among the leftovers). GCC clones
whose numbered suffix changed (`f.part.0` -> `f.part.1`, `f` -> `f.constprop.0`) are paired as
*renamed* when the stem is unique among the leftovers on both sides. Whatever is left is *gone*
(only in the base) or *new* (only in the new profile). A routine present in both binaries but
without figures on one side is matched with zeros there.

Noise: a routine's self time is a count of histogram samples, and sample counts are Poisson: a
count `a` has standard error about `sqrt(a)`. With sample periods `pa`, `pb` (seconds per sample;
different rates are converted to seconds), self seconds `sa = a*pa`, `sb = b*pb`, the change is
tested with

    z = (sb - k*sa) / sqrt(b*pb**2 + k**2 * a*pa**2)

(for equal periods and k = 1 this is gprof's `(b - a) / sqrt(a + b)`, the normal approximation of
the conditional binomial test of equal rates). `k` is 1 (same workload: absolute seconds are
compared) or, with `normalize`, the ratio of the two runs' total times, so that routines are
compared as shares of runs of different lengths. A change is beyond noise when `|z| >= threshold`
(default 3: under the Poisson model a routine that did not change is flagged about once in 370).

Total time (self + children) is not a plain count: it is the routine's samples plus its callees'
samples, each scaled by a fraction of exact call counts (<= 1). Treating the call counts as exact,
its variance is sum(f_i**2 * n_i) <= sum(f_i * n_i): we use the total's tick count as its variance,
an upper bound, so the test on totals is conservative (it may call a real change noise, never the
reverse more often than the self test does). Call counts are exact and carry no noise.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gmonlens.common.model import Profile, Routine

DEFAULT_THRESHOLD = 3.0
_CLONE = re.compile(r"\.(constprop|isra|part|cold|lto_priv|localalias|clone)(\.\d+)?")


@dataclass(frozen=True, slots=True)
class Side:
    """One routine's figures in one profile (seconds; calls exact)."""

    id: int  # routine id in that profile
    name: str
    self_seconds: float  # flat profile self seconds
    children_seconds: float  # call graph children
    total_seconds: float  # call graph self + children
    calls: int
    recursive_calls: int
    self_samples: float
    total_samples: float


@dataclass(frozen=True, slots=True)
class Change:
    """A time before and after, with its noise test (`verdict`: "up", "down" or "noise")."""

    before: float
    after: float
    z: float
    verdict: str

    @property
    def delta(self) -> float:
        return self.after - self.before

    @property
    def ratio(self) -> float | None:
        return self.after / self.before if self.before > 0 else None

    @property
    def percent(self) -> float | None:
        return 100.0 * self.delta / self.before if self.before > 0 else None


@dataclass(frozen=True, slots=True)
class RoutineDiff:
    """A routine matched across the two profiles (status: matched, renamed, new, gone)."""

    name: str  # raw name (the new side's when both exist)
    display_name: str
    file: str | None
    status: str
    before: Side | None
    after: Side | None
    self: Change
    total: Change

    @property
    def calls_delta(self) -> int:
        return (self.after.calls if self.after else 0) - (self.before.calls if self.before else 0)

    @property
    def size(self) -> float:
        """What the table sorts on: the self change, then the total change."""
        return abs(self.self.delta) + 1e-6 * abs(self.total.delta)


@dataclass(frozen=True, slots=True)
class ProfileDiff:
    routines: tuple[RoutineDiff, ...]  # largest change first
    total: Change  # gprof's total time (flat profile)
    base_period: float  # seconds per sample (0.0 without histogram)
    new_period: float
    threshold: float
    normalized: bool
    scale: float  # k above

    def regressions(self) -> list[RoutineDiff]:
        return [d for d in self.routines if d.self.verdict == "up" or d.total.verdict == "up"]

    def improvements(self) -> list[RoutineDiff]:
        return [
            d
            for d in self.routines
            if (d.self.verdict == "down" or d.total.verdict == "down") and d not in self.regressions()
        ]


def z_score(a: float, pa: float, b: float, pb: float, k: float = 1.0) -> float:
    """z of `b` samples of period `pb` against `a` samples of period `pa` scaled by `k` (module doc)."""
    var = b * pb * pb + k * k * a * pa * pa
    if var <= 0:
        return 0.0
    return (b * pb - k * a * pa) / math.sqrt(var)


def change(a: float, pa: float, b: float, pb: float, k: float, threshold: float) -> Change:
    z = z_score(a, pa, b, pb, k)
    verdict = "up" if z >= threshold else "down" if z <= -threshold else "noise"
    return Change(a * pa, b * pb, z, verdict)


def _period(p: Profile) -> float:
    return 1.0 / p.hz if p.hz else 0.0


def _side(p: Profile, r: Routine) -> Side:
    per = _period(p)
    return Side(
        id=r.id,
        name=r.name,
        self_seconds=r.self_ticks * per,
        children_seconds=r.prop_child_ticks * per,
        total_seconds=r.total_ticks * per,
        calls=r.calls,
        recursive_calls=r.self_calls,
        self_samples=r.self_ticks,
        total_samples=r.total_ticks,
    )


def _has_figures(r: Routine) -> bool:
    return bool(r.calls or r.self_calls or r.self_ticks or r.total_ticks)


def _visible(r: Routine, flat: bool, graph: bool) -> bool:
    return _has_figures(r) and ((flat and r.in_flat) or (graph and r.printed))


def _pair_by(
    key: Callable[[Routine], object | None],
    base: list[Routine],
    new: list[Routine],
    unique: bool = False,
) -> list[tuple[Routine, Routine]]:
    """Pair the leftovers whose key is equal (in address order; with `unique`, only keys that occur
    once on each side). Paired routines are removed from `base` and `new`."""
    by_new: dict[object, list[Routine]] = {}
    for r in new:
        k = key(r)
        if k is not None:
            by_new.setdefault(k, []).append(r)
    base_count: dict[object, int] = {}
    for r in base:
        k = key(r)
        if k is not None:
            base_count[k] = base_count.get(k, 0) + 1
    pairs: list[tuple[Routine, Routine]] = []
    for r in base:
        k = key(r)
        cands = by_new.get(k) if k is not None else None
        if not cands or (unique and (len(cands) != 1 or base_count[k] != 1)):
            continue
        pairs.append((r, cands.pop(0)))
    taken_b = {id(b) for b, _ in pairs}
    taken_n = {id(n) for _, n in pairs}
    base[:] = [r for r in base if id(r) not in taken_b]
    new[:] = [r for r in new if id(r) not in taken_n]
    return pairs


def match_routines(
    base: Sequence[Routine], new: Sequence[Routine]
) -> tuple[list[tuple[Routine, Routine, str]], list[Routine], list[Routine]]:
    """(pairs with status "matched"/"renamed", gone, new) by the rules in the module doc."""
    left_b, left_n = list(base), list(new)
    pairs: list[tuple[Routine, Routine, str]] = []

    def exact(r: Routine) -> object:
        return (r.name, r.file) if r.is_static else (r.name,)

    def by_base(r: Routine) -> object | None:
        return (r.name, os.path.basename(r.file)) if r.is_static and r.file else None

    def by_name(r: Routine) -> object:
        return r.name

    def stem(r: Routine) -> object | None:
        return r.name.split(".", 1)[0] if "." in r.name else None

    for key, unique, status in (
        (exact, False, "matched"),
        (by_base, False, "matched"),
        (by_name, True, "matched"),
    ):
        pairs += [(b, n, status) for b, n in _pair_by(key, left_b, left_n, unique)]

    def clone_stem(r: Routine) -> object | None:
        return _CLONE.sub("", r.name) if _CLONE.search(r.name) else r.name

    pairs += [(b, n, "renamed") for b, n in _pair_by(clone_stem, left_b, left_n, unique=True)]
    pairs += [(b, n, "renamed") for b, n in _pair_by(stem, left_b, left_n, unique=True)]
    return pairs, left_b, left_n


def diff_profiles(
    base: Profile,
    new: Profile,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    normalize: bool = False,
    flat: bool = True,
    graph: bool = True,
) -> ProfileDiff:
    """Match the routines of `base` and `new` and test each time change (module doc).

    `flat`/`graph`: which of gprof's sections the options show; a routine is listed when a side
    would print it there (so -p/-P/-q/-Q/-e/-E filter the diff as they filter the report)."""
    pa, pb = _period(base), _period(new)
    total_a, total_b = base.total_ticks * pa, new.total_ticks * pb
    k = total_b / total_a if normalize and total_a > 0 and total_b > 0 else 1.0
    pairs, gone, born = match_routines(base.routines, new.routines)
    rows: list[RoutineDiff] = []

    def add(b: Routine | None, n: Routine | None, status: str) -> None:
        if not ((b is not None and _visible(b, flat, graph)) or (n is not None and _visible(n, flat, graph))):
            return
        sb = _side(base, b) if b is not None else None
        sn = _side(new, n) if n is not None else None
        ref = n if n is not None else b
        assert ref is not None
        rows.append(
            RoutineDiff(
                name=ref.name,
                display_name=ref.display_name,
                file=ref.file,
                status=status,
                before=sb,
                after=sn,
                self=change(b.self_ticks if b else 0.0, pa, n.self_ticks if n else 0.0, pb, k, threshold),
                total=change(b.total_ticks if b else 0.0, pa, n.total_ticks if n else 0.0, pb, k, threshold),
            )
        )

    for b, n, status in pairs:
        add(b, n, status)
    for b in gone:
        add(b, None, "gone")
    for n in born:
        add(None, n, "new")
    rows.sort(key=lambda d: (-d.size, d.display_name))
    total = change(base.total_ticks, pa, new.total_ticks, pb, k, threshold)
    return ProfileDiff(tuple(rows), total, pa, pb, threshold, normalize, k)


def failures(d: ProfileDiff, percent: float) -> list[tuple[RoutineDiff, str]]:
    """Routines whose self or total time grew by more than `percent` and beyond noise, with the
    reason. Routines only in the new profile do not fail: their time is in their callers' totals."""
    out: list[tuple[RoutineDiff, str]] = []
    for r in d.routines:
        if r.before is None or r.after is None:
            continue
        reasons = []
        for label, c in (("self", r.self), ("total", r.total)):
            pct = c.percent
            if c.verdict == "up" and (pct is None or pct > percent):
                grew = "from 0" if pct is None else f"+{pct:.0f}%"
                reasons.append(f"{label} {c.before:.2f} -> {c.after:.2f} s ({grew}, z={c.z:.1f})")
        if reasons:
            out.append((r, "; ".join(reasons)))
    return out
