"""What the GNU (report.py) and BSD (report_bsd.py, -T) layouts share: the report options, C's
number formatting, routine names and the flat profile's order."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from gmonlens.common.model import Profile, Routine
from gmonlens.common.options import SymSpec
from gmonlens.profile.line_symbols import line_suffix


@dataclass(frozen=True)
class ReportOptions:
    """What to print: which sections, zero entries, index width, demangling."""

    flat: bool = True
    graph: bool = True
    zero: bool = False  # -z
    width: int = 80  # -w
    demangle: bool = True
    lines: bool = False  # -l: names carry ` (file:line @ addr)`, line symbols get no graph entry
    full_paths: bool = False  # -L: file names as recorded, not their basename
    inline_files: bool = False  # --inline-file-names: names carry ` (file:line)`
    traditional: bool = False  # -T: BSD layout (report_bsd.py); wider children column
    exec_counts: bool = False  # -C (execcounts.py), last
    exec_include: tuple[SymSpec, ...] = ()  # -C SPEC
    exec_exclude: tuple[SymSpec, ...] = ()  # -Z SPEC
    # gprof's source-file list (`source_files.gprof_file_list`), which -C/-Z's FILE specs name one
    # file of; None: a FILE matches every file of that basename
    source_files: tuple[str, ...] | None = None

    @property
    def cw(self) -> str:
        """Width of the call graph's children column: `%11.2f` in -T's layout."""
        return "11" if self.traditional else "7"


def printf_f(spec: str, value: float) -> str:
    """C's `printf("%<spec>f", value)`: NaN prints as glibc prints 0/0 (`-nan`)."""
    if value != value:  # NaN (math.isnan, without the call: a report formats millions)
        width = int(spec.split(".")[0] or 0)
        return "-nan".rjust(width)
    return ("%" + spec + "f") % value


def c_seconds(ticks: float, hz: int) -> float:
    """`ticks / hz` as gprof's C divides doubles: +-inf, or NaN for 0 ticks, when `hz` is 0."""
    if hz:
        return ticks / hz
    return math.copysign(math.inf, ticks) if ticks else math.nan


def routine_name(r: Routine, opts: ReportOptions) -> str:
    """A routine's name as the flat profile shows it: demangled or not, with -l's or
    --inline-file-names' suffix."""
    name = r.display_name if opts.demangle else r.name
    if opts.lines:
        name += line_suffix(r.file, r.line, r.address, opts.full_paths)
    elif opts.inline_files and r.file is not None:  # --inline-file-names (-l's suffix wins)
        name += " (%s:%d)" % (r.file if opts.full_paths else os.path.basename(r.file), r.line)
    return name


def static_label(r: Routine, full_paths: bool = False) -> str:
    """The `" (file)"` gprof's index by function name puts after a static routine's name (the file of
    its entry address in the line table, its basename unless --full-paths); "" for a global
    routine or one without line information. Several statics of one name are told apart by it
    (`clamp (main.c)`, `clamp (render.c)`), though not those of one file compiled several times."""
    if not r.is_static or not r.file:
        return ""
    return " (%s)" % (r.file if full_paths else os.path.basename(r.file))


def flat_order(p: Profile, with_figures: bool = False) -> list[Routine]:
    """§8.4: time descending, calls descending, raw name; ties keep address order. With
    `with_figures`, only the routines with self time or calls (what the flat profile prints
    without -z; -l's tables are mostly line symbols with neither), in the same order."""
    routines = [r for r in p.routines if r.self_ticks or r.calls] if with_figures else p.routines
    return sorted(
        routines,
        key=lambda r: (-r.self_ticks, -r.calls, r.name.encode("utf-8", "surrogateescape")),
    )


def routine_ref(r: Routine, opts: ReportOptions) -> str:
    """A routine's name as the call graph shows it: cycle tag and [index] or (index)."""
    s = routine_name(r, opts)
    if r.cycle:
        s += " <cycle %d>" % r.cycle
    return s + (" [%d]" % r.index if r.printed else " (%d)" % r.index)
