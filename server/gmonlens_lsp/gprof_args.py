"""gprof's command line, as `gmonlens report` takes it (GNU getopt rules: permuted operands,
bundled flags, optional arguments only when attached: `-pmain`, `--flat-profile=main`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gmonlens.errors import UsageError
from gmonlens.model import Profile
from gmonlens.options import AnalysisOptions, ArcSpec, SymSpec
from gmonlens.report import ReportOptions

USAGE = (
    "gprof options: -a -b -c -D -z -p[SPEC] -P[SPEC] -q[SPEC] -Q[SPEC] -n[SPEC] -N[SPEC]\n"
    "        -e SPEC -E SPEC -f SPEC -F SPEC -k FROM/TO -s -O a|m|b|4 -w N --[no-]demangle"
)
FLAT, GRAPH, EXEC, ANNO = "flat", "graph", "exec", "anno"
_NO_ARG = set("abcDhilsTvxyz")
_REQ_ARG = set("eEfFkOwnNImt")
_OPT_ARG = set("pPqQCZAJ")
_UNSUPPORTED = set("LrRSd")
_LONG = {
    "no-static": "a",
    "brief": "b",
    "static-call-graph": "c",
    "ignore-non-functions": "D",
    "help": "h",
    "sum": "s",
    "version": "v",
    "display-unused-functions": "z",
    "exclude": "e",
    "flat-profile": "p",
    "no-flat-profile": "P",
    "graph": "q",
    "no-graph": "Q",
    "time": "n",
    "no-time": "N",
    "file-format": "O",
    "width": "w",
    "annotated-source": "A",
    "exec-counts": "C",
    "line": "l",
    "print-path": "L",
    "traditional": "T",
    "all-lines": "x",
    "separate-files": "y",
    "function-ordering": "r",
    "file-ordering": "R",
    "external-symbol-table": "S",
    "directory-path": "I",
    "min-count": "m",
    "table-length": "t",
    "debug": "d",
    "file-info": "i",
    "no-exec-counts": "Z",
}


@dataclass
class ReportArgs:
    """The parsed command line of `gmonlens report`."""

    binary: str = "a.out"
    profiles: list[str] = field(default_factory=lambda: ["gmon.out"])
    json: bool = False
    help: bool = False
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

    @property
    def annotate(self) -> bool:
        return ANNO in self.styles

    styles: set[str] = field(default_factory=set)
    user_styles: set[str] = field(default_factory=set)
    analysis: AnalysisOptions = field(default_factory=AnalysisOptions)
    warnings: list[str] = field(default_factory=list)
    operands: list[str] = field(default_factory=list)  # as given (binary, profiles)

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
            exec_counts=EXEC in styles,
            exec_include=tuple(self.exec_include),
            exec_exclude=tuple(self.exec_exclude),
            demangle=self.demangle and not self.traditional,  # -T never demangles
        )


def _tokens(argv: Sequence[str]) -> tuple[list[tuple[str, str | None]], list[str]]:
    """Split argv into (option letter, argument) pairs and operands, as GNU getopt does."""
    opts: list[tuple[str, str | None]] = []
    operands: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        i += 1
        if a == "--":
            operands.extend(argv[i:])
            break
        if a.startswith("--") and len(a) > 2:
            name, eq, val = a[2:].partition("=")
            if name in ("json", "demangle", "no-demangle", "inline-file-names"):
                opts.append(("--" + name, val if eq else None))
                continue
            matches = [k for k in _LONG if k.startswith(name)]
            exact = name if name in _LONG else (matches[0] if len(matches) == 1 else None)
            if exact is None:
                raise UsageError(None, f"unrecognized option '--{name}'")
            letter = _LONG[exact]
            if letter in _REQ_ARG and not eq:
                if i >= len(argv):
                    raise UsageError(None, f"option '--{exact}' requires an argument")
                val, eq = argv[i], "="
                i += 1
            opts.append((letter, val if eq else None))
            continue
        if a.startswith("-") and len(a) > 1:
            j = 1
            while j < len(a):
                c = a[j]
                j += 1
                if c in _REQ_ARG:
                    if j < len(a):
                        opts.append((c, a[j:]))
                    elif i < len(argv):
                        opts.append((c, argv[i]))
                        i += 1
                    else:
                        raise UsageError(None, f"option requires an argument -- '{c}'")
                    break
                if c in _OPT_ARG:
                    opts.append((c, a[j:] or None))
                    break
                if c in _NO_ARG or c in _UNSUPPORTED:
                    opts.append((c, None))
                    continue
                raise UsageError(None, f"invalid option -- '{c}'")
            continue
        operands.append(a)
    return opts, operands


def parse_report_args(argv: Sequence[str]) -> ReportArgs:
    opts, operands = _tokens(argv)
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

    for c, val in opts:
        if c in _UNSUPPORTED:
            raise UsageError(None, f"gprof option -{c} is not supported by gmonlens report")
        if c == "--inline-file-names":
            raise UsageError(None, "gprof option --inline-file-names is not supported by gmonlens report")
        if c == "--json":
            r.json = True
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
        elif c == "h" or c == "v":
            r.help = True
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
                lists["incl_flat" if c == "p" else "excl_flat"].append(SymSpec.parse(val))
            style(FLAT, c == "p" or val is not None)
        elif c in "qQ":
            if val is not None and "/" in val:
                lists["incl_arcs" if c == "q" else "excl_arcs"].append(ArcSpec.parse(val))
            elif val is not None:
                lists["incl_graph" if c == "q" else "excl_graph"].append(SymSpec.parse(val))
            style(GRAPH, c == "q" or val is not None)
        elif c in "nN":
            if val is not None:
                lists["incl_time" if c == "n" else "excl_time"].append(SymSpec.parse(val))
        elif c == "e":
            lists["excl_graph"].append(SymSpec.parse(str(val)))
        elif c == "E":
            lists["excl_time"].append(SymSpec.parse(str(val)))
            lists["excl_graph"].append(SymSpec.parse(str(val)))
        elif c == "f":
            lists["incl_graph"].append(SymSpec.parse(str(val)))
        elif c == "F":
            lists["incl_time"].append(SymSpec.parse(str(val)))
            lists["incl_graph"].append(SymSpec.parse(str(val)))
        elif c == "k":
            if "/" not in str(val):  # gprof accepts it and does nothing
                r.warnings.append(f"-k {val}: not an arc spec FROM/TO, ignored")
                continue
            lists["excl_arcs"].append(ArcSpec.parse(str(val)))
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
