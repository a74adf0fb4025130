"""Each routine's budgets on a profile the caller already has: what an editor's hover ("calls
1,000,000 of 1,200,000 allowed") and an agent's tool show (pure; no file is read).

Contract of `routine_budgets(budgets, profile, binary)`: every rule of `budgets` about named
routines (calls, arc, time_share, time, reached, not_reached, no_new_callers; with `baseline`
also the rules against it) is checked on `profile` exactly as `gmonlens check` checks it
(`run.EVALUATORS`: same figures, same noise bounds), and gives one `RoutineBudget` per routine it
names (an arc rule: one for the callee, one for the caller). Rules that apply to tests (`tests:`)
are taken only when `test` names a test they match. Rules over the whole program (no_new_arcs,
no_new_routines) and scaling rules (their profiles are other runs: `run_check` reads them) give
none. A rule that cannot be checked on this profile (a name it does not have, a cycle member's
total time) is one line in `BudgetView.problems`, never an exception. `budgets` comes from
`budget_file.load_budgets` (which raises YamlFileError, one line per problem);
`about_binary(budgets, binary)` says whether a budget file is about the program a server shows.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from gmonlens.check.names import RoutineNames
from gmonlens.check.results import Outcome, Verdict
from gmonlens.check.rules import (
    ArcRule,
    Budgets,
    CallsRule,
    NoNewCallersRule,
    ReachedRule,
    Rule,
    TimeRule,
    TimeShareRule,
)
from gmonlens.check.run import EVALUATORS, matches
from gmonlens.check.subject import RuleProblem, Subject, reached
from gmonlens.common.model import Profile
from gmonlens.profile.diff import DEFAULT_THRESHOLD

_ABOUT_ROUTINES = (CallsRule, ArcRule, TimeShareRule, TimeRule, ReachedRule, NoNewCallersRule)


@dataclass(frozen=True, slots=True)
class RoutineBudget:
    """One rule's budget on one routine: `text` for a hover ("calls 1,000,000 of 1,200,000
    allowed"), the verdict, the figure and the limit (calls, percent or seconds, as the rule's
    kind has them; None where the rule has no single number), and where the rule is."""

    routine: int  # routine id in the profile
    rule: int  # 1-based index of the rule in the budget file
    line: int  # the rule's line in the budget file (0: unknown)
    kind: str
    verdict: Verdict
    measured: float | None
    limit: float | None
    text: str
    reason: str = ""


@dataclass(frozen=True)
class BudgetView:
    """The budgets of a profile's routines, and the rules that could not be checked on it."""

    budgets: tuple[RoutineBudget, ...]
    problems: tuple[str, ...] = ()

    def of(self, routine: int) -> tuple[RoutineBudget, ...]:
        """The budgets of routine id `routine`, in the file's order."""
        return tuple(b for b in self.budgets if b.routine == routine)


def _allowed(rule: CallsRule | ArcRule, n: int, what: str) -> tuple[str, float | None]:
    lo, hi = rule.bounds.min, rule.bounds.max
    if lo is not None and lo == hi:
        return f"{what} {n:,} (exactly {lo:,} allowed)", float(lo)
    if hi is not None and lo is not None:
        return f"{what} {n:,} ({lo:,} to {hi:,} allowed)", float(hi)
    if hi is not None:
        return f"{what} {n:,} of {hi:,} allowed", float(hi)
    return f"{what} {n:,} (at least {lo or 0:,} required)", float(lo or 0)


def _verdict_note(o: Outcome, below: bool = False) -> str:
    """What a verdict adds to a budget's text: a failure is over budget (`below`: a count under
    the rule's minimum), an undecided time rule cannot say."""
    if o.verdict == "fail":
        return ": below the minimum" if below else ": over budget"
    return ": not enough samples to decide" if o.verdict == "undecided" else ""


Entry = tuple[int, str, float | None, float | None]  # routine id, text, measured, limit


def _count(o: Outcome) -> int:
    return int(o.measured) if isinstance(o.measured, (int, float)) else 0


