"""gprof's other output modes against `gmonlens report`, byte for byte: `-l` (line granularity) and
`-T` (traditional layout) on C, C++ and -O2 programs, x86-64, i686 and AArch64, alone and with the
options already matched."""

from __future__ import annotations

from pathlib import Path

import pytest
from gprof_harness import (
    AARCH64,
    I686,
    NATIVE,
    ROOT,
    Program,
    Target,
    Workshop,
    compare_reports,
    compare_reports_x86_static,
    gmonlens,
    gprof,
    run_tool,
)

from gmonwriter import gnu_to_bsd
from routine_keys import named_values

# The same programs (names, flags and workloads) as test_gprof_compare.py, so builds are shared.
PROGRAMS = {
    "recursion": Program("recursion", ("recursion.c",), args=("30000",)),
    "cycles": Program("cycles", ("cycles.c",), args=("40000",)),
    "statics": Program(
        "statics", ("statics_main.c", "statics_s1.c", "statics_s2.c", "statics_s3.c"), args=("300000",)
    ),
    "opt2": Program("opt2", ("opt2.c",), flags=("-O2",), args=("600000",)),
    "mathcalls": Program(
        "mathcalls", ("mathcalls.c",), flags=("-O0", "-fno-builtin"), libs=("-lm",), args=("2000",)
    ),
    "calc": Program(
        "calc",
        ("main.c", "lexer.c", "parser.c", "eval.c"),
        args=("1000",),
        src_dir=ROOT / "examples" / "calc",
    ),
    "shapes": Program("shapes", ("shapes.cpp",), args=("5000",)),
}
LINE_PROGRAMS = list(PROGRAMS)  # C++ included: file names follow BFD (fidelity's rule)

# (program, option-set id, options): the symspec names are each program's own
LINE_CASES = [
    *(
        (p, oid, opts)
        for p in LINE_PROGRAMS
        for oid, opts in (
            ("l", ("-l",)),
            ("l-z", ("-l", "-z")),
            ("l-q", ("-l", "-q")),
            ("l-p", ("-l", "-p")),
            ("l-c", ("-l", "-c")),
            ("l-a", ("-l", "-a")),
        )
    ),
    ("recursion", "l-pburn", ("-l", "-pburn")),
    ("recursion", "l-F", ("-l", "-F", "middle")),
    ("recursion", "l-E", ("-l", "-E", "burn")),
    ("recursion", "l-k", ("-l", "-k", "fact/burn")),
    ("recursion", "l-w", ("-l", "-w", "120")),
    ("cycles", "l-F-member", ("-l", "-F", "p")),
    ("cycles", "l-k-cycle", ("-l", "-k", "c/a")),
    ("statics", "l-f-file-func", ("-l", "-f", "statics_s3.c:work")),
    ("statics", "l-p-file", ("-l", "-pstatics_s2.c")),
    ("opt2", "l-D", ("-l", "-D")),
    ("opt2", "l-z-a", ("-l", "-z", "-a")),
]


def _check(target: Target, opts: tuple[str, ...], argv: list[str], cwd: Path) -> None:
    if "-c" in opts and target is not AARCH64:
        compare_reports_x86_static(target, argv, cwd)  # README: x86 -c finds backward calls
    else:
        compare_reports(target, argv, cwd)


@pytest.mark.parametrize(("name", "opts"), [pytest.param(p, o, id=f"{p}-{i}") for p, i, o in LINE_CASES])
def test_line_mode_matches_gprof(workshop: Workshop, name: str, opts: tuple[str, ...]) -> None:
    b = workshop.get(PROGRAMS[name])
    _check(NATIVE, opts, [*opts, str(b.binary), str(b.gmon["out"])], b.dir)


def test_line_mode_two_runs_summed(workshop: Workshop) -> None:
    b = workshop.get(PROGRAMS["recursion"], runs={"out": None, "r2": ("9000",)})
    compare_reports(NATIVE, ["-l", str(b.binary), str(b.gmon["out"]), str(b.gmon["r2"])], b.dir)


