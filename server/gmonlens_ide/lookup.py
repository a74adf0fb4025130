"""A routine named by a person or an agent -> the loaded profile's routine (one rule for every
front end: the MCP tools, the editor's commands).

Contract of `find(loaded, name, file)`:
- `name` is matched, first tier with a hit wins: the demangled name as gprof prints it or the raw
  (mangled) symbol; the demangled name without its parameters (`Shape::area`); the identifier
  alone (`area`, `accumulate` for `accumulate<int>`); the end of a qualified name (`Circle::area`
  for `geo::Circle::area() const`, `accumulate<int>`). `file.c:name` (gprof's symspec form) sets
  `file`.
- `file` keeps the candidates whose source file (the declaration's, else the line table's) ends
  with it, by whole path components.
- One candidate: its routine id. Several: `NotFound(ambiguous=True)` listing them (name, file,
  line, self time, calls), hottest first. None: `NotFound` naming it, with the nearest names
  (difflib).
The name index is built once per load (`LoadedFolder.names`).
"""

from __future__ import annotations

import difflib
import os
import re
from typing import Any

from gmonlens.common.model import Profile
from gmonlens_ide.session import LoadedFolder
from gmonlens_ide.srcnames import source_name

_SYMSPEC = re.compile(r"([^:\s]+\.[A-Za-z0-9+]+):([A-Za-z_~].*)")
MAX_CANDIDATES = 20


class NotFound(Exception):
    """No single routine has the name: `message` is one line; `data` the structured facts
    (`unknown` with `nearest`, or `ambiguous` with `candidates`, or the files it is in)."""

    def __init__(self, message: str, data: dict[str, Any]) -> None:
        super().__init__(message)
        self.message = message
        self.data = data


def without_params(display: str) -> str:
    """A demangled name without its parameter list (`Shape::area` of `Shape::area() const`)."""
    depth = 0
    for i, ch in enumerate(display):
        if ch in "<[{":
            depth += 1
        elif ch in ">]}":
            depth = max(depth - 1, 0)
        elif ch == "(" and depth == 0 and i > 0 and not display.startswith("operator", max(0, i - 8)):
            return display[:i]
    return display


def name_tiers(profile: Profile) -> list[dict[str, list[int]]]:
    """[exact names and symbols, names without parameters, identifiers] -> routine ids."""
    exact: dict[str, list[int]] = {}
    bare: dict[str, list[int]] = {}
    ident: dict[str, list[int]] = {}
    for r in profile.routines:
        if r.is_line:
            continue
        for key in dict.fromkeys((r.display_name, r.name)):
            exact.setdefault(key, []).append(r.id)
        bare.setdefault(without_params(r.display_name), []).append(r.id)
        ident.setdefault(source_name("", r.display_name), []).append(r.id)
    return [exact, bare, ident]


def _tiers(loaded: LoadedFolder) -> list[dict[str, list[int]]]:
    tiers: list[dict[str, list[int]]] = loaded.names.get("tiers", lambda: name_tiers(loaded.profile))
    return tiers


def relative(loaded: LoadedFolder, path: str | None) -> str | None:
    """`path` relative to the folder when inside it, else as it is."""
    if not path:
        return path
    rel = os.path.relpath(path, loaded.folder) if os.path.isabs(path) else path
    return path if rel.startswith("..") else rel


def place(loaded: LoadedFolder, rid: int) -> tuple[str | None, int]:
    """(file, 1-based line) of a routine: its declaration, else the line table's (relative to the
    folder when inside it); (None, 0) when unknown."""

    def build() -> tuple[str | None, int]:
        found = loaded.index.place(rid)
        r = loaded.profile.routines[rid]
        if found is not None:
            return relative(loaded, found.path), found.line
        return (relative(loaded, r.file), r.line) if r.file else (None, 0)

    where: tuple[str | None, int] = loaded.names.get(("place", rid), build)
    return where


