"""The scaling rules: a routine's calls (exact) or time (sampled) at three or more input sizes,
its exponent fitted and compared with the declared order (the method is fitting.py's).

Verdicts: calls are exact, so the rule fails when the excess over the order's own exponent is
above the tolerance and passes otherwise. Time is sampled: it fails when the excess minus
`threshold` standard errors is still above the tolerance, passes when the excess plus as many is
within it, and is undecided between. It is undecided too ("not enough samples to decide") when
the routine has fewer than FEW_ROUTINE_SAMPLES samples at some size, or fewer than MIN_SAMPLES
over all sizes: each size alone decides nothing, the fit's ± carries the samples, so the floor is
on what the fit rests on, not on each run as for the other time rules.
"""

from __future__ import annotations

from collections.abc import Callable

from gmonlens.check.fitting import ExponentFit, fit_exponent
from gmonlens.check.noise import MIN_SAMPLES, NOT_ENOUGH, versus_limit
from gmonlens.check.results import Outcome, Verdict
from gmonlens.check.rules import ScalingRule
from gmonlens.common.model import Profile
from gmonlens.profile.certainty import FEW_ROUTINE_SAMPLES


def _figure(rule: ScalingRule, p: Profile, rid: int) -> tuple[float, float]:
    """(figure, samples behind it): calls, or seconds and their ticks."""
    r = p.routines[rid]
    if rule.of == "calls":
        return float(r.calls + r.self_calls), 0.0
    ticks = r.self_ticks if rule.measure == "self" else r.total_ticks
    return p.seconds(ticks) or 0.0, ticks  # no sampling rate: no time (too few samples below)


def _verdict(rule: ScalingRule, fit: ExponentFit, threshold: float) -> Verdict:
    if rule.of == "calls":
        return "fail" if fit.excess > rule.tolerance + 1e-12 else "pass"
    return versus_limit(
        fit.excess - threshold * fit.error, fit.excess + threshold * fit.error, rule.tolerance
    )


class _NoFit(Exception):
    """A size whose figure cannot be fitted (`outcome` says why)."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.reason)
        self.outcome = outcome


ProfileAt = Callable[[int, tuple[str, ...]], tuple[Profile, int]]


def _points(rule: ScalingRule, profile_at: ProfileAt) -> tuple[list[float], list[float], list[float], int]:
    """(sizes, figures, samples behind them, the routine's id); _NoFit when they cannot be fitted."""
    sizes: list[float] = []
    values: list[float] = []
    samples: list[float] = []
    rid = -1
    for size, files in rule.sizes:
        p, rid = profile_at(size, files)
        value, ticks = _figure(rule, p, rid)
        if rule.of == "time" and ticks < FEW_ROUTINE_SAMPLES:
            why = f"{NOT_ENOUGH}: {rule.routine} has {ticks:g} samples at size {size:,} (at least {FEW_ROUTINE_SAMPLES})"
            raise _NoFit(Outcome("undecided", None, "no exponent", why, routine=rid))
        if value <= 0:
            why = f"{rule.routine} is not called at size {size:,}: no exponent"
            raise _NoFit(Outcome("undecided", None, "no exponent", why, routine=rid))
        sizes.append(size)
        values.append(value)
        samples.append(ticks)
    if rule.of == "time" and sum(samples) < MIN_SAMPLES:
        why = f"{NOT_ENOUGH}: {rule.routine} has {sum(samples):g} samples over all sizes (at least {MIN_SAMPLES})"
        raise _NoFit(Outcome("undecided", None, "no exponent", why, routine=rid))
    return sizes, values, samples, rid


def scaling_rule(rule: ScalingRule, threshold: float, profile_at: ProfileAt) -> Outcome:
    """Fit and decide `rule`; `profile_at(size, files)` gives that size's profile and the
    routine's id in it (raising what the caller reports)."""
    try:
        sizes, values, samples, rid = _points(rule, profile_at)
    except _NoFit as e:
        return e.outcome
    fit = fit_exponent(sizes, values, rule.order, samples=samples if rule.of == "time" else None)
    verdict = _verdict(rule, fit, threshold)
    shown = f"n^{fit.exponent:.2f} ± {fit.error:.2f} (like {fit.like})"
    reason = ""
    over = f"O({rule.order.label}) grows as n^{fit.order_exponent:.2f} over {sizes[0]:,.0f}-{sizes[-1]:,.0f}"
    if verdict == "fail":
        reason = f"{over}; excess {fit.excess:+.2f} > {rule.tolerance:g}"
    elif verdict == "undecided":
        reason = (
            f"{NOT_ENOUGH}: {over}; excess {fit.excess:+.2f} ± {fit.error:.2f} against {rule.tolerance:g}"
        )
    measured = tuple((int(n), v) for n, v in zip(sizes, values, strict=True))
    return Outcome(
        verdict, measured, shown, reason, exponent=fit.exponent, exponent_error=fit.error,
        order_exponent=fit.order_exponent, like=fit.like, routine=rid,
    )  # fmt: skip
