"""One rule of a budget file, read into its record (pure but for the paths of scaling rules,
which `Paths` resolves). Each rule is a mapping with exactly one kind key (README, "gmonlens
check"); every problem is one line naming the file, the line and the rule."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from gmonlens.check.fields import (
    FieldError,
    Fields,
    Problems,
    as_choice,
    as_count,
    as_flag,
    as_name,
    as_names,
    as_number,
)
from gmonlens.check.orders import parse_order
from gmonlens.check.rules import (
    ArcRule,
    Bounds,
    CallsRule,
    NoNewArcsRule,
    NoNewCallersRule,
    NoNewRoutinesRule,
    ReachedRule,
    Rule,
    ScalingRule,
    TimeRule,
    TimeShareRule,
)

COMMON = ("name", "tests")
BOUNDS = ("max", "min", "equal", "==", "range")
KEYS: dict[str, tuple[str, ...]] = {
    "calls": BOUNDS,
    "arc": BOUNDS,
    "no_new_callers": (),
    "no_new_arcs": (),
    "reached": (),
    "not_reached": (),
    "no_new_routines": (),
    "scaling": ("sizes", "max_order", "of", "measure", "tolerance", "binary"),
    "time_share": ("max_percent", "measure"),
    "time": ("max_increase_percent", "max_seconds", "measure", "normalize"),
}
MAX_SIZES = 100
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([kKmMgG]?)")
_ARROW = re.compile(r"(?<!operator)->")


class Paths(Protocol):
    """Resolves a path or glob of the budget file (relative to its folder) to files."""

    def files(self, value: object) -> tuple[str, ...]: ...

    def binary(self, value: object) -> str: ...


def _range(value: object) -> tuple[int, int]:
    if not (isinstance(value, list) and len(value) == 2):
        raise FieldError("two whole numbers [min, max] are expected")
    lo, hi = as_count(value[0]), as_count(value[1])
    if lo > hi:
        raise FieldError(f"min {lo:,} is above max {hi:,}")
    return lo, hi


def _bounds(f: Fields) -> Bounds | None:
    given = [k for k in BOUNDS if f.has(k)]
    if not given:
        f.fail("a limit is missing: max, min, equal (or ==), or range: [min, max]")
        return None
    if len(given) > 1 and not set(given) <= {"min", "max"}:
        f.fail(f"one limit per rule ({', '.join(given)} given): max and min together, or equal, or range")
        return None
    if f.has("range"):
        r = f.get("range", _range)
        return Bounds(r[0], r[1]) if r else None
    eq = f.get("equal", as_count) if f.has("equal") else f.get("==", as_count)
    if eq is not None:
        return Bounds(eq, eq)
    lo, hi = f.get("min", as_count), f.get("max", as_count)
    if lo is not None and hi is not None and lo > hi:
        f.fail(f"min {lo:,} is above max {hi:,}")
        return None
    return None if f.failed else Bounds(lo, hi)


def _arc(value: object) -> tuple[str, str]:
    if isinstance(value, dict) and set(value) == {"from", "to"}:
        return as_name(value["from"]), as_name(value["to"])
    text = as_name(value, "CALLER -> CALLEE")
    parts = _ARROW.split(text)
    if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
        raise FieldError(
            "'CALLER -> CALLEE' is expected (or {from: CALLER, to: CALLEE} when a name holds '->')"
        )
    return parts[0].strip(), parts[1].strip()


def _size(value: object) -> int:
    if isinstance(value, str) and (m := _SIZE.fullmatch(value.strip())):
        size = float(m.group(1)) * {"": 1, "k": 10**3, "m": 10**6, "g": 10**9}[m.group(2).lower()]
        if size != int(size):
            raise FieldError(f"a whole size is expected, not {value!r}")
        value = int(size)
    n = as_count(value)
    if n < 2:
        raise FieldError(f"a size of 2 or more is expected, not {n}")
    return n


def _sizes(paths: Paths) -> Callable[[object], tuple[tuple[int, tuple[str, ...]], ...]]:
    def read(value: object) -> tuple[tuple[int, tuple[str, ...]], ...]:
        if not isinstance(value, dict) or not value:
            raise FieldError(
                "a mapping of sizes to profiles is expected ({1000: gmon.1k, 2000: gmon.2k, ...})"
            )
        if len(value) > MAX_SIZES:
            raise FieldError(f"at most {MAX_SIZES} sizes")
        out: dict[int, tuple[str, ...]] = {}
        for k, v in value.items():
            n = _size(k)
            if n in out:
                raise FieldError(f"size {n:,} given twice")
            out[n] = paths.files(v)
        if len(out) < 3:
            raise FieldError(f"three sizes or more are needed to fit an exponent, not {len(out)}")
        return tuple(sorted(out.items()))

    return read


def _order(value: object) -> Any:
    order = parse_order(value)
    if order is None:
        raise FieldError(f"an order is expected (n, n log n, n^2, an exponent such as 1.5), not {value!r}")
    return order


def _kind_of(mapping: Mapping[Any, Any], where: str, line: int, problems: Problems) -> str | None:
    kinds = [k for k in KEYS if k in mapping]
    if len(kinds) == 1:
        return kinds[0]
    if kinds:
        problems.add(line, where, f"one kind per rule, not {len(kinds)} ({', '.join(kinds)})")
    else:
        problems.add(line, where, f"no rule kind: one of {', '.join(KEYS)} is expected")
    return None


class Lines(Protocol):
    """Where the file's entries are (safe_yaml.Document)."""

    def item_line(self, container: object, key: object) -> int: ...


