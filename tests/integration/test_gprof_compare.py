"""`gmonlens report -b [options]` against `gprof -b [options]`, byte for byte, on real `-pg` programs.

Each program is compiled and run once per session; every option set is one test. A failure shows
the unified diff (gprof = expected)."""

from __future__ import annotations

import filecmp
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from gprof_harness import (
    NATIVE,
    ROOT,
    Built,
    Program,
    Workshop,
    compare_reports,
    compare_reports_x86_static,
    gmonlens,
    gprof,
    nm_symbols,
)

from gmonwriter import gnu_to_bsd


@dataclass(frozen=True)
class Case:
    """A program and the names its symspec options use."""

    program: Program
    func: str  # a routine with descendants (for -f/-F/-q NAME ...)
    leaf: str  # a routine doing work (for -p/-P NAME, -E)
    arc: tuple[str, str]  # an arc to delete with -k FROM/TO
    excl: str  # a routine to hide with -e/-Q NAME
    extra: tuple[tuple[str, tuple[str, ...]], ...] = ()  # further (id, args) option sets
    args2: tuple[str, ...] = ("700",)  # workload of a second, shorter run (summing tests)
    skip: tuple[str, ...] = ()  # option-set ids not run for this program

    def runs(self) -> dict[str, tuple[str, ...] | None]:
        return {"out": None, "r2": self.args2}


MANGLED_AREA = "_ZNK3geo6Circle4areaEv"
MANGLED_ACC = "_ZN3geo15accumulate_areaIdEET_RKSt6vectorIPNS_5ShapeESaIS4_EES1_"

CASES = {
    "recursion": Case(
        Program("recursion", ("recursion.c",), args=("30000",)),
        func="middle",
        leaf="burn",
        arc=("fact", "burn"),
        excl="fact",
        extra=(("k-self", ("-k", "fact/fact")), ("z-c", ("-z", "-c")), ("a-z", ("-a", "-z"))),
        args2=("9000",),
    ),
    "cycles": Case(
        Program("cycles", ("cycles.c",), args=("40000",)),
        func="w",
        leaf="spin",
        arc=("c", "a"),  # breaks the 3-cycle's back edge
        excl="a",
        extra=(
            ("k-cycle2", ("-k", "x/z")),
            ("F-cycle-member", ("-F", "p")),
            ("E-cycle-member", ("-E", "b")),
            ("q-z", ("-q", "-z")),
        ),
        args2=("9000",),
    ),
    "statics": Case(
        Program(
            "statics", ("statics_main.c", "statics_s1.c", "statics_s2.c", "statics_s3.c"), args=("300000",)
        ),
        func="s2_entry",
        leaf="helper",
        arc=("work", "helper"),
        excl="s1_entry",
        extra=(
            ("f-file-func", ("-f", "statics_s3.c:work")),
            ("e-file-func", ("-e", "statics_s1.c:helper")),
            ("p-file", ("-pstatics_s2.c",)),
            ("a-p", ("-a", "-p")),
            ("k-file-func", ("-k", "statics_s1.c:work/statics_s1.c:helper")),
            ("e-line", ("-e", "statics_s2.c:4")),
            ("q-arc", ("-qstatics_s1.c:work/helper",)),
            ("Q-arc", ("-Qhelper/helper",)),
            ("k-any-caller", ("-k", "/helper")),
            ("k-any-callee", ("-k", "work/")),
            ("E-F", ("-E", "work", "-F", "s2_entry")),
            ("f-e", ("-f", "s1_entry", "-e", "work")),
            ("n", ("-n", "helper")),
            ("N", ("-N", "s2_entry")),
            ("w120", ("-w", "120")),
        ),
    ),
    "shapes": Case(
        Program("shapes", ("shapes.cpp",), args=("5000",)),
        func=MANGLED_ACC,
        leaf=MANGLED_AREA,
        arc=(MANGLED_ACC, MANGLED_AREA),
        excl="main",
        extra=(("no-demangle", ("--no-demangle",)),),
    ),
    "opt2": Case(
        Program("opt2", ("opt2.c",), flags=("-O2",), args=("600000",)),
        func="tail_a",
        leaf="checked",
        arc=("main", "tail_b"),
        excl="frame_dummy",  # owns refresh.part.0 (rejected by the static-name filter)
        extra=(("D", ("-D",)), ("z-a", ("-z", "-a"))),
    ),
    "mathcalls": Case(
        Program("mathcalls", ("mathcalls.c",), flags=("-O0", "-fno-builtin"), libs=("-lm",), args=("2000",)),
        func="mix",
        leaf="wave",
        arc=("mix", "root"),
        excl="root",
        extra=(("p-init", ("-p_init",)),),
    ),
    "static": Case(
        Program("recursion_static", ("recursion.c",), flags=("-O0", "-static"), args=("30000",)),
        func="middle",
        leaf="burn",
        arc=("fact", "burn"),
        excl="fact",
        # libc's backward calls, which gmonlens' -c finds and gprof's does not, form new cycles
        # and renumber the graph: not comparable line by line (README, "-c").
        skip=("c",),
    ),
    "nopie": Case(
        Program("recursion_nopie", ("recursion.c",), flags=("-O0", "-no-pie"), args=("30000",)),
        func="middle",
        leaf="burn",
        arc=("fact", "burn"),
        excl="fact",
    ),
    "shapes_O2": Case(
        Program("shapes_O2", ("shapes.cpp",), flags=("-O2",), args=("8000",)),
        func="_Z10make_namesB5cxx11i",
        leaf=MANGLED_AREA,
        arc=("main", MANGLED_AREA),
        excl="_ZNK3geo6Square4areaEv",
    ),
    "calc": Case(
        Program(
            "calc",
            ("main.c", "lexer.c", "parser.c", "eval.c"),
            args=("1000",),
            src_dir=ROOT / "examples" / "calc",
        ),
        func="parse_expr",
        leaf="next_token",
        arc=("peek_token", "next_token"),
        excl="eval",
        extra=(("k-cycle", ("-k", "parse_factor/parse_expr")),),
    ),
}


