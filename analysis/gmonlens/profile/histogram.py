"""Histogram samples -> self time per routine, with gprof's bin-overlap rule (§4)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from gmonlens.common.model import HistogramRecord


def assign_samples(
    histograms: Sequence[HistogramRecord],
    addresses: Sequence[int],
    in_flat: Sequence[bool],
) -> tuple[list[float], float]:
    """Credit each routine with the samples of the bins that overlap it.

    `addresses` are the routines' start addresses in ascending order; `in_flat[j]` says whether
    routine j may receive time (-p/-P tables). Returns (ticks per routine, total_time): total_time
    counts every sample, minus the credit of routines that may not receive time. The last routine
    never receives samples (gprof reads an undefined end for it, which behaves as 0).
    """
    n = len(addresses)
    times = [0.0] * n
    total = 0.0
    if n < 2:
        for h in histograms:
            for c in h.counts:
                total += c
        return times, total
    scaled = [a // 2 for a in addresses]
    # Routine j covers units [scaled[j], scaled[j+1]); j ranges over 0..n-2.
    his = scaled[1:]
    last = n - 2
    for h in histograms:
        scale = h.scale
        lowu = h.low_pc // 2
        counts = h.counts
        for i, c in enumerate(counts):
            if not c:
                continue
            bin_lo = lowu + int(scale * i)
            bin_hi = lowu + int(scale * (i + 1))
            total += c
            # first routine whose end (his[j]) is above bin_lo
            j = bisect_right(his, bin_lo, 0, last + 1)
            while j <= last:
                sym_lo = scaled[j]
                if bin_hi < sym_lo:
                    break
                sym_hi = his[j]
                ov = (bin_hi if bin_hi < sym_hi else sym_hi) - (bin_lo if bin_lo > sym_lo else sym_lo)
                if ov > 0:
                    credit = (ov * c) / scale
                    if in_flat[j]:
                        times[j] += credit
                    else:
                        total -= credit
                j += 1
    return times, total