def _below(rule: Rule, n: int) -> bool:
    lo = rule.bounds.min if isinstance(rule, (CallsRule, ArcRule)) else None
    return lo is not None and n < lo


def _exact(rule: Rule, o: Outcome, s: Subject) -> list[Entry]:
    note = _verdict_note(o, _below(rule, _count(o)))
    if isinstance(rule, CallsRule) and o.routine is not None:
        text, limit = _allowed(rule, _count(o), "calls")
        return [(o.routine, text + note, float(_count(o)), limit)]
    if isinstance(rule, ArcRule):
        a, b = s.routine(rule.caller), s.routine(rule.callee)
        to_b, limit = _allowed(rule, _count(o), f"calls from {s.label(a)}")
        from_a, _ = _allowed(rule, _count(o), f"calls to {s.label(b)}")
        return [(b, to_b + note, float(_count(o)), limit), (a, from_a + note, float(_count(o)), limit)]
    if isinstance(rule, ReachedRule):
        hit = reached(s.profile)
        want = "must be reached" if rule.reached else "must not be reached"
        ids = [s.routine(name) for name in rule.names]
        return [(rid, f"{want}: {'reached' if rid in hit else 'not reached'}", None, None) for rid in ids]
    if isinstance(rule, NoNewCallersRule) and o.routine is not None:
        return [(o.routine, f"no new callers allowed: {o.shown}", None, 0.0)]
    return []


def _timed(rule: Rule, o: Outcome) -> list[Entry]:
    note = _verdict_note(o)
    measured = float(o.measured) if isinstance(o.measured, (int, float)) else None
    if isinstance(rule, TimeShareRule) and o.routine is not None:
        text = f"time {o.shown} of the run ({rule.max_percent:g}% allowed)"
        return [(o.routine, text + note, measured, rule.max_percent)]
    if isinstance(rule, TimeRule) and o.routine is not None:
        parts = [f"{rule.max_seconds:g} s allowed"] if rule.max_seconds is not None else []
        if rule.max_increase_percent is not None:
            parts.append(f"baseline + {rule.max_increase_percent:g}% allowed")
        return [(o.routine, f"time {o.shown} ({', '.join(parts)}){note}", measured, rule.max_seconds)]
    return []


def about_binary(budgets: Budgets, binary: str) -> bool:
    """Whether `budgets` are about the executable at `binary` (the same file; by name when either
    cannot be found): the budget file an editor should apply to the program it shows."""
    if budgets.current is None:
        return False
    try:
        return os.path.samefile(budgets.current.binary, binary)
    except OSError:
        return os.path.basename(budgets.current.binary) == os.path.basename(binary)


def routine_budgets(
    budgets: Budgets,
    profile: Profile,
    binary: str,
    *,
    baseline: Profile | None = None,
    test: str | None = None,
    threshold: float | None = None,
) -> BudgetView:
    """The budgets of `profile`'s routines (module contract); `binary` names the program in
    messages."""
    z = threshold if threshold is not None else budgets.threshold or DEFAULT_THRESHOLD
    s = Subject(test, profile, RoutineNames(profile, binary), z, baseline)
    out: list[RoutineBudget] = []
    problems: list[str] = []
    for rule in budgets.rules:
        if not isinstance(rule, _ABOUT_ROUTINES) or (rule.needs_baseline and baseline is None):
            continue
        if rule.tests and (test is None or not matches(test, rule.tests)):
            continue
        try:
            o = EVALUATORS[type(rule)](rule, s)
            entries = _exact(rule, o, s) + _timed(rule, o)
        except RuleProblem as e:
            problems.append(f"{budgets.path}:{rule.line}: rule {rule.index} ({rule.kind}): {e.message}")
            continue
        for rid, text, measured, limit in entries:
            out.append(
                RoutineBudget(
                    rid, rule.index, rule.line, rule.kind, o.verdict, measured, limit, text, o.reason
                )
            )
    return BudgetView(tuple(out), tuple(problems))
