"""Programs described in Python for the engine's golden tests (tests/analysis/test_goldens.py).

A `Program` is a symbol table (routines laid out one after another in `.text`), where the samples
fall and which calls were recorded. From it this module builds, without a compiler:
- `elf_bytes`: a minimal ELF executable (tests/elfwriter.py) that GNU gprof reads,
- `gmon_bytes`: the gmon.out glibc would write for that run (tests/gmonwriter.py),
- `elf_symbols`: the engine's view of the same `.symtab` (class letters and `.strtab` offsets),
so the golden test feeds the engine exactly what gprof was fed when the expected text was recorded
(tests/record_goldens.py, by hand, with gprof).

Each `Variant` is one gprof command line (options only; `-b` is implied) and one golden text,
`tests/analysis/golden/<program>.<variant>.txt`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from elfwriter import STB_GLOBAL, STB_LOCAL, STB_WEAK, STT_FUNC, STT_NOTYPE, ElfSym, elf_file, strtab_of
from gmonlens.commands.gprof_args import ReportArgs, parse_report_args
from gmonlens.common.model import ElfSymbol, Profile
from gmonlens.common.options import resolve_tables
from gmonlens.output.report import render_text
from gmonlens.profile.callgraph import compute_profile
from gmonlens.profile.function_order import function_ordering
from gmonlens.profile.gmon import accumulate, parse_gmon
from gmonlens.profile.symbols import build_symbol_table
from gmonwriter import Arc, Hist, gnu_file

TEXT_ADDRESS = 0x401000  # .text, after a page of headers
IMAGE_START = 0x400000  # the PT_LOAD start: glibc's histogram starts here (non-PIE)

# kind -> (symbol type, binding, the class letter BFD gives it)
KINDS = {
    "T": (STT_FUNC, STB_GLOBAL, "T"),  # a global function
    "t": (STT_FUNC, STB_LOCAL, "t"),  # a static function
    "W": (STT_FUNC, STB_WEAK, "W"),  # a weak function
    "N": (STT_NOTYPE, STB_GLOBAL, "T"),  # a global label in .text (like `etext`)
    "n": (STT_NOTYPE, STB_LOCAL, "t"),  # a local label in .text
}


@dataclass(frozen=True)
class Routine:
    """A symbol in `.text`: `size` bytes from the previous routine's end (0: an alias of the next).

    `samples` puts that many samples in the histogram bin holding `at` (bytes from the start);
    where sizes are not multiples of 4 such a bin can straddle two routines, which share it."""

    name: str
    size: int = 64
    kind: str = "T"
    samples: int = 0
    at: int = 16


@dataclass(frozen=True)
class Call:
    """`count` calls from `caller` (return address `site` bytes into it) to `callee`."""

    caller: str
    callee: str
    count: int
    site: int = 8


@dataclass(frozen=True)
class Variant:
    """A gprof command line's options (after `-b`) and the id naming its golden file. Options
    with an optional argument take it attached (`-plookup`): `-p lookup` names a binary."""

    id: str
    options: tuple[str, ...] = ()


@dataclass(frozen=True)
class Program:
    name: str
    routines: tuple[Routine, ...]
    calls: tuple[Call, ...]
    variants: tuple[Variant, ...]
    hz: int = 100

    def addresses(self) -> dict[str, int]:
        out: dict[str, int] = {}
        at = TEXT_ADDRESS
        for r in self.routines:
            assert r.name not in out, f"{self.name}: two routines named {r.name}"
            out[r.name] = at
            at += r.size
        return out

    @property
    def text_size(self) -> int:
        return sum(r.size for r in self.routines)


def _syms(p: Program) -> list[ElfSym]:
    where = p.addresses()
    syms = []
    for r in p.routines:
        typ, bind, _ = KINDS[r.kind]
        syms.append(ElfSym(r.name, where[r.name], r.size if typ == STT_FUNC else 0, typ, bind))
    return syms


def elf_bytes(p: Program) -> bytes:
    return elf_file(TEXT_ADDRESS, b"\x90" * p.text_size, _syms(p), load_address=IMAGE_START)


def elf_symbols(p: Program) -> tuple[list[tuple[str, int, int, str, bool]], bytes]:
    """(name, .strtab offset, value, class letter, is STT_FUNC) in `.symtab` order, and `.strtab`:
    what the engine's ELF reader returns for `elf_bytes(p)`."""
    syms = _syms(p)
    ordered, strtab, name_at = strtab_of(syms)
    letters = {r.name: KINDS[r.kind][2] for r in p.routines}
    rows = [(s.name, name_at[s.name], s.value, letters[s.name], s.typ == STT_FUNC) for s in ordered]
    return rows, strtab


