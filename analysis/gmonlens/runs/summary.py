"""Each binary's profiles summed (gprof's rule for several gmon.out files, which the engine applies
when it reads them together: `load.loader.load`), and the report's summary: its top routines with
their sampling error, the hottest routines the precision loop watches.

Sampling error: a routine's self time is a count of n clock samples, Poisson distributed, so it
is uncertain by about sqrt(n) samples: a relative error of sqrt(n)/n = 1/sqrt(n) (gprof's manual,
"Statistical Sampling Error"); n is the engine's self ticks (fractional where gprof's bin-overlap
rule splits a bin). The hottest routines are the first of the flat profile's order that hold at
least HOT_SHARE of the samples each, at most HOT_MOST of them, and always the first.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from gmonlens.common.errors import GmonlensError, reason
from gmonlens.common.units import seconds
from gmonlens.load.loader import load
from gmonlens.load.program import Program
from gmonlens.output.report_format import flat_order

TOP = 10  # routines in a binary's summary
HOT_SHARE = 0.10
HOT_MOST = 5


@dataclass(frozen=True)
class TopRoutine:
    """A routine of the flat profile, with how sure its self time is."""

    name: str  # as gprof names it (demangled)
    self_seconds: float | None  # None without a sampling rate (`common.units`)
    self_percent: float
    samples: float
    error_percent: float | None  # 100 / sqrt(samples); None without samples
    calls: int
    file: str | None
    line: int


@dataclass(frozen=True)
class BinarySummary:
    """One binary's profiles, summed."""

    binary: str
    profiles: tuple[str, ...]
    pids: tuple[int, ...]
    samples: float  # gprof's total time, in samples
    hz: int
    has_histogram: bool
    calls: int  # calls counted (all arcs' counts)
    top: tuple[TopRoutine, ...]
    warnings: tuple[str, ...] = ()  # the engine's (loose fit, demangler, ...)
    problem: str | None = None  # why the profiles could not be summed

    @property
    def seconds(self) -> float | None:
        """The samples in seconds; None without a sampling rate."""
        return seconds(self.samples, self.hz)


def relative_error(samples: float) -> float | None:
    """1/sqrt(n) in percent; None for no samples."""
    return 100.0 / math.sqrt(samples) if samples > 0 else None


def summarize(binary: str, profiles: Sequence[str], pids: Sequence[int], top: int = TOP) -> BinarySummary:
    """Sum `profiles` (all written by `binary`) and summarize them; never raises for bad input:
    `problem` says why nothing could be computed."""
    try:
        loaded = load(Program(binary, profiles), all_lines=True)
    except (GmonlensError, OSError, ValueError) as e:
        return BinarySummary(binary, tuple(profiles), tuple(pids), 0.0, 0, False, 0, (), (), reason(e))
    p = loaded.profile
    total = p.total_ticks
    routines = []
    for r in flat_order(p, with_figures=True)[:top]:
        routines.append(
            TopRoutine(
                r.display_name,
                seconds(r.self_ticks, p.hz),
                100.0 * r.self_ticks / total if total > 0 else 0.0,
                r.self_ticks,
                relative_error(r.self_ticks),
                r.calls,
                r.file,
                r.line,
            )
        )
    calls = sum(a.count for a in p.arcs)
    return BinarySummary(
        binary,
        tuple(profiles),
        tuple(pids),
        total,
        p.hz,
        loaded.gmon.has_histogram,
        calls,
        tuple(routines),
        tuple(p.problems),
    )


def hottest(summary: BinarySummary) -> tuple[TopRoutine, ...]:
    """The routines the precision loop watches (module docstring)."""
    with_samples = [r for r in summary.top if r.samples > 0]
    if not with_samples:
        return ()
    hot = [r for r in with_samples[:HOT_MOST] if r.samples >= HOT_SHARE * summary.samples]
    return tuple(hot) or (with_samples[0],)


def worst_error(summary: BinarySummary) -> float | None:
    """The largest relative error (percent) among the hottest routines; None without samples."""
    errors = [r.error_percent for r in hottest(summary) if r.error_percent is not None]
    return max(errors) if errors else None