def option_sets(c: Case) -> list[tuple[str, tuple[str, ...]]]:
    return [o for o in _option_sets(c) if o[0] not in c.skip]


def _option_sets(c: Case) -> list[tuple[str, tuple[str, ...]]]:
    return [
        ("default", ()),
        ("p", ("-p",)),
        ("q", ("-q",)),
        ("z", ("-z",)),
        ("a", ("-a",)),
        ("c", ("-c",)),
        ("P", ("-P",)),
        ("Q", ("-Q",)),
        ("k", ("-k", f"{c.arc[0]}/{c.arc[1]}")),
        ("e", ("-e", c.excl)),
        ("E", ("-E", c.leaf)),
        ("f", ("-f", c.func)),
        ("F", ("-F", c.func)),
        ("pNAME", (f"-p{c.leaf}",)),
        ("PNAME", (f"-P{c.leaf}",)),
        ("qNAME", (f"-q{c.func}",)),
        ("QNAME", (f"-Q{c.excl}",)),
        *c.extra,
    ]


PARAMS = [
    pytest.param(name, args, id=f"{name}-{oid}") for name, c in CASES.items() for oid, args in option_sets(c)
]


def built(workshop: Workshop, name: str) -> Built:
    return workshop.get(CASES[name].program)


@pytest.mark.parametrize(("name", "args"), PARAMS)
def test_report_matches_gprof(workshop: Workshop, name: str, args: tuple[str, ...]) -> None:
    b = built(workshop, name)
    check(args, [*args, str(b.binary), str(b.gmon["out"])], b.dir)


def check(opts: tuple[str, ...], argv: list[str], cwd: Path) -> None:
    """Byte for byte, except x86 `-c` (see compare_reports_x86_static)."""
    if "-c" in opts:
        compare_reports_x86_static(NATIVE, argv, cwd)
    else:
        compare_reports(NATIVE, argv, cwd)


