"""A routine named by a person or an agent -> the loaded profile's routine (one rule for every
front end: the MCP tools, the editor's commands).

Contract of `find(loaded, name, file)`:
- Every name gprof prints names its routine: the demangled name (`Shape::area() const`), gprof's
  index label of a static (`clamp (render.c)`: the basename of the file of its entry address,
  `report_format.static_label`), the call graph's reference (`match [12]`, `is_even <cycle 1>
  [3]`), the index alone (`[12]`: printed entries only, as gprof numbers them), the raw (mangled)
  symbol, or an address (`0x401136`, any address inside the routine; `name @0x401136`).
- Names people write: without parameters (`Shape::area`), the identifier alone (`area`,
  `accumulate` for `accumulate<int>`), the end of a qualified name (`Circle::area`,
  `index<128ul>` for `unsigned long (anonymous namespace)::index<128ul>(char const*)`), without
  anonymous namespaces or template arguments (`lib::scan` for `lib::(anonymous
  namespace)::scan(int)`, `Table::index` for `Table<128>::index(int)`), and last, as the editor's
  workspace search does, any part of the name (case ignored). `file.c:name` (gprof's symspec
  form) sets `file`. The first of these tiers with a hit wins.
- `file` keeps the candidates whose source file ends with it, by whole path components: the
  declaration's (`src/util.h`) or the file gprof labels a static with (the unit's, `render.c`).
- One candidate: its routine id. Several: `NotFound(ambiguous=True)` listing them, hottest first,
  each under its `ref`: a name no other routine of the profile has, which `find` takes back
  (`ref`). None: `NotFound` naming it, with the nearest names (difflib).
The name index is built once per load (`LoadedFolder.names`).
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import replace
from typing import Any

from gmonlens.common.model import Profile, Routine
from gmonlens.output.report_format import static_label
from gmonlens_ide.figures import NO_FIGURES, gprof_index
from gmonlens_ide.session import LoadedFolder
from gmonlens_ide.srcnames import source_name

_SYMSPEC = re.compile(r"([^:\s]+\.[A-Za-z0-9+]+):([A-Za-z_~].*)")
_INDEX = re.compile(r"(?:(.*?)\s*)\[(\d+)\]")  # "[12]", "match [12]", "is_even <cycle 1> [3]"
_ADDRESS = re.compile(r"(?:(.*?)\s*@\s*)?(0[xX][0-9a-fA-F]+)")  # "0x401136", "match @0x401136"
_LABEL = re.compile(r"(.*\S) \(([^()]*[./][^()]*)\)")  # "clamp (render.c)": a file's name
_CYCLE = re.compile(r"\s*<cycle \d+>$")
_ANONYMOUS = "(anonymous namespace)::"
MAX_CANDIDATES = 20


class NotFound(Exception):
    """No single routine has the name: `message` is one line; `data` the structured facts
    (`unknown` with `nearest`, or `ambiguous` with `candidates`, or the files it is in)."""

    def __init__(self, message: str, data: dict[str, Any]) -> None:
        super().__init__(message)
        self.message = message
        self.data = data


_OPERATOR_CHARS = "<>=-!+*/%^&|~,[]()"


def _operator_end(text: str, i: int) -> int:
    """The end of an operator's name starting at `i` (`operator<<`, `operator()`, `operator[]`)."""
    j = i + len("operator")
    if text.startswith("()", j) or text.startswith("[]", j):
        return j + 2
    while j < len(text) and text[j] in _OPERATOR_CHARS and text[j] != "(":
        j += 1
    return j


def without_params(display: str) -> str:
    """A demangled name without its parameter list and what follows it (`Shape::area` of
    `Shape::area() const`): the last parenthesised group at the top level is the parameters
    (`f(Slice)::State::Match` of `f(Slice)::State::Match(void*)`); `(anonymous namespace)` is a
    scope, and an operator's name keeps its parentheses and angle brackets (`operator()`)."""
    if "(" not in display:  # a C name: nothing to cut (the common case, at C speed)
        return display
    depth, params, i = 0, -1, 0
    while i < len(display):
        ch = display[i]
        if display.startswith("(anonymous namespace)", i):
            i += len("(anonymous namespace)")
            continue
        if depth == 0 and display.startswith("operator", i) and (i == 0 or not display[i - 1].isalnum()):
            i = _operator_end(display, i)
            continue
        if ch in "<[{(":
            if ch == "(" and depth == 0 and i > 0:
                params = i
            depth += 1
        elif ch in ">]})":
            depth = max(depth - 1, 0)
        i += 1
    return display[:params] if params > 0 else display


