"""How tests tell routines apart: by gprof's call-graph index or by address, never by a name that
several routines share.

A name is not a routine's identity. A C++ destructor or constructor has several symbols (`D0`/`D1`/
`D2`, `C1`/`C2`) that demangle to one display name, and two files may each define a `static` routine
of the same name. A dict built from names keeps one of them, and which one got the samples of a run
is chance: a test comparing through such a dict passes or fails at random (issue 32).

- `call_graph(text)`: gprof's call-graph entries (`-b` or not), with their index `[N]`, which is
  `report --json`'s `index` (`routines[]` and `cycles[]`);
- `named(items, key)` (`named_values(pairs)`): items by name for a test that looks up routines it knows by name (`main`,
  `work`): a name no item has is a KeyError, a name several items share an AssertionError naming
  them (the test fails every time, never at random), instead of one of them picked silently;
- `sum_by_name(pairs)`: figures summed per name, for comparing with a tool that itself shows only
  names (callgrind_annotate, `go tool pprof -top`, a flame graph's frames).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")

# "[N]  %time  self  children  [called]  name [N]" (called: "N", "N+M", or blank)
_PRIMARY = re.compile(
    r"^\[(?P<index>\d+)\]\s+[\d.]+\s+(?P<self>[\d.]+)\s+(?P<children>[\d.]+)\s+"
    r"(?:(?P<called>\d+(?:\+\d+)?)\s+)?(?P<name>\S.*?) \[\d+\]$",
    re.M,
)
_MEMBER = re.compile(r" <cycle (\d+)>$")
_WHOLE = re.compile(r"^<cycle (\d+) as a whole>$")


@dataclass(frozen=True)
class Entry:
    """One primary line of gprof's call graph, figures as printed (seconds)."""

    index: int  # gprof's [N]: `report --json`'s routines[].index, or cycles[].index for a whole
    name: str  # without a member's " <cycle N>"
    self_s: float
    children_s: float
    called: str  # "" when gprof leaves it blank
    cycle: int  # the cycle a member belongs to, or the cycle a whole stands for; 0 if none
    whole: bool  # `<cycle N as a whole>`


def call_graph(text: str) -> list[Entry]:
    """gprof's call-graph primary lines in the order printed (the index section left out)."""
    out = []
    for m in _PRIMARY.finditer(text.split("Index by function name")[0]):
        name, cycle, whole = m["name"], 0, False
        if w := _WHOLE.match(name):
            cycle, whole = int(w[1]), True
        elif c := _MEMBER.search(name):
            cycle, name = int(c[1]), name[: c.start()]
        called = m["called"] or ""
        out.append(Entry(int(m["index"]), name, float(m["self"]), float(m["children"]), called, cycle, whole))
    return out


def _getter(key: str | Callable[[Any], str]) -> Callable[[Any], str]:
    if callable(key):
        return key
    return lambda item: item[key] if isinstance(item, Mapping) else getattr(item, key)


class SharedName(AssertionError):
    """A test looked a routine up by a name more than one routine has."""


class Named(Mapping[str, T], Generic[T]):
    """Read-only items by name; looking up a name that several items share fails (SharedName)."""

    def __init__(self, pairs: Iterable[tuple[str, T]]) -> None:
        self._all: dict[str, list[T]] = {}
        for name, item in pairs:
            self._all.setdefault(name, []).append(item)

    def __getitem__(self, name: str) -> T:
        found = self._all[name]
        if len(found) > 1:
            raise SharedName(f"{len(found)} routines are named {name!r}: look them up by index or address")
        return found[0]

    def __contains__(self, name: object) -> bool:
        return name in self._all

    def __iter__(self) -> Iterator[str]:
        return iter(self._all)

    def __len__(self) -> int:
        return len(self._all)

    def every(self, name: str) -> list[T]:
        """All items of that name (none: an empty list)."""
        return list(self._all.get(name, ()))

    def shared(self) -> set[str]:
        """The names more than one item has."""
        return {n for n, found in self._all.items() if len(found) > 1}


def named(items: Iterable[T], key: str | Callable[[Any], str] = "display_name") -> Named[T]:
    """`items` by `key` (an attribute, a dict key, or a function of the item)."""
    get = _getter(key)
    return Named((get(item), item) for item in items)


def named_values(pairs: Iterable[tuple[str, T]]) -> Named[T]:
    """(name, value) pairs by name, e.g. figures parsed from a tool's text."""
    return Named(pairs)


def sum_by_name(pairs: Iterable[tuple[str, float]]) -> dict[str, float]:
    """Figures summed per name: what a tool that shows only names shows for that name."""
    out: dict[str, float] = {}
    for name, value in pairs:
        out[name] = out.get(name, 0.0) + value
    return out


def frames_per_name(folded: str) -> tuple[int, dict[str, int]]:
    """Folded stacks (`STACK VALUE`, speedscope's rule `^(.*) (\\d+)$`, frames split on `;`): the
    total, and per frame name the sum of the stacks holding it (a name counted once per stack)."""
    per: dict[str, int] = {}
    total = 0
    for line in folded.splitlines():
        m = re.match(r"^(.*) (\d+)$", line)
        assert m, line
        total += int(m.group(2))
        for frame in set(m.group(1).split(";")):
            per[frame] = per.get(frame, 0) + int(m.group(2))
    return total, per


def check_frames(entries: Iterable[Entry], per: Mapping[str, int], tolerance: float) -> int:
    """Each timed entry's frames (`per`, microseconds) add up to its self + children within
    `tolerance` seconds. A frame is known only by its name: the entries sharing a name are covered
    by that name's frames together, at least the widest entry's total and at most their sum.
    Returns how many names were checked."""
    totals: dict[str, list[float]] = {}
    for e in entries:
        if e.self_s + e.children_s > 0:
            totals.setdefault(e.name, []).append(e.self_s + e.children_s)
    for name, seconds in totals.items():
        got = per.get(name, 0) / 1e6
        if len(seconds) == 1:
            assert abs(got - seconds[0]) <= tolerance, (name, got, seconds)
        else:
            low, high = max(seconds) - tolerance, sum(seconds) + tolerance * len(seconds)
            assert low <= got <= high, (name, got, seconds)
    return len(totals)