# Shorter workloads under the cross loaders / qemu (the same as test_cross_arch.py).
CROSS = {
    "recursion": Program("recursion", ("recursion.c",), args=("8000",)),
    "opt2": Program("opt2", ("opt2.c",), flags=("-O2",), args=("200000",)),
    "cycles": Program("cycles", ("cycles.c",), args=("10000",)),
}
TARGETS = {"i686": I686, "aarch64": AARCH64}


@pytest.mark.parametrize("opts", [("-l",), ("-l", "-z"), ("-l", "-c")], ids=["l", "l-z", "l-c"])
@pytest.mark.parametrize("name", list(CROSS))
@pytest.mark.parametrize("target", list(TARGETS))
def test_line_mode_cross_target(workshop: Workshop, target: str, name: str, opts: tuple[str, ...]) -> None:
    t = TARGETS[target]
    b = workshop.get(CROSS[name], t)
    _check(t, opts, [*opts, str(b.binary), str(b.gmon["out"])], b.dir)


TRAD_OPTIONS = {
    "T": ("-T",),
    "T-z": ("-T", "-z"),
    "T-p": ("-T", "-p"),
    "T-q": ("-T", "-q"),
    "T-c": ("-T", "-c"),
    "T-l": ("-T", "-l"),
    "T-w": ("-T", "-w", "120"),
}
TRAD_CASES = [
    *((p, o) for p in ("recursion", "cycles", "statics", "opt2") for o in TRAD_OPTIONS),
    *(("shapes", o) for o in ("T", "T-z", "T-c", "T-l")),
    ("recursion", "T-E"),
    ("recursion", "T-no-demangle"),
]
TRAD_OPTIONS |= {"T-E": ("-T", "-E", "burn"), "T-no-demangle": ("-T", "--demangle")}


@pytest.mark.parametrize(("name", "oid"), [pytest.param(p, o, id=f"{p}-{o}") for p, o in TRAD_CASES])
def test_traditional_matches_gprof(workshop: Workshop, name: str, oid: str) -> None:
    b = workshop.get(PROGRAMS[name])
    opts = TRAD_OPTIONS[oid]
    _check(NATIVE, opts, [*opts, str(b.binary), str(b.gmon["out"])], b.dir)


@pytest.mark.parametrize("oid", ["T", "T-z", "T-l", "T-q"])
def test_traditional_without_arcs_matches_gprof(workshop: Workshop, oid: str) -> None:
    """mathcalls at -O2 inlines every call: no arcs, so gprof numbers nothing and -T's flat profile
    prints bare names (and the call graph is refused)."""
    b = workshop.get(
        Program(
            "mathcalls_O2", ("mathcalls.c",), flags=("-O2", "-fno-builtin"), libs=("-lm",), args=("2000",)
        )
    )
    opts = TRAD_OPTIONS[oid]
    compare_reports(NATIVE, [*opts, str(b.binary), str(b.gmon["out"])], b.dir)


@pytest.mark.parametrize("opts", [("-T",), ("-T", "-l"), ("-T", "-c")], ids=["T", "T-l", "T-c"])
@pytest.mark.parametrize("target", list(TARGETS))
def test_traditional_cross_target(workshop: Workshop, target: str, opts: tuple[str, ...]) -> None:
    t = TARGETS[target]
    b = workshop.get(CROSS["opt2"], t)
    _check(t, opts, [*opts, str(b.binary), str(b.gmon["out"])], b.dir)


@pytest.mark.parametrize(
    "opts",
    [("-i",), ("-i", "-p"), ("-q", "-i"), ("-i", "-T"), ("-i", "-l", "-p")],
    ids=["i", "i-p", "q-i", "i-T", "i-l-p"],
)
def test_file_info_matches_gprof(workshop: Workshop, opts: tuple[str, ...]) -> None:
    b = workshop.get(PROGRAMS["recursion"], runs={"out": None, "r2": ("9000",)})
    compare_reports(NATIVE, [*opts, str(b.binary), str(b.gmon["out"]), str(b.gmon["r2"])], b.dir)


def test_file_info_bsd_after_gnu(workshop: Workshop) -> None:
    """gprof reports a BSD file read after a GNU one as `version 1` (the last GNU header's)."""
    b = workshop.get(PROGRAMS["recursion"])
    bsd = b.dir / "gmon.out.bsd-info"
    bsd.write_bytes(gnu_to_bsd(b.gmon["out"].read_bytes(), bsd44=False))
    for files in ([bsd], [b.gmon["out"], bsd], [bsd, b.gmon["out"], bsd]):
        compare_reports(NATIVE, ["-i", str(b.binary), *map(str, files)], b.dir)


