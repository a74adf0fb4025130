"""`run_check(budgets)`: every rule of a budget file checked on its profiles -> `CheckReport`
(reads the profiles through `profiles.Profiles`).

Profile sets: the top-level `profiles` are one set, or one per test (a `gmonlens test` folder); each
rule with a `tests:` list applies to the tests it matches (fnmatch patterns), the others to
every test. A baseline is paired with each set: per test by test name when both sides are per
test (a test without a baseline profile is undecided for the rules against the baseline); the
one baseline for every set when it is a plain profile; the sum of its tests when only the
baseline is per test. A baseline, when the file gives one, is read even if no rule needs it: the
arcs behind a count then show their change. Scaling rules read their own profiles (one set per size).

What stops a rule from being checked (a routine that does not exist or names several, a cycle
member's total time, a profile that cannot be read or is another program's, a `tests:` pattern
that matches no test) is one line in `CheckReport.errors` (each once: the profiles' first, then
the rules' in the file's order);
warnings (a profile that fits its binary only loosely) are kept likewise.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Sequence
from typing import Any

from gmonlens.check.exact_rules import (
    arc_rule,
    calls_rule,
    no_new_arcs,
    no_new_callers,
    no_new_routines,
    reached_rule,
)
from gmonlens.check.names import NameProblem
from gmonlens.check.profiles import Profiles, ProfileSet, profile_sets, summed
from gmonlens.check.results import CheckReport, Outcome, RuleResult
from gmonlens.check.rules import (
    ArcRule,
    Budgets,
    CallsRule,
    NoNewArcsRule,
    NoNewCallersRule,
    NoNewRoutinesRule,
    ReachedRule,
    Rule,
    ScalingRule,
    Side,
    TimeRule,
    TimeShareRule,
)
from gmonlens.check.scaling_rules import scaling_rule
from gmonlens.check.subject import RuleProblem, Subject
from gmonlens.check.time_rules import time_rule, time_share
from gmonlens.common.errors import GmonlensError
from gmonlens.common.model import Profile
from gmonlens.profile.diff import DEFAULT_THRESHOLD

EVALUATORS: dict[type[Rule], Callable[[Any, Subject], Outcome]] = {
    CallsRule: calls_rule,
    ArcRule: arc_rule,
    NoNewCallersRule: no_new_callers,
    NoNewArcsRule: no_new_arcs,
    ReachedRule: reached_rule,
    NoNewRoutinesRule: no_new_routines,
    TimeShareRule: time_share,
    TimeRule: time_rule,
}


class _Stop(Exception):
    """A set or a size that cannot be read: its error line is already recorded."""


def matches(test: str, patterns: Sequence[str]) -> bool:
    return not patterns or any(test == p or fnmatch.fnmatchcase(test, p) for p in patterns)


class _Run:
    def __init__(self, budgets: Budgets, threshold: float, profiles: Profiles) -> None:
        self.budgets, self.threshold, self.profiles = budgets, threshold, profiles
        self.errors: dict[str, None] = {}
        self.warnings: dict[str, None] = {}
        self.outcomes: dict[int, list[Outcome]] = {r.index: [] for r in budgets.rules}
        self.problems: dict[int, dict[str, None]] = {r.index: {} for r in budgets.rules}
        self._base: dict[tuple[str, ...], Profile] = {}

    def where(self, rule: Rule) -> str:
        line = f":{rule.line}" if rule.line else ""
        return f"{self.budgets.path}{line}: rule {rule.index} ({rule.kind})"

    def rule_error(self, rule: Rule, message: str) -> None:
        """A problem that keeps `rule` from being checked (one line naming the file and rule)."""
        line = f"{self.where(rule)}: {message}"
        self.errors[line] = None
        self.problems[rule.index][message] = None

    def load(self, what: str, pset: ProfileSet) -> Profile:
        try:
            profile = self.profiles.load(pset.binary, pset.files)
        except GmonlensError as e:
            self.errors[f"{self.budgets.path}: {what}: {e}"] = None
            raise _Stop from None
        for w in profile.problems:
            self.warnings[f"{what}: {w}"] = None
        return profile

    def sets(self, what: str, side: Side) -> tuple[tuple[ProfileSet, ...], bool]:
        try:
            return profile_sets(side.binary, side.profiles)
        except GmonlensError as e:
            self.errors[f"{self.budgets.path}: {what}: {e}"] = None
            raise _Stop from None

    def baseline_for(
        self, pset: ProfileSet, base_sets: dict[str | None, ProfileSet]
    ) -> tuple[Profile | None, str | None]:
        """The baseline profile paired with `pset` (module doc), or None and why."""
        if not base_sets:
            return None, None
        plain = None in base_sets
        base = base_sets.get(None if plain else pset.test)
        if base is None:
            return None, f"test {pset.test!r} has no baseline profile"
        if not plain:  # a test's own baseline: read for it alone, not kept
            return self.load(f"baseline (test {base.test})", base), None
        if base.files not in self._base:  # the one baseline of every set: read once
            self._base[base.files] = self.load("baseline", base)
        return self._base[base.files], None

    def check_set(
        self, pset: ProfileSet, rules: Sequence[Rule], base_sets: dict[str | None, ProfileSet]
    ) -> None:
        what = "profiles" + (f" (test {pset.test})" if pset.test else "")
        profile = self.load(what, pset)
        base, missing = self.baseline_for(pset, base_sets)
        s = Subject(pset.test, profile, self.profiles.names(pset.binary, profile), self.threshold, base)
        s.base_missing = missing
        for rule in rules:
            try:
                self.outcomes[rule.index].append(EVALUATORS[type(rule)](rule, s))
            except RuleProblem as e:
                self.rule_error(rule, e.message)

    def base_sets(self, per_test: bool) -> dict[str | None, ProfileSet]:
        """The baseline's sets by test name when both sides are per test (`per_test`: the checked
        profiles are), else {None: the one baseline} (a per-test baseline summed)."""
        side = self.budgets.baseline
        if side is None:
            return {}
        sets, base_per_test = self.sets("baseline", side)
        return {s.test: s for s in sets} if base_per_test and per_test else {None: summed(sets)}

    def check_scaling(self, rule: ScalingRule) -> None:
        def profile_at(size: int, files: tuple[str, ...]) -> tuple[Profile, int]:
            p = self.load(f"rule {rule.index} ({rule.kind}), size {size:,}", ProfileSet(rule.binary, files))
            return p, self.profiles.names(rule.binary, p).find(rule.routine)

        try:
            self.outcomes[rule.index].append(scaling_rule(rule, self.threshold, profile_at))
        except _Stop:
            pass
        except NameProblem as e:
            self.rule_error(rule, e.message)


def _tests_of(run: _Run, sets: Sequence[ProfileSet], per_test: bool, rules: Sequence[Rule]) -> None:
    """An error line for each rule whose `tests:` cannot apply (plain profiles, or no test matches)."""
    names = [s.test or "" for s in sets]
    for r in rules:
        if r.tests and not per_test:
            run.rule_error(r, "'tests' applies to per-test profiles (a `gmonlens test` folder)")
        for pattern in r.tests if per_test else ():
            if not any(matches(n, (pattern,)) for n in names):
                run.rule_error(r, f"no test matches {pattern!r}")


def _only_test(sets: Sequence[ProfileSet], per_test: bool, test: str, source: str) -> list[ProfileSet]:
    """The profile set of test `test` (GmonlensError naming `source` when there is none)."""
    if not per_test:
        raise GmonlensError(
            source, f"test {test!r}: the profiles are not per test (a `gmonlens test` folder)"
        )
    chosen = [s for s in sets if s.test == test]
    if not chosen:
        names = [s.test or "" for s in sets]
        near = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        raise GmonlensError(source, f"no test named {test!r} (tests: {near})")
    return chosen


def _check_sets(run: _Run, on_sets: Sequence[Rule], test: str | None) -> tuple[tuple[str, ...], bool]:
    """Check the rules on the budget file's profile sets (every test, or `test` alone); the
    tests checked and whether the profiles are per test."""
    assert run.budgets.current is not None
    try:
        sets, per_test = run.sets("profiles", run.budgets.current)
    except _Stop:  # the profiles cannot be read: the report's errors say why
        return (), False
    if test is not None:
        sets = tuple(_only_test(sets, per_test, test, run.budgets.current.profiles.text()))
    try:
        base_sets = run.base_sets(per_test)
    except _Stop:
        return (), per_test
    if test is None:
        _tests_of(run, sets, per_test, on_sets)
    for pset in sets:
        try:
            run.check_set(
                pset, [r for r in on_sets if not pset.test or matches(pset.test, r.tests)], base_sets
            )
        except _Stop:
            continue
    return tuple(s.test for s in sets if s.test is not None), per_test


def run_check(
    budgets: Budgets,
    *,
    threshold: float | None = None,
    profiles: Profiles | None = None,
    test: str | None = None,
) -> CheckReport:
    """Check every rule of `budgets` (module doc). `threshold`: z for the time rules (default: the
    file's, else `gmonlens diff`'s 3). `test`: only that test of per-test profiles: the rules that
    apply to it, on its profiles alone (scaling rules, over runs of their own, are left out of the
    report); GmonlensError naming the profiles when they are not per test or have no such test."""
    z = threshold if threshold is not None else budgets.threshold or DEFAULT_THRESHOLD
    run = _Run(budgets, z, profiles or Profiles())
    rules = [
        r
        for r in budgets.rules
        if test is None or (not isinstance(r, ScalingRule) and matches(test, r.tests))
    ]
    on_sets = [r for r in rules if not isinstance(r, ScalingRule)]
    tests: tuple[str, ...] = ()
    per_test = False
    if test is not None and budgets.current is None:
        raise GmonlensError(budgets.path, f"test {test!r}: the file names no per-test profiles")
    if on_sets and budgets.current is not None:
        tests, per_test = _check_sets(run, on_sets, test)
    for r in rules:
        if isinstance(r, ScalingRule):
            run.check_scaling(r)
    results = tuple(
        RuleResult(
            r,
            tuple(run.outcomes[r.index]),
            per_test and not isinstance(r, ScalingRule),
            tuple(run.problems[r.index]),
        )
        for r in rules
    )
    rule_lines = {f"{run.where(r)}: {m}" for r in budgets.rules for m in run.problems[r.index]}
    errors = [e for e in run.errors if e not in rule_lines]  # the profiles' first, then by rule
    errors += [f"{run.where(r)}: {m}" for r in rules for m in run.problems[r.index]]
    return CheckReport(budgets, results, z, tuple(errors), tuple(run.warnings), tests)
