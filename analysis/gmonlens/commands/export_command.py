"""`gmonlens export`: the profile for other tools (callgrind, pprof, dot, folded). A thin front end over the
engine's exporters; gprof's options are parsed as `report` parses them. Imports no pygls."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gmonlens.common.errors import GmonlensError, UsageError
from gmonlens.output.flame import MAX_FRAMES, MIN_FRACTION

from .gprof_args import ReportArgs, parse_report_args, take_own_options

if TYPE_CHECKING:
    from gmonlens.load.loader import Loaded

FORMATS = ("callgrind", "pprof", "dot", "folded")
EXPORT_HELP = """usage: gmonlens export --format callgrind|pprof|dot|folded [gprof options] [BINARY [PROFILE...]]
         [-o FILE] [--source-map FROM=TO]... [--node-thres PCT] [--edge-thres PCT] [--min-percent PCT]

Writes the profile (defaults: a.out gmon.out) for other tools, to FILE or stdout:
  callgrind  callgrind_annotate, KCachegrind (event `us`: microseconds; per-line self time,
             calls at their call-site lines with gprof's propagated time as inclusive cost)
  pprof      go tool pprof (gzipped profile.proto; `time` = self time per line, `calls` and
             `estimated_time` on caller -> callee samples)
  dot        Graphviz, in gprof2dot's style; --node-thres/--edge-thres prune nodes and edges
             under that percent of the call-graph total (defaults 0.5 and 0.1)
  folded     flame graph as folded stacks (flamegraph.pl, inferno, speedscope): gprof's call
             graph top down, values in microseconds; frames under --min-percent of the total
             (default 0.01) are folded into one `other` frame per parent
gprof options (symspecs, -c, -a, -D, -O, --no-demangle, ...) apply as in `gmonlens report`.
--source-map FROM=TO rewrites source path prefixes (callgrind, pprof). Details: README.
"""


@dataclass
class ExportArgs:
    format: str = ""
    output: str = "-"
    source_map: dict[str, str] = field(default_factory=dict)
    node_thres: float = 0.5
    edge_thres: float = 0.1
    min_percent: float = 100 * MIN_FRACTION
    gprof: ReportArgs = field(default_factory=ReportArgs)


_VALUED = {"--format": "format", "-o": "output", "--output": "output", "--source-map": "source_map"}
_VALUED |= {"--node-thres": "node_thres", "--edge-thres": "edge_thres", "--min-percent": "min_percent"}


def _percent(opt: str, val: str) -> float:
    try:
        v = float(val)
    except ValueError:
        raise UsageError(None, f"{opt}: not a number: '{val}'") from None
    if not 0.0 <= v <= 100.0:
        raise UsageError(None, f"{opt}: a percentage between 0 and 100, not '{val}'")
    return v


def parse_export_args(argv: Sequence[str]) -> ExportArgs:
    """Take the export options out of argv; the rest is gprof's command line."""
    e = ExportArgs()
    own, rest = take_own_options(argv, _VALUED, attached="-o")
    for name, val in own:
        key = _VALUED[name]
        if key == "format":
            if val not in FORMATS:
                raise UsageError(None, f"unknown format '{val}' (choose from {', '.join(FORMATS)})")
            e.format = val
        elif key == "output":
            e.output = val
        elif key == "source_map":
            src, sep, dst = val.partition("=")
            if not sep or not src:
                raise UsageError(None, f"--source-map wants FROM=TO, not '{val}'")
            e.source_map[src] = dst
        elif key == "min_percent":
            e.min_percent = _percent(name, val)
        elif key == "node_thres":
            e.node_thres = _percent(name, val)
        else:
            e.edge_thres = _percent(name, val)
    if not e.format:
        raise UsageError(None, "--format is required (callgrind, pprof, dot or folded)")
    e.gprof = parse_report_args(rest)
    report_only = _report_only(e.gprof)
    if report_only:
        raise UsageError(None, f"{' '.join(report_only)}: report output options, not export options")
    return e


def _report_only(g: ReportArgs) -> list[str]:
    """The options given that choose a report's output, which export refuses."""
    return [
        flag
        for flag, on in (
            ("--json", g.json),
            ("-s", g.sum_file),
            ("-l", g.lines or g.analysis.line_granularity),
            ("-T", g.traditional),
            ("-i", g.file_info),
            ("-A", "anno" in g.styles),
            ("-C", "exec" in g.styles),
            ("-v", g.version),
        )
        if on
    ]


def run_export(e: ExportArgs) -> int:
    """Load, export, write (to `e.output` or stdout); warnings to stderr."""
    from gmonlens.load.loader import load

    args = e.gprof
    for w in args.warnings:
        print(f"gmonlens: warning: {w}", file=sys.stderr)
    loaded = load(args.binary, args.profile_files(), args.analysis)
    for prob in loaded.profile.problems:
        print(f"gmonlens: warning: {prob}", file=sys.stderr)
    _emit(e, _exported(e, loaded))
    return 0


def _exported(e: ExportArgs, loaded: Loaded) -> bytes:
    """The bytes of the export in format `e.format`."""
    args, p = e.gprof, loaded.profile
    data: bytes
    if e.format == "dot":
        from gmonlens.output.dot import to_dot
        from gmonlens.output.graph import whole_graph

        data = to_dot(whole_graph(p, e.node_thres, e.edge_thres), demangle=args.demangle).encode()
    elif e.format == "folded":
        from gmonlens.output.flame import flame_tree, folded

        tree = flame_tree(p, e.min_percent / 100.0)
        if tree.truncated:
            print(
                f"gmonlens: warning: over {MAX_FRAMES} frames: the rest folded into `other`", file=sys.stderr
            )
        data = folded(p, tree, demangle=args.demangle).encode("utf-8", "surrogateescape")
    else:
        from gmonlens.common.errors import reason
        from gmonlens.output.export_common import line_data

        table = None
        if loaded.image.has_debug_info:
            try:
                table = loaded.program.line_table()
            except Exception as exc:  # a broken .debug_line costs the line numbers only
                print(
                    f"gmonlens: warning: {args.binary}: cannot read DWARF line table ({reason(exc)})",
                    file=sys.stderr,
                )
        lines = line_data(p, loaded.gmon.histograms, table, loaded.program.call_finder())
        if e.format == "callgrind":
            from gmonlens.output.callgrind import to_callgrind

            text = to_callgrind(
                p, lines, command=args.binary, demangle=args.demangle, source_map=e.source_map
            )
            data = text.encode("utf-8", "surrogateescape")
        else:
            from gmonlens.output.pprof import to_pprof

            data = to_pprof(p, lines, binary=args.binary, demangle=args.demangle, source_map=e.source_map)
    return data


def _emit(e: ExportArgs, data: bytes) -> None:
    if e.output == "-":
        if e.format == "pprof" and sys.stdout.isatty():
            raise UsageError(None, "pprof output is binary: give -o FILE or redirect stdout")
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        try:
            with open(e.output, "wb") as fh:
                fh.write(data)
        except OSError as exc:
            raise GmonlensError(e.output, exc.strerror or str(exc)) from None
