"""One profile set under the rules (`Subject`): its profile, its routines by name, the baseline it is
compared with, and the call-graph facts the exact rules read (pure).

Routines are matched with the baseline's as `gmonlens diff` matches them (raw name; statics by
name and file; GCC clones renamed: `gmonlens.profile.diff.match_routines`), so a baseline built
from an older binary, with every address moved, compares routine by routine.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gmonlens.check.names import NameProblem, RoutineNames, cycle_members, label_of
from gmonlens.common.model import Profile, as_table
from gmonlens.profile.diff import match_routines


class RuleProblem(Exception):
    """A rule that cannot be checked on a profile (an unknown routine, a cycle member's time)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class Subject:
    """A profile set (`test`: its test's name, None for the whole run) and its baseline (None:
    none given; `base_missing` says why there is none for this set when one was expected)."""

    test: str | None
    profile: Profile
    names: RoutineNames
    threshold: float
    base: Profile | None = None
    base_missing: str | None = None
    _to_base: dict[int, int] | None = field(default=None, repr=False)

    def routine(self, name: str) -> int:
        """The id of routine `name` (names.py); RuleProblem when it names none or several."""
        try:
            return self.names.find(name)
        except NameProblem as e:
            raise RuleProblem(e.message) from None

    def label(self, rid: int) -> str:
        return label_of(self.profile.routines[rid])

    def base_label(self, bid: int) -> str:
        assert self.base is not None
        return label_of(self.base.routines[bid])

    def to_base(self) -> dict[int, int]:
        """New routine id -> the baseline's matching routine id (routines in both)."""
        if self._to_base is None:
            assert self.base is not None
            pairs, _, _ = match_routines(self.base.routines, self.profile.routines)
            self._to_base = {n.id: b.id for b, n, _ in pairs}
        return self._to_base

    def no_time_split(self, rid: int, measure: str) -> None:
        """RuleProblem when `measure` is total time and routine `rid` is in a cycle."""
        r = self.profile.routines[rid]
        if measure == "total" and r.cycle:
            members = ", ".join(cycle_members(self.profile, r.cycle))
            raise RuleProblem(
                f"'{r.display_name}' is a member of <cycle {r.cycle}> ({members}): gprof does not split "
                "a cycle's total time among its members; use 'measure: self' (its own samples)"
            )


def callers(profile: Profile, rid: int) -> dict[int, int]:
    """Routine `rid`'s callers (routine id -> calls; itself when recursive), counted arcs only."""
    t = as_table(profile.arcs)
    out: dict[int, int] = {}
    for a in profile.parents[rid]:
        if t.counts[a]:
            out[t.parent[a]] = out.get(t.parent[a], 0) + t.counts[a]
    return out


def arc_count(profile: Profile, caller: int, callee: int) -> int:
    """Calls recorded from `caller` to `callee`."""
    t = as_table(profile.arcs)
    return sum(t.counts[a] for a in profile.children[caller] if t.child[a] == callee)


def counted_arcs(profile: Profile) -> dict[tuple[int, int], int]:
    """(caller id, callee id) -> calls, for every arc with a count."""
    t = as_table(profile.arcs)
    out: dict[tuple[int, int], int] = {}
    for p, c, n in zip(t.parent, t.child, t.counts, strict=True):
        if n:
            out[(p, c)] = out.get((p, c), 0) + n
    return out


def reached(profile: Profile) -> set[int]:
    """Routines called, or calling, by a counted arc (rules.py: exact, not from samples)."""
    out: set[int] = set()
    for p, c in counted_arcs(profile):
        out.add(p)
        out.add(c)
    return out