def parse_rule(
    value: object, index: int, line: int, problems: Problems, paths: Paths, lines: Lines | None = None
) -> Rule | None:
    """Rule `index` (1-based) of the file, starting on `line`, or None after recording its problems."""
    where = f"rule {index}"
    if not isinstance(value, dict):
        problems.add(line, where, "a mapping is expected ({calls: hash, max: 1000}, ...)")
        return None
    kind = _kind_of(value, where, line, problems)
    if kind is None:
        return None
    key_line = (lambda k: lines.item_line(value, k)) if lines is not None else None
    f = Fields(value, problems, line, f"{where} ({kind})", (kind, *COMMON, *KEYS[kind]), key_line)
    common: dict[str, Any] = {
        "index": index,
        "line": line,
        "name": f.get("name", lambda v: as_name(v, "a name")),
        "tests": f.get("tests", lambda v: as_names(v, "test names")) or (),
    }
    rule = _READERS[kind](f, common, paths)
    return None if f.failed else rule


def _calls(f: Fields, common: dict[str, Any], paths: Paths) -> Rule | None:
    routine, bounds = f.get("calls", as_name, required=True), _bounds(f)
    return CallsRule(routine=routine, bounds=bounds, **common) if routine and bounds else None


def _arc_rule(f: Fields, common: dict[str, Any], paths: Paths) -> Rule | None:
    arc, bounds = f.get("arc", _arc, required=True), _bounds(f)
    return ArcRule(caller=arc[0], callee=arc[1], bounds=bounds, **common) if arc and bounds else None


def _no_new_callers(f: Fields, common: dict[str, Any], paths: Paths) -> Rule | None:
    routine = f.get("no_new_callers", as_name, required=True)
    return NoNewCallersRule(routine=routine, **common) if routine else None


def _whole_or_name(value: object) -> str | None:
    if value is True:
        return None
    return as_name(value, "true (every arc) or a routine name")


def _no_new_arcs(f: Fields, common: dict[str, Any], paths: Paths) -> Rule | None:
    if f.mapping.get("no_new_arcs") is False:
        f.fail("'no_new_arcs': true (every arc) or a routine name is expected, not false")
        return None
    routine = f.get("no_new_arcs", _whole_or_name)
    return None if f.failed else NoNewArcsRule(routine=routine, **common)


def _reached(f: Fields, common: dict[str, Any], paths: Paths) -> Rule | None:
    key = "reached" if f.has("reached") else "not_reached"
    names = f.get(key, as_names, required=True)
    return ReachedRule(names=names, reached=key == "reached", **common) if names else None


def _no_new_routines(f: Fields, common: dict[str, Any], paths: Paths) -> Rule | None:
    if f.mapping.get("no_new_routines") is not True:
        f.fail("'no_new_routines': true is expected")
        return None
    return NoNewRoutinesRule(**common)


def _scaling(f: Fields, common: dict[str, Any], paths: Paths) -> Rule | None:
    routine = f.get("scaling", as_name, required=True)
    sizes = f.get("sizes", _sizes(paths), required=True)
    order = f.get("max_order", _order, required=True)
    of = f.get("of", as_choice("calls", "time")) or "calls"
    measure = f.get("measure", as_choice("total", "self")) or "total"
    tolerance = f.get("tolerance", lambda v: as_number(v, 0.0, 10.0))
    binary = f.get("binary", paths.binary) or paths.binary(None)
    if common["tests"]:
        f.fail("'tests' does not apply to a scaling rule (its profiles are named by size)")
    if f.failed or routine is None or sizes is None or order is None:
        return None
    del common["tests"]
    return ScalingRule(
        routine=routine, sizes=sizes, order=order, binary=binary, of=of, measure=measure,  # type: ignore[arg-type]
        tolerance=0.1 if tolerance is None else tolerance, **common,
    )  # fmt: skip


def _time_share(f: Fields, common: dict[str, Any], paths: Paths) -> Rule | None:
    routine = f.get("time_share", as_name, required=True)
    limit = f.get("max_percent", lambda v: as_number(v, 0.0, 100.0, percent=True), required=True)
    measure = f.get("measure", as_choice("total", "self")) or "total"
    if routine is None or limit is None:
        return None
    return TimeShareRule(routine=routine, max_percent=limit, measure=measure, **common)  # type: ignore[arg-type]


def _time(f: Fields, common: dict[str, Any], paths: Paths) -> Rule | None:
    routine = f.get("time", as_name, required=True)
    grow = f.get("max_increase_percent", lambda v: as_number(v, 0.0, 1e6, percent=True))
    seconds = f.get("max_seconds", lambda v: as_number(v, 0.0, 1e9))
    measure = f.get("measure", as_choice("total", "self")) or "total"
    normalize = f.get("normalize", as_flag) or False
    if grow is None and seconds is None and not f.failed:
        f.fail("a limit is missing: max_increase_percent (against the baseline) or max_seconds")
    if routine is None or f.failed:
        return None
    return TimeRule(
        routine=routine, max_increase_percent=grow, max_seconds=seconds, measure=measure,  # type: ignore[arg-type]
        normalize=normalize, **common,
    )  # fmt: skip


_READERS: dict[str, Callable[[Fields, dict[str, Any], Paths], Rule | None]] = {
    "calls": _calls,
    "arc": _arc_rule,
    "no_new_callers": _no_new_callers,
    "no_new_arcs": _no_new_arcs,
    "reached": _reached,
    "not_reached": _reached,
    "no_new_routines": _no_new_routines,
    "scaling": _scaling,
    "time_share": _time_share,
    "time": _time,
}
