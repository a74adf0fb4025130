"""gprof's command line, as `gmonlens report` takes it: gprof 2.40's option table and what each
option means (`ReportArgs`, by gprof's rules), scanned by GNU getopt's rules (`gnu_getopt`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gmonlens.errors import UsageError
from gmonlens.model import Profile
from gmonlens.options import AnalysisOptions, ArcSpec, SymSpec
from gmonlens.report import ReportOptions

from .gnu_getopt import NONE, OPTIONAL, REQUIRED, Option, OptionTable

__all__ = [
    "ANNO",
    "EXEC",
    "FLAT",
    "GRAPH",
    "NONE",
    "OPTIONAL",
    "OPTIONS",
    "REQUIRED",
    "Option",
    "ReportArgs",
    "options_help",
    "parse_report_args",
]

FLAT, GRAPH, EXEC, ANNO = "flat", "graph", "exec", "anno"


OPTIONS: tuple[Option, ...] = (
    Option("a", ("no-static",), NONE, "", "no static routines (their time goes to the one before)"),
    Option("A", ("annotated-source",), OPTIONAL, "SPEC", "annotated source listing"),
    Option("b", ("brief",), NONE, "", "brief output (the only form gmonlens prints; accepted)"),
    Option("B", (), NONE, "", "call graph (gprof 2.40: the same as a bare -q)"),
    Option("c", ("static-call-graph",), NONE, "", "add the calls found in the machine code as count-0 arcs"),
    Option("C", ("exec-counts",), OPTIONAL, "SPEC", "execution counts of routines (of SPEC only)"),
    Option("d", ("debug",), OPTIONAL, "N", "gprof's debugging output", supported=False),
    Option("D", ("ignore-non-functions",), NONE, "", "ignore symbols that are not functions"),
    Option("e", (), REQUIRED, "SPEC", "leave SPEC out of the call graph (old form of -Q)"),
    Option("E", (), REQUIRED, "SPEC", "as -e, and SPEC's time out of the totals"),
    Option("f", (), REQUIRED, "SPEC", "call graph of SPEC and its descendants only (old form of -q)"),
    Option("F", (), REQUIRED, "SPEC", "as -f, with only SPEC's time in the totals"),
    Option("h", ("help",), NONE, "", "print this help and exit"),
    Option("i", ("file-info",), NONE, "", "summary of the profile files"),
    Option("I", ("directory-path",), REQUIRED, "DIRS", "source search path (for -A)"),
    Option("J", ("no-annotated-source",), OPTIONAL, "SPEC", "no annotated source for SPEC"),
    Option("k", (), REQUIRED, "FROM/TO", "delete the arcs from FROM to TO"),
    Option("l", ("line",), NONE, "", "line-by-line profiling (line granularity)"),
    Option("L", ("print-path",), NONE, "", "print full source paths"),
    Option("m", ("min-count",), REQUIRED, "N", "minimum execution count (for -A -C)"),
    Option("n", ("time",), REQUIRED, "SPEC", "only SPEC's time in the totals and propagation"),
    Option("N", ("no-time",), REQUIRED, "SPEC", "leave SPEC's time out of the totals and propagation"),
    Option("O", ("file-format",), REQUIRED, "a|m|b|4", "profile format: auto, GNU, BSD, 4.4BSD"),
    Option("p", ("flat-profile",), OPTIONAL, "SPEC", "flat profile (of SPEC only)"),
    Option("P", ("no-flat-profile",), OPTIONAL, "SPEC", "no flat profile (or none for SPEC)"),
    Option("q", ("graph",), OPTIONAL, "SPEC", "call graph (of SPEC, or the arcs FROM/TO, only)"),
    Option("Q", ("no-graph",), OPTIONAL, "SPEC", "no call graph (or none for SPEC, or the arcs FROM/TO)"),
    Option("r", ("function-ordering",), NONE, "", "suggested function ordering"),
    Option("R", ("file-ordering",), REQUIRED, "MAP", "suggested link order of object files"),
    Option("s", ("sum",), NONE, "", "write the summed profile to gmon.sum"),
    Option("S", ("external-symbol-table",), REQUIRED, "FILE", "routines from FILE (`nm` output)"),
    Option("t", ("table-length",), REQUIRED, "N", "lines of the -A top-lines table"),
    Option("T", ("traditional",), NONE, "", "traditional BSD output layout"),
    Option("v", ("version",), NONE, "", "print the version and exit"),
    Option("w", ("width",), REQUIRED, "N", "width of the call graph's index"),
    Option("x", ("all-lines",), NONE, "", "annotate every line (with -A)"),
    Option("y", ("separate-files",), NONE, "", "annotated source in separate files"),
    Option("z", ("display-unused-functions",), NONE, "", "show routines that were never called nor sampled"),
    Option("Z", ("no-exec-counts",), OPTIONAL, "SPEC", "no execution counts (or none for SPEC)"),
    Option("", ("inline-file-names",), NONE, "", "source file after each name"),
    Option("", ("demangle",), OPTIONAL, "STYLE", "demangle C++ names (the default; STYLE accepted)"),
    Option("", ("no-demangle",), NONE, "", "print raw (mangled) names"),
    Option("", ("json",), NONE, "", 'the profile as JSON instead (gmonlens; README, "JSON output")'),
    Option(
        "",
        ("clones-apart",),
        NONE,
        "",
        "GCC clones (.isra, .part, .cold) as routines of their own (gmonlens; not gprof's figures)",
    ),
)
_TABLE = OptionTable(OPTIONS, final="hv")


def options_help() -> str:
    """One line per option, for `--help`."""
    return _TABLE.help()


def unsupported(o: Option) -> UsageError:
    names = [f"-{o.letter}"] if o.letter else []
    names += [f"--{n}" for n in o.longs]
    return UsageError(None, f"gprof option {' / '.join(names)} is not supported yet")


@dataclass
class ReportArgs:
    """The parsed command line of `gmonlens report`."""

    binary: str = "a.out"
    profiles: list[str] = field(default_factory=lambda: ["gmon.out"])
    json: bool = False
    help: bool = False
    version: bool = False
    zero: bool = False
    demangle: bool = True
    width: int = 80
    sum_file: bool = False
    sum_format: str = "auto"
    lines: bool = False
    traditional: bool = False
    file_info: bool = False
    exec_include: list[SymSpec] = field(default_factory=list)
    exec_exclude: list[SymSpec] = field(default_factory=list)
    anno_include: list[SymSpec] = field(default_factory=list)
    anno_exclude: list[SymSpec] = field(default_factory=list)
    search_dirs: list[str] = field(default_factory=list)
    min_count: int = 0
    table_length: int = 10
    separate_files: bool = False
    full_paths: bool = False
    inline_files: bool = False
    function_ordering: bool = False  # -r: printed last, right after the other sections
    file_ordering: str | None = None  # -R MAP: the `nm --print-file-name` map file

    @property
    def annotate(self) -> bool:
        return ANNO in self.styles

    styles: set[str] = field(default_factory=set)
    user_styles: set[str] = field(default_factory=set)
    analysis: AnalysisOptions = field(default_factory=AnalysisOptions)
    warnings: list[str] = field(default_factory=list)
    operands: list[str] = field(default_factory=list)  # as given (binary, profiles)

    def has_sections(self) -> bool:
        """Does the command print a section besides -i/-r/-R (flat, graph, -C, -A, -s, --json)?"""
        return bool(self.styles & {FLAT, GRAPH, EXEC, ANNO}) or self.sum_file or self.json

    def report_options(self, profile: Profile) -> ReportOptions:
        """Which sections to print, by gprof's rules (§1); missing requested data is an error."""
        styles = set(self.styles)
        if not styles and not self.sum_file:
            if profile.has_histogram:
                styles.add(FLAT)
            if profile.has_call_graph:
                styles.add(GRAPH)
            styles -= self.user_styles
        label = ", ".join(self.profiles)
        from gmonlens.errors import GmonlensError

        if FLAT in styles and not profile.has_histogram:
            raise GmonlensError(label, "profile is missing histogram (flat profile requested)")
        if GRAPH in styles and not profile.has_call_graph:
            raise GmonlensError(label, "profile is missing call-graph data (call graph requested)")
        return ReportOptions(
            flat=FLAT in styles,
            graph=GRAPH in styles,
            zero=self.zero,
            width=self.width,
            lines=self.lines,
            traditional=self.traditional,
            full_paths=self.full_paths,
            inline_files=self.inline_files,
            exec_counts=EXEC in styles,
            exec_include=tuple(self.exec_include),
            exec_exclude=tuple(self.exec_exclude),
            demangle=self.demangle and not self.traditional,  # -T never demangles
        )


