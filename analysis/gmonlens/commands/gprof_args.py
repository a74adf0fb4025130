"""gprof's command line, as `gmonlens report` takes it: gprof 2.40's option table and what each
option means (`ReportArgs`, by gprof's rules), scanned by GNU getopt's rules (`gnu_getopt`)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gmonlens.common.errors import UsageError
from gmonlens.common.model import ElfSymbol, Profile
from gmonlens.common.options import AnalysisOptions, ArcSpec, SymSpec
from gmonlens.output.report import ReportOptions

from .gnu_getopt import NONE, OPTIONAL, REQUIRED, Option, OptionTable

if TYPE_CHECKING:
    from gmonlens.load.program import ProfileFiles

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
        ("hexdump",),
        REQUIRED,
        "FILE",
        "a profile as a hex dump (hexdump -C, xxd, od...; gmonlens)",
    ),
    Option(
        "",
        ("clones-apart",),
        NONE,
        "",
        "GCC clones apart (gmonlens; not gprof's figures)",
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
    hexdumps: list[str] = field(default_factory=list)  # --hexdump FILE: profiles as hex dump transcripts

    def profile_files(self) -> ProfileFiles:
        """The profiles to read: the files named, then the hex dump transcripts (--hexdump)."""
        from gmonlens.load.program import ProfileFiles

        return ProfileFiles(self.profiles, hexdumps=self.hexdumps)

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

    def report_options(self, profile: Profile, symtab: Sequence[ElfSymbol] = ()) -> ReportOptions:
        """Which sections to print, by gprof's rules (§1); missing requested data is an error.
        `symtab` (the ELF symbols in `.symtab` order) orders gprof's source-file list, which a
        -C/-Z spec naming a file picks one file of (without it, every file of that basename)."""
        styles = set(self.styles)
        if not styles and not self.sum_file:
            if profile.has_histogram:
                styles.add(FLAT)
            if profile.has_call_graph:
                styles.add(GRAPH)
            styles -= self.user_styles
        label = ", ".join(self.profiles)
        from gmonlens.common.errors import GmonlensError

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
            source_files=self._source_files(profile, symtab) if EXEC in styles else None,
        )

    def _source_files(self, profile: Profile, symtab: Sequence[ElfSymbol]) -> tuple[str, ...] | None:
        """gprof's source-file list when a -C/-Z spec names a file and the symbol table is given."""
        if not symtab or not any(s.file is not None for s in (*self.exec_include, *self.exec_exclude)):
            return None
        from gmonlens.common.source_files import gprof_file_list

        return tuple(gprof_file_list(profile.routines, symtab))


def _symspec(text: str) -> SymSpec:
    """A routine symspec; given `FROM/TO` (an arc spec), gprof takes the FROM part (`-pA/B` is
    `-pA`; `-P/B` has an empty FROM, which matches every routine)."""
    return SymSpec.parse(text.partition("/")[0])


def _check_file_ordering(r: ReportArgs) -> None:
    if r.function_ordering:  # gprof's own message
        raise UsageError(None, "Only one of --function-ordering and --file-ordering may be specified.")


_LISTS = (
    "incl_flat",
    "excl_flat",
    "incl_graph",
    "excl_graph",
    "incl_time",
    "excl_time",
    "incl_arcs",
    "excl_arcs",
)


@dataclass
class _Parse:
    """What the options seen so far set: the report's arguments, the `AnalysisOptions` keywords
    (`analysis`) and the symspec lists that become its tuples (`lists`)."""

    r: ReportArgs = field(default_factory=ReportArgs)
    analysis: dict[str, object] = field(default_factory=dict)
    lists: dict[str, list[object]] = field(default_factory=lambda: {k: [] for k in _LISTS})

    def style(self, kind: str, on: bool) -> None:
        """An output style chosen by the user (on, or off: no default sections of that kind)."""
        self.r.user_styles.add(kind)
        if on:
            self.r.styles.add(kind)
        else:
            self.r.styles.discard(kind)

    def source_lines_for(self, kind: str) -> None:
        """-A/-C (and -J/-Z with a SPEC) need routines' source lines while their style is on."""
        self.analysis["source_lines"] = self.analysis.get("source_lines", False) or kind in self.r.styles


Handler = Callable[[_Parse, str, str | None], None]  # (state, option key, argument)


def _flag(name: str, value: object = True) -> Handler:
    """Set `ReportArgs.name` to `value`."""
    return lambda p, _c, _v: setattr(p.r, name, value)


def _analysis(name: str) -> Handler:
    """Switch on the `AnalysisOptions` flag `name`."""
    return lambda p, _c, _v: p.analysis.__setitem__(name, True)


