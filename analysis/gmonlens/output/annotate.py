"""`-A`: annotated source, as `gprof -b -A` prints it (an I/O module: reads the source files).

Observed on gprof 2.40, without basic-block records (gcc no longer writes them), so the counts are
the routines' call counts (self-recursive calls not counted, as in the flat profile):
- Symbols: the routines (with -l also the line symbols) that have a source file and that -A/-J
  let through (`-ASPEC` keeps matching ones, `-JSPEC` drops them, an -A match wins).
- Files: those holding such a symbol that was called, or any such symbol with -z (so without -z
  a file whose routines were only sampled or never called, or a header holding only -l line
  symbols, is not annotated), in the reverse order of their first appearance among the functions
  in `.symtab` order, then the -l line symbols in address order: gprof prepends each new file to
  its list. A file that cannot be found is reported on stderr (`could not locate`) and
  skipped. Search: the path as recorded, then `DIR/basename` for each -I directory (no implicit
  current directory).
- Lines: a line with symbols shows `%12lu -> ` with the sum of the calls of the symbols on it, or
  `       ##### -> ` when that sum is 0 or below -m; but only when the first of them (lowest
  address) is a function: a line whose first symbol is a -l line symbol stays blank and does not
  count as executed (seen on -O2 code, where inlined copies put line symbols on a function's line
  before the function itself). Other lines get 16 blanks. -x changes nothing without bb records.
- A last line without a newline is printed without one (so one blank line fewer follows it).
- Then `Top N Lines` (N = -t, default 10): every line with a count > 0, executed or not, by count
  descending (ties in line order), and the `Execution Summary`: distinct lines with a symbol,
  executed lines, their percentage, the total count (all lines) and total / lines with a symbol.
  A symbol whose line lies past the file's end (BFD names the unit's main file for a header's or
  a libstdc++ line; a unity build's `lib.c`; a shorter file of the name found through -I; a
  source shortened since the build) counts in the top lines and the total only. A file left with
  no executable line is "100.00 Percent of the file executed" and 0.00 executions per line.
- Files are separated by a blank line and a form feed; with -y each goes to `BASENAME-ann` in the
  current directory instead (that is where gprof writes them; nothing else is written).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from gmonlens.common.errors import GmonlensError
from gmonlens.common.files import read_regular, write_file
from gmonlens.common.model import ElfSymbol, Profile, Routine
from gmonlens.common.source_files import gprof_file_list

MAX_SOURCE_BYTES = 1 << 28  # a source file larger than 256 MiB is not annotated


@dataclass(frozen=True)
class AnnotateOptions:
    chosen: frozenset[int]  # routine ids -A/-J let through
    search_dirs: tuple[str, ...] = ()  # -I
    min_count: int = 0  # -m
    table_length: int = 10  # -t
    separate_files: bool = False  # -y
    zero: bool = False  # -z: files whose routines were never called are annotated too


def file_order(
    p: Profile, symtab: Sequence[ElfSymbol], chosen: frozenset[int], zero: bool = False
) -> list[str]:
    """Source files in gprof's order (its source-file list, `source_files.gprof_file_list`) that
    hold a chosen symbol called (any chosen symbol with -z)."""
    wanted = {r.file for r in (p.routines[i] for i in chosen) if zero or r.calls > 0}
    return [f for f in gprof_file_list(p.routines, symtab) if f in wanted]


def locate(path: str, dirs: Sequence[str]) -> str | None:
    if os.path.isfile(path):
        return path
    for d in dirs:
        candidate = os.path.join(d, os.path.basename(path))
        if os.path.isfile(candidate):
            return candidate
    return None


def annotate_file(source: bytes, symbols: Sequence[Routine], opts: AnnotateOptions) -> str:
    """One file's block: annotated lines, top lines and the execution summary."""
    groups: dict[int, list[Routine]] = {}
    for r in sorted(symbols, key=lambda r: r.address):
        groups.setdefault(r.line, []).append(r)
    counts = {line: sum(r.calls for r in rs) for line, rs in groups.items()}
    out: list[str] = []
    text = source.decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    unterminated = not text.endswith("\n")  # gprof copies the last line as it is: no newline added
    # The top lines and the total take every line's count; a line past the file's end (BFD's
    # DWARF 5 file rule can name the unit's main file for a header's line) adds to nothing else,
    # and a line whose first symbol is a -l line symbol is neither marked nor counted as executed.
    total = sum(counts.values())
    top = sorted(((n, line) for line, n in sorted(counts.items()) if n > 0), key=lambda t: -t[0])
    groups = {k: v for k, v in groups.items() if k <= len(lines)}
    executed_lines = {k: counts[k] for k, rs in groups.items() if rs[0].is_function}
    for i, src in enumerate(lines, 1):
        n = executed_lines.get(i)
        if n is None:
            prefix = " " * 16
        elif n > 0 and n >= opts.min_count:
            prefix = "%12d -> " % n
        else:
            prefix = "       ##### -> "
        out.append(prefix + src + ("" if unterminated and i == len(lines) else "\n"))
    out.append("\n\nTop %d Lines:\n\n     Line      Count\n\n" % opts.table_length)
    for n, line in top[: opts.table_length]:
        out.append("%9d %10d\n" % (line, n))
    executable, executed = len(groups), len(executed_lines)
    out.append("\nExecution Summary:\n\n")
    out.append("%9d   Executable lines in this file\n" % executable)
    out.append("%9d   Lines executed\n" % executed)
    # a file holding none of its symbols' lines (a unity build's lib.c, a shorter file of the
    # name found through -I, a source shortened since the build): gprof says 100% and 0 a line
    out.append(
        "%9.2f   Percent of the file executed\n" % (100.0 * executed / executable if executable else 100.0)
    )
    out.append("\n%9d   Total number of line executions\n" % total)
    out.append("%9.2f   Average executions per line\n" % (total / executable if executable else 0.0))
    return "".join(out)


def annotated_source(p: Profile, symtab: Sequence[ElfSymbol], opts: AnnotateOptions) -> str | None:
    """The -A section (None when nothing was printed: no file found, or all went to -y files)."""
    blocks: list[str] = []
    by_file: dict[str, list[Routine]] = {}
    for i in sorted(opts.chosen):
        r = p.routines[i]
        if r.file is not None:
            by_file.setdefault(r.file, []).append(r)
    for path in file_order(p, symtab, opts.chosen, opts.zero):
        found = locate(path, opts.search_dirs)
        if found is None:
            print(f"gmonlens: could not locate `{path}'", file=sys.stderr)
            continue
        try:  # a name from the binary's DWARF: a regular file only, read with a cap
            source = read_regular(found, MAX_SOURCE_BYTES, "source file")
        except GmonlensError as e:
            print(f"gmonlens: warning: {e}", file=sys.stderr)
            continue
        block = annotate_file(source, by_file[path], opts)
        if opts.separate_files:
            out = os.path.basename(path) + "-ann"
            write_file(out, block.encode("utf-8", "surrogateescape"), "annotated source")
        else:
            blocks.append("*** File %s:\n" % path + block)
    return "\n\f\n".join(blocks) if blocks else None
