"""Samples to seconds: the one rule.

A profile's histogram counts samples (ticks) taken `hz` times a second of CPU time, so a figure of
`ticks` samples is `ticks / hz` seconds, give or take `sqrt(ticks) / hz` (one standard error:
samples are Poisson counts). A profile without a sampling rate (no histogram, or a rate of 0) has
no time at all: its seconds are None, never 0.0 (which would read as "measured: nothing") or NaN.

gprof's printed text is the exception, and stays in `output.report_format` (`c_seconds`): C
divides by a zero rate into inf or NaN, and the report prints what gprof prints.
"""

from __future__ import annotations

import math


def seconds(ticks: float, hz: int) -> float | None:
    """`ticks` samples in seconds; None when `hz` is not a positive rate."""
    return ticks / hz if hz > 0 else None


def period(hz: int) -> float | None:
    """Seconds per sample; None without a positive rate."""
    return 1.0 / hz if hz > 0 else None


def stderr_seconds(ticks: float, hz: int) -> float | None:
    """One standard error of a figure of `ticks` samples, in seconds: sqrt(ticks) / hz."""
    return math.sqrt(max(ticks, 0.0)) / hz if hz > 0 else None


def scaled(ticks: float, hz: int, per_second: int) -> int:
    """`ticks` samples in units of 1/per_second s, rounded (exports: microseconds, nanoseconds);
    0 without a positive rate (the formats need a number; their files say the rate)."""
    return round(ticks * per_second / hz) if hz > 0 else 0


NO_TIME = "n/a"  # how a figure in seconds reads where the profile has no sampling rate


def shown(value: float | None, spec: str = ".2f") -> str:
    """A figure in seconds as text (`spec`: a format spec, two decimals as gprof prints them);
    NO_TIME for None, right-aligned to the spec's width when it has one."""
    if value is None:
        width = spec.split(".")[0]
        return NO_TIME.rjust(int(width)) if width.isdigit() else NO_TIME
    return format(value, spec)
