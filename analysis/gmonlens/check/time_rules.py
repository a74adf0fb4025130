"""The time rules, decided against sampling noise (pure; the method is noise.py's): a routine's
share of the run, its seconds, its growth against a baseline.

A routine's time is its total (self + children, gprof's call graph) or, with `measure: self`,
its own samples. A total of a routine in a cycle cannot be had (gprof gives the cycle's total as
a whole): such a rule is a RuleProblem, not a verdict.
"""

from __future__ import annotations

import math

from gmonlens.check.noise import (
    MIN_SAMPLES,
    NOT_ENOUGH,
    count_bounds,
    growth_z,
    samples_needed,
    share_bounds,
    versus_limit,
    versus_z,
)
from gmonlens.check.results import ArcNote, Outcome, Verdict, worst
from gmonlens.check.rules import TimeRule, TimeShareRule
from gmonlens.check.subject import Subject
from gmonlens.common import units
from gmonlens.common.model import Profile, as_table

MAX_ARCS = 5


def _ticks(p: Profile, rid: int, measure: str) -> float:
    r = p.routines[rid]
    return r.self_ticks if measure == "self" else r.total_ticks


def whole(p: Profile, measure: str) -> float:
    """gprof's 100% for a share: the call graph's total for total time, the flat profile's for
    self time (they differ when some samples fall outside every routine's propagated time)."""
    return p.print_ticks if measure == "total" and p.print_ticks > 0 else p.total_ticks


def too_few(p: Profile, what: str = "the run") -> str | None:
    """Why `p` decides no time rule (no histogram, or fewer than MIN_SAMPLES samples), or None."""
    if not p.has_histogram or not p.hz or p.total_ticks <= 0:
        return f"{NOT_ENOUGH}: {what} has no time samples"
    if p.total_ticks < MIN_SAMPLES:
        return f"{NOT_ENOUGH}: {what} has {p.total_ticks:g} samples (at least {MIN_SAMPLES} are needed)"
    return None


def _more(factor: float) -> str:
    if factor > 100 or not math.isfinite(factor):
        return "far more samples would be needed"
    return f"about {max(factor, 1.1):.1f}x the samples would decide (run longer, or sum several runs)"


def time_share(rule: TimeShareRule, s: Subject) -> Outcome:
    rid = s.routine(rule.routine)
    s.no_time_split(rid, rule.measure)
    p = s.profile
    t, n = _ticks(p, rid, rule.measure), whole(p, rule.measure)
    share = 100.0 * t / n if n > 0 else 0.0
    few = too_few(p)
    if few is not None:
        return Outcome("undecided", share, f"{share:.1f}%", few, s.test, routine=rid)
    lo, hi = (100 * b for b in share_bounds(t, n, s.threshold))
    verdict = versus_limit(lo, hi, rule.max_percent)
    shown = f"{share:.1f}% ({lo:.1f}-{hi:.1f}%)"
    reason = ""
    if verdict == "undecided":
        sd = math.sqrt(max(share * (100 - share), 1e-9) / n)
        reason = f"{NOT_ENOUGH}: the limit is within the share's noise; " + _more(
            samples_needed((share - rule.max_percent) / sd, s.threshold)
        )
    elif verdict == "fail":
        reason = f"{share:.1f}% of the run's {n:g} samples, beyond noise past {rule.max_percent:g}%"
    return Outcome(verdict, share, shown, reason, s.test, low=lo, high=hi, routine=rid)


def _seconds(rule: TimeRule, s: Subject, rid: int, t: float) -> tuple[Verdict, str, float, float]:
    assert rule.max_seconds is not None
    period = 1.0 / s.profile.hz
    lo, hi = (b * period for b in count_bounds(t, s.threshold))
    verdict = versus_limit(lo, hi, rule.max_seconds)
    if verdict == "undecided":
        sd = math.sqrt(max(t, 1.0)) * period
        return (
            verdict,
            f"{NOT_ENOUGH}: {rule.max_seconds:g} s is within the time's noise ({lo:.3g}-{hi:.3g} s); "
            + _more(samples_needed((t * period - rule.max_seconds) / sd, s.threshold)),
            lo,
            hi,
        )
    why = f"{t * period:.3g} s, beyond noise past {rule.max_seconds:g} s" if verdict == "fail" else ""
    return verdict, why, lo, hi