def plain(name: str) -> str:
    """A name as a person writes it: no parameters, no anonymous namespaces, no template arguments
    (`Table::index` of `Table<128>::index(int)`, `lib::scan` of `lib::(anonymous
    namespace)::scan(int)`); operators keep their `<` and `>` (`operator<<`)."""
    text = without_params(name).replace(_ANONYMOUS, "")
    if "<" not in text and ">" not in text:
        return text.strip()
    out: list[str] = []
    depth = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if depth == 0 and text.startswith("operator", i) and (i == 0 or not text[i - 1].isalnum()):
            j = _operator_end(text, i)
            out.append(text[i:j])
            i = j
            continue
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
        i += 1
    return "".join(out).strip()


def gprof_files(loaded: LoadedFolder) -> dict[int, str]:
    """entry address -> the file gprof names a static routine by (BFD's reading of the line table:
    `clamp` of util.h compiled into render.c is `clamp (render.c)`; the load's own files are the
    true source positions, util.h). Read once per load, from the disk cache when it has them;
    {} when the binary has no line information or it cannot be read."""

    def read() -> dict[int, str]:
        from gmonlens.common.errors import GmonlensError

        program = loaded.program
        try:
            if not program.image.has_debug_info:
                return {}
            lines = program.routine_lines(gprof_files=True, statics=True)
        except (GmonlensError, OSError, ValueError):
            return {}
        return {address: file for address, (file, _line) in lines.items()}

    found: dict[int, str] = loaded.names.get("gprof files", read)
    return found


def gprof_name(r: Routine, files: dict[int, str]) -> str:
    """The name gprof's index by function name prints: demangled, a static's `(file)` after it
    (`files`: `gprof_files`)."""
    file = files.get(r.address) if r.is_static else None
    return r.display_name + static_label(replace(r, file=file) if file else r)


def name_tiers(profile: Profile, files: dict[int, str]) -> list[dict[str, list[int]]]:
    """[exact names, gprof's labelled names and symbols; names without parameters; identifiers;
    plain names (`plain`)] -> routine ids."""
    exact: dict[str, list[int]] = {}
    bare: dict[str, list[int]] = {}
    ident: dict[str, list[int]] = {}
    flat: dict[str, list[int]] = {}
    for r in profile.routines:
        if r.is_line:
            continue
        for key in dict.fromkeys((r.display_name, gprof_name(r, files), r.name)):
            exact.setdefault(key, []).append(r.id)
        bare.setdefault(without_params(r.display_name), []).append(r.id)
        ident.setdefault(source_name("", r.display_name), []).append(r.id)
        flat.setdefault(plain(r.display_name), []).append(r.id)
    return [exact, bare, ident, flat]


def _tiers(loaded: LoadedFolder) -> list[dict[str, list[int]]]:
    files = gprof_files(loaded)  # outside the memo's build: its lock is not reentrant
    tiers: list[dict[str, list[int]]] = loaded.names.get("tiers", lambda: name_tiers(loaded.profile, files))
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


def ref(loaded: LoadedFolder, rid: int) -> str:
    """A name of routine `rid` that no other routine of the profile has and that `find` takes back:
    its demangled name when no other routine is called that; else gprof's labelled name
    (`clamp (render.c)`) when that is unique; else that with gprof's index (`match (match.c)
    [12]`), or, for a routine gprof prints no entry for, its address (`match (match.c)
    @0x1139`)."""

    exact = _tiers(loaded)[0]  # outside `build`: the memo's lock is not reentrant
    files = gprof_files(loaded)

    def build() -> str:
        r = loaded.profile.routines[rid]
        if len(exact.get(r.display_name, ())) <= 1:
            return r.display_name
        labelled = gprof_name(r, files)
        if labelled != r.display_name and len(exact.get(labelled, ())) <= 1:
            return labelled
        index = index_of(r)
        return labelled + (f" [{index}]" if index else f" @{r.address:#x}")

    name: str = loaded.names.get(("ref", rid), build)
    return name


