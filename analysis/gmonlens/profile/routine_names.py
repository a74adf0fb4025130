"""Every spelling that names a routine, and one distinct spelling for each (pure): for the front
ends that let a person or an agent name a routine (issue 27 items 12-13: the MCP tools, the
editor's commands). The servers' lookup is to call it.

Accepted (`RoutineNames.find`, first rule with a hit wins):
1. An index as gprof prints it, `[12]` or `(12)`, alone or after the name (`clamp [12]`).
2. An address, `0x1189`, alone or after the name (`match @ 0x1189`, `match@0x1189`): the routine
   whose range holds it.
3. gprof's index label of a static routine, `clamp (render.c)`: the name and its file, which may
   be gprof's (BFD's: a header's static is labelled by the .c file holding it) or the true one,
   given as a base name or any path ending in it by whole components.
4. gprof's symspec form `render.c:clamp`, the file as in 3.
5. The name gprof prints (demangled) or the raw (mangled) symbol.
6. A C++ name without its parameters (`geo::Circle::area` for `geo::Circle::area() const`).
7. The end of such a name after `::`, `(anonymous namespace)::` dropped (`Circle::area`,
   `index<128ul>` for `(anonymous namespace)::index<128ul>(unsigned long)`).
`file` (an argument of its own) then keeps the candidates in that file (as in 3).

`label(rid)` is the shortest spelling that names only that routine, in this order: the printed
name; gprof's `name (file)`; `name [index]` (for a routine gprof's index lists: called or
sampled); `name @ 0xADDR`. Each is accepted by `find` as it is.
"""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from gmonlens.common.model import Profile, Routine

_ANON = "(anonymous namespace)::"
_INDEX = re.compile(r"^(?:(.*?)\s*)?[\[(](\d+)[\])]$")
_ADDRESS = re.compile(r"^(?:(.*?)\s*@\s*)?(0x[0-9a-fA-F]+)$")
_LABEL = re.compile(r"^(.+?) \(([^()]+)\)$")
_SYMSPEC = re.compile(r"^([^:\s]+\.[A-Za-z0-9+]+):([A-Za-z_~].*)$")


def without_params(display: str) -> str:
    """A demangled name without its parameter list and what follows (`geo::Circle::area` of
    `geo::Circle::area() const`); the parentheses of `(anonymous namespace)` and of a template's
    arguments are not a parameter list."""
    depth = 0
    i = 0
    while i < len(display):
        if display.startswith("(anonymous namespace)", i):
            i += len("(anonymous namespace)")
            continue
        ch = display[i]
        if ch in "<[{":
            depth += 1
        elif ch in ">]}":
            depth = max(depth - 1, 0)
        elif ch == "(" and depth == 0 and i > 0 and not display.startswith("operator", max(0, i - 8)):
            return display[:i]
        i += 1
    return display


def ends_in(path: str | None, wanted: str) -> bool:
    """Whether `path` ends with `wanted` by whole path components (`.` and `..` resolved)."""
    if not path or not wanted:
        return False
    have = posixpath.normpath(path).split("/")
    want = [p for p in posixpath.normpath(wanted).split("/") if p not in ("", ".")]
    return bool(want) and have[-len(want) :] == want


@dataclass(frozen=True)
class RoutineNames:
    """The names of a profile's routines (module docstring). `gprof_files`: routine id -> the
    file gprof names it by (BFD's reading of the line table), where the profile's own files are
    the true positions (an editor's profile); missing ids use the routine's own file. The name
    tables are built on first use, once."""

    profile: Profile
    gprof_files: Mapping[int, str | None] | None = None

    @cached_property
    def _exact(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for r in self.profile.routines:
            if not r.is_line:
                for key in dict.fromkeys((r.display_name, r.name)):
                    out.setdefault(key, []).append(r.id)
        return out

    @cached_property
    def _bare(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for r in self.profile.routines:
            if not r.is_line:
                out.setdefault(without_params(r.display_name), []).append(r.id)
        return out

    @cached_property
    def _indexed(self) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for r in self.profile.routines:
            if not r.is_line and r.index:
                out.setdefault(r.index, []).append(r.id)
        return out

    def gprof_file(self, r: Routine) -> str | None:
        if self.gprof_files is not None and r.id in self.gprof_files:
            return self.gprof_files[r.id]
        return r.file

    def _in_file(self, rid: int, file: str) -> bool:
        r = self.profile.routines[rid]
        return ends_in(self.gprof_file(r), file) or ends_in(r.file, file)

    def find(self, text: str, file: str | None = None) -> list[int]:
        """Routine ids `text` names (module docstring), in address order; [] when none."""
        ids = self._find(text.strip())
        if file:
            ids = [i for i in ids if self._in_file(i, file)]
        return sorted(ids)

    def _find(self, text: str) -> list[int]:
        m = _INDEX.match(text)
        if m:
            hit = self._indexed.get(int(m.group(2)), [])
            if m.group(1):
                named = set(self._by_name(m.group(1)))
                hit = [i for i in hit if i in named]
            if hit or not m.group(1):
                return hit
        m = _ADDRESS.match(text)
        if m:
            return self._by_address(int(m.group(2), 16), m.group(1))
        m = _LABEL.match(text)
        if m and not m.group(2).startswith("anonymous namespace"):
            hit = [i for i in self._by_name(m.group(1)) if self._in_file(i, m.group(2))]
            if hit:
                return hit
        m = _SYMSPEC.match(text)
        if m and not self._by_name(text):
            return [i for i in self._by_name(m.group(2)) if self._in_file(i, m.group(1))]
        return self._by_name(text)

    def _by_address(self, address: int, name: str | None) -> list[int]:
        routines = [r for r in self.profile.routines if not r.is_line]
        starts = [r.address for r in routines]
        k = bisect_right(starts, address) - 1
        if k < 0 or address > max(routines[k].end_address, routines[k].address):
            return []
        hit = [r.id for r in routines if r.address == routines[k].address]
        if name:
            named = set(self._by_name(name))
            hit = [i for i in hit if i in named]
        return hit

    def _by_name(self, name: str) -> list[int]:
        hit = self._exact.get(name) or self._bare.get(name)
        if hit:
            return list(hit)
        return [i for bare, ids in self._bare.items() if _ends_in_scope(bare, name) for i in ids]

    def label(self, rid: int) -> str:
        """The shortest spelling naming only routine `rid` (module docstring)."""
        r = self.profile.routines[rid]
        name = r.display_name
        if self.find(name) == [rid]:
            return name
        file = self.gprof_file(r)
        if file:
            labelled = f"{name} ({posixpath.basename(file)})"
            if self.find(labelled) == [rid]:
                return labelled
        if r.index and (r.calls or r.self_ticks) and self.find(f"{name} [{r.index}]") == [rid]:
            return f"{name} [{r.index}]"
        return f"{name} @ 0x{r.address:x}"


def _ends_in_scope(bare: str, name: str) -> bool:
    """Whether `bare` (a name without parameters), or `bare` without `(anonymous namespace)::`,
    is `name` or ends with it after `::` or a space (a return type)."""
    for candidate in dict.fromkeys((bare, bare.replace(_ANON, ""))):
        if candidate == name:
            return True
        if candidate.endswith(name) and candidate[: -len(name)].endswith(("::", " ")):
            return True
    return False