def in_file(path: str | None, wanted: str) -> bool:
    """Whether `path` ends with `wanted`, by whole path components."""
    if not path:
        return False
    a = os.path.normpath(path).split(os.sep)
    b = [p for p in os.path.normpath(wanted).split(os.sep) if p not in ("", ".")]
    return bool(b) and a[-len(b) :] == b


def describe(loaded: LoadedFolder, rid: int) -> dict[str, Any]:
    """A candidate as an ambiguity lists it."""
    r = loaded.profile.routines[rid]
    file, line = place(loaded, rid)
    return {
        "name": r.display_name,
        "file": file,
        "line": line or None,
        "self_seconds": loaded.profile.seconds(r.self_ticks),
        "calls": r.calls,
    }


def find(loaded: LoadedFolder, name: str, file: str | None = None) -> int:
    """The routine `name` (module contract); raises NotFound."""
    m = _SYMSPEC.fullmatch(name)
    if m and file is None and not any(name in t for t in _tiers(loaded)):
        file, name = m.group(1), m.group(2)
    ids: list[int] = []
    for tier in _tiers(loaded):
        ids = list(dict.fromkeys(tier.get(name, [])))
        if ids:
            break
    if not ids:
        ids = _by_suffix(loaded, name)
    if not ids:
        raise NotFound(*_unknown(loaded, name))
    if file:
        ids = _in_files(loaded, name, file, ids)
    if len(ids) == 1:
        return ids[0]
    routines = loaded.profile.routines
    ids.sort(key=lambda i: (-routines[i].total_ticks, -routines[i].self_ticks, -routines[i].calls, i))
    shown = [describe(loaded, i) for i in ids[:MAX_CANDIDATES]]
    listing = "; ".join(f"{c['name']} ({c['file'] or '?'}:{c['line'] or '?'})" for c in shown)
    raise NotFound(
        f"`{name}` is ambiguous: {len(ids)} routines have that name: {listing}; "
        "give the full name shown, or `file` to choose",
        {"routine": name, "ambiguous": True, "candidates": shown},
    )


def _in_files(loaded: LoadedFolder, name: str, file: str, ids: list[int]) -> list[int]:
    inside = [i for i in ids if in_file(place(loaded, i)[0], file)]
    if inside:
        return inside
    files = sorted({str(place(loaded, i)[0]) for i in ids})
    raise NotFound(
        f"no routine named `{name}` in a file `{file}`; it is in: {', '.join(files)}",
        {"routine": name, "file": file, "candidates": [describe(loaded, i) for i in ids[:MAX_CANDIDATES]]},
    )


def _by_suffix(loaded: LoadedFolder, name: str) -> list[int]:
    """Routines whose name without parameters ends with `name` after `::` or a space: `Circle::area`
    for `geo::Circle::area() const`, `accumulate<int>` for `int geo::accumulate<int>(...)`."""
    bare = _tiers(loaded)[1]
    return [
        rid
        for key, ids in bare.items()
        if key.endswith(name) and key[: -len(name)].endswith(("::", " "))
        for rid in ids
    ]


def _unknown(loaded: LoadedFolder, name: str) -> tuple[str, dict[str, Any]]:
    names: dict[str, None] = {}
    for r in loaded.profile.routines:
        if not r.is_line:
            names[r.display_name] = None
            names[without_params(r.display_name)] = None
    nearest = difflib.get_close_matches(name, list(names), n=5, cutoff=0.6)
    if not nearest:  # a short name inside long C++ names: `area` in `Circle::area() const`
        low = name.lower()
        nearest = [n for n in names if low in n.lower()][:5]
    binary = os.path.basename(loaded.binary)
    text = f"no routine named `{name}` in {binary}'s profile"
    text += f"; nearest: {', '.join(nearest)}" if nearest else ""
    return text, {"routine": name, "unknown": True, "nearest": nearest}