EXEC_OPTIONS = {
    "C": ("-C",),
    "C-z": ("-C", "-z"),
    "C-l-z": ("-C", "-l", "-z"),
    "C-p-q": ("-C", "-p", "-q"),
    "C-T": ("-C", "-q", "-p", "-T"),
    "C-a": ("-C", "-a"),
    "C-i": ("-i", "-C"),
}


@pytest.mark.parametrize("oid", list(EXEC_OPTIONS))
@pytest.mark.parametrize("name", ["recursion", "opt2", "calc", "statics", "shapes"])
def test_exec_counts_match_gprof(workshop: Workshop, name: str, oid: str) -> None:
    b = workshop.get(PROGRAMS[name])
    opts = EXEC_OPTIONS[oid]
    compare_reports(NATIVE, [*opts, str(b.binary), str(b.gmon["out"])], b.dir)


@pytest.mark.parametrize(
    "opts",
    [
        ("-Cburn", "-Cleaf"),
        ("-Cmain", "-z"),
        ("-Crecursion.c", "-z"),
        ("-C", "-Zburn", "-Zleaf"),
        ("-Zburn",),  # -Z with a name asks for the counts too
        ("-Z",),  # bare -Z: the default report
        ("-Cburn", "-Zburn"),
        ("-p", "-Cmain"),
        ("--exec-counts=burn",),
    ],
    ids=lambda o: "_".join(o),
)
def test_exec_counts_symspecs_match_gprof(workshop: Workshop, opts: tuple[str, ...]) -> None:
    b = workshop.get(PROGRAMS["recursion"])
    compare_reports(NATIVE, [*opts, str(b.binary), str(b.gmon["out"])], b.dir)


_NODEBUG_LINK = {  # link order b.c c.c x.c a.c; x.c is built without -g, so x1 has no file
    "b.c": "int c2(int);\nint b2(int x){return x+3;}\nint b1(int x){return c2(x)+b2(x);}\n",
    "c.c": "int c2(int x){return x*7;}\nint c1(int x){return c2(x)-1;}\n",
    "x.c": "int x1(int x){return x^5;}\n",
    "a.c": (
        "int b1(int); int b2(int); int c1(int); int x1(int);\n"
        "int a2(int x){return x+1;}\nint a1(int x){return a2(x)*2;}\n"
        "int main(void){int s=0; for(int i=0;i<1000;i++) s+=a1(i)+b1(i)+c1(i)+b2(i)+x1(i); return s&1;}\n"
    ),
}


@pytest.fixture(scope="module")
def nodebug_link(tmp_path_factory: pytest.TempPathFactory, profile_run: int) -> Path:
    """A program whose routine without a file (x1) sits between files in address order (run again
    for each --profile-runs run)."""
    d = tmp_path_factory.mktemp("exec-order")
    for name, text in _NODEBUG_LINK.items():
        (d / name).write_text(text)
    run_tool(["gcc", "-pg", "-O0", "-c", "x.c"], d)
    r = run_tool(["gcc", "-pg", "-g", "-O0", "-o", "prog", "b.c", "c.c", "x.o", "a.c"], d)
    assert r.returncode == 0, r.err
    assert run_tool([str(d / "prog")], d).returncode == 0
    return d


@pytest.mark.parametrize(
    "opts",
    [
        ("-C",),
        ("-Zb.c",),
        ("-Zc1",),
        ("-Zx1",),
        ("-m", "3", "-Zb.c"),
        ("-Ca2", "-Cc1", "-Cb1"),
        ("-z", "-Zb.c"),
        ("-z", "-C"),
        ("-l", "-C", "-Zb.c"),
        ("-Cx1", "-Zx1"),
    ],
    ids=lambda o: "_".join(o),
)
def test_exec_counts_symspec_order_match_gprof(nodebug_link: Path, opts: tuple[str, ...]) -> None:
    """gprof sorts only the routines -C/-Z select; its order is not consistent (a routine without a
    file compares equal to any), so that is not the full listing filtered."""
    compare_reports(NATIVE, [*opts, "prog", "gmon.out"], nodebug_link)


