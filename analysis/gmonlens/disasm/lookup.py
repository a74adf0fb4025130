"""Which routines a `gmonlens disasm` SYMSPEC names, and objdump's `<symbol+0xoff>` (pure).

A SYMSPEC is, tried in order:
1. a routine's raw (mangled) name or the name gprof prints (`ns::K::m(int) const`, which gprof's
   own grammar would split at the `::`): every routine of that name (several statics);
2. a printed C++ name without its parameters (`ns::K::m`): every routine printed `ns::K::m(...)`;
3. gprof's symspec (`func`, `file.c:func`, `file.c`, `file.c:123`, `123`; options.SymSpec), files
   as gprof names them.
Line symbols (-l) are never listed.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from gmonlens.common.model import CodeSection, ElfSymbol, Profile, Symbol
from gmonlens.common.options import SymSpec

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
    return [
        r.id
        for r in routines
        if spec.matches(
            Symbol(r.name, r.address, r.end_address, r.is_function, r.is_static, r.file, r.line),
            r.display_name,
        )
    ]


def needs_files(text: str) -> bool:
    """Whether the SYMSPEC names a file or a line (routines then need gprof's file names)."""
    spec = SymSpec.parse(text)
    return spec.file is not None or spec.line != 0


class TargetNames:
    """objdump's name for a branch or call target: the nearest code symbol at or below it
    (`name` or `name+0xoff`, raw names, the first in .symtab order at an address), None inside a
    PLT section (objdump's `func@plt` names come from relocations, not read here) or before any
    symbol."""

    def __init__(self, symbols: Sequence[ElfSymbol], sections: Sequence[CodeSection]) -> None:
        first: dict[int, str] = {}
        for s in symbols:
            if s.class_letter in ("T", "t", "W", "w") and s.name and s.is_function:
                first.setdefault(s.value, s.name)
        self._addrs = sorted(first)
        self._names = [first[a] for a in self._addrs]
        self._plt = [(c.address, c.address + len(c.data)) for c in sections if c.name in _PLT_SECTIONS]

    def __call__(self, address: int) -> str | None:
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
