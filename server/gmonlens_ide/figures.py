"""The figures every front end shows, worded once: seconds from samples, their ±, what is gprof's
estimate and how that is said, and rounding so that what is shown adds up.

Units: samples (ticks) in; seconds out, `ticks / hz` (`gmonlens.common.units`), None when the
profile has no sampling rate, shown as `NO_TIME`. Seconds are shown with two decimals, as gprof
prints them. A total shown beside its parts is the sum of the parts as shown
(`RoutineFigures.total_s`): "total 0.35 s (self 0.02 s + children 0.33 s)", never 0.34 beside
them. "Few samples" is said of a figure resting on 1-9 samples and shown above 0.00 s.
Percent is gprof's call-graph percent (100 x total / the call graph's total, one decimal).

The LSP renderer, the LSP wire types and the MCP tools format from here; nothing here builds a
protocol object.
"""

from __future__ import annotations

from dataclasses import dataclass

from gmonlens.common import units
from gmonlens.common.model import Profile, Routine
from gmonlens.common.units import NO_TIME, seconds, stderr_seconds
from gmonlens.profile.certainty import FEW_ROUTINE_SAMPLES

FEW_MARK = " · few samples"

# ---- what is measured and what is gprof's estimate, said once ---------------------------------

ASSUMPTION = (
    "Children times are propagated by call counts: gprof assumes every call to a routine costs "
    "the same, whoever the caller."
)
ESTIMATED = (
    "estimated: gprof splits a routine's self and children time among its callers in proportion "
    "to their calls (as if every call took as long); measured: self time (samples) and call counts"
)
ARC_ESTIMATED = "estimated (callee has several callers)"
ARC_EXACT = "exact"
ARC_IN_CYCLE = "inside its cycle (gprof puts no time on it)"
ARC_RECURSIVE = "recursive (gprof puts no time on it)"
CHILDREN_EXACT = "Children time exact: every callee below has a single caller."
SAMPLING_ERROR = "± is one standard error of the sampling (sqrt of the samples)"


def children_estimated(estimated: str, children: str, callee: str, callers: int) -> str:
    """How much of a routine's children time is gprof's split, and whose (`callee` escaped by the
    caller where it is rendered)."""
    return (
        f"{estimated} s of {children} s children time estimated: {callee} has {callers} callers "
        "(gprof splits its time by call counts)."
    )


def few_samples(samples: str) -> str:
    return (
        f"Few samples: the total rests on {samples} samples; figures under {FEW_ROUTINE_SAMPLES} "
        "samples are mostly noise (run longer, or sum several runs)."
    )


# ---- numbers as shown --------------------------------------------------------------------------


def shown(value: float | None) -> str:
    """Seconds (or any figure in seconds) as shown: two decimals, NO_TIME when there is none."""
    return units.shown(value)


def shown_sum(*parts: float | None) -> str:
    """The sum of `parts` as each is shown (two decimals): the total beside them adds up."""
    if any(p is None for p in parts):
        return NO_TIME
    return f"{sum(float(shown(p)) for p in parts):.2f}"


def is_few(samples: float, shown_value: str) -> bool:
    """Whether to say "few samples" of a figure of `samples` shown as `shown_value`."""
    return 0 < samples < FEW_ROUTINE_SAMPLES and shown_value not in ("0.00", NO_TIME)


def gprof_index(r: Routine) -> int | None:
    """gprof's call-graph index of `r` where `gprof -b` prints it (`[12]`: the routine has an entry,
    or a line in the index by function name), else None: gprof numbers every routine but shows
    no number for one without calls or time (only `-z` does)."""
    shown = r.calls or r.self_calls or r.self_ticks or r.prop_self_ticks or r.prop_child_ticks
    return r.index if r.printed and r.index and shown and not r.is_line else None


NO_FIGURES = "never called and without samples"


def calls_text(r: Routine) -> str:
    """The call count as gprof prints it: `N`, `N+M` with recursive calls, "" when never called."""
    return f"{r.calls}+{r.self_calls}" if r.self_calls else str(r.calls) if r.calls else ""


def duration(value: float | None) -> str:
    """Seconds in the unit that reads best: `0 s`, `12.5 µs`, `3.2 ms`, `1.05 s` (3 significant
    digits); NO_TIME without a sampling rate."""
    if value is None:
        return NO_TIME
    if value != value or value <= 0:
        return "0 s"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value / 1e-9:.3g} ns"


@dataclass(frozen=True, slots=True)
class RoutineFigures:
    """One routine's figures as every front end shows them (strings, module contract)."""

    percent: str  # "42.0"
    self_s: str  # "0.31": self time gprof propagates (its call-graph line)
    total_s: str  # "0.37" = self_s + children_s as shown
    calls: str  # "120" or "120+4"; "" when never called (gprof's blank)
    cycle: int  # 0 when not in a cycle
    name: str
    self_err: str = ""  # "0.06": one standard error of the self time, in seconds
    total_err: str = ""
    samples: str = ""  # samples credited to the routine (self), rounded
    total_samples: str = ""  # samples behind the total (self + children), rounded
    few: bool = False  # the total rests on 1-9 samples and is shown above 0.00
    children_s: str = ""  # "0.06": children time gprof propagates


def routine_figures(profile: Profile, r: Routine) -> RoutineFigures:
    base = profile.print_ticks if profile.print_ticks > 0 else 1.0
    hz = profile.hz
    self_s = shown(seconds(r.prop_self_ticks, hz))
    children_s = shown(seconds(r.prop_child_ticks, hz))
    total_s = shown_sum(seconds(r.prop_self_ticks, hz), seconds(r.prop_child_ticks, hz))
    return RoutineFigures(
        percent=f"{100.0 * r.total_ticks / base:.1f}",
        self_s=self_s,
        total_s=total_s,
        calls=calls_text(r),
        cycle=r.cycle,
        name=r.display_name,
        self_err=shown(stderr_seconds(r.self_ticks, hz)),
        total_err=shown(stderr_seconds(r.total_ticks, hz)),
        samples=f"{r.self_ticks:.0f}",
        total_samples=f"{r.total_ticks:.0f}",
        few=is_few(r.total_ticks, total_s),
        children_s=children_s,
    )
