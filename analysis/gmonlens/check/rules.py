"""A budget file as frozen records: where the profiles are and the rules, in the file's order.

Figures the rules name (units):
- calls(R): every call into R that the profile recorded, its recursive calls included (gprof's
  call graph prints them as `calls+self`); exact, from the call-graph counts;
- calls(A -> B): the count of the arc from A to B (A == B: B's recursive calls);
- reached: R was called, or called something (an arc with a count to or from it); exact. A
  routine seen only by clock samples is not counted: whether a short one is sampled varies
  between runs;
- time: seconds, `measure: total` (self + children, gprof's call graph; the default) or `self`;
  a share is of gprof's 100% for that figure: the call graph's total time for a total, the flat
  profile's for self time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gmonlens.check.orders import Order

Measure = Literal["total", "self"]


def _n(value: int) -> str:
    return f"{value:,}"


@dataclass(frozen=True, slots=True)
class Bounds:
    """An exact count's allowed range: min <= value <= max (either may be None)."""

    min: int | None = None
    max: int | None = None

    def holds(self, value: int) -> bool:
        return (self.min is None or value >= self.min) and (self.max is None or value <= self.max)

    def text(self) -> str:
        if self.min is not None and self.min == self.max:
            return f"== {_n(self.min)}"
        if self.min is not None and self.max is not None:
            return f"in [{_n(self.min)}, {_n(self.max)}]"
        return f"<= {_n(self.max)}" if self.max is not None else f">= {_n(self.min or 0)}"

    def as_json(self) -> dict[str, int]:
        if self.min is not None and self.min == self.max:
            return {"equal": self.min}
        return {k: v for k, v in (("min", self.min), ("max", self.max)) if v is not None}


@dataclass(frozen=True, slots=True)
class ProfileSource:
    """Profiles of one side: files summed as gprof sums them, or a `gmonlens test` folder (one
    profile set per test, `test_runs`)."""

    files: tuple[str, ...] = ()
    folder: str | None = None

    def text(self) -> str:
        return self.folder if self.folder is not None else ", ".join(self.files)


@dataclass(frozen=True, slots=True)
class Side:
    """A binary and its profiles (paths as the budget file resolves them)."""

    binary: str
    profiles: ProfileSource


@dataclass(frozen=True, kw_only=True)
class Rule:
    """What every rule has: its 1-based position among the file's rules, the line it starts on
    (0: unknown), an optional `name` the user gave it, and the tests it applies to (fnmatch
    patterns; empty: every test) when the profiles are per test."""

    index: int
    line: int = 0
    name: str | None = None
    tests: tuple[str, ...] = ()

    kind = "rule"
    needs_baseline = False
    needs_profiles = True

    def describe(self) -> str:
        """The rule in a few words ("calls(hash) <= 1,000,000")."""
        raise NotImplementedError

    def title(self) -> str:
        """The user's name for it, else `describe()`."""
        return self.name or self.describe()

    def routines(self) -> tuple[str, ...]:
        """The routine names the rule names, as written."""
        return ()

    def limit(self) -> dict[str, object]:
        """The rule's limit as JSON (`--json`'s `limit`)."""
        raise NotImplementedError


@dataclass(frozen=True, kw_only=True)
class CallsRule(Rule):
    routine: str
    bounds: Bounds
    kind = "calls"

    def describe(self) -> str:
        return f"calls({self.routine}) {self.bounds.text()}"

    def routines(self) -> tuple[str, ...]:
        return (self.routine,)

    def limit(self) -> dict[str, object]:
        return dict(self.bounds.as_json())


@dataclass(frozen=True, kw_only=True)
class ArcRule(Rule):
    caller: str
    callee: str
    bounds: Bounds
    kind = "arc"

    def describe(self) -> str:
        return f"calls({self.caller} -> {self.callee}) {self.bounds.text()}"

    def routines(self) -> tuple[str, ...]:
        return (self.caller, self.callee)

    def limit(self) -> dict[str, object]:
        return dict(self.bounds.as_json())


@dataclass(frozen=True, kw_only=True)
class NoNewCallersRule(Rule):
    routine: str
    kind = "no_new_callers"
    needs_baseline = True

    def describe(self) -> str:
        return f"no new callers of {self.routine}"

    def routines(self) -> tuple[str, ...]:
        return (self.routine,)

    def limit(self) -> dict[str, object]:
        return {"max_new": 0}