def _nothing(p: _Parse, c: str, val: str | None) -> None:
    """-b (the brief form is the only form); -x (annotates lines inside basic blocks: without bb
    records it changes nothing)."""


def _inline_files(p: _Parse, c: str, val: str | None) -> None:
    p.r.inline_files = True
    p.analysis["source_lines"] = True


def _annotate(p: _Parse, c: str, val: str | None) -> None:
    """-A[SPEC] / -J[SPEC]: annotated source (of SPEC only, or none for SPEC)."""
    if val is not None:
        (p.r.anno_include if c == "A" else p.r.anno_exclude).append(SymSpec.parse(val))
    p.style(ANNO, c == "A" or val is not None)
    p.source_lines_for(ANNO)


def _exec_counts(p: _Parse, c: str, val: str | None) -> None:
    """-C[SPEC] / -Z[SPEC], like -p/-P: -ZSPEC also asks for the counts, bare -Z only drops them."""
    if val is not None:
        (p.r.exec_include if c == "C" else p.r.exec_exclude).append(SymSpec.parse(val))
    p.style(EXEC, c == "C" or val is not None)
    p.source_lines_for(EXEC)


def _search_dirs(p: _Parse, c: str, val: str | None) -> None:
    p.r.search_dirs.extend(d for d in str(val).split(":") if d)


def _count(p: _Parse, c: str, val: str | None) -> None:
    """-m N (min_count), -t N (table_length)."""
    try:
        n = int(str(val))
    except ValueError:
        raise UsageError(None, f"invalid number '{val}' for -{c}") from None
    setattr(p.r, "min_count" if c == "m" else "table_length", n)


def _symbol_file(p: _Parse, c: str, val: str | None) -> None:
    p.analysis["symbol_file"] = str(val)


def _file_info(p: _Parse, c: str, val: str | None) -> None:
    p.r.file_info = True
    p.r.styles.add("info")  # a user-chosen output: no default sections


def _function_ordering(p: _Parse, c: str, val: str | None) -> None:
    p.r.function_ordering = True
    p.r.styles.add("order")  # a user-chosen output: no default sections


def _hexdump(p: _Parse, c: str, val: str | None) -> None:
    """--hexdump FILE: a profile read from a hex dump transcript (profile/hexdump.py), summed after
    the profile files named as operands (and instead of the default gmon.out)."""
    assert val is not None
    p.r.hexdumps.append(val)


def _file_ordering(p: _Parse, c: str, val: str | None) -> None:
    p.r.file_ordering = str(val)
    p.r.styles.add("order")


def _lines(p: _Parse, c: str, val: str | None) -> None:
    p.r.lines = True
    p.analysis["line_granularity"] = True


def _sum(p: _Parse, c: str, val: str | None) -> None:
    p.r.sum_file = True
    p.r.styles.add("sum")


def _width(p: _Parse, c: str, val: str | None) -> None:
    try:
        p.r.width = int(str(val))
    except ValueError:
        raise UsageError(None, f"invalid width '{val}'") from None
    if p.r.width < 4:
        raise UsageError(None, f"invalid width '{val}'")


def _format(p: _Parse, c: str, val: str | None) -> None:
    fmt = {"a": "auto", "m": "gnu", "b": "bsd", "4": "4.4bsd"}.get(str(val)[:1])
    if fmt is None:
        raise UsageError(None, f"unsupported profile format '{val}' (use a, m, b or 4)")
    p.analysis["profile_format"] = fmt
    p.r.sum_format = fmt


def _flat(p: _Parse, c: str, val: str | None) -> None:
    """-p[SPEC] / -P[SPEC]."""
    if val is not None:
        p.lists["incl_flat" if c == "p" else "excl_flat"].append(_symspec(val))
    p.style(FLAT, c == "p" or val is not None)


def _graph(p: _Parse, c: str, val: str | None) -> None:
    """-q[SPEC|FROM/TO] / -Q[...]; gprof 2.40's undocumented -B acts as a bare -q (checked: same
    bytes, any order)."""
    c = "q" if c == "B" else c
    if val is not None and "/" in val:
        p.lists["incl_arcs" if c == "q" else "excl_arcs"].append(ArcSpec.parse(val))
    elif val is not None:
        p.lists["incl_graph" if c == "q" else "excl_graph"].append(SymSpec.parse(val))
    p.style(GRAPH, c == "q" or val is not None)


def _time(p: _Parse, c: str, val: str | None) -> None:
    """-n SPEC / -N SPEC."""
    if val is not None:
        p.lists["incl_time" if c == "n" else "excl_time"].append(_symspec(val))


