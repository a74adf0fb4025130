"""gprof's list of source files, and which of them a file symspec names (pure).

Observed on gprof 2.40 (tests/integration/test_source_layouts.py, test_source_files.py):
- The list: each routine's source file (BFD's name for it: `Symbol.file`) in the order the
  functions come in `.symtab`, then the `-l` line symbols' in address order; a file is put at
  the head of the list when first met, so the list runs from the last new file to the first.
  `-A` annotates its files in this order.
- A symspec naming a file (`parser.c`, `parser.c:12`, `parser.c:func`) names ONE file: the
  first in that list whose path or basename is the spec's file. Where two directories hold a
  `parser.c`, the spec selects the routines of the one whose first function comes later in
  `.symtab` (locals come before globals there; globals in the hash order of the link), and
  `parser.c:LINE` a line of that file only.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence
from typing import Protocol

from gmonlens.common.model import ElfSymbol


class Placed(Protocol):
    """A routine or symbol with gprof's source file (`Routine`, `Symbol`)."""

    @property
    def name(self) -> str: ...
    @property
    def address(self) -> int: ...
    @property
    def file(self) -> str | None: ...
    @property
    def is_line(self) -> bool: ...


def gprof_file_list(routines: Iterable[Placed], symtab: Sequence[ElfSymbol]) -> list[str]:
    """gprof's source files, head of its list first (module docstring). `symtab`: the ELF
    symbols in `.symtab` order (a routine renamed by -R is placed by its address)."""
    position: dict[tuple[str, int], int] = {}
    renamed: dict[int, int] = {}
    for i, s in enumerate(symtab):
        position.setdefault((s.name, s.value), i)
        renamed.setdefault(s.value, i)
    end = len(symtab)
    funcs = [r for r in routines if r.file is not None]
    lines = sorted((r for r in funcs if r.is_line), key=lambda r: r.address)
    funcs = [r for r in funcs if not r.is_line]
    funcs.sort(key=lambda r: position.get((r.name, r.address), renamed.get(r.address, end)))
    seen: dict[str, None] = {}
    for r in (*funcs, *lines):
        assert r.file is not None
        seen.setdefault(r.file, None)
    return list(reversed(seen))


def named_file(spec_file: str, files: Sequence[str]) -> str | None:
    """The file of gprof's list (`gprof_file_list`) that a symspec's FILE names: the first
    whose path or basename is `spec_file`; None when none is."""
    for f in files:
        if f == spec_file or posixpath.basename(f) == spec_file:
            return f
    return None