@dataclass(frozen=True, kw_only=True)
class NoNewArcsRule(Rule):
    routine: str | None  # None: every arc of the program; else the arcs to and from it
    kind = "no_new_arcs"
    needs_baseline = True

    def describe(self) -> str:
        return "no new arcs" if self.routine is None else f"no new arcs to or from {self.routine}"

    def routines(self) -> tuple[str, ...]:
        return () if self.routine is None else (self.routine,)

    def limit(self) -> dict[str, object]:
        return {"max_new": 0}


@dataclass(frozen=True, kw_only=True)
class ReachedRule(Rule):
    names: tuple[str, ...]
    reached: bool  # True: each must be reached; False (`not_reached`): none may be
    kind = "reached"

    def describe(self) -> str:
        return ("reached: " if self.reached else "not reached: ") + ", ".join(self.names)

    def routines(self) -> tuple[str, ...]:
        return self.names

    def limit(self) -> dict[str, object]:
        return {"reached" if self.reached else "not_reached": list(self.names)}


@dataclass(frozen=True, kw_only=True)
class NoNewRoutinesRule(Rule):
    kind = "no_new_routines"
    needs_baseline = True

    def describe(self) -> str:
        return "no routine reached that the baseline did not reach"

    def limit(self) -> dict[str, object]:
        return {"max_new": 0}


@dataclass(frozen=True, kw_only=True)
class ScalingRule(Rule):
    routine: str
    sizes: tuple[tuple[int, tuple[str, ...]], ...]  # (size, profile files), sizes ascending
    order: Order
    binary: str
    of: Literal["calls", "time"] = "calls"
    measure: Measure = "total"
    tolerance: float = 0.1
    kind = "scaling"
    needs_profiles = False

    def describe(self) -> str:
        what = f"calls({self.routine})" if self.of == "calls" else f"{self.measure} time({self.routine})"
        return f"{what} grows at most as O({self.order.label})"

    def routines(self) -> tuple[str, ...]:
        return (self.routine,)

    def limit(self) -> dict[str, object]:
        return {"max_order": self.order.label, "tolerance": self.tolerance, "of": self.of}


@dataclass(frozen=True, kw_only=True)
class TimeShareRule(Rule):
    routine: str
    max_percent: float
    measure: Measure = "total"
    kind = "time_share"

    def describe(self) -> str:
        m = "" if self.measure == "total" else "self "
        return f"{m}time share({self.routine}) <= {self.max_percent:g}%"

    def routines(self) -> tuple[str, ...]:
        return (self.routine,)

    def limit(self) -> dict[str, object]:
        return {"max_percent": self.max_percent, "measure": self.measure}


@dataclass(frozen=True, kw_only=True)
class TimeRule(Rule):
    routine: str
    max_increase_percent: float | None = None  # against the baseline
    max_seconds: float | None = None
    measure: Measure = "total"
    normalize: bool = False  # compare shares of the runs (diff --normalize)
    kind = "time"

    @property
    def needs_baseline(self) -> bool:  # type: ignore[override]
        return self.max_increase_percent is not None

    def describe(self) -> str:
        m = "" if self.measure == "total" else "self "
        parts = []
        if self.max_seconds is not None:
            parts.append(f"<= {self.max_seconds:g} s")
        if self.max_increase_percent is not None:
            parts.append(f"<= baseline + {self.max_increase_percent:g}%")
        return f"{m}time({self.routine}) " + " and ".join(parts)

    def routines(self) -> tuple[str, ...]:
        return (self.routine,)

    def limit(self) -> dict[str, object]:
        out: dict[str, object] = {"measure": self.measure}
        if self.max_seconds is not None:
            out["max_seconds"] = self.max_seconds
        if self.max_increase_percent is not None:
            out["max_increase_percent"] = self.max_increase_percent
            out["normalize"] = self.normalize
        return out


@dataclass(frozen=True)
class Budgets:
    """A budget file: `current` (the profiles checked; None when every rule brings its own),
    `baseline`, the rules in the file's order, and the file's `threshold` (z) if it sets one."""

    path: str
    current: Side | None
    baseline: Side | None
    rules: tuple[Rule, ...]
    threshold: float | None = None
