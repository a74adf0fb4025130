"""Time budgets decided against sampling noise (pure).

Time in a gprof profile is a count of clock samples, Poisson distributed. A time rule is decided
three ways, never silently:
- pass: the budget holds beyond noise (the figure's upper confidence bound is within the limit);
- fail: the budget is exceeded beyond noise (the lower bound is past the limit);
- undecided: the limit lies within the figure's noise, or the run has fewer than MIN_SAMPLES
  samples in all ("not enough samples to decide": the normal approximations below, and any
  figure resting on so few samples, are not to be trusted).
`z` is the width of the bounds in standard errors (`--threshold`, default 3, as `gmonlens diff`:
a budget that holds exactly at its limit fails about once in 740 runs, one that holds with room
less often).

Bounds used:
- a share of the run (`part` of `total` samples): Wilson's score interval of a binomial
  proportion, good down to a share of 0 or 1;
- seconds (`count` samples of `period` s): the score interval of a Poisson mean,
  count + z^2/2 +- z sqrt(count + z^2/4) samples;
- growth against a baseline by at most P%: `gmonlens diff`'s z-test (gmonlens.profile.diff)
  of the new time against the baseline's scaled by (1 + P/100): z >= threshold fails,
  z <= -threshold passes.
A total time (self + children) is a sum of samples weighted by call fractions <= 1; as in `diff`,
its tick count stands for its variance (an upper bound: the bounds are wider than needed, never
narrower).
"""

from __future__ import annotations

import math
from typing import Literal

from gmonlens.profile.certainty import FEW_SAMPLES
from gmonlens.profile.diff import z_score

Verdict = Literal["pass", "fail", "undecided"]  # results.Verdict
MIN_SAMPLES = FEW_SAMPLES  # a run with fewer samples decides no time rule
NOT_ENOUGH = "not enough samples to decide"


def share_bounds(part: float, total: float, z: float) -> tuple[float, float]:
    """Wilson score interval (low, high) of the proportion part / total (total > 0)."""
    p = min(max(part / total, 0.0), 1.0)
    z2 = z * z
    centre = (p + z2 / (2 * total)) / (1 + z2 / total)
    half = z / (1 + z2 / total) * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total))
    return max(0.0, centre - half), min(1.0, centre + half)


def count_bounds(count: float, z: float) -> tuple[float, float]:
    """Score interval (low, high) of a Poisson mean observed as `count`."""
    centre = count + z * z / 2
    half = z * math.sqrt(count + z * z / 4)
    return max(0.0, centre - half), centre + half


def versus_limit(low: float, high: float, limit: float) -> Verdict:
    """pass / fail / undecided of an upper limit given a figure's bounds."""
    if high <= limit:
        return "pass"
    if low > limit:
        return "fail"
    return "undecided"


def growth_z(before: float, period_before: float, after: float, period_after: float, ratio: float) -> float:
    """diff's z of `after` samples against `before` samples scaled by `ratio` (1 + P/100, times
    the runs' length ratio when normalised): > 0 when the time grew by more than `ratio`."""
    return z_score(before, period_before, after, period_after, ratio)


def versus_z(z: float, threshold: float) -> Verdict:
    if z >= threshold:
        return "fail"
    if z <= -threshold:
        return "pass"
    return "undecided"


def samples_needed(z: float, threshold: float) -> float:
    """How many times the samples would settle an undecided test at its observed effect (z grows
    as the square root of the samples); inf when there is no effect at all."""
    return (threshold / abs(z)) ** 2 if z else math.inf