def gmon_bytes(p: Program) -> bytes:
    """glibc's gmon.out: one histogram from the image start to the end of the code rounded up to 4,
    with glibc's bin count (a non-integer scale: bins straddle routine boundaries), then the arcs
    in the order given."""
    low, high = IMAGE_START, TEXT_ADDRESS + (p.text_size + 3) // 4 * 4
    span = high - low
    nbins = -(-(span // 2) // 8) * 8 // 2
    scale = float(span // 2) / nbins  # 2-byte units per bin, as gprof computes it
    counts = [0] * nbins
    where = p.addresses()
    for r in p.routines:
        if r.samples:
            units = (where[r.name] + r.at - low) // 2
            i = int(units / scale)
            while low // 2 + int(scale * (i + 1)) <= units + low // 2:
                i += 1
            while i and low // 2 + int(scale * i) > units + low // 2:
                i -= 1
            counts[i] += r.samples
    arcs = [Arc(where[c.caller] + c.site, where[c.callee] + 4, c.count) for c in p.calls]
    return gnu_file([Hist(low, high, counts, prof_rate=p.hz), *arcs])


def chain(names: Sequence[str], count: int) -> tuple[Call, ...]:
    """Calls a -> b -> c ... `count` times each."""
    return tuple(Call(a, b, count) for a, b in pairwise(names))


# -- the programs ------------------------------------------------------------------------------------

# Multiple callers, a routine two callers share, spontaneous routines (a static one), calls of
# count 0, a routine with neither time nor calls (-z), routines called but never sampled, ties in
# both sorts (equal time and calls; `_`-names sort after others in the call graph), a weak routine.
CALLERS = Program(
    "callers",
    routines=(
        Routine("main", samples=3),
        Routine("parse", size=60, samples=5),
        Routine("eval", size=70, samples=7, at=0),
        Routine("lookup", samples=2, at=0),
        Routine("handler", kind="t", samples=4),
        Routine("idle"),
        Routine("tie_b", size=58, samples=2),
        Routine("tie_a", samples=2),
        Routine("_tie_c", samples=2),
        Routine("never_sampled"),
        Routine("hook", kind="W", samples=1),
        Routine("report", samples=6, size=96),
        Routine("etext", size=0, kind="N"),
    ),
    calls=(
        Call("main", "parse", 2, site=8),
        Call("main", "parse", 1, site=12),
        Call("main", "eval", 2),
        Call("main", "idle", 0),
        Call("parse", "lookup", 5),
        Call("eval", "lookup", 1),
        Call("eval", "never_sampled", 3),
        Call("main", "tie_a", 1),
        Call("main", "tie_b", 1),
        Call("main", "_tie_c", 1),
        Call("handler", "hook", 4),
        Call("main", "report", 1),
        Call("report", "lookup", 2),
    ),
    variants=(
        Variant("plain"),
        Variant("z", ("-z",)),
        Variant("a", ("-a",)),
        Variant("p_lookup", ("-plookup",)),
        Variant("P_eval", ("-Peval",)),
        Variant("q_lookup", ("-qlookup",)),
        Variant("Q_main", ("-Qmain",)),
        Variant("e_parse", ("-e", "parse")),
        Variant("E_lookup", ("-E", "lookup")),
        Variant("f_eval", ("-f", "eval")),
        Variant("F_parse", ("-F", "parse")),
        Variant("k_parse_lookup", ("-k", "parse/lookup")),
        Variant("n_eval", ("-n", "eval")),
        Variant("N_report", ("-N", "report")),
        Variant("r", ("-r",)),
        Variant("T", ("-T",)),
    ),
)

# Direct recursion (self arcs), mutual recursion, a self arc inside a cycle, a routine recursing
# without outside callers, and a leaf the recursions share.
RECURSION = Program(
    "recursion",
    routines=(
        Routine("main", samples=1),
        Routine("fact", samples=9, at=62),
        Routine("even", samples=4),
        Routine("odd", size=42, samples=6, at=0),
        Routine("leaf", samples=3),
        Routine("walk", samples=5),
        Routine("spin", samples=2),
    ),
    calls=(
        Call("main", "fact", 1),
        Call("fact", "fact", 9),
        Call("fact", "leaf", 10),
        Call("main", "even", 2),
        Call("even", "odd", 5),
        Call("odd", "even", 4),
        Call("odd", "odd", 3),
        Call("odd", "leaf", 3),
        Call("main", "walk", 3),
        Call("walk", "walk", 7, site=20),
        Call("walk", "walk", 5, site=30),
        Call("spin", "spin", 8),
    ),
    variants=(
        Variant("plain"),
        Variant("z", ("-z",)),
        Variant("E_odd", ("-E", "odd")),
        Variant("F_even", ("-F", "even")),
        Variant("k_odd_even", ("-k", "odd/even")),
        Variant("q_walk", ("-qwalk",)),
    ),
)

# Several cycles: a two-routine cycle; a three-routine cycle with an inner loop (looks nested, is
# one cycle); a ring with chords entered from two other cycles and a spontaneous routine; a cycle
# whose members also recurse; a leaf called from every cycle; an arc between two cycles; a cycle
# member never sampled, a cycle with no time at all.
CYCLES = Program(
    "cycles",
    routines=(
        Routine("main", samples=2),
        Routine("a1", samples=4),
        Routine("a2", samples=3),
        Routine("b1", size=54, samples=5),
        Routine("b2", samples=1),
        Routine("b3", samples=7, at=0),
        Routine("c1", samples=2),
        Routine("c2"),
        Routine("c3", samples=6, at=0),
        Routine("c4", size=66, samples=3, at=0),
        Routine("d1", kind="t", samples=8),
        Routine("d2", samples=1),
        Routine("z1"),
        Routine("z2"),
        Routine("leaf", samples=9),
        Routine("sig", kind="t", samples=1),
    ),
    calls=(
        Call("main", "a1", 10),
        *chain(["a1", "a2"], 20),
        Call("a2", "a1", 19),
        Call("a2", "b1", 5),
        Call("b1", "b2", 7),
        Call("b2", "b3", 7),
        Call("b3", "b1", 6),
        Call("b3", "b2", 2),
        Call("main", "c1", 3),
        Call("b1", "c2", 2),
        *chain(["c1", "c2", "c3", "c4", "c1"], 4),
        Call("c3", "c1", 1),
        Call("c2", "c4", 2),
        Call("sig", "c2", 1),
        Call("main", "d1", 1),
        Call("d1", "d2", 6),
        Call("d2", "d1", 5),
        Call("d1", "d1", 3),
        Call("d2", "d2", 2),
        Call("main", "z1", 1),
        Call("z1", "z2", 1),
        Call("z2", "z1", 1),
        Call("a1", "leaf", 1),
        Call("b2", "leaf", 2),
        Call("c3", "leaf", 3),
        Call("d2", "leaf", 4),
        Call("z2", "leaf", 0),
    ),
    variants=(
        Variant("plain"),
        Variant("z", ("-z",)),
        Variant("a", ("-a",)),
        Variant("e_b1", ("-e", "b1")),
        Variant("E_b3", ("-E", "b3")),
        Variant("f_c1", ("-f", "c1")),
        Variant("F_a2", ("-F", "a2")),
        Variant("k_b3_b1", ("-k", "b3/b1")),
        Variant("k_a2_a1", ("-k", "a2/a1")),
        Variant("q_c3", ("-qc3",)),
        Variant("Q_b2", ("-Qb2",)),
        Variant("p_leaf", ("-pleaf",)),
        Variant("E_leaf_F_c2", ("-E", "leaf", "-F", "c2")),
        Variant("T_z", ("-T", "-z")),
        Variant("r", ("-r",)),
    ),
)

# Symbol rules the figures rest on: aliases at one address (which name wins), static routines
# and labels, clone suffixes gprof keeps or drops, a label inside a routine (gets the samples
# after it, arcs go to the routine before it).
SYMBOLS = Program(
    "symbols",
    routines=(
        Routine("_start", size=32),
        Routine("main", samples=2),
        Routine("_alias", size=0),
        Routine("work", samples=4),
        Routine("work_weak", kind="W", size=0),
        Routine("work2", samples=3, size=32),
        Routine("inner", kind="n", samples=1, size=32),
        Routine("helper.part.0", kind="t", samples=2),
        Routine("helper.cold", kind="t", samples=1),
        Routine("helper", kind="t", samples=3),
        Routine("sum.constprop.0", kind="t", samples=2),
        Routine("etext", kind="N", size=0),
    ),
    calls=(
        Call("_start", "main", 1),
        Call("main", "work", 4),
        Call("main", "work2", 2),
        Call("work2", "helper.part.0", 3),
        Call("work2", "helper", 2, site=40),
        Call("helper", "helper.cold", 1),
        Call("main", "sum.constprop.0", 2),
        Call("inner", "helper", 1),
    ),
    variants=(
        Variant("plain"),
        Variant("z", ("-z",)),
        Variant("a", ("-a",)),
        Variant("D", ("-D",)),
    ),
)


def _fanout() -> Program:
    """Enough used routines (>= 80) for -r's popular routines: many callers of a few routines."""
    workers = [f"w{i:02d}" for i in range(90)]
    routines = [Routine("main", samples=1)]
    routines += [Routine(w, samples=(i * 7) % 5) for i, w in enumerate(workers)]
    routines += [
        Routine(n, size=z, samples=s, at=0)
        for n, s, z in (("alloc", 4, 50), ("log", 2, 64), ("hash", 3, 64), ("lock", 0, 64))
    ]
    calls = [Call("main", w, 1 + i % 4) for i, w in enumerate(workers)]
    for i, w in enumerate(workers):
        if i % 2 == 0:
            calls.append(Call(w, "alloc", 2 + i % 3))
        if i % 3 == 0:
            calls.append(Call(w, "log", 1))
        if i % 5 == 0:
            calls.append(Call(w, "hash", 3))
        if i % 7 == 0:
            calls.append(Call(w, "lock", 1))
        if i % 11 == 0 and i + 1 < len(workers):
            calls.append(Call(w, workers[i + 1], 2))
    return Program(
        "fanout",
        tuple(routines),
        tuple(calls),
        (Variant("plain"), Variant("r", ("-r",)), Variant("z", ("-z",))),
        hz=1000,
    )


FANOUT = _fanout()

PROGRAMS = (CALLERS, RECURSION, CYCLES, SYMBOLS, FANOUT)


# -- the engine, fed as gmonlens's loader feeds it -------------------------------------------------


def engine_profile(p: Program, v: Variant) -> tuple[Profile, ReportArgs]:
    """The engine's Profile for `gprof -b OPTIONS a.out gmon.out` on `p`: the loader's steps
    (symbol table, profile data, symspec tables, compute_profile) without files, DWARF or c++filt."""
    args = parse_report_args(["-b", *v.options, "a.out", "gmon.out"])
    opts = args.analysis
    rows, strtab = elf_symbols(p)
    symtab = build_symbol_table(
        [ElfSymbol(*row) for row in rows],
        strtab,
        TEXT_ADDRESS + p.text_size,
        no_static=opts.no_static,
        only_functions=opts.only_functions,
    )
    data = accumulate([parse_gmon(gmon_bytes(p), path="gmon.out", address_size=8, little_endian=True)])
    names = [s.name for s in symtab.symbols]
    tables = resolve_tables(opts, symtab.symbols, names)
    return compute_profile(symtab, data, tables, names), args


def engine_text(p: Program, v: Variant) -> str:
    """What `gmonlens report -b OPTIONS` prints for `p` (the report and -r's listing)."""
    profile, args = engine_profile(p, v)
    out = render_text(profile, args.report_options(profile))
    if args.function_ordering:
        out += function_ordering(profile)
    return out


def profile_dump(profile: Profile) -> str:
    """Every figure of a Profile, one record a line, floats exactly (repr)."""
    out = [f"total_ticks {profile.total_ticks!r} print_ticks {profile.print_ticks!r} hz {profile.hz}\n"]
    for r in profile.routines:
        out.append(
            f"routine {r.id} {r.name} self {r.self_ticks!r} child {r.child_ticks!r} "
            f"pself {r.prop_self_ticks!r} pchild {r.prop_child_ticks!r} calls {r.calls} "
            f"self_calls {r.self_calls} cycle {r.cycle} index {r.index} printed {r.printed} "
            f"in_flat {r.in_flat} fract {r.fract!r}\n"
        )
    for i, a in enumerate(profile.arcs):
        out.append(
            f"arc {i} {a.parent}->{a.child} count {a.count} self {a.self_ticks!r} "
            f"child {a.child_ticks!r} static {a.is_static} sites {list(a.call_sites)}\n"
        )
    for c in profile.cycles:
        out.append(
            f"cycle {c.number} index {c.index} members {list(c.members)} order {list(c.member_order)} "
            f"self {c.self_ticks!r} pself {c.prop_self_ticks!r} pchild {c.prop_child_ticks!r} "
            f"calls {c.calls} self_calls {c.self_calls} printed {c.printed}\n"
        )
    out.append(f"graph {[(e.routine, e.cycle) for e in profile.graph_order]}\n")
    out.append(f"parents {[list(x) for x in profile.parents]}\n")
    out.append(f"children {[list(x) for x in profile.children]}\n")
    return "".join(out)