@pytest.mark.parametrize("name", ["calc", "shapes"])
def test_cache_states_agree(workshop: Workshop, tmp_path: Path, name: str) -> None:
    """The report is the same with the on-disk cache off, cold and warm."""
    b = built(workshop, name)
    argv = ["-b", str(b.binary), str(b.gmon["out"])]
    expected = gprof(NATIVE, argv, b.dir).stdout
    cold = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    for env in ({**os.environ, "GMONLENS_CACHE": "off"}, cold, cold):
        r = gmonlens(argv, b.dir, env=env)
        assert r.returncode == 0, r.err
        assert r.stdout == expected


NAMEFILTER = Program("namefilter", ("namefilter.c",))


@pytest.mark.parametrize(
    "args", [(), ("-z",), ("-z", "-a"), ("-z", "-D")], ids=["default", "z", "z-a", "z-D"]
)
def test_static_name_filter(workshop: Workshop, args: tuple[str, ...]) -> None:
    """Local symbols named like gcc clones, in a chosen .strtab order (programs/namefilter.c)."""
    b = workshop.get(NAMEFILTER)
    compare_reports(NATIVE, [*args, str(b.binary), str(b.gmon["out"])], b.dir)


# ---------------------------------------------------------------------------------------------------
# Sanity of the fixtures themselves: the programs exercise what they claim to.
# ---------------------------------------------------------------------------------------------------
def test_opt2_really_has_clones(workshop: Workshop) -> None:
    syms = nm_symbols(built(workshop, "opt2").binary)
    for suffix in (".part.", ".constprop.", ".isra.", ".cold"):
        assert any(suffix in s for s in syms), f"gcc made no {suffix} clone: {sorted(syms)}"


@pytest.mark.parametrize("name", list(CASES))
def test_programs_got_samples(workshop: Workshop, name: str) -> None:
    b = built(workshop, name)
    out = gprof(NATIVE, ["-b", "-p", str(b.binary), str(b.gmon["out"])], b.dir).stdout.decode()
    assert "no time accumulated" not in out, f"{name}: workload too short for any sample"


# ---------------------------------------------------------------------------------------------------
# Several runs summed: two profiles on the command line, and -s writing gmon.sum.
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("args", [(), ("-z",), ("-c",), ("-q",)], ids=["default", "z", "c", "q"])
@pytest.mark.parametrize("name", ["recursion", "cycles"])
def test_two_runs_summed(workshop: Workshop, name: str, args: tuple[str, ...]) -> None:
    b = workshop.get(CASES[name].program, runs=CASES[name].runs())
    check(args, [*args, str(b.binary), str(b.gmon["out"]), str(b.gmon["r2"])], b.dir)


@pytest.mark.parametrize(
    ("name", "runs", "args"),
    [
        pytest.param("recursion", ("out", "r2"), ("-s",), id="recursion-two"),
        pytest.param("recursion", ("out",), ("-s",), id="recursion-one"),
        pytest.param("cycles", ("out", "r2"), ("-s",), id="cycles-two"),
        pytest.param("calc", ("out", "out"), ("-s",), id="calc-same-twice"),
        pytest.param("shapes", ("out", "r2"), ("-s",), id="shapes-two"),
        # with an output option gprof prints line-granularity (-l) output besides writing gmon.sum
        pytest.param("recursion", ("out", "r2"), ("-s", "-p"), id="recursion-two-p"),
        pytest.param("cycles", ("out", "r2"), ("-s", "-q"), id="cycles-two-q"),
        pytest.param("opt2", ("out", "out"), ("-s", "-p", "-q"), id="opt2-same-twice-pq"),
    ],
)
def test_sum_file_matches_gprof(
    workshop: Workshop, tmp_path: Path, name: str, runs: tuple[str, ...], args: tuple[str, ...]
) -> None:
    b = workshop.get(CASES[name].program, runs=CASES[name].runs())
    files = [str(b.gmon[r]) for r in runs]
    gdir, ldir = tmp_path / "gprof", tmp_path / "gmonlens"
    gdir.mkdir()
    ldir.mkdir()
    expected = gprof(NATIVE, ["-b", *args, str(b.binary), *files], gdir)
    actual = gmonlens(["-b", *args, str(b.binary), *files], ldir)
    assert expected.returncode == 0, expected.err
    assert actual.returncode == 0, actual.err
    assert actual.stdout == expected.stdout
    assert (ldir / "gmon.sum").exists(), "gmonlens report -s wrote no gmon.sum"
    same = filecmp.cmp(gdir / "gmon.sum", ldir / "gmon.sum", shallow=False)
    assert same, _sum_diff(gdir / "gmon.sum", ldir / "gmon.sum")
    # the summed file reads back as the sum
    compare_reports(NATIVE, [str(b.binary), str(ldir / "gmon.sum")], ldir)


