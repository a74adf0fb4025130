"""gmonlens check's arithmetic: orders of growth, the exponent fit against an order's own curve,
and the noise bounds of the time rules (pure; no files)."""

from __future__ import annotations

import math
import random

import pytest

from gmonlens.check.fitting import fit_exponent, order_exponent
from gmonlens.check.noise import count_bounds, growth_z, samples_needed, share_bounds, versus_limit, versus_z
from gmonlens.check.orders import parse_order


@pytest.mark.parametrize(
    ("text", "power", "log_power"),
    [
        ("n", 1, 0), ("O(n)", 1, 0), ("n log n", 1, 1), ("O(n log n)", 1, 1), ("nlogn", 1, 1),
        ("n*log(n)", 1, 1), ("n^2", 2, 0), ("n²", 2, 0), ("n**3", 3, 0), ("n^2 log n", 2, 1),
        ("1", 1, 0), ("O(1)", 0, 0), (0, 0, 0), ("log n", 0, 1), ("log^2 n", 0, 2), ("n^1.5", 1.5, 0),
        (1.5, 1.5, 0), (2, 2, 0), ("2", 2, 0), ("N LOG N", 1, 1),
    ],
)  # fmt: skip
def test_orders_parse(text: object, power: float, log_power: int) -> None:
    order = parse_order(text)
    assert order is not None
    assert (order.power, order.log_power) == (power, log_power)


@pytest.mark.parametrize("text", ["", "n log", "x^2", "log", True, None, -1, 1000, "n^", [1], "O(n"])
def test_orders_refuse(text: object) -> None:
    assert parse_order(text) is None


def test_n_log_n_has_no_single_exponent() -> None:
    nlogn = parse_order("n log n")
    assert nlogn is not None
    assert order_exponent(nlogn, [1000, 2000, 4000]) == pytest.approx(1.132, abs=0.001)
    assert order_exponent(nlogn, [10**5, 10**6]) == pytest.approx(1.08, abs=0.005)
    n2 = parse_order("n^2")
    assert n2 is not None and order_exponent(n2, [3, 70, 5000]) == pytest.approx(2.0)


def merge_sort_compares(n: int) -> int:
    """Comparisons of a top-down merge sort of n distinct keys in the worst case (exact)."""
    if n < 2:
        return 0
    h = n // 2
    return merge_sort_compares(h) + merge_sort_compares(n - h) + n - 1


@pytest.mark.parametrize("sizes", [[1000, 2000, 4000], [1000, 2000, 4000, 8000, 16000, 100_000]])
def test_exponents_within_a_tenth_and_n_log_n_told_from_n_squared(sizes: list[int]) -> None:
    nlogn, n2 = parse_order("n log n"), parse_order("n^2")
    assert nlogn is not None and n2 is not None
    merge = fit_exponent(sizes, [merge_sort_compares(n) for n in sizes], nlogn)
    assert abs(merge.excess) < 0.1 and merge.like == "n log n"
    insertion = fit_exponent(sizes, [n * (n - 1) / 4 for n in sizes], nlogn)
    assert abs(insertion.exponent - 2) < 0.01 and insertion.like == "n^2"
    assert insertion.excess > 0.8  # far past any tolerance
    assert abs(fit_exponent(sizes, [n * (n - 1) / 4 for n in sizes], n2).excess) < 0.01
    linear = fit_exponent(sizes, [3 * n + 50 for n in sizes], nlogn)
    assert linear.excess < 0 and linear.like == "n"


def test_exact_points_on_a_power_law_have_no_error() -> None:
    fit = fit_exponent([10, 20, 40], [100, 400, 1600], parse_order(2))  # type: ignore[arg-type]
    assert fit.exponent == pytest.approx(2) and fit.error == pytest.approx(0, abs=1e-9)
    assert fit_exponent([10, 20], [1, 2], parse_order(1)).error == 0  # type: ignore[arg-type]


def test_fit_refuses_what_has_no_exponent() -> None:
    order = parse_order("n")
    assert order is not None
    for sizes, values in (
        ([10, 10, 10], [1, 2, 3]),
        ([10, 20], [0, 5]),
        ([1, 20, 30], [1, 2, 3]),
        ([10], [1]),
    ):
        with pytest.raises(ValueError):
            fit_exponent(sizes, values, order)


def test_time_exponent_error_covers_the_truth() -> None:
    """Poisson samples of a time growing as n^2: the fitted exponent is within 3 of its own
    standard errors of 2 in about 99.7% of runs (here: no miss in 400 seeded runs)."""
    n2 = parse_order("n^2")
    assert n2 is not None
    rng = random.Random(30)
    sizes = [500, 1000, 2000]
    misses = 0
    for _ in range(400):
        ticks = [poisson(rng, 20 * (n / 500) ** 2) for n in sizes]
        fit = fit_exponent(sizes, [t * 0.01 for t in ticks], n2, samples=ticks)
        assert 0.02 < fit.error < 0.2
        misses += abs(fit.exponent - 2) > 3 * fit.error
    assert misses <= 2


def poisson(rng: random.Random, mean: float) -> int:
    """A Poisson draw (Knuth's method in chunks, fine for means up to a few thousand)."""
    total = 0
    while mean > 0:
        step = min(mean, 500.0)
        mean -= step
        limit, k, p = math.exp(-step), 0, 1.0
        while True:
            p *= rng.random()
            if p <= limit:
                break
            k += 1
        total += k
    return total


def test_share_bounds() -> None:
    lo, hi = share_bounds(100, 1000, 3)
    assert lo < 0.1 < hi and hi - lo == pytest.approx(2 * 3 * math.sqrt(0.09 / 1000), rel=0.05)
    lo0, hi0 = share_bounds(0, 1000, 3)
    assert lo0 == 0 and 0.005 < hi0 < 0.02  # no sample is not a share of exactly 0
    assert share_bounds(1000, 1000, 3)[1] == 1


def test_count_bounds_are_poisson_score_bounds() -> None:
    lo, hi = count_bounds(100, 3)
    assert lo == pytest.approx(104.5 - 3 * math.sqrt(102.25)) and hi == pytest.approx(
        104.5 + 3 * math.sqrt(102.25)
    )
    assert count_bounds(0, 3) == (0, 9)


def test_verdicts_against_limits() -> None:
    assert versus_limit(0.1, 0.2, 0.3) == "pass"
    assert versus_limit(0.31, 0.4, 0.3) == "fail"
    assert versus_limit(0.25, 0.35, 0.3) == "undecided"
    assert versus_z(3.0, 3) == "fail" and versus_z(-3.0, 3) == "pass" and versus_z(2.9, 3) == "undecided"


def test_growth_is_diffs_z_against_the_allowed_growth() -> None:
    # 1000 samples before, 1000 after, 10% allowed: z = (1000 - 1100) / sqrt(1000 + 1210)
    assert growth_z(1000, 0.01, 1000, 0.01, 1.1) == pytest.approx(-100 / math.sqrt(2210))
    assert growth_z(1000, 0.01, 1500, 0.01, 1.1) > 3  # +50% against +10%: beyond noise
    assert samples_needed(-1.5, 3) == pytest.approx(4) and samples_needed(0, 3) == math.inf
