"""What checking a budget file gives: frozen records (pure).

A rule's `Outcome` on one profile set (the whole run, or one test's) has a verdict:
- `pass`: the budget holds (exact rules: it does; time rules: beyond sampling noise);
- `fail`: it does not (time rules: beyond sampling noise);
- `undecided`: a time rule whose profile cannot say ("not enough samples to decide"), or a rule
  against a baseline that has no profile for this test.
A `RuleResult` gathers a rule's outcomes (one per test when the profiles are per test); its verdict
is the worst of them (fail, then undecided, then pass). `CheckReport.errors` are the problems that
stopped rules from being checked at all (a routine that does not exist, a cycle member under a
time rule, a profile that is unreadable or another program's): the check then exits 2.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from gmonlens.check.rules import Budgets, Rule

Verdict = Literal["pass", "fail", "undecided"]
VERDICTS: tuple[Verdict, ...] = ("pass", "fail", "undecided")
_RANK = {"pass": 0, "undecided": 1, "fail": 2}
EXIT_PASS, EXIT_FAIL, EXIT_ERROR = 0, 1, 2
NO_PROFILE = "not checked: its profiles could not be read"

Measured = int | float | tuple[str, ...] | tuple[tuple[int, float], ...] | None


def worst(verdicts: Sequence[Verdict]) -> Verdict:
    return max(verdicts, key=lambda v: _RANK[v], default="pass")


@dataclass(frozen=True, slots=True)
class ArcNote:
    """An arc behind a figure or carrying a change: its count (and, against a baseline, the
    baseline's: 0 for a new arc), and for time rules the seconds gprof propagates along it."""

    caller: str
    callee: str
    count: int
    baseline: int | None = None
    seconds: float | None = None
    baseline_seconds: float | None = None

    def text(self) -> str:
        s = f"{self.caller} -> {self.callee}: {self.count:,}"
        if self.baseline is not None:
            s += (
                " (new)"
                if self.baseline == 0 and self.count
                else f" (baseline {self.baseline:,}, {self.count - self.baseline:+,})"
            )
        if self.seconds is not None:
            s += f", {self.seconds:.2f} s"
            if self.baseline_seconds is not None:
                s += f" (baseline {self.baseline_seconds:.2f} s)"
        return s


@dataclass(frozen=True, slots=True)
class Outcome:
    """A rule's result on one profile set (module doc). `measured` is the figure (a count, a
    percent, seconds, names, or (size, figure) pairs for scaling), `shown` the same as text;
    `reason` says why a verdict is not plain (undecided, or what failed)."""

    verdict: Verdict
    measured: Measured
    shown: str
    reason: str = ""
    test: str | None = None
    arcs: tuple[ArcNote, ...] = ()
    low: float | None = None  # time rules: the figure's bounds at the threshold (same unit)
    high: float | None = None
    z: float | None = None  # against a baseline: diff's z of the change past the budget
    exponent: float | None = None  # scaling: fitted exponent, its ± (1 standard error)
    exponent_error: float | None = None
    order_exponent: float | None = None  # the declared order's own exponent over the sizes
    like: str | None = None  # the standard order nearest the fitted exponent
    routine: int | None = None  # the routine's id in the profile (rules about one routine)


@dataclass(frozen=True)
class RuleResult:
    """A rule and its outcomes, in test order (one when the profiles are not per test)."""

    rule: Rule
    outcomes: tuple[Outcome, ...]
    per_test: bool = False
    problems: tuple[str, ...] = ()  # why it could not be checked (on some or every profile set)

    @property
    def not_checked(self) -> tuple[str, ...]:
        """Why the rule was not checked: its problems, or, when it has no outcome at all, that its
        profiles could not be read (their errors are the report's). Empty when it was checked."""
        if self.problems or self.outcomes:
            return self.problems
        return (NO_PROFILE,)

    @property
    def verdict(self) -> Verdict:
        return worst([o.verdict for o in self.outcomes]) if self.outcomes else "undecided"

    @property
    def deciding(self) -> Outcome | None:
        """The first outcome with the rule's verdict (the one to show)."""
        v = self.verdict
        return next((o for o in self.outcomes if o.verdict == v), None)


@dataclass(frozen=True)
class CheckReport:
    """The results of every rule in the file's order, with what stopped the check (module doc)."""

    budgets: Budgets
    results: tuple[RuleResult, ...]
    threshold: float
    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    tests: tuple[str, ...] = field(default=())  # the tests checked, when the profiles are per test

    def count(self, verdict: Verdict) -> int:
        """Rules with `verdict` (rules that could not be checked are counted by `not_checked`)."""
        return sum(1 for r in self.results if r.verdict == verdict and not r.not_checked)

    def not_checked(self) -> int:
        return sum(1 for r in self.results if r.not_checked)

    def exit_status(self, fail_undecided: bool = False) -> int:
        """2 when the budgets could not be checked, 1 when a rule failed (or, with
        `fail_undecided`, could not decide), else 0."""
        if self.errors:
            return EXIT_ERROR
        if self.count("fail") or (fail_undecided and self.count("undecided")):
            return EXIT_FAIL
        return EXIT_PASS