index_of = gprof_index  # gprof's call-graph index where it prints one, else None


def describe(loaded: LoadedFolder, rid: int) -> dict[str, Any]:
    """A candidate as an ambiguity lists it: `name` is its `ref` (distinct, usable as given)."""
    r = loaded.profile.routines[rid]
    file, line = place(loaded, rid)
    return {
        "name": ref(loaded, rid),
        "display_name": r.display_name,
        "symbol": r.name,
        "index": index_of(r),
        "address": r.address,
        "file": file,
        "line": line or None,
        "self_seconds": loaded.profile.seconds(r.self_ticks),
        "calls": r.calls,
    }


def find(loaded: LoadedFolder, name: str, file: str | None = None) -> int:
    """The routine `name` (module contract); raises NotFound."""
    name = name.strip()
    exact = _tiers(loaded)[0]
    if name not in exact:
        m = _INDEX.fullmatch(name)
        if m:
            return _chosen(loaded, _by_index(loaded, int(m.group(2)), name), m.group(1), file)
        m = _ADDRESS.fullmatch(name)
        if m:
            return _chosen(loaded, _by_address(loaded, int(m.group(2), 16), name), m.group(1), file)
    ids = named(loaded, name, file)
    if len(ids) == 1:
        return ids[0]
    raise NotFound(*_ambiguous(loaded, name, ids))


def named(loaded: LoadedFolder, name: str, file: str | None = None) -> list[int]:
    """Every routine `name` (and `file`) names, by the first tier with a hit (module contract);
    raises NotFound when none."""
    exact = _tiers(loaded)[0]
    label = None
    if name not in exact:
        name = _CYCLE.sub("", name)
        m = _LABEL.fullmatch(name)
        if m and name not in exact:
            name, label = m.group(1), m.group(2)
        m = _SYMSPEC.fullmatch(name)
        if m and file is None and not any(name in t for t in _tiers(loaded)):
            file, name = m.group(1), m.group(2)
    ids = _by_name(loaded, name)
    if not ids:
        raise NotFound(*_unknown(loaded, name))
    if label:
        ids = _in_files(loaded, f"{name} ({label})", label, ids)
    if file:
        ids = _in_files(loaded, name, file, ids)
    return ids


def _by_name(loaded: LoadedFolder, name: str) -> list[int]:
    tiers = _tiers(loaded)
    for tier in tiers[:3]:
        ids = list(dict.fromkeys(tier.get(name, [])))
        if ids:
            return ids
    ids = _by_suffix(tiers[1], name)
    if ids:
        return ids
    written = plain(name)
    if written:
        ids = list(dict.fromkeys(tiers[3].get(written, []))) or _by_suffix(tiers[3], written)
    return ids or _by_search(loaded, name)


def _chosen(loaded: LoadedFolder, rid: int, rest: str | None, file: str | None) -> int:
    """`rid` (named by index or address) when the name written with it, if any, names it too."""
    if rest or file:
        try:
            ids = named(loaded, rest or loaded.profile.routines[rid].display_name, file)
        except NotFound:
            ids = []
        if rid not in ids:
            r = loaded.profile.routines[rid]
            raise NotFound(
                f"`{ref(loaded, rid)}` is the routine there, not `{rest or ''}`"
                + (f" in a file `{file}`" if file else ""),
                {"routine": rest, "candidates": [describe(loaded, rid)], "display_name": r.display_name},
            )
    return rid


def _by_index(loaded: LoadedFolder, index: int, name: str) -> int:
    found = loaded.names.get("indexes", lambda: _indexes(loaded.profile))
    rid: int | None = found.get(index)
    if rid is None:
        raise NotFound(
            f"no routine has the index [{index}] in gprof's call graph of {os.path.basename(loaded.binary)}",
            {"routine": name, "unknown": True, "nearest": []},
        )
    return rid


def _indexes(profile: Profile) -> dict[int, int]:
    return {index: r.id for r in profile.routines if (index := index_of(r))}