def _sum_diff(a: Path, b: Path) -> str:
    x, y = a.read_bytes(), b.read_bytes()
    first = next((i for i in range(min(len(x), len(y))) if x[i] != y[i]), min(len(x), len(y)))
    return f"gmon.sum differs: sizes {len(x)} vs {len(y)}, first difference at byte {first}"


# ---------------------------------------------------------------------------------------------------
# BSD-format files written from GNU ones
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("args", [(), ("-z",), ("-c",)], ids=["default", "z", "c"])
@pytest.mark.parametrize("bsd44", [False, True], ids=["oldbsd", "bsd44"])
@pytest.mark.parametrize("name", ["recursion", "cycles", "calc"])
def test_bsd_files(workshop: Workshop, name: str, bsd44: bool, args: tuple[str, ...]) -> None:
    b = built(workshop, name)
    gnu = b.gmon["out"]
    bsd = b.dir / f"gmon.{'bsd44' if bsd44 else 'oldbsd'}"
    if not bsd.exists():
        bsd.write_bytes(gnu_to_bsd(gnu.read_bytes(), bsd44=bsd44))
    check(args, [*args, str(b.binary), str(bsd)], b.dir)
    # gprof reads the converted file as it reads the GNU one (checks the converter, not gmonlens)
    from_bsd = gprof(NATIVE, ["-b", *args, str(b.binary), str(bsd)], b.dir)
    from_gnu = gprof(NATIVE, ["-b", *args, str(b.binary), str(gnu)], b.dir)
    assert from_bsd.stdout == from_gnu.stdout


@pytest.mark.parametrize(
    ("fmt", "bsd44"),
    [("-Oa", None), ("-Om", None), ("-Ob", False), ("-O4", True), ("-O4", False)],
    ids=["auto-gnu", "magic-gnu", "bsd-oldbsd", "44-bsd44", "44-on-oldbsd"],
)
def test_forced_formats(workshop: Workshop, fmt: str, bsd44: bool | None) -> None:
    """-O forces the format read: the right one works, a wrong one fails in both tools."""
    b = built(workshop, "recursion")
    path = b.gmon["out"]
    if bsd44 is not None:
        path = b.dir / f"gmon.forced-{'bsd44' if bsd44 else 'oldbsd'}"
        path.write_bytes(gnu_to_bsd(b.gmon["out"].read_bytes(), bsd44=bsd44))
    compare_reports(NATIVE, [fmt, str(b.binary), str(path)], b.dir)


def test_forced_bsd_on_gnu_file_fails_fast(workshop: Workshop) -> None:
    """`-Ob` on a GNU file: gprof reads "gmon" as a low pc and spends ~45 s of system time before
    failing; gmonlens must refuse at once (the BSD header's ncnt does not fit the file)."""
    b = built(workshop, "recursion")
    r = gmonlens(["-b", "-Ob", str(b.binary), str(b.gmon["out"])], b.dir, timeout=20)
    assert r.returncode != 0 and "Traceback" not in r.err
    assert len(r.err.splitlines()) == 1 and str(b.gmon["out"]) in r.err


@pytest.mark.parametrize("fmt", ["b", "4"])
def test_bsd_files_summed(workshop: Workshop, fmt: str) -> None:
    b = workshop.get(CASES["recursion"].program, runs=CASES["recursion"].runs())
    bsd44 = fmt == "4"
    paths = []
    for label in ("out", "r2"):
        p = b.dir / f"gmon.{label}.sum-{fmt}"
        p.write_bytes(gnu_to_bsd(b.gmon[label].read_bytes(), bsd44=bsd44))
        paths.append(str(p))
    compare_reports(NATIVE, [str(b.binary), *paths], b.dir)