@pytest.mark.parametrize("opts", [("-C", "-z"), ("-C", "-l", "-z")], ids=["C-z", "C-l-z"])
@pytest.mark.parametrize("target", list(TARGETS))
def test_exec_counts_cross_target(workshop: Workshop, target: str, opts: tuple[str, ...]) -> None:
    t = TARGETS[target]
    b = workshop.get(CROSS["opt2"], t)
    compare_reports(t, [*opts, str(b.binary), str(b.gmon["out"])], b.dir)


ANNO_OPTIONS = {
    "A": ("-A",),
    "A-l": ("-A", "-l"),
    "A-p-C": ("-A", "-p", "-C"),
    "A-m": ("-A", "-m", "100000"),
    "A-t": ("-A", "-t", "2"),
    "A-x-z": ("-A", "-x", "-z"),
}


@pytest.mark.parametrize("oid", list(ANNO_OPTIONS))
@pytest.mark.parametrize("name", ["recursion", "opt2", "calc", "statics", "shapes"])
def test_annotated_source_matches_gprof(workshop: Workshop, name: str, oid: str) -> None:
    b = workshop.get(PROGRAMS[name])
    opts = ANNO_OPTIONS[oid]
    compare_reports(NATIVE, [*opts, str(b.binary), str(b.gmon["out"])], b.dir)


@pytest.mark.parametrize(
    "opts",
    [
        ("-Aeval",),
        ("-A", "-Jeval"),
        ("-Jnext_token",),
        ("-Aparser.c", "-q"),
        ("-A", "-J"),
        ("-i", "-A", "-T"),
    ],
    ids=lambda o: "_".join(o),
)
def test_annotated_source_symspecs_match_gprof(workshop: Workshop, opts: tuple[str, ...]) -> None:
    b = workshop.get(PROGRAMS["calc"])
    compare_reports(NATIVE, [*opts, str(b.binary), str(b.gmon["out"])], b.dir)


def test_annotated_source_search_dirs_and_missing_files(workshop: Workshop, tmp_path: Path) -> None:
    """A source that moved: gprof says `could not locate` and skips it; -I DIR finds DIR/basename."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "recursion.c").write_bytes((PROGRAMS["recursion"].src_dir / "recursion.c").read_bytes())
    b = workshop.get(Program("recursion_moved", ("recursion.c",), args=("3000",), src_dir=src))
    moved = tmp_path / "moved"
    src.rename(moved)
    argv = [str(b.binary), str(b.gmon["out"])]
    _, actual = compare_reports(NATIVE, ["-A", "-p", *argv], b.dir)
    assert "could not locate" in actual.err
    compare_reports(NATIVE, ["-A", "-I", f"/nonexistent:{moved}", *argv], b.dir)


def test_annotated_source_separate_files(workshop: Workshop, tmp_path: Path) -> None:
    """-y writes FILE-ann files into the current directory, the same bytes as gprof's."""
    b = workshop.get(PROGRAMS["calc"])
    argv = ["-b", "-A", "-y", "-p", str(b.binary), str(b.gmon["out"])]
    gdir, ldir = tmp_path / "gprof", tmp_path / "gmonlens"
    gdir.mkdir()
    ldir.mkdir()
    expected, actual = gprof(NATIVE, argv, gdir), gmonlens(argv, ldir)
    assert expected.returncode == 0 and actual.returncode == 0, actual.err
    assert actual.stdout == expected.stdout
    names = sorted(p.name for p in gdir.iterdir())
    assert names == sorted(p.name for p in ldir.iterdir()) and len(names) == 4, names
    for n in names:
        assert (ldir / n).read_bytes() == (gdir / n).read_bytes(), n


@pytest.mark.parametrize("opts", [("-A",), ("-A", "-l")], ids=["A", "A-l"])
@pytest.mark.parametrize("target", list(TARGETS))
def test_annotated_source_cross_target(workshop: Workshop, target: str, opts: tuple[str, ...]) -> None:
    t = TARGETS[target]
    b = workshop.get(CROSS["opt2"], t)
    compare_reports(t, [*opts, str(b.binary), str(b.gmon["out"])], b.dir)


