"""A routine named by an agent -> the profile's routine.

Contract of `find(view, name, file)`:
- `name` is matched, first tier with a hit wins: the demangled name as gprof prints it or the raw
  (mangled) symbol; the demangled name without its parameters (`Shape::area`); the identifier
  alone (`area`, `accumulate` for `accumulate<int>`); the end of a qualified name (`Circle::area`
  for `geo::Circle::area() const`, `accumulate<int>`). `file.c:name` (gprof's symspec form) sets
  `file`.
- `file` keeps the candidates whose source file (the declaration's, else the line table's) ends
  with it, by whole path components.
- One candidate: its routine id. Several: `ToolFailure` listing them (name, file, line, self time,
  calls), hottest first: statics of one name in several files, overloads, template instances.
  None: `ToolFailure` naming it with the nearest names (difflib).
"""

from __future__ import annotations

import difflib
import os
import re
from typing import Any

from gmonlens.common.model import Routine
from gmonlens_lsp.workspace.srcnames import source_name

from .workspace import ToolFailure, View

_SYMSPEC = re.compile(r"([^:\s]+\.[A-Za-z0-9+]+):([A-Za-z_~].*)")
MAX_CANDIDATES = 20


def _no_params(display: str) -> str:
    depth = 0
    for i, ch in enumerate(display):
        if ch in "<[{":
            depth += 1
        elif ch in ">]}":
            depth = max(depth - 1, 0)
        elif ch == "(" and depth == 0 and i > 0 and not display.startswith("operator", max(0, i - 8)):
            return display[:i]
    return display


def _tiers(view: View) -> list[dict[str, list[int]]]:
    tiers = view.derived.get("name_tiers")
    if tiers is None:
        exact: dict[str, list[int]] = {}
        bare: dict[str, list[int]] = {}
        ident: dict[str, list[int]] = {}
        for r in view.profile.routines:
            if r.is_line:
                continue
            for key in dict.fromkeys((r.display_name, r.name)):
                exact.setdefault(key, []).append(r.id)
            bare.setdefault(_no_params(r.display_name), []).append(r.id)
            ident.setdefault(source_name("", r.display_name), []).append(r.id)
        tiers = [exact, bare, ident]
        view.derived["name_tiers"] = tiers
    return tiers


def place(view: View, rid: int) -> tuple[str | None, int]:
    """(file, 1-based line) of a routine: its declaration, else the line table's (relative to
    the workspace folder when inside it); (None, 0) when unknown."""
    places: dict[int, tuple[str | None, int]] = view.derived.setdefault("places", {})
    if rid not in places:
        found = view.loaded.index.place(rid)
        r = view.profile.routines[rid]
        if found is not None:
            places[rid] = (view.rel(found.path), found.line)
        else:
            places[rid] = (view.rel(r.file), r.line) if r.file else (None, 0)
    return places[rid]


def _in_file(path: str | None, wanted: str) -> bool:
    if not path:
        return False
    a = os.path.normpath(path).split(os.sep)
    b = [p for p in os.path.normpath(wanted).split(os.sep) if p not in ("", ".")]
    return bool(b) and a[-len(b) :] == b


def describe(view: View, rid: int) -> dict[str, Any]:
    r: Routine = view.profile.routines[rid]
    file, line = place(view, rid)
    p = view.profile
    return {
        "name": r.display_name,
        "file": file,
        "line": line or None,
        "self_seconds": p.seconds(r.self_ticks) if p.hz else 0.0,
        "calls": r.calls,
    }


def find(view: View, name: str, file: str | None = None) -> int:
    """The routine `name` (module contract); raises ToolFailure."""
    m = _SYMSPEC.fullmatch(name)
    if m and file is None and not any(name in t for t in _tiers(view)):
        file, name = m.group(1), m.group(2)
    ids: list[int] = []
    for tier in _tiers(view):
        ids = list(dict.fromkeys(tier.get(name, [])))
        if ids:
            break
    if not ids:
        ids = _by_suffix(view, name)
    if not ids:
        raise ToolFailure(*_unknown(view, name))
    if file:
        inside = [i for i in ids if _in_file(place(view, i)[0], file)]
        if not inside:
            files = sorted({str(place(view, i)[0]) for i in ids})
            raise ToolFailure(
                f"no routine named `{name}` in a file `{file}`; it is in: {', '.join(files)}",
                {
                    "routine": name,
                    "file": file,
                    "candidates": [describe(view, i) for i in ids[:MAX_CANDIDATES]],
                },
            )
        ids = inside
    if len(ids) == 1:
        return ids[0]
    routines = view.profile.routines
    ids.sort(key=lambda i: (-routines[i].total_ticks, -routines[i].self_ticks, -routines[i].calls, i))
    shown = [describe(view, i) for i in ids[:MAX_CANDIDATES]]
    listing = "; ".join(f"{c['name']} ({c['file'] or '?'}:{c['line'] or '?'})" for c in shown)
    raise ToolFailure(
        f"`{name}` is ambiguous: {len(ids)} routines have that name: {listing}; "
        "give the full name shown, or `file` to choose",
        {"routine": name, "ambiguous": True, "candidates": shown},
    )


def _by_suffix(view: View, name: str) -> list[int]:
    """Routines whose name without parameters ends with `name` after `::` or a space: `Circle::area`
    for `geo::Circle::area() const`, `accumulate<int>` for `int geo::accumulate<int>(...)`."""
    bare = _tiers(view)[1]
    return [
        rid
        for key, ids in bare.items()
        if key.endswith(name) and key[: -len(name)].endswith(("::", " "))
        for rid in ids
    ]


def _unknown(view: View, name: str) -> tuple[str, dict[str, Any]]:
    names: dict[str, None] = {}
    for r in view.profile.routines:
        if not r.is_line:
            names[r.display_name] = None
            names[_no_params(r.display_name)] = None
    nearest = difflib.get_close_matches(name, list(names), n=5, cutoff=0.6)
    if not nearest:  # a short name inside long C++ names: `area` in `Circle::area() const`
        low = name.lower()
        nearest = [n for n in names if low in n.lower()][:5]
    binary = os.path.basename(view.loaded.binary)
    text = f"no routine named `{name}` in {binary}'s profile"
    text += f"; nearest: {', '.join(nearest)}" if nearest else ""
    return text, {"routine": name, "unknown": True, "nearest": nearest}