def _child_notes(s: Subject, rid: int, bid: int | None) -> tuple[ArcNote, ...]:
    """The arcs from `rid` to its callees, with the time gprof propagates along each (and the
    baseline's), largest change first."""
    p, t = s.profile, as_table(s.profile.arcs)
    before: dict[str, tuple[int, float | None]] = {}
    if s.base is not None and bid is not None:
        bt = as_table(s.base.arcs)
        for a in s.base.children[bid]:
            before[s.base_label(bt.child[a])] = (
                bt.counts[a],
                s.base.seconds(bt.self_ticks[a] + bt.child_ticks[a]),
            )
    notes = []
    for a in p.children[rid]:
        name = s.label(t.child[a])
        if t.child[a] == rid:
            continue
        seconds = p.seconds(t.self_ticks[a] + t.child_ticks[a])
        b = before.get(name)
        notes.append(
            ArcNote(s.label(rid), name, t.counts[a], b[0] if b else None, seconds, b[1] if b else None)
        )
    notes.sort(key=lambda a: -abs((a.seconds or 0.0) - (a.baseline_seconds or 0.0)))
    return tuple(notes[:MAX_ARCS])


def _growth(rule: TimeRule, s: Subject, rid: int, t: float) -> tuple[Verdict, str, float | None, int | None]:
    """Against the baseline: (verdict, reason, z, the baseline's routine id)."""
    assert rule.max_increase_percent is not None
    if s.base is None:
        return "undecided", s.base_missing or "no baseline profile", None, None
    bid = s.to_base().get(rid)
    few = too_few(s.base, "the baseline")
    if bid is None or few is not None:
        return "undecided", few or f"{s.label(rid)} is not in the baseline: no time to compare", None, bid
    base, p = s.base, s.profile
    a = _ticks(base, bid, rule.measure)
    pa, pb = 1.0 / base.hz, 1.0 / p.hz
    ratio = 1 + rule.max_increase_percent / 100
    if rule.normalize:
        ratio *= (p.total_ticks * pb) / (base.total_ticks * pa)
    z = growth_z(a, pa, t, pb, ratio)
    verdict = versus_z(z, s.threshold)
    before, after = a * pa, t * pb
    change = f"{100 * (after - before) / before:+.0f}%" if before > 0 else "from 0"
    reason = f"{before:.3g} s -> {after:.3g} s ({change}), z={z:.1f} against +{rule.max_increase_percent:g}%"
    if verdict == "undecided":
        reason = f"{NOT_ENOUGH}: {reason}; " + _more(samples_needed(z, s.threshold))
    return verdict, reason if verdict != "pass" else "", z, bid


def time_rule(rule: TimeRule, s: Subject) -> Outcome:
    rid = s.routine(rule.routine)
    s.no_time_split(rid, rule.measure)
    p = s.profile
    t = _ticks(p, rid, rule.measure)
    few = too_few(p)
    seconds = p.seconds(t)
    if few is not None or seconds is None:
        shown = units.shown(seconds, ".3g") + (" s" if seconds is not None else "")
        return Outcome("undecided", seconds, shown, few or NOT_ENOUGH, s.test, routine=rid)
    verdicts: list[Verdict] = []
    reasons: list[str] = []
    lo = hi = z = None
    bid = None
    if rule.max_seconds is not None:
        v, why, lo, hi = _seconds(rule, s, rid, t)
        verdicts.append(v)
        reasons.append(why)
    if rule.max_increase_percent is not None:
        v, why, z, bid = _growth(rule, s, rid, t)
        verdicts.append(v)
        reasons.append(why)
    verdict = worst(verdicts)
    reason = "; ".join(r for r, v in zip(reasons, verdicts, strict=True) if r and v == verdict)
    arcs = _child_notes(s, rid, bid) if verdict != "pass" else ()
    shown = f"{seconds:.3g} s" + (f" ({lo:.3g}-{hi:.3g} s)" if lo is not None and hi is not None else "")
    return Outcome(verdict, seconds, shown, reason, s.test, arcs, low=lo, high=hi, z=z, routine=rid)