PATH_OPTIONS = {
    "L": ("-L",),
    "L-l": ("-L", "-l"),
    "inline": ("--inline-file-names",),
    "inline-l": ("--inline-file-names", "-l"),
    "inline-L-q": ("--inline-file-names", "-L", "-q"),
    "inline-T": ("--inline-file-names", "-T"),
    "L-T-l": ("-L", "-T", "-l"),
}


@pytest.mark.parametrize("oid", list(PATH_OPTIONS))
@pytest.mark.parametrize("name", ["statics", "opt2", "calc", "shapes"])
def test_file_names_match_gprof(workshop: Workshop, name: str, oid: str) -> None:
    b = workshop.get(PROGRAMS[name])
    opts = PATH_OPTIONS[oid]
    compare_reports(NATIVE, [*opts, str(b.binary), str(b.gmon["out"])], b.dir)


def _nm_table(binary: Path, out: Path, nm: str = "nm", *flags: str) -> Path:
    import subprocess

    text = subprocess.run([nm, *flags, str(binary)], capture_output=True, check=True).stdout
    out.write_bytes(text)
    return out


@pytest.mark.parametrize(
    "opts", [(), ("-z",), ("-a",), ("-C",), ("-l",), ("-q", "-T")], ids=lambda o: "_".join(o) or "plain"
)
@pytest.mark.parametrize("name", ["recursion", "shapes", "opt2"])
def test_external_symbol_table_matches_gprof(workshop: Workshop, name: str, opts: tuple[str, ...]) -> None:
    """-S with `nm` output (alphabetical, as nm prints it by default)."""
    b = workshop.get(PROGRAMS[name])
    table = _nm_table(b.binary, b.dir / "nm.txt")
    compare_reports(NATIVE, ["-S", str(table), *opts, str(b.binary), str(b.gmon["out"])], b.dir)


def test_external_symbol_table_subset(workshop: Workshop, tmp_path: Path) -> None:
    """A hand-written table: only T/t lines count (W, D, garbage skipped); routines missing from it
    give their code to the one before; an address-sorted `nm -n` table gives the same report."""
    b = workshop.get(PROGRAMS["recursion"])
    syms = named_values(
        (n, a)
        for a, n in (
            line.split()[::2]
            for line in _nm_table(b.binary, tmp_path / "all.txt").read_text().splitlines()
            if len(line.split()) == 3
        )
    )
    table = tmp_path / "few.txt"
    table.write_text(
        f"{syms['burn']:>016} t burn\ngarbage\n{syms['middle']:>016} W middle\n"
        f"{syms['even']:>016} T even\n{syms['sink']:>016} b sink\n{syms['main']:>016} T main\n"
    )
    for t in (table, _nm_table(b.binary, tmp_path / "n.txt", "nm", "-n")):
        compare_reports(NATIVE, ["-S", str(t), "-q", str(b.binary), str(b.gmon["out"])], b.dir)
    r = gmonlens(["-S", str(tmp_path / "missing.txt"), str(b.binary), str(b.gmon["out"])], b.dir)
    assert r.returncode != 0 and "missing.txt" in r.err and "Traceback" not in r.err


def test_external_symbol_table_cross_target(workshop: Workshop) -> None:
    b = workshop.get(CROSS["opt2"], AARCH64)
    table = _nm_table(b.binary, b.dir / "nm.txt", "aarch64-linux-gnu-nm")
    compare_reports(AARCH64, ["-S", str(table), str(b.binary), str(b.gmon["out"])], b.dir)


@pytest.mark.parametrize(
    "opts",
    [("-l", "-z"), ("-l", "-T"), ("-A",), ("-C", "-z"), ("--inline-file-names",)],
    ids=lambda o: "_".join(o),
)
def test_modes_without_debug_info_match_gprof(workshop: Workshop, opts: tuple[str, ...]) -> None:
    """Built with -g0: no line symbols, no files (-l still drops `data_start`, past the code)."""
    b = workshop.get(PROGRAMS["recursion"], extra_flags=("-g0",))
    compare_reports(NATIVE, [*opts, str(b.binary), str(b.gmon["out"])], b.dir)