def _into(*names: str) -> Handler:
    """The old symspec options: -e, -E, -f, -F append their SPEC to these lists."""

    def handle(p: _Parse, c: str, val: str | None) -> None:
        for name in names:
            p.lists[name].append(_symspec(str(val)))

    return handle


def _delete_arcs(p: _Parse, c: str, val: str | None) -> None:
    if "/" not in str(val):  # gprof accepts it and does nothing
        p.r.warnings.append(f"-k {val}: not an arc spec FROM/TO, ignored")
        return
    p.lists["excl_arcs"].append(ArcSpec.parse(str(val)))


# What each supported option does, by its key: the letter, or "--" and the long name for a
# long-only option. -h and -v end the scan (`_TABLE.final`) and are acted on in `parse_report_args`.
HANDLERS: dict[str, Handler] = {
    "--inline-file-names": _inline_files,
    "--json": _flag("json"),
    "--clones-apart": _analysis("clones_apart"),
    "--hexdump": _hexdump,
    "--demangle": _flag("demangle", True),
    "--no-demangle": _flag("demangle", False),
    "a": _analysis("no_static"),
    "b": _nothing,
    "c": _analysis("static_call_graph"),
    "D": _analysis("only_functions"),
    "z": _flag("zero"),
    "A": _annotate,
    "J": _annotate,
    "I": _search_dirs,
    "m": _count,
    "t": _count,
    "S": _symbol_file,
    "L": _flag("full_paths"),
    "y": _flag("separate_files"),
    "x": _nothing,
    "C": _exec_counts,
    "Z": _exec_counts,
    "i": _file_info,
    "r": _function_ordering,
    "R": _file_ordering,
    "T": _flag("traditional"),
    "l": _lines,
    "s": _sum,
    "w": _width,
    "O": _format,
    "p": _flat,
    "P": _flat,
    "q": _graph,
    "Q": _graph,
    "B": _graph,
    "n": _time,
    "N": _time,
    "e": _into("excl_graph"),
    "E": _into("excl_time", "excl_graph"),
    "f": _into("incl_graph"),
    "F": _into("incl_time", "incl_graph"),
    "k": _delete_arcs,
}


def option_key(o: Option) -> str:
    """The key of `o` in `HANDLERS`."""
    return o.letter or "--" + o.longs[0]


def parse_report_args(argv: Sequence[str]) -> ReportArgs:
    """gprof's command line -> `ReportArgs`; each option's meaning is its `HANDLERS` entry, applied
    in the order given. A bad option or argument raises `UsageError` (gprof's wording where gprof
    has one)."""
    opts, operands = _TABLE.scan(argv)
    p = _Parse()
    r = p.r
    if opts and opts[-1][0].letter in ("h", "v"):  # acted on at once, as gprof does
        r.help = opts[-1][0].letter == "h"
        r.version = not r.help
        return r
    for o, val in opts:
        if not o.supported:
            raise unsupported(o)
        key = option_key(o)
        HANDLERS[key](p, key, val)
    if r.file_ordering is not None:
        _check_file_ordering(r)
    if r.sum_file and (r.styles - {"sum"}):
        # gprof's -s switches on line granularity: with -p/-q it prints what -l prints
        r.lines = True
        p.analysis["line_granularity"] = True
    r.operands = list(operands)
    if operands:
        r.binary = operands[0]
        if len(operands) > 1:
            r.profiles = operands[1:]
    if r.hexdumps:
        r.profiles = [*(r.profiles if len(operands) > 1 else []), *r.hexdumps]
    lists = {k: tuple(v) for k, v in p.lists.items()}
    r.analysis = AnalysisOptions(**p.analysis, **lists)  # type: ignore[arg-type]
    return r


def take_own_options(
    argv: Sequence[str], names: Collection[str], attached: str | None = None
) -> tuple[list[tuple[str, str]], list[str]]:
    """A command's own valued options taken out of its command line, before `parse_report_args`
    reads the rest: ([(name, value)] in order, the rest). `--name=value` and `--name value` are
    taken; `attached` (e.g. "-o") also as `-oVALUE`; from a `--` on everything is the rest."""
    own: list[tuple[str, str]] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        i += 1
        if a == "--":
            rest.extend(argv[i - 1 :])
            break
        name, eq, val = a.partition("=") if a.startswith("--") else (a, "", "")
        if attached is not None and a.startswith(attached) and len(a) > len(attached):
            name, eq, val = attached, "=", a[len(attached) :]
        if name not in names:
            rest.append(a)
            continue
        if not eq:
            if i >= len(argv):
                raise UsageError(None, f"option '{name}' requires an argument")
            val = argv[i]
            i += 1
        own.append((name, val))
    return own, rest
