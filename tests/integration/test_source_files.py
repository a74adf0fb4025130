"""Which source file a routine belongs to, as gprof says it (BFD's DWARF reader), and symspecs given
as FROM/TO to the routine options.

BFD 2.40 names the unit's main file for DWARF 5 line rows under the default file register, so a
`static inline` function from a header compiled into several .c files is `clamp (hdrinl_main.c)`,
`clamp (hdrinl_render.c)`, ... in gprof's index, and C++ file symspecs select header-defined
routines by the .cpp that holds them. GNU addr2line reads line tables the same way: it is the
oracle for the engine's `lines_at_path(bfd=True)`. The editor keeps the true positions (`bfd=False`).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from gprof_harness import NATIVE, Built, Program, Workshop, compare_reports, gmonlens, gmonlens_env, gprof

from binaries import line_table, lines_at_path, read_image

HDRINL = Program(
    "hdrinl",
    ("hdrinl_main.c", "hdrinl_render.c", "hdrinl_sum.c"),
    flags=("-O0", "-Wno-attributes"),
    args=("200000",),
)
HDRLIB = Program("hdrlib", ("hdrlib_driver.cpp", "hdrlib_lib.cpp"), args=("100000",))
OPTS = {"O0": (), "O2": ("-O2",)}


def _built(workshop: Workshop, program: Program, opt: str) -> Built:
    return workshop.get(program, NATIVE, extra_flags=OPTS[opt])


@pytest.mark.parametrize("opt", list(OPTS))
@pytest.mark.parametrize(
    "args",
    [(), ("-z",), ("-a",), ("-phdrinl_main.c",), ("-qhdrinl_util.h",), ("-Fhdrinl_render.c",), ("-l",)],
    ids=["default", "z", "a", "p-main", "q-header", "F-render", "l"],
)
def test_header_statics_named_as_gprof(workshop: Workshop, opt: str, args: tuple[str, ...]) -> None:
    built = _built(workshop, HDRINL, opt)
    compare_reports(NATIVE, [*args, str(built.binary), str(built.gmon["out"])], built.dir)


CXX_SPECS = [
    (),
    ("-phdrlib_driver.cpp",),
    ("-phdrlib_lib.cpp",),
    ("-phdrlib.h",),
    ("-Phdrlib.h",),
    ("-qhdrlib_lib.cpp",),
    ("-qhdrlib.h",),
    ("-Fhdrlib_lib.cpp",),
    ("-Ehdrlib_driver.cpp",),
    ("-z", "-phdrlib_driver.cpp"),
]


@pytest.mark.parametrize("opt", list(OPTS))
@pytest.mark.parametrize("args", CXX_SPECS, ids=lambda a: "_".join(a) or "default")
def test_cxx_file_symspecs_as_gprof(workshop: Workshop, opt: str, args: tuple[str, ...]) -> None:
    built = _built(workshop, HDRLIB, opt)
    compare_reports(NATIVE, [*args, str(built.binary), str(built.gmon["out"])], built.dir)


ANNO_ARGS = [("-A",), ("-A", "-z"), ("-A", "-l"), ("-A", "-l", "-z"), ("-A", "-l", "-t", "3")]


@pytest.mark.parametrize("opt", list(OPTS))
@pytest.mark.parametrize("args", ANNO_ARGS, ids=lambda a: "_".join(a))
def test_header_statics_annotated_as_gprof(workshop: Workshop, opt: str, args: tuple[str, ...]) -> None:
    """-A on the header statics: BFD puts `mix` at line 14 of hdrinl_sum.c (9 lines long), which
    counts in the top lines and the total only; at -O2 hdrinl_main.c holds only the uncalled main,
    so it is annotated with -z only; with -l a line symbol first on a line hides the line's mark
    but its count is still a top line."""
    built = _built(workshop, HDRINL, opt)
    compare_reports(NATIVE, [*args, str(built.binary), str(built.gmon["out"])], built.dir)


@pytest.mark.parametrize("args", [("-A",), ("-A", "-l", "-z")], ids=["A", "A-l-z"])
def test_cxx_header_library_annotated_as_gprof(workshop: Workshop, args: tuple[str, ...]) -> None:
    built = _built(workshop, HDRLIB, "O0")
    compare_reports(NATIVE, [*args, str(built.binary), str(built.gmon["out"])], built.dir)


@pytest.mark.parametrize(
    "args", [("-l",), ("-l", "-z"), ("-l", "-q", "-z"), ("-l", "-C", "-z")], ids=lambda a: "_".join(a)
)
def test_cxx_header_library_line_mode(workshop: Workshop, args: tuple[str, ...]) -> None:
    """-l with the call graph: a line symbol in a C++ `static` function (no DW_AT_linkage_name) is
    named by the ELF symbol at the function's start, `lib_helper(unsigned int)`, not DWARF's bare
    `lib_helper` (which also moved the call-graph index numbers). -O2 is left out: gprof 2.40 stops
    there with `somebody miscounted` (README)."""
    built = _built(workshop, HDRLIB, "O0")
    compare_reports(NATIVE, [*args, str(built.binary), str(built.gmon["out"])], built.dir)


LINEFILE = Program(
    "linefile",
    ("linefile_main.c",),
    flags=(f'-DMAIN_FILE="{HDRINL.src_dir / "linefile_main.c"}"',),
    args=("3",),
)


@pytest.mark.parametrize(
    ("program", "opt"),
    [(LINEFILE, "O0"), (HDRINL, "O0"), (HDRINL, "O2"), (HDRLIB, "O0")],
    ids=["linefile", "hdrinl-O0", "hdrinl-O2", "hdrlib-O0"],
)
def test_sum_file_callers_by_bfd_lines(
    workshop: Workshop, tmp_path: Path, program: Program, opt: str
) -> None:
    """-s: callers become gprof's line symbols, whose runs follow BFD's file rule (linefile: a
    #line keeps line 7 but moves it from the header to the .c file; BFD names the .c file for
    both, so both calls to g have one caller)."""
    built = _built(workshop, program, opt)
    argv = ["-s", str(built.binary), str(built.gmon["out"])]
    gdir, ldir = tmp_path / "gprof", tmp_path / "gmonlens"
    gdir.mkdir()
    ldir.mkdir()
    assert gprof(NATIVE, argv, gdir).returncode == 0
    assert gmonlens(argv, ldir).returncode == 0
    assert (ldir / "gmon.sum").read_bytes() == (gdir / "gmon.sum").read_bytes()


def _addr2line(binary: Path, addresses: list[int]) -> dict[int, tuple[str, int]]:
    out = subprocess.run(
        ["addr2line", "-e", str(binary), *(hex(a) for a in addresses)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    found = {}
    for a, row in zip(addresses, out, strict=True):
        file, _, line = row.rpartition(":")
        num = line.split()[0]
        if file != "??" and num.isdigit() and int(num) > 0:
            found[a] = (file, int(num))
    return found


@pytest.mark.parametrize("opt", list(OPTS))
@pytest.mark.parametrize("program", [HDRINL, HDRLIB], ids=["c", "cxx"])
def test_bfd_rule_is_addr2lines(workshop: Workshop, program: Program, opt: str) -> None:
    """Every routine address: the engine's gprof-rule (file, line) is GNU addr2line's."""
    built = _built(workshop, program, opt)
    image = read_image(str(built.binary))
    wanted = sorted({s.value for s in image.symbols if s.class_letter in ("T", "t", "W")})
    expected = _addr2line(built.binary, wanted)
    ours = lines_at_path(str(built.binary), set(wanted), bfd=True)
    full = line_table(str(built.binary), bfd=True)
    assert len(expected) >= 4
    for a, want in expected.items():
        assert ours.get(a) == want, hex(a)
        assert full.lookup(a) == want, hex(a)


def test_true_positions_kept_by_default(workshop: Workshop) -> None:
    """The default rule (the editor's) puts each copy of `clamp` in the header; gprof's puts each
    in its .c file. Both read the same binary: the two disk-cache entries must not collide."""
    built = _built(workshop, HDRINL, "O0")
    image = read_image(str(built.binary))
    clamps = {s.value for s in image.symbols if s.name == "clamp"}
    assert len(clamps) == 3
    true = lines_at_path(str(built.binary), clamps)
    gprof_rule = lines_at_path(str(built.binary), clamps, bfd=True)
    assert {os.path.basename(f) for f, _ in true.values()} == {"hdrinl_util.h"}
    assert sorted(os.path.basename(f) for f, _ in gprof_rule.values()) == [
        "hdrinl_main.c",
        "hdrinl_render.c",
        "hdrinl_sum.c",
    ]
    assert {line for _, line in true.values()} == {line for _, line in gprof_rule.values()}

    env = gmonlens_env(XDG_CACHE_HOME=str(built.dir / "cache-rules"))
    args = [str(built.binary), str(built.gmon["out"])]
    for _ in range(2):  # cold, then warm: each rule reads its own entry
        text = gmonlens(["-b", *args], built.dir, env=env)
        assert b"clamp (hdrinl_main.c)" in text.stdout and b"hdrinl_util.h" not in text.stdout
        doc = json.loads(gmonlens(["--json", *args], built.dir, env=env).stdout)
        files = {os.path.basename(r["file"]) for r in doc["routines"] if r["display_name"] == "clamp"}
        assert files == {"hdrinl_util.h"}


@pytest.mark.parametrize("option", list("pPeEfFnN"))
@pytest.mark.parametrize("spec", ["shade/clamp", "hdrinl_sum.c/render", "/shade", "render/"])
def test_from_part_of_arc_spec(workshop: Workshop, option: str, spec: str) -> None:
    """gprof takes the FROM part of a FROM/TO given to a routine option (`-pA/B` is `-pA`; an empty
    FROM matches every routine)."""
    built = _built(workshop, HDRINL, "O0")
    compare_reports(NATIVE, [f"-{option}{spec}", str(built.binary), str(built.gmon["out"])], built.dir)


@pytest.mark.parametrize("program", [HDRINL, HDRLIB], ids=["c", "cxx"])
def test_json_gives_every_routine_its_position(workshop: Workshop, program: Program) -> None:
    """`--json`: every routine the line table places has `file` and `line` (global ones too), at
    its true position."""
    built = _built(workshop, program, "O0")
    doc = json.loads(gmonlens(["--json", str(built.binary), str(built.gmon["out"])], built.dir).stdout)
    routines = doc["routines"]
    true = lines_at_path(str(built.binary), {r["address"] for r in routines})
    assert any(not r["display_name"].startswith(("clamp", "mix", "scale", "shade")) for r in routines)
    for r in routines:
        want = true.get(r["address"])
        assert (r["file"], r["line"]) == (want if want else (None, None)), r["display_name"]
    assert sum(1 for r in routines if r["file"]) >= 5


# Unit a.s ends with a line row at its very end (gcc emits such rows after a function's last
# instruction, e.g. in LevelDB's libstdc++ inlines): the row covers no byte, so the routine that
# starts there (`second`, in b.s) is b.c's, as addr2line and gprof say, not a.c's.
_EMPTY_ROW_UNITS = {
    "a.s": '\t.file "a.c"\n\t.text\n\t.globl first\n\t.type first, @function\nfirst:\n'
    '\t.file 1 "a.c"\n\t.loc 1 3 0\n\tpushq %rbp\n\tpopq %rbp\n\tret\n'
    "\t.loc_mark_labels 1\n\t.loc 1 9 0\n.Lend:\n\t.size first, .-first\n"
    '\t.section .note.GNU-stack,"",@progbits\n',
    "b.s": '\t.file "b.c"\n\t.text\n\t.globl second\n\t.type second, @function\nsecond:\n'
    '\t.file 1 "b.c"\n\t.loc 1 20 0\n\tpushq %rbp\n\tpopq %rbp\n\tret\n\t.size second, .-second\n'
    "\t.globl main\n\t.type main, @function\nmain:\n\t.loc 1 30 0\n\txorl %eax, %eax\n\tret\n"
    '\t.size main, .-main\n\t.section .note.GNU-stack,"",@progbits\n',
}


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="x86-64 assembly")
def test_row_at_a_sequence_end_covers_nothing(tmp_path: Path) -> None:
    for name, text in _EMPTY_ROW_UNITS.items():
        (tmp_path / name).write_text(text)
    exe = tmp_path / "ab"
    subprocess.run(["gcc", "-g", "-o", str(exe), "a.s", "b.s"], cwd=tmp_path, check=True)
    image = read_image(str(exe))
    second = next(s.value for s in image.symbols if s.name == "second")
    expected = _addr2line(exe, [second])
    assert os.path.basename(expected[second][0]) == "b.c"
    for bfd in (True, False):
        assert lines_at_path(str(exe), {second}, bfd=bfd) == expected
        assert line_table(str(exe), bfd=bfd).lookup(second) == expected[second]


def test_last_line_without_newline_annotated_as_gprof(tmp_path: Path) -> None:
    """-A on a source whose last line has no newline (libsass's fn_maps.cpp ends in `}`): gprof
    prints that line as it is, so one blank line fewer comes before `Top 10 Lines`."""
    (tmp_path / "nonl.c").write_text(
        "static long f(long n) { return n < 2 ? n : f(n - 1) + f(n - 2); }\n"
        'int printf(const char *, ...);\nint main(void) { printf("%ld\\n", f(22)); return 0; }'
    )
    subprocess.run(["gcc", "-pg", "-g", "-O0", "-o", "nonl", "nonl.c"], cwd=tmp_path, check=True)
    subprocess.run(["./nonl"], cwd=tmp_path, check=True, stdout=subprocess.DEVNULL)
    for args in (("-A",), ("-A", "-z")):
        compare_reports(NATIVE, [*args, "nonl", "gmon.out"], tmp_path)


def test_disasm_takes_gprofs_index_labels(workshop: Workshop) -> None:
    """`gmonlens disasm 'clamp (hdrinl_render.c)'`: the label gprof's index prints for one of the
    three static `clamp` (one header, three units) names that one routine; `clamp` names all."""
    from gprof_harness import GMONLENS

    built = _built(workshop, HDRINL, "O0")
    index = gprof(NATIVE, ["-b", "-q", str(built.binary), str(built.gmon["out"])], built.dir).stdout.decode()
    assert "clamp (hdrinl_render.c)" in index

    def disasm(spec: str) -> list[dict]:  # type: ignore[type-arg]
        argv = [str(GMONLENS), "disasm", "--json", spec, str(built.binary), str(built.gmon["out"])]
        res = subprocess.run(argv, capture_output=True, env=gmonlens_env(), cwd=built.dir)
        assert res.returncode == 0, res.stderr
        doc = json.loads(res.stdout)
        return doc if isinstance(doc, list) else [doc]

    one = disasm("clamp (hdrinl_render.c)")
    assert len(one) == 1 and one[0]["routine"] == "clamp"
    assert os.path.basename(one[0]["file"] or "") in ("hdrinl_render.c", "hdrinl_util.h")
    assert len(disasm("clamp")) == 3
    assert {d["address"] for d in disasm("clamp")} >= {one[0]["address"]}
