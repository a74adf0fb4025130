"""The exponent of a figure against input size, and how it compares with an order (pure).

Method. With sizes n_i and figures v_i > 0 (calls of a routine, or its time), the exponent is the
slope b of the weighted least-squares line through (ln n_i, ln v_i): v ~ c * n^b.

An order such as `n log n` has no single exponent: over sizes {1000, 2000, 4000} its values grow
like n^1.13, over {10^5 .. 10^6} like n^1.08. So the order is never compared with a fixed number:
its own values g(n_i) are fitted the same way, over the same sizes and weights, giving the
exponent the order would show there (`order_exponent`), and the figure's `excess` is
b - order_exponent, which is also exactly the slope of ln(v_i / g(n_i)) (least squares is linear
in the data): the figure measured against the order's own predicted curve. An O(n log n)
routine's excess is near 0 at any sizes (a lower-order term such as `- n` shifts it by a few
hundredths); an O(n^2) one's against `n log n` is about 0.87 at 1000-4000. A rule fails when the
excess exceeds its tolerance (default 0.1).

Uncertainty (the ± printed beside the exponent, one standard error of b):
- calls are exact: the ± is the ordinary least-squares standard error from the residuals, a
  measure of how far the points are from any power law (0 for three points on one; undefined,
  reported as 0, for two);
- time is a count of samples t_i, Poisson: ln t_i has variance about 1/t_i, so the points are
  weighted by t_i and the ± is sqrt(1 / sum(t_i (x_i - mean)^2)), widened by
  sqrt(chi^2 / (k - 2)) when the points scatter more than the samples explain (the run's time
  itself varies, not only its sampling) and there are four points or more (with three, one
  degree of freedom, that estimate is too noisy to use: it triples the ± one time in ten).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from gmonlens.check.orders import STANDARD, Order


@dataclass(frozen=True, slots=True)
class ExponentFit:
    """A fitted exponent (module doc): `exponent` ± `error`, the order's own `order_exponent` over
    the same sizes and weights, and the standard order whose exponent there is nearest (`like`)."""

    exponent: float
    error: float
    order_exponent: float
    like: str

    @property
    def excess(self) -> float:
        return self.exponent - self.order_exponent


def _slope(xs: Sequence[float], ys: Sequence[float], ws: Sequence[float]) -> tuple[float, float, float]:
    """(slope, intercept, sum of w (x - mean)^2) of the weighted least-squares line."""
    sw = sum(ws)
    mx = sum(w * x for w, x in zip(ws, xs, strict=True)) / sw
    my = sum(w * y for w, y in zip(ws, ys, strict=True)) / sw
    sxx = sum(w * (x - mx) ** 2 for w, x in zip(ws, xs, strict=True))
    sxy = sum(w * (x - mx) * (y - my) for w, x, y in zip(ws, xs, ys, strict=True))
    b = sxy / sxx
    return b, my - b * mx, sxx


def order_exponent(order: Order, sizes: Sequence[float], weights: Sequence[float] | None = None) -> float:
    """The exponent `order` shows over `sizes` (all > 1), fitted as a figure would be."""
    ws = list(weights) if weights is not None else [1.0] * len(sizes)
    xs = [math.log(n) for n in sizes]
    return _slope(xs, [order.log_value(n) for n in sizes], ws)[0]


def _like(sizes: Sequence[float], ws: Sequence[float], exponent: float) -> str:
    return min(STANDARD, key=lambda o: abs(order_exponent(o, sizes, ws) - exponent)).label


def fit_exponent(
    sizes: Sequence[float], values: Sequence[float], order: Order, *, samples: Sequence[float] | None = None
) -> ExponentFit:
    """Fit `values` (> 0) against `sizes` (> 1, at least two distinct) and compare with `order`.

    Without `samples` the values are exact (calls); with them, `samples[i]` is the sample count
    behind `values[i]` (time) and weights the fit (module doc)."""
    if len(sizes) != len(values) or len(set(sizes)) < 2:
        raise ValueError("need figures at two or more distinct sizes")
    if min(sizes) <= 1 or min(values) <= 0:
        raise ValueError("sizes must be above 1 and figures above 0")
    ws = [float(s) for s in samples] if samples is not None else [1.0] * len(sizes)
    xs = [math.log(n) for n in sizes]
    ys = [math.log(v) for v in values]
    b, a, sxx = _slope(xs, ys, ws)
    k = len(xs)
    chi2 = sum(w * (y - a - b * x) ** 2 for w, x, y in zip(ws, xs, ys, strict=True))
    if samples is None:
        error = math.sqrt(chi2 / (k - 2) / sxx) if k > 2 else 0.0
    else:
        error = math.sqrt(1.0 / sxx) * (max(1.0, math.sqrt(chi2 / (k - 2))) if k > 3 else 1.0)
    return ExponentFit(b, error, order_exponent(order, sizes, ws), _like(sizes, ws, b))
