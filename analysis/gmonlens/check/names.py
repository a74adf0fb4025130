"""A routine named in a budget file -> the profile's routine (pure).

Every name gprof prints is accepted, as it prints it:
- the raw symbol (a C name, or a C++ mangled name `_ZN2ns4hashEi`) or the demangled one
  (`ns::hash(int)`), or the demangled one without its parameters (`ns::hash`) when that names
  one routine;
- with the call graph's decorations, which are dropped: ` <cycle 2>`, ` [12]`, ` (12)`;
- with a file label, as gprof's index labels statics (`hash (hash.c)`, also `hash (src/hash.c)`,
  `hash (hash.c:12)`, or gprof's symspec `hash.c:hash`): the routine of that name whose source
  file ends with it (a global named with a label its file cannot confirm is still taken when it
  is the only routine of that name: gprof labels statics only).
A name that names no routine, or several (statics of one name in several files, overloads), is a
`NameProblem` saying which exist (the nearest names, or the candidates with their labels).
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Sequence

from gmonlens.common.model import Profile, Routine

_DECORATION = re.compile(r"^(.*?\S)(?: <cycle \d+>)?(?: [\[(]\d+[\])])?$")
_LABEL = re.compile(r"^(.*\S) \(([^()]+)\)$")
_SYMSPEC = re.compile(r"^([^:\s()]+\.[A-Za-z0-9+]+):([A-Za-z_~$.].*)$")
MAX_LISTED = 8


class NameProblem(Exception):
    """A name that does not name exactly one routine; `message` says what exists."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _no_params(display: str) -> str:
    """`ns::K::m(int) const` -> `ns::K::m` (the first top-level `(`; `operator()` kept whole)."""
    depth = 0
    for i, ch in enumerate(display):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(depth - 1, 0)
        elif ch == "(" and depth == 0 and i > 0 and not display.endswith("operator", 0, i):
            return display[:i]
    return display


def _file_matches(path: str | None, label: str) -> bool:
    if not path:
        return False
    want = [p for p in os.path.normpath(label).split(os.sep) if p not in ("", ".")]
    have = os.path.normpath(path).split(os.sep)
    return bool(want) and have[-len(want) :] == want


def label_of(r: Routine) -> str:
    """The name gprof's index prints: `name (file)` for a static with a known file."""
    if r.is_static and r.file:
        return f"{r.display_name} ({os.path.basename(r.file)})"
    return r.display_name


class RoutineNames:
    """The routines of one binary's profile by name (module doc). Routine ids are the symbol
    table's, the same in every profile of that binary read with the same options."""

    def __init__(self, profile: Profile, binary: str) -> None:
        self.binary = binary
        self.routines = tuple(r for r in profile.routines if not r.is_line)
        self.exact: dict[str, list[Routine]] = {}
        self.bare: dict[str, list[Routine]] = {}
        for r in self.routines:
            for key in dict.fromkeys((r.name, r.display_name)):
                self.exact.setdefault(key, []).append(r)
            bare = _no_params(r.display_name)
            if bare != r.display_name:
                self.bare.setdefault(bare, []).append(r)
        self.folded = {f.name: profile.routines[f.routine] for f in profile.folded}

    def _candidates(self, name: str) -> list[Routine]:
        return list(self.exact.get(name) or self.bare.get(name) or [])

    def _split(self, text: str) -> tuple[str, str | None]:
        """(name, file label or None) from a name as written."""
        if text in self.exact or text in self.bare:
            return text, None
        m = _DECORATION.match(text)
        name = m.group(1) if m else text
        if name in self.exact or name in self.bare:
            return name, None
        label = _LABEL.match(name)
        if label and (label.group(1) in self.exact or label.group(1) in self.bare):
            return label.group(1), label.group(2).split(":")[0].strip()
        spec = _SYMSPEC.match(name)
        if spec and (spec.group(2) in self.exact or spec.group(2) in self.bare):
            return spec.group(2), spec.group(1)
        return name, None

    def find(self, text: str) -> int:
        """The id of the routine `text` names; NameProblem otherwise."""
        name, label = self._split(text.strip())
        found = self._candidates(name)
        if not found:
            raise NameProblem(self._unknown(name))
        if label is not None:
            inside = [r for r in found if _file_matches(r.file, label)]
            if not inside and len(found) == 1 and not found[0].is_static:
                inside = found
            if not inside:
                files = sorted({os.path.basename(r.file) if r.file else "unknown file" for r in found})
                raise NameProblem(
                    f"no routine '{name}' in a file '{label}' in {self.binary} (it is in {', '.join(files)})"
                )
            found = inside
        if len(found) > 1:
            listed = ", ".join(label_of(r) for r in found[:MAX_LISTED])
            more = f" and {len(found) - MAX_LISTED} more" if len(found) > MAX_LISTED else ""
            raise NameProblem(
                f"'{text.strip()}' names {len(found)} routines in {self.binary}: {listed}{more}; name one as listed"
            )
        return found[0].id

    def _unknown(self, name: str) -> str:
        into = self.folded.get(name)
        if into is not None:
            return f"'{name}' is a clone gprof counts as part of '{into.display_name}' in {self.binary}: name that"
        near = difflib.get_close_matches(name, [r.display_name for r in self.routines], n=3, cutoff=0.6)
        hint = f" (nearest: {', '.join(near)})" if near else ""
        return f"no routine '{name}' in {self.binary}{hint}"


def cycle_members(profile: Profile, number: int) -> Sequence[str]:
    """The display names of cycle `number`'s members, in gprof's chain order."""
    return [profile.routines[i].display_name for i in profile.cycle(number).members]
