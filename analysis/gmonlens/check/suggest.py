"""`gmonlens check --suggest`: a starting budget file from a profile (reads it through
`profiles`; returns the YAML text).

What it writes:
- `binary` and `profiles` as given, relative to the folder the budget file will be in;
- a `calls` rule for each of the `top` most called routines: today's calls plus `headroom`
  percent, rounded up (headroom 0: exactly today's; calls are exact, so a deterministic program
  passes on every run and the headroom is room for change, not for noise);
- with one profile set of MIN_SAMPLES samples or more, a `time_share` rule for each of the
  (at most three) costliest routines outside cycles whose limit stays under 100%: the share's
  upper bound at `threshold` standard errors, plus `headroom` percent of it, rounded up;
- from a `gmonlens test` folder, the largest count over the tests (the rules apply per test),
  and no time rule (a test's own samples are few).
Each routine is written as a name that `names` resolves back to it (with its file label when
its name alone is ambiguous); one that no name resolves is left out. Names are written as YAML
double-quoted strings (JSON's syntax, which YAML reads).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence

from gmonlens.check.names import NameProblem, RoutineNames, label_of
from gmonlens.check.noise import MIN_SAMPLES, share_bounds
from gmonlens.check.profiles import Profiles, profile_sets
from gmonlens.check.rules import ProfileSource
from gmonlens.check.time_rules import whole
from gmonlens.common.errors import GmonlensError
from gmonlens.common.model import Profile, Routine

MAX_TIME_RULES = 3


def _name(names: RoutineNames, r: Routine) -> str | None:
    """A name that resolves to routine `r`, or None."""
    rid = r.id
    for candidate in (r.display_name, label_of(r), r.name):
        try:
            if names.find(candidate) == rid:
                return candidate
        except NameProblem:
            continue
    return None


def _rel(path: str, out_dir: str) -> str:
    try:
        return os.path.relpath(path, out_dir)
    except ValueError:  # another drive
        return os.path.abspath(path)


def _calls(profiles: Sequence[Profile]) -> dict[int, int]:
    most: dict[int, int] = {}
    for p in profiles:
        for r in p.routines:
            n = r.calls + r.self_calls
            if n and n > most.get(r.id, 0):
                most[r.id] = n
    return most


def _call_rules(
    names: RoutineNames, p: Profile, counts: dict[int, int], top: int, headroom: float
) -> list[str]:
    out: list[str] = []
    for rid, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if len(out) >= top:
            break
        name = _name(names, p.routines[rid])
        if name is None:
            continue
        limit = math.ceil(n * (1 + headroom / 100))
        out.append(f"  - {{calls: {json.dumps(name)}, max: {limit}}}  # today {n:,}")
    return out


def _time_rules(names: RoutineNames, p: Profile, headroom: float, threshold: float) -> list[str]:
    if not p.has_histogram or p.total_ticks < MIN_SAMPLES:
        return []
    out: list[str] = []
    for r in sorted(p.routines, key=lambda r: (-r.total_ticks, r.id)):
        if len(out) >= MAX_TIME_RULES or r.total_ticks <= 0:
            break
        _, hi = share_bounds(r.total_ticks, whole(p, "total"), threshold)
        limit = math.ceil(100 * hi * (1 + headroom / 100))
        name = _name(names, r)
        if r.cycle or limit >= 100 or name is None:
            continue
        share = 100 * r.total_ticks / whole(p, "total")
        out.append(f"  - {{time_share: {json.dumps(name)}, max_percent: {limit}}}  # today {share:.1f}%")
    return out


def suggest(
    binary: str,
    source: ProfileSource,
    out_dir: str,
    *,
    headroom: float = 10.0,
    top: int = 20,
    threshold: float = 3.0,
) -> str:
    """The budget file's text (module doc); GmonlensError when the profiles cannot be read."""
    loader = Profiles()
    sets, per_test = profile_sets(binary, source)
    loaded = [loader.load(s.binary, s.files) for s in sets]
    names = loader.names(binary, loaded[0])
    where = source.folder if source.folder is not None else ", ".join(source.files)
    files = [source.folder] if source.folder is not None else list(source.files)
    lines = [
        f"# gmonlens check budgets, from `gmonlens check --suggest` on {binary} and {where}:",
        f"# each routine's calls today plus {headroom:g}% headroom. Calls are exact: a deterministic program",
        "# makes the same calls on every run. Rules against a baseline (no_new_callers, no_new_arcs,",
        "# no_new_routines, time with max_increase_percent) need `baseline: {binary: ..., profiles: [...]}`.",
        '# README, "gmonlens check".',
        f"binary: {json.dumps(_rel(binary, out_dir))}",
        f"profiles: [{', '.join(json.dumps(_rel(f, out_dir)) for f in files)}]",
        "rules:",
    ]
    rules = _call_rules(names, loaded[0], _calls(loaded), top, headroom)
    if not per_test:
        rules += _time_rules(names, loaded[0], headroom, threshold)
    if not rules:
        raise GmonlensError(
            where, "no routine has calls or time: nothing to budget (built and linked with -pg?)"
        )
    return "\n".join(lines + rules) + "\n"
