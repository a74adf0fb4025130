"""Which symbols gprof folds into the routine before them, and their share of its figures (pure).

gprof's name filter (symbols.static_name_ok) rejects static symbols whose names carry GCC's clone
suffixes other than `.clone.N` / `.constprop.N` (`f.isra.0`, `f.part.0`, `f.cold`, ...). A rejected
symbol is not a routine: its bytes belong to the range of the routine before it in address order,
so gprof credits its samples and the calls into it to that routine, whatever its name. The figures
stay gprof's; this module says what they hold: for each folded symbol, the routine that absorbed
it, its samples (the same bin-overlap rule over its own bytes) and the calls recorded into it from
other routines (calls from the absorbing routine itself are recursive for gprof).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from gmonlens.common.model import ElfSymbol, FoldedSymbol, GmonData, Routine
from gmonlens.profile.histogram import assign_samples
from gmonlens.profile.symbols import keep_symbol


def folded_symbols(
    elf_symbols: Sequence[ElfSymbol], strtab: bytes, routines: Sequence[Routine], data: GmonData
) -> tuple[FoldedSymbol, ...]:
    """The function symbols gprof's name filter drops that lie inside a routine's range, with their
    figures (module docstring). `routines` are the Profile's, in address order."""
    if not routines:
        return ()
    starts = [r.address for r in routines]
    found: dict[int, ElfSymbol] = {}
    for s in elf_symbols:
        if "." not in s.name or s.value in found or not s.is_function:
            continue
        if keep_symbol(s, strtab, False, False, name_filter=True):
            continue
        if not keep_symbol(s, strtab, False, False, name_filter=False):
            continue
        i = bisect_right(starts, s.value) - 1
        if i >= 0 and routines[i].address < s.value <= routines[i].end_address:
            found[s.value] = s
    if not found:
        return ()
    owners = {a: bisect_right(starts, a) - 1 for a in found}
    merged = sorted({*starts, *found})
    ticks, _ = assign_samples(data.histograms, merged, [True] * len(merged))
    where = {a: k for k, a in enumerate(merged)}
    calls = dict.fromkeys(found, 0)
    fstarts = sorted(found)
    for arc in data.arcs:
        k = bisect_right(merged, arc.self_pc) - 1
        if k < 0 or merged[k] not in found:
            continue
        owner = owners[merged[k]]
        if arc.self_pc > routines[owner].end_address:
            continue
        j = bisect_right(starts, arc.from_pc) - 1
        if j != owner or arc.from_pc > routines[j].end_address:
            calls[merged[k]] += arc.count
    out = []
    for a in fstarts:
        k = where[a]
        owner = owners[a]
        end = min(
            merged[k + 1] - 1 if k + 1 < len(merged) else routines[owner].end_address,
            routines[owner].end_address,
        )
        out.append(FoldedSymbol(routines[owner].id, found[a].name, a, end, ticks[k], calls[a]))
    return tuple(out)