def _by_address(loaded: LoadedFolder, address: int, name: str) -> int:
    for r in loaded.profile.routines:
        if not r.is_line and r.address <= address <= r.end_address:
            return r.id
    raise NotFound(
        f"no routine at {address:#x} in {os.path.basename(loaded.binary)}'s profile",
        {"routine": name, "unknown": True, "nearest": []},
    )


def _ambiguous(loaded: LoadedFolder, name: str, ids: list[int]) -> tuple[str, dict[str, Any]]:
    routines = loaded.profile.routines
    ids.sort(key=lambda i: (-routines[i].total_ticks, -routines[i].self_ticks, -routines[i].calls, i))
    more = f" (the {MAX_CANDIDATES} hottest)" if len(ids) > MAX_CANDIDATES else ""
    return (
        f"`{name}` is ambiguous: {len(ids)} routines have that name{more}: {_listed(loaded, ids)}; "
        "give one of these names as listed, or `file` to choose",
        {
            "routine": name,
            "ambiguous": True,
            "candidates": [describe(loaded, i) for i in ids[:MAX_CANDIDATES]],
        },
    )


def _listed(loaded: LoadedFolder, ids: list[int]) -> str:
    """Candidates in a line: each `ref` with where it is declared, its symbol when mangled, and
    whether it ran."""

    def one(rid: int) -> str:
        r = loaded.profile.routines[rid]
        file, line = place(loaded, rid)
        facts = [f"{file}:{line}" if file and line else file or "no line information"]
        if r.name != r.display_name:
            facts.append(r.name)
        if not r.has_figures:
            facts.append(NO_FIGURES)
        return f"`{ref(loaded, rid)}` ({', '.join(facts)})"

    return ", ".join(one(i) for i in ids[:MAX_CANDIDATES])


def _files_of(loaded: LoadedFolder, rid: int) -> tuple[str | None, ...]:
    """(declaration's file, its entry address's file: the true one and the one gprof labels it with)."""
    r = loaded.profile.routines[rid]
    return place(loaded, rid)[0], r.file, gprof_files(loaded).get(r.address) if r.is_static else None


def _in_files(loaded: LoadedFolder, name: str, file: str, ids: list[int]) -> list[int]:
    inside = [i for i in ids if any(in_file(f, file) for f in _files_of(loaded, i))]
    if inside:
        return inside
    raise NotFound(
        f"no routine `{name}` in a file `{file}`; there are: {_listed(loaded, ids)}",
        {"routine": name, "file": file, "candidates": [describe(loaded, i) for i in ids[:MAX_CANDIDATES]]},
    )


def _by_suffix(names: dict[str, list[int]], name: str) -> list[int]:
    """Routines whose name ends with `name` after `::` or a space: `Circle::area` for
    `geo::Circle::area() const`, `accumulate<int>` for `int geo::accumulate<int>(...)`."""
    return [
        rid
        for key, ids in names.items()
        if key.endswith(name) and key[: -len(name)].endswith(("::", " "))
        for rid in ids
    ]


def _by_search(loaded: LoadedFolder, name: str) -> list[int]:
    """As the editor's workspace search: routines whose name holds `name`, case ignored (as
    printed, or written plainly: `Table::ind` in `Table<128>::index(int)`)."""
    low, written = name.lower(), plain(name).lower()
    if len(low) < 2:
        return []
    ids = [r.id for r in loaded.profile.routines if not r.is_line and low in r.display_name.lower()]
    if not ids and written:
        ids = [rid for key, rids in _tiers(loaded)[3].items() if written in key.lower() for rid in rids]
    return ids


def _unknown(loaded: LoadedFolder, name: str) -> tuple[str, dict[str, Any]]:
    names: dict[str, None] = {}
    for r in loaded.profile.routines:
        if not r.is_line:
            names[r.display_name] = None
            names[without_params(r.display_name)] = None
    nearest = difflib.get_close_matches(name, list(names), n=5, cutoff=0.6)
    binary = os.path.basename(loaded.binary)
    text = f"no routine named `{name}` in {binary}'s profile"
    text += f"; nearest: {', '.join(nearest)}" if nearest else ""
    return text, {"routine": name, "unknown": True, "nearest": nearest}
