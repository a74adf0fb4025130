"""The exact rules, read from gprof's call counts (pure): calls of a routine or of an arc within
bounds, no new callers and no new arcs against a baseline, routines reached or not (rules.py).
Counts carry no noise: a deterministic program gives the same verdict on every run.

Each outcome lists the arcs that carry its figure: the callers of a routine (against a baseline,
those whose count changed, largest change first), or the new arcs.
"""

from __future__ import annotations

from gmonlens.check.results import ArcNote, Outcome, Verdict
from gmonlens.check.rules import (
    ArcRule,
    CallsRule,
    NoNewArcsRule,
    NoNewCallersRule,
    NoNewRoutinesRule,
    ReachedRule,
)
from gmonlens.check.subject import Subject, arc_count, callers, counted_arcs, reached

MAX_ARCS = 20  # arcs listed with an outcome
MAX_LISTED = 1000  # names listed in `measured`


def _no_baseline(s: Subject) -> Outcome | None:
    if s.base is None:
        return Outcome("undecided", None, "no baseline", s.base_missing or "no baseline profile")
    return None


def caller_notes(s: Subject, rid: int) -> tuple[ArcNote, ...]:
    """The arcs into `rid`: with a baseline, those whose count changed (largest change first, new
    callers and callers gone included); without one, the largest callers."""
    now = callers(s.profile, rid)
    top = sorted(now.items(), key=lambda kv: -kv[1])[:MAX_ARCS]
    if s.base is None:
        return tuple(ArcNote(s.label(p), s.label(rid), n) for p, n in top)
    to_base = s.to_base()
    bid = to_base.get(rid)
    before = callers(s.base, bid) if bid is not None else {}
    notes = [ArcNote(s.label(p), s.label(rid), n, before.get(to_base.get(p, -1), 0)) for p, n in now.items()]
    matched = {to_base[p] for p in now if p in to_base}
    notes += [ArcNote(s.base_label(b), s.label(rid), 0, n) for b, n in before.items() if b not in matched]
    changed = [a for a in notes if a.count != a.baseline]
    changed.sort(key=lambda a: (-abs(a.count - (a.baseline or 0)), a.caller))
    if not changed:  # no change: the largest callers, with their (equal) baseline counts
        changed = sorted(notes, key=lambda a: -a.count)
    return tuple(changed[:MAX_ARCS])


def calls_rule(rule: CallsRule, s: Subject) -> Outcome:
    rid = s.routine(rule.routine)
    r = s.profile.routines[rid]
    n = r.calls + r.self_calls
    shown = f"{n:,}" + (f" ({r.calls:,} + {r.self_calls:,} recursive)" if r.self_calls else "")
    ok = rule.bounds.holds(n)
    reason = "" if ok else f"calls {n:,}, allowed {rule.bounds.text()}"
    return Outcome("pass" if ok else "fail", n, shown, reason, s.test, caller_notes(s, rid), routine=rid)


def arc_rule(rule: ArcRule, s: Subject) -> Outcome:
    a, b = s.routine(rule.caller), s.routine(rule.callee)
    n = arc_count(s.profile, a, b)
    note = ArcNote(s.label(a), s.label(b), n)
    if s.base is not None:
        to_base = s.to_base()
        ba, bb = to_base.get(a), to_base.get(b)
        before = arc_count(s.base, ba, bb) if ba is not None and bb is not None else 0
        note = ArcNote(note.caller, note.callee, n, before)
    ok = rule.bounds.holds(n)
    reason = "" if ok else f"calls {n:,}, allowed {rule.bounds.text()}"
    return Outcome("pass" if ok else "fail", n, f"{n:,}", reason, s.test, (note,), routine=b)


def _names_outcome(
    found: list[str],
    what: str,
    s: Subject,
    arcs: tuple[ArcNote, ...] = (),
    routine: int | None = None,
    note: str = "",
) -> Outcome:
    """Fails when `found` (names) is not empty, listing them (`note` added to the reason)."""
    shown = (
        ", ".join(found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "") if found else "none"
    )
    reason = f"{what} ({len(found)}): {shown}{note}" if found else ""
    verdict: Verdict = "fail" if found else "pass"
    return Outcome(verdict, tuple(found[:MAX_LISTED]), shown, reason, s.test, arcs, routine=routine)


def no_new_callers(rule: NoNewCallersRule, s: Subject) -> Outcome:
    missing = _no_baseline(s)
    if missing is not None:
        return missing
    assert s.base is not None
    rid = s.routine(rule.routine)
    to_base = s.to_base()
    bid = to_base.get(rid)
    before = set(callers(s.base, bid)) if bid is not None else set()
    new = sorted((p for p in callers(s.profile, rid) if to_base.get(p, -1) not in before), key=s.label)
    notes = tuple(ArcNote(s.label(p), s.label(rid), arc_count(s.profile, p, rid), 0) for p in new[:MAX_ARCS])
    note = f"; {s.label(rid)} is not in the baseline" if bid is None else ""
    return _names_outcome([s.label(p) for p in new], "new callers", s, notes, rid, note)


def no_new_arcs(rule: NoNewArcsRule, s: Subject) -> Outcome:
    missing = _no_baseline(s)
    if missing is not None:
        return missing
    assert s.base is not None
    only = s.routine(rule.routine) if rule.routine is not None else None
    to_base = s.to_base()
    before = counted_arcs(s.base)
    new = []
    for (p, c), n in counted_arcs(s.profile).items():
        if only is not None and only not in (p, c):
            continue
        if (to_base.get(p, -1), to_base.get(c, -1)) not in before:
            new.append(ArcNote(s.label(p), s.label(c), n, 0))
    new.sort(key=lambda a: (-a.count, a.caller, a.callee))
    return _names_outcome([f"{a.caller} -> {a.callee}" for a in new], "new arcs", s, tuple(new[:MAX_ARCS]))


def reached_rule(rule: ReachedRule, s: Subject) -> Outcome:
    ids = [s.routine(n) for n in rule.names]
    hit = reached(s.profile)
    if rule.reached:
        missing = [s.label(i) for i in ids if i not in hit]
        out = _names_outcome(missing, "not reached", s)
        return out if missing else Outcome("pass", (), "all reached", "", s.test)
    return _names_outcome([s.label(i) for i in ids if i in hit], "reached", s)


def no_new_routines(rule: NoNewRoutinesRule, s: Subject) -> Outcome:
    missing = _no_baseline(s)
    if missing is not None:
        return missing
    assert s.base is not None
    to_base = s.to_base()
    before = reached(s.base)
    new = sorted(s.label(r) for r in reached(s.profile) if to_base.get(r, -1) not in before)
    return _names_outcome(new, "routines reached that the baseline did not reach", s)
