"""The scaling rules: a routine's calls (exact) or time (sampled) at three or more input sizes,
its exponent fitted and compared with the declared order (the method is fitting.py's).

Verdicts: calls are exact, so the rule fails when the excess over the order's own exponent is
above the tolerance and passes otherwise. Time is sampled: it fails when the excess minus
`threshold` standard errors is still above the tolerance, passes when the excess plus as many is
within it, and is undecided between (or when a size's run has too few samples, or none in the
routine).
"""

from __future__ import annotations

from collections.abc import Callable

from gmonlens.check.fitting import ExponentFit, fit_exponent
from gmonlens.check.noise import NOT_ENOUGH, versus_limit
from gmonlens.check.results import Outcome, Verdict
from gmonlens.check.rules import ScalingRule
from gmonlens.check.time_rules import too_few
from gmonlens.common.model import Profile


def _figure(rule: ScalingRule, p: Profile, rid: int) -> tuple[float, float]:
    """(figure, samples behind it): calls, or seconds and their ticks."""
    r = p.routines[rid]
    if rule.of == "calls":
        return float(r.calls + r.self_calls), 0.0
    ticks = r.self_ticks if rule.measure == "self" else r.total_ticks
    return p.seconds(ticks), ticks


def _verdict(rule: ScalingRule, fit: ExponentFit, threshold: float) -> Verdict:
    if rule.of == "calls":
        return "fail" if fit.excess > rule.tolerance + 1e-12 else "pass"
    return versus_limit(
        fit.excess - threshold * fit.error, fit.excess + threshold * fit.error, rule.tolerance
    )


def scaling_rule(
    rule: ScalingRule, threshold: float, profile_at: Callable[[int, tuple[str, ...]], tuple[Profile, int]]
) -> Outcome:
    """Fit and decide `rule`; `profile_at(size, files)` gives that size's profile and the
    routine's id in it (raising what the caller reports)."""
    sizes: list[float] = []
    values: list[float] = []
    samples: list[float] = []
    rid = None
    for size, files in rule.sizes:
        p, rid = profile_at(size, files)
        if rule.of == "time":
            few = too_few(p, f"the run at size {size:,}")
            if few is not None:
                return Outcome("undecided", None, "no exponent", few, routine=rid)
        value, ticks = _figure(rule, p, rid)
        if value <= 0:
            what = "not called" if rule.of == "calls" else "has no samples"
            why = f"{rule.routine} {what} at size {size:,}: no exponent"
            return Outcome(
                "undecided", None, "no exponent", (f"{NOT_ENOUGH}: " if rule.of == "time" else "") + why
            )
        sizes.append(size)
        values.append(value)
        samples.append(ticks)
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