def _symspec(text: str) -> SymSpec:
    """A routine symspec; given `FROM/TO` (an arc spec), gprof takes the FROM part (`-pA/B` is
    `-pA`; `-P/B` has an empty FROM, which matches every routine)."""
    return SymSpec.parse(text.partition("/")[0])


def _check_file_ordering(r: ReportArgs) -> None:
    if r.function_ordering:  # gprof's own message
        raise UsageError(None, "Only one of --function-ordering and --file-ordering may be specified.")


def parse_report_args(argv: Sequence[str]) -> ReportArgs:
    opts, operands = _TABLE.scan(argv)
    r = ReportArgs()
    a: dict[str, object] = {}
    lists: dict[str, list[object]] = {
        k: []
        for k in (
            "incl_flat",
            "excl_flat",
            "incl_graph",
            "excl_graph",
            "incl_time",
            "excl_time",
            "incl_arcs",
            "excl_arcs",
        )
    }

    def style(kind: str, on: bool) -> None:
        r.user_styles.add(kind)
        if on:
            r.styles.add(kind)
        else:
            r.styles.discard(kind)

    if opts and opts[-1][0].letter in ("h", "v"):  # acted on at once, as gprof does
        r.help = opts[-1][0].letter == "h"
        r.version = not r.help
        return r
    for o, val in opts:
        if not o.supported:
            raise unsupported(o)
        c = o.letter or "--" + o.longs[0]
        if c == "--inline-file-names":
            r.inline_files = True
            a["source_lines"] = True
        elif c == "--json":
            r.json = True
        elif c == "--clones-apart":
            a["clones_apart"] = True
        elif c == "--demangle":
            r.demangle = True
        elif c == "--no-demangle":
            r.demangle = False
        elif c == "a":
            a["no_static"] = True
        elif c == "b":
            pass  # the brief form is the only form
        elif c == "c":
            a["static_call_graph"] = True
        elif c == "D":
            a["only_functions"] = True
        elif c == "z":
            r.zero = True
        elif c in "AJ":  # annotated source, the same way
            if val is not None:
                (r.anno_include if c == "A" else r.anno_exclude).append(SymSpec.parse(val))
            style(ANNO, c == "A" or val is not None)
            a["source_lines"] = a.get("source_lines", False) or ANNO in r.styles
        elif c == "I":
            r.search_dirs.extend(d for d in str(val).split(":") if d)
        elif c in "mt":
            try:
                n = int(str(val))
            except ValueError:
                raise UsageError(None, f"invalid number '{val}' for -{c}") from None
            if c == "m":
                r.min_count = n
            else:
                r.table_length = n
        elif c == "S":
            a["symbol_file"] = str(val)
        elif c == "L":
            r.full_paths = True
        elif c == "y":
            r.separate_files = True
        elif c == "x":
            pass  # annotates lines inside basic blocks: without bb records it changes nothing
        elif c in "CZ":  # like -p/-P: -ZSPEC also asks for the counts, bare -Z only drops them
            if val is not None:
                (r.exec_include if c == "C" else r.exec_exclude).append(SymSpec.parse(val))
            style(EXEC, c == "C" or val is not None)
            a["source_lines"] = a.get("source_lines", False) or EXEC in r.styles
        elif c == "i":
            r.file_info = True
            r.styles.add("info")  # a user-chosen output: no default sections
        elif c == "r":
            r.function_ordering = True
            r.styles.add("order")  # a user-chosen output: no default sections
        elif c == "R":
            r.file_ordering = str(val)
            r.styles.add("order")
        elif c == "T":
            r.traditional = True
        elif c == "l":
            r.lines = True
            a["line_granularity"] = True
        elif c == "s":
            r.sum_file = True
            r.styles.add("sum")
        elif c == "w":
            try:
                r.width = int(str(val))
            except ValueError:
                raise UsageError(None, f"invalid width '{val}'") from None
            if r.width < 4:
                raise UsageError(None, f"invalid width '{val}'")
        elif c == "O":
            fmt = {"a": "auto", "m": "gnu", "b": "bsd", "4": "4.4bsd"}.get(str(val)[:1])
            if fmt is None:
                raise UsageError(None, f"unsupported profile format '{val}' (use a, m, b or 4)")
            a["profile_format"] = fmt
            r.sum_format = fmt
        elif c in "pP":
            if val is not None:
                lists["incl_flat" if c == "p" else "excl_flat"].append(_symspec(val))
            style(FLAT, c == "p" or val is not None)
        elif c in "qQB":  # gprof 2.40's undocumented -B acts as a bare -q (checked: same bytes, any order)
            c = "q" if c == "B" else c
            if val is not None and "/" in val:
                lists["incl_arcs" if c == "q" else "excl_arcs"].append(ArcSpec.parse(val))
            elif val is not None:
                lists["incl_graph" if c == "q" else "excl_graph"].append(SymSpec.parse(val))
            style(GRAPH, c == "q" or val is not None)
        elif c in "nN":
            if val is not None:
                lists["incl_time" if c == "n" else "excl_time"].append(_symspec(val))
        elif c == "e":
            lists["excl_graph"].append(_symspec(str(val)))
        elif c == "E":
            lists["excl_time"].append(_symspec(str(val)))
            lists["excl_graph"].append(_symspec(str(val)))
        elif c == "f":
            lists["incl_graph"].append(_symspec(str(val)))
        elif c == "F":
            lists["incl_time"].append(_symspec(str(val)))
            lists["incl_graph"].append(_symspec(str(val)))
        elif c == "k":
            if "/" not in str(val):  # gprof accepts it and does nothing
                r.warnings.append(f"-k {val}: not an arc spec FROM/TO, ignored")
                continue
            lists["excl_arcs"].append(ArcSpec.parse(str(val)))
    if r.file_ordering is not None:
        _check_file_ordering(r)
    if r.sum_file and (r.styles - {"sum"}):
        # gprof's -s switches on line granularity: with -p/-q it prints what -l prints
        r.lines = True
        a["line_granularity"] = True
    r.operands = list(operands)
    if operands:
        r.binary = operands[0]
        if len(operands) > 1:
            r.profiles = operands[1:]
    r.analysis = AnalysisOptions(**a, **{k: tuple(v) for k, v in lists.items()})  # type: ignore[arg-type]
    return r
