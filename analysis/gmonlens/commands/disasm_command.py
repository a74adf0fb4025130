"""`gmonlens disasm [options] SYMSPEC [BINARY [PROFILE...]]`: a routine's annotated disassembly.

A thin front end over `gmonlens.disasm.listing` (the listing) and `gmonlens.disasm.render` (text, JSON).
gprof's analysis options apply as in `report` (parsed by the same table); the disasm options are
`--syntax att|intel`, `--json`, `--color auto|always|never`, `--source-map FROM=TO` and gprof's
`-I DIRS` (where sources are looked for). Imports no pygls.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from gmonlens.common.errors import GmonlensError, UsageError

from .gprof_args import ReportArgs, parse_report_args, take_own_options

USAGE = """usage: gmonlens disasm [options] SYMSPEC [BINARY [PROFILE...]]

The routine's instructions with gprof's figures (defaults: a.out gmon.out): samples, seconds and
share of the routine per instruction, source lines where they change, inlined functions, jump
labels, and on each call instruction gprof's count through it and the time gprof propagates
along it (an estimate). SYMSPEC: `func`, `file.c:func`, `file.c`, a C++ name as gprof prints it
(`ns::K::m(int) const`) or mangled; several routines of one name are each listed.
  --syntax att|intel     instruction syntax (default att, objdump's)
  --json                 schema gmonlens-disasm/1 (README, "gmonlens disasm")
  --color auto|always|never   colour the hot instructions (default: on a terminal)
  --source-map FROM=TO   rewrite source path prefixes (repeatable); -I DIRS: source search path
gprof's analysis options (-a -c -D -O -p -P -q -Q -e -E -f -F -n -N -k -S, --no-demangle) apply
as in `gmonlens report`.
"""

_REPORT_ONLY = ("-l", "-s", "-T", "-i", "-A", "-C", "-r", "-R", "-y", "-x", "-t", "-m", "-w")
MAX_SOURCE_BYTES = 1 << 28


@dataclass
class DisasmArgs:
    symspec: str = ""
    syntax: str = "att"
    colour: str = "auto"
    source_map: dict[str, str] = field(default_factory=dict)
    gprof: ReportArgs = field(default_factory=ReportArgs)


def _take(argv: Sequence[str]) -> tuple[DisasmArgs, list[str]]:
    d = DisasmArgs()
    own, rest = take_own_options(argv, ("--syntax", "--color", "--colour", "--source-map"))
    for name, val in own:
        if name == "--syntax":
            if val not in ("att", "intel"):
                raise UsageError(None, f"--syntax: att or intel, not '{val}'")
            d.syntax = val
        elif name == "--source-map":
            src, sep, dst = val.partition("=")
            if not sep or not src:
                raise UsageError(None, f"--source-map wants FROM=TO, not '{val}'")
            d.source_map[src] = dst
        else:
            if val not in ("auto", "always", "never"):
                raise UsageError(None, f"--color: auto, always or never, not '{val}'")
            d.colour = val
    return d, rest


def parse_disasm_args(argv: Sequence[str]) -> DisasmArgs:
    """The command line: disasm options, gprof's options, SYMSPEC [BINARY [PROFILE...]]."""
    d, rest = _take(argv)
    g = parse_report_args(rest)
    bad = [
        flag
        for flag, on in (
            ("-l", g.lines or g.analysis.line_granularity),
            ("-s", g.sum_file),
            ("-T", g.traditional),
            ("-i", g.file_info),
            ("-A", g.annotate),
            ("-C", "exec" in g.styles),
            ("-r", g.function_ordering),
            ("-R", g.file_ordering is not None),
        )
        if on
    ]
    if bad:
        raise UsageError(None, f"{' '.join(bad)}: report output options, not disasm options")
    if not g.operands:
        raise UsageError(
            None, "SYMSPEC is missing (usage: gmonlens disasm [options] SYMSPEC [BINARY [PROFILE...]])"
        )
    d.symspec = g.operands[0]
    g.binary = g.operands[1] if len(g.operands) > 1 else "a.out"
    g.profiles = list(g.operands[2:]) or ([] if g.hexdumps else ["gmon.out"])
    g.profiles += g.hexdumps
    d.gprof = g
    return d


class _Sources:
    """Source lines for the listing: `source_map`, the recorded path, then -I DIR/basename."""

    def __init__(self, source_map: dict[str, str], dirs: Sequence[str]) -> None:
        self.source_map, self.dirs = source_map, dirs
        self.texts: dict[str, list[str] | None] = {}

    def __call__(self, file: str, line: int) -> str | None:
        if file not in self.texts:
            self.texts[file] = self._read(file)
        lines = self.texts[file]
        return lines[line - 1] if lines is not None and 0 < line <= len(lines) else None

    def _read(self, file: str) -> list[str] | None:
        from gmonlens.common.files import read_regular
        from gmonlens.output.export_common import remap

        mapped = remap(file, self.source_map) or file
        for path in (mapped, *(os.path.join(d, os.path.basename(file)) for d in self.dirs)):
            try:
                data = read_regular(path, MAX_SOURCE_BYTES, "source file")
            except GmonlensError:
                continue
            return data.decode("utf-8", "surrogateescape").splitlines()
        return None


def run_disasm(d: DisasmArgs) -> int:
    """Print the listing of every routine SYMSPEC names; 1 with one line when there is none."""
    import gc

    from gmonlens.disasm.render import json_text, render_text
    from gmonlens.disasm.session import DisasmContext

    gc.disable()  # one short-lived computation over many small objects: collection only costs time
    g = d.gprof
    for w in g.warnings:
        print(f"gmonlens: warning: {w}", file=sys.stderr)
    ctx = DisasmContext.open(g.binary, g.profile_files(), g.analysis, d.symspec, d.syntax)
    for prob in ctx.problems:
        print(f"gmonlens: warning: {prob}", file=sys.stderr)
    rids = ctx.find(d.symspec)
    listings = [ctx.listing(rid) for rid in rids]
    display = ctx.display_names(listings) if g.demangle else (lambda n: n)
    if g.json:
        _write_blocks(json_text(listings, display, ctx.target_names, d.syntax))
        return 0
    colour = d.colour == "always" or (
        d.colour == "auto" and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    )
    source = _Sources(d.source_map, g.search_dirs)
    texts = [render_text(x, display, ctx.target_names, source, colour) for x in listings]
    _write_blocks(["\n".join(texts)])
    return 0


def _write_blocks(pieces: Iterable[str], block: int = 1 << 20) -> None:
    """Write text pieces to stdout's bytes in blocks of about `block` characters: one system call
    each even when stdout is unbuffered (PYTHONUNBUFFERED, `python -u`)."""
    sys.stdout.flush()
    out = sys.stdout.buffer
    batch: list[str] = []
    size = 0
    for piece in pieces:
        batch.append(piece)
        size += len(piece)
        if size >= block:
            out.write("".join(batch).encode("utf-8", "surrogateescape"))
            batch, size = [], 0
    if batch:
        out.write("".join(batch).encode("utf-8", "surrogateescape"))
    out.flush()
