"""Self time per source line: each routine's histogram credit split over the lines of its code.

The routine credit follows gprof's bin-overlap rule exactly as `histogram.assign_samples` does
(same bins, same overlaps, same `in_flat` exclusions), so the lines of a routine add up to its flat
profile self time. Within one bin's overlap with a routine, the credit is split over the source
lines of the overlapped bytes in proportion to their byte counts (the same overlap rule, applied at
line granularity, that gprof -l applies to its line symbols). Bytes without line information go to
(None, 0). Pure: the line table is given.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence

from .linetable import LineTable
from .model import HistogramRecord, Profile

LineKey = tuple[str | None, int]  # (DWARF file, 1-based line); (None, 0) when unknown


def _runs(table: LineTable, lo: int, hi: int) -> Iterator[tuple[LineKey, int]]:
    """((file, line), byte count) of the consecutive line-table rows covering [lo, hi)."""
    starts, seqs, files = table.starts, table.sequences, table.files
    a = lo
    while a < hi:
        i = bisect_right(starts, a) - 1
        if i >= 0 and a < seqs[i][0][-1]:
            addrs, fids, lines = seqs[i]
            j = bisect_right(addrs, a) - 1
            end = min(addrs[j + 1], hi)
            yield (files[fids[j]], lines[j]), end - a
        else:
            nxt = starts[i + 1] if i + 1 < len(starts) else hi
            end = min(max(nxt, a + 1), hi)
            yield (None, 0), end - a
        a = end


def line_self_ticks(
    profile: Profile, histograms: Sequence[HistogramRecord], table: LineTable | None
) -> dict[int, dict[LineKey, float]]:
    """routine id -> {(file, line): self ticks}; only routines and lines with samples appear."""
    routines = profile.routines
    n = len(routines)
    out: dict[int, dict[LineKey, float]] = {}
    if n < 2 or not profile.has_histogram:
        return out
    scaled = [r.address // 2 for r in routines]
    his = scaled[1:]
    last = n - 2
    for h in histograms:
        scale = h.scale
        lowu = h.low_pc // 2
        for i, c in enumerate(h.counts):
            if not c:
                continue
            bin_lo = lowu + int(scale * i)
            bin_hi = lowu + int(scale * (i + 1))
            j = bisect_right(his, bin_lo, 0, last + 1)
            while j <= last:
                sym_lo = scaled[j]
                if bin_hi < sym_lo:
                    break
                sym_hi = his[j]
                lo, hi = max(bin_lo, sym_lo), min(bin_hi, sym_hi)
                if hi > lo and routines[j].in_flat:
                    credit = ((hi - lo) * c) / scale
                    lines = out.setdefault(j, {})
                    if table is None:
                        lines[(None, 0)] = lines.get((None, 0), 0.0) + credit
                    else:
                        nbytes = 2 * (hi - lo)
                        for key, count in _runs(table, 2 * lo, 2 * hi):
                            lines[key] = lines.get(key, 0.0) + credit * count / nbytes
                j += 1
    return out
