"""Which routines a `gmonlens disasm` SYMSPEC names, and objdump's `<symbol+0xoff>` (pure).

A SYMSPEC is, tried in order:
1. a routine's raw (mangled) name or the name gprof prints (`ns::K::m(int) const`, which gprof's
   own grammar would split at the `::`): every routine of that name (several statics);
2. a printed C++ name without its parameters (`ns::K::m`): every routine printed `ns::K::m(...)`;
3. gprof's symspec (`func`, `file.c:func`, `file.c`, `file.c:123`, `123`; options.SymSpec), files
   as gprof names them; FILE may also be any path that ends in the recorded one's last whole
   components (`src/pcre2_match.c`, as an editor shows it relative to the workspace, for
   `/home/u/pcre2/src/pcre2_match.c`), `.` and `..` resolved in both;
4. any other name gprof prints (`profile.routine_names`): its index label `clamp (render.c)`,
   `match [12]`, `match @ 0x1189`, a C++ name's end (`Circle::area`, `index<128ul>`).
Line symbols (-l) are never listed. `no_match_message` says which spellings would work.
"""

from __future__ import annotations

import posixpath
from bisect import bisect_right
from collections.abc import Sequence

from gmonlens.binary.address_names import AddressNames
from gmonlens.common.model import CodeSection, ElfSymbol, Profile, Routine, Symbol
from gmonlens.common.options import SymSpec
from gmonlens.profile.routine_names import RoutineNames

_PLT_SECTIONS = frozenset({".plt", ".plt.sec", ".plt.got", ".iplt"})


def find_routines(profile: Profile, text: str) -> list[int]:
    """Routine ids that SYMSPEC `text` names, in address order (module docstring)."""
    routines = [r for r in profile.routines if not r.is_line]
    exact = [r.id for r in routines if text in (r.name, r.display_name)]
    if exact:
        return exact
    if "::" in text or "(" not in text:
        prefix = [r.id for r in routines if r.display_name.startswith(text + "(")]
        if prefix:
            return prefix
    spec = SymSpec.parse(text)
    if spec.file is None or "/" not in spec.file:
        found = [r.id for r in routines if spec.matches(_symbol(r), r.display_name)]
    else:
        tail = _components(spec.file)
        anywhere = SymSpec(None, spec.name, spec.line)
        found = [
            r.id
            for r in routines
            if r.file is not None and _ends_in(r.file, tail) and anywhere.matches(_symbol(r), r.display_name)
        ]
    return found or RoutineNames(profile).find(text)


def _symbol(r: Routine) -> Symbol:
    return Symbol(r.name, r.address, r.end_address, r.is_function, r.is_static, r.file, r.line)


def _components(path: str) -> list[str]:
    """A path's components, `.` and `..` resolved lexically (a leading `/` kept as "")."""
    return posixpath.normpath(path).split("/")


def _ends_in(recorded: str, tail: list[str]) -> bool:
    """Whether `recorded`'s components end with `tail` (an absolute `tail` is the whole path)."""
    parts = _components(recorded)
    return len(tail) <= len(parts) and parts[len(parts) - len(tail) :] == tail


def no_match_message(profile: Profile, text: str) -> str:
    """One line for a SYMSPEC `find_routines` finds nothing for: where the routines of its name
    are (the files that would work), when some routine has that name."""
    msg = f"no routine matches '{text}'"
    spec = SymSpec.parse(text)
    if spec.name is None or spec.file is None:
        return msg
    files = sorted(
        {
            r.file
            for r in profile.routines
            if not r.is_line and r.file is not None and spec.name in (r.name, r.display_name)
        }
    )
    if not files:
        return msg
    shown = ", ".join(files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
    return (
        f"{msg}; '{spec.name}' is in {shown}: give one of those paths, a path ending in one "
        "(whole components) or its base name"
    )


def needs_files(text: str) -> bool:
    """Whether the SYMSPEC names a file or a line (routines then need gprof's file names)."""
    spec = SymSpec.parse(text)
    return spec.file is not None or spec.line != 0


class TargetNames:
    """objdump's name for an address: a branch or call target, the address an operand refers
    to (`binary.address_names`: PLT entries as `func@plt`, GOT slots as `func@VERSION`, data
    symbols too). Without those names (`names` None: the ELF could not be read again), the
    nearest code symbol at or below (raw names, the first in .symtab order at an address) and
    None inside a PLT section or before any symbol. `inside` lists the code symbols starting in
    a range."""

    def __init__(
        self, symbols: Sequence[ElfSymbol], sections: Sequence[CodeSection], names: AddressNames | None = None
    ) -> None:
        first: dict[int, str] = {}
        for s in symbols:
            if s.class_letter in ("T", "t", "W", "w") and s.name and s.is_function:
                first.setdefault(s.value, s.name)
        self._addrs = sorted(first)
        self._names = [first[a] for a in self._addrs]
        self._plt = [(c.address, c.address + len(c.data)) for c in sections if c.name in _PLT_SECTIONS]
        self._objdump = names

    def __call__(self, address: int) -> str | None:
        if self._objdump is not None:
            return self._objdump(address)
        for lo, hi in self._plt:
            if lo <= address < hi:
                return None
        k = bisect_right(self._addrs, address) - 1
        if k < 0:
            return None
        off = address - self._addrs[k]
        return self._names[k] if off == 0 else f"{self._names[k]}+0x{off:x}"

    def inside(self, lo: int, hi: int) -> list[tuple[int, str]]:
        """(address, raw name) of the symbols starting in [lo, hi)."""
        k = bisect_right(self._addrs, lo - 1)
        out = []
        while k < len(self._addrs) and self._addrs[k] < hi:
            out.append((self._addrs[k], self._names[k]))
            k += 1
        return out
