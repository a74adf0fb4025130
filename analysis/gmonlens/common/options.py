"""Analysis options (what changes the numbers) and gprof's symspecs (§8.5)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from gmonlens.common.model import Symbol
from gmonlens.common.source_files import named_file

# gprof's default exclusions: in EXCL_FLAT, EXCL_TIME and EXCL_GRAPH (§4.2)
DEFAULT_EXCLUDES = ("_gprof_mcount", "mcount", "_mcount", "__mcount", "__mcount_internal", "__mcleanup")


@dataclass(frozen=True, slots=True)
class SymSpec:
    """One gprof symspec: any of file, function name, line (all optional)."""

    file: str | None = None
    name: str | None = None
    line: int = 0
    exact: bool = False  # `file` is one of gprof's source files (`in_files`), matched whole

    @classmethod
    def parse(cls, text: str) -> SymSpec:
        """`FUNC`, `FILE.c`, `123`, `FILE:FUNC`, `FILE:LINE`, `:FUNC.with.dots`; "" matches any."""
        if not text:
            return cls()
        if ":" in text:
            file, _, rest = text.rpartition(":")
            if rest.isdigit():
                return cls(file or None, None, int(rest))
            return cls(file or None, rest or None, 0)
        if "." in text:
            return cls(text, None, 0)
        if text[:1].isdigit():
            return cls(None, None, int(text) if text.isdigit() else 0)
        return cls(None, text, 0)

    def in_files(self, files: Sequence[str]) -> SymSpec:
        """The spec with its FILE made the one file of gprof's source-file list it names
        (`source_files.named_file`: gprof selects one of several files sharing a basename); a
        FILE naming none of them matches nothing."""
        if self.file is None or self.exact:
            return self
        found = named_file(self.file, files)
        return SymSpec("" if found is None else found, self.name, self.line, exact=True)

    def matches(self, sym: Symbol, display_name: str | None = None) -> bool:
        if self.name is not None and self.name != sym.name and self.name != display_name:
            return False
        if self.file is not None:
            if sym.file is None:
                return False
            if self.exact:
                if self.file != sym.file:
                    return False
            elif self.file != sym.file and self.file != os.path.basename(sym.file):
                return False
        return not (self.line and self.line != sym.line)


@dataclass(frozen=True, slots=True)
class ArcSpec:
    """`FROM/TO`: arcs from routines matching FROM to routines matching TO."""

    parent: SymSpec
    child: SymSpec

    @classmethod
    def parse(cls, text: str) -> ArcSpec:
        a, _, b = text.partition("/")
        return cls(SymSpec.parse(a), SymSpec.parse(b))


@dataclass(frozen=True)
class AnalysisOptions:
    """Options that change what the engine computes (gprof flags in brackets)."""

    static_call_graph: bool = False  # -c
    no_static: bool = False  # -a
    only_functions: bool = False  # -D
    profile_format: str = "auto"  # -O
    line_granularity: bool = False  # -l (report_lines.py)
    source_lines: bool = False  # -C, -A: every routine's file:line, not only static ones'
    symbol_file: str | None = None  # -S: routines from this nm-style table (extsyms.py)
    clones_apart: bool = False  # (gmonlens) GCC clones gprof folds are routines of their own (clones.py)
    incl_flat: tuple[SymSpec, ...] = ()  # -p NAME
    excl_flat: tuple[SymSpec, ...] = ()  # -P NAME
    incl_graph: tuple[SymSpec, ...] = ()  # -q NAME, -f, -F
    excl_graph: tuple[SymSpec, ...] = ()  # -Q NAME, -e, -E
    incl_time: tuple[SymSpec, ...] = ()  # -n, -F
    excl_time: tuple[SymSpec, ...] = ()  # -N, -E
    incl_arcs: tuple[ArcSpec, ...] = ()  # -q FROM/TO
    excl_arcs: tuple[ArcSpec, ...] = ()  # -k FROM/TO, -Q FROM/TO

    @property
    def names_files(self) -> bool:
        """Whether a symspec names a file (its tables then need gprof's source-file list)."""
        return any(s.file is not None for s in self._specs())

    @property
    def needs_source_files(self) -> bool:
        return self.source_lines or any(s.file is not None or s.line for s in self._specs())

    def _specs(self) -> list[SymSpec]:
        specs: list[SymSpec] = [
            *self.incl_flat,
            *self.excl_flat,
            *self.incl_graph,
            *self.excl_graph,
            *self.incl_time,
            *self.excl_time,
        ]
        for a in (*self.incl_arcs, *self.excl_arcs):
            specs += [a.parent, a.child]
        return specs


def table(
    specs: Sequence[SymSpec],
    symbols: Sequence[Symbol],
    names: Sequence[str],
    defaults: frozenset[int] = frozenset(),
    files: Sequence[str] | None = None,
) -> frozenset[int]:
    """Positions of the routines any spec matches, and `defaults` (gprof's default excludes'
    positions, `default_excludes`, where asked). `files`: gprof's source-file list
    (`source_files.gprof_file_list`), which a spec's FILE is taken from (`SymSpec.in_files`);
    None: a FILE matches every file of that path or basename."""
    out = set(defaults)
    if specs and files is not None:
        specs = [s.in_files(files) for s in specs]
    if specs:
        for i, s in enumerate(symbols):
            if any(spec.matches(s, names[i]) for spec in specs):
                out.add(i)
    return frozenset(out)


def default_excludes(symbols: Sequence[Symbol]) -> frozenset[int]:
    """Positions of the routines named as gprof's default excludes (DEFAULT_EXCLUDES), found by
    `list.index` (a C loop: -l's tables have tens of thousands of symbols, none of them named so
    but for a few)."""
    raw = [s.name for s in symbols]
    out = set()
    for name in DEFAULT_EXCLUDES:
        i = -1
        while True:
            try:
                i = raw.index(name, i + 1)
            except ValueError:
                break
            out.add(i)
    return frozenset(out)


@dataclass(frozen=True)
class Tables:
    """Resolved symspec tables: routine positions."""

    incl_flat: frozenset[int]
    excl_flat: frozenset[int]
    incl_graph: frozenset[int]
    excl_graph: frozenset[int]
    incl_time: frozenset[int]
    excl_time: frozenset[int]
    incl_arcs: tuple[tuple[frozenset[int], frozenset[int]], ...]
    excl_arcs: tuple[tuple[frozenset[int], frozenset[int]], ...]

    def in_flat(self, i: int) -> bool:
        return i in self.incl_flat or (not self.incl_flat and i not in self.excl_flat)

    def arc_allowed(self, parent: int, child: int) -> bool:
        if self.incl_arcs and not any(parent in p and child in c for p, c in self.incl_arcs):
            return False
        return not any(parent in p and child in c for p, c in self.excl_arcs)


def resolve_tables(
    opts: AnalysisOptions, symbols: Sequence[Symbol], names: Sequence[str], files: Sequence[str] | None = None
) -> Tables:
    """The symspec tables of `opts` over `symbols`; `files` as `table` takes it."""

    def arcs(specs: Sequence[ArcSpec]) -> tuple[tuple[frozenset[int], frozenset[int]], ...]:
        return tuple(
            (table([a.parent], symbols, names, files=files), table([a.child], symbols, names, files=files))
            for a in specs
        )

    defaults = default_excludes(symbols)
    return Tables(
        incl_flat=table(opts.incl_flat, symbols, names, files=files),
        excl_flat=table(opts.excl_flat, symbols, names, defaults=defaults, files=files),
        incl_graph=table(opts.incl_graph, symbols, names, files=files),
        excl_graph=table(opts.excl_graph, symbols, names, defaults=defaults, files=files),
        incl_time=table(opts.incl_time, symbols, names, files=files),
        excl_time=table(opts.excl_time, symbols, names, defaults=defaults, files=files),
        incl_arcs=arcs(opts.incl_arcs),
        excl_arcs=arcs(opts.excl_arcs),
    )
