"""gprof's -R MAP (--file-ordering) against `gmonlens report`, byte for byte: the listing alone
and with the other sections (-p -q -C -A -l -s -i -T -c -z, the default ones), on the multi-file
test programs and generated ones (one or several routines per object file, statics, link orders,
shuffled, partial and hand-written maps), and with --json.

gprof 2.40 decides which routines of a map entry keep a symbol from a flag it never initialises
for an entry's later lines (gmonlens/fileorder.py): its output then depends on its heap garbage.
gprof runs here with MALLOC_PERTURB_=1, its clean-memory output (as under valgrind), which is what
gmonlens gives; test_gprof_output_depends_on_its_heap pins that dependence."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from gprof_harness import NATIVE, ROOT, Program, compare_reports, gmonlens, gprof
from test_gprof_modes import PROGRAMS

pytestmark = pytest.mark.skipif(NATIVE.missing() is not None, reason=str(NATIVE.missing()))


@pytest.fixture(autouse=True)
def _clean_gprof_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MALLOC_PERTURB_", "1")


# -R MAP (--file-ordering): programs built one object file at a time, the map made as gprof's
# manual says (`nm --extern-only --defined-only -v --print-file-name *.o`), two link orders each.
def _build_objects(
    tmp_path: Path,
    sources: dict[str, str],
    link: list[str],
    args: tuple[str, ...] = (),
    inc: Path = ROOT,
    flags: tuple[str, ...] = (),
) -> None:
    cc, nm = shutil.which(NATIVE.cc), shutil.which("nm")
    if cc is None or nm is None:
        pytest.skip("gcc or nm missing")
    for name, text in sources.items():
        (tmp_path / name).write_text(text)
        subprocess.run(
            [cc, "-pg", "-O0", *flags, "-I", str(inc), "-c", name], cwd=tmp_path, check=True, timeout=120
        )
    objs = [Path(s).with_suffix(".o").name for s in sources]
    subprocess.run([cc, "-pg", *link, "-o", "p"], cwd=tmp_path, check=True, timeout=120)
    subprocess.run([str(tmp_path / "p"), *args], cwd=tmp_path, check=True, timeout=120)
    mapping = subprocess.run(
        [nm, "--extern-only", "--defined-only", "-v", "--print-file-name", *objs],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        timeout=120,
    ).stdout
    (tmp_path / "map").write_bytes(mapping)


@pytest.mark.parametrize("reverse", [False, True], ids=["link-sorted", "link-reversed"])
@pytest.mark.parametrize("name", ["statics", "calc"])
def test_file_ordering_matches_gprof(tmp_path: Path, name: str, reverse: bool) -> None:
    prog = PROGRAMS[name]
    sources = {s: (prog.src_dir / s).read_text() for s in prog.sources}
    objs = sorted(Path(s).with_suffix(".o").name for s in sources)
    _build_objects(tmp_path, sources, objs[::-1] if reverse else objs, prog.args, prog.src_dir)
    compare_reports(NATIVE, ["-R", "map", "p", "gmon.out"], tmp_path)
    compare_reports(NATIVE, ["-i", "--file-ordering=map", "p", "gmon.out"], tmp_path)


def _objects(spec: str, groups: str = "") -> dict[str, str]:
    """Sources for `P>C:N` arcs as in _graph_source, each routine in its own file (main in main.c)
    or grouped (`a+b,c`: a and b in f0.c, c in f1.c); routines are numbered in order of first
    mention, which is main's calling order."""
    arcs = [(pc.split(">")[0], pc.split(">")[1].split(":")[0], int(pc.split(":")[1])) for pc in spec.split()]
    funcs = list(dict.fromkeys(f for p, c, _ in arcs for f in (p, c) if f != "main"))
    files = [g.split("+") for g in groups.split(",")] if groups else [[f] for f in funcs]
    names = [f"f{i}.c" for i in range(len(files))] if groups else [f"{f}.c" for f in funcs]
    idx = {f: i + 1 for i, f in enumerate(funcs)}
    decl = "".join(f"void {f}(int w);\n" for f in funcs)
    out = {}
    for name, group in zip(names, files, strict=True):
        out[name] = decl
        for f in group:
            body = "".join(f" if (w == {idx[c]}) {c}(-1);" for p, c, _ in arcs if p == f)
            out[name] += f"void __attribute__((noinline)) {f}(int w) {{{body} }}\n"
    loops = [
        f"  for (int i = 0; i < {n}; i++) {c}(-1);"
        if p == "main"
        else f"  for (int i = 0; i < {n}; i++) {p}({idx[c]});"
        for p, c, n in arcs
    ]
    out["main.c"] = decl + "int main(void) {\n" + "\n".join(loops) + "\n  return 0;\n}\n"
    return out


# Each pins a rule of gmonlens/fileorder.py: arcs in gprof's order (not by count) with the 99% cut,
# an uncalled main placed, pass 2 placing nothing (then address order), chains as for -r.
FILE_GRAPHS: dict[str, str | tuple[str, str]] = {
    "fanout-alternates": "main>a:1 main>b:1 main>c:1 main>d:1 main>e:1 main>f:1",
    "fanout-counts-ignored": "main>a:1 main>b:2 main>c:3 main>d:4",
    "single-arc-pass2": "main>a:5",
    "chain-and-pass2": "main>a:5 a>b:3 b>c:10",
    "prepend-parent": "a>b:50 c>a:1",
    "diamond": "a>b:100 a>c:50 b>d:30 c>d:20 d>e:5",
    "rising-chain": "a>b:1 b>c:2 c>d:3 d>e:4 e>f:5",
    "random-9": "g3>g1:8 main>g5:2 g7>g2:40 g0>g6:100 g4>g8:3 g8>g3:20 g6>g7:5 main>g0:10 g2>g4:1",
    # several routines per file: arcs summed per pair of files, arcs inside a file weigh nothing
    "grouped-merged": ("g3>g1:1 g0>g1:3 g3>g0:1", "g3+g0+g1"),
    "grouped-inner-arcs-weightless": ("a>b:100 main>c:2", "a+b,c"),
    "grouped-recursion-weighs-in-place": (
        "g2>g2:100 g5>g8:5 g9>g1:2 g1>g6:1 g9>g4:300 g4>g9:10 g1>g5:8",
        "g6+g2+g4+g5+g9+g8+g1",
    ),
    "grouped-random": ("g1>g4:20 g0>g2:8 g4>g3:40 main>g5:3 g2>g1:10 g5>g0:1 g3>g2:2", "g1+g3,g0+g5,g2,g4"),
}


@pytest.mark.parametrize("main_first", [False, True], ids=["main-last", "main-first"])
@pytest.mark.parametrize("gid", list(FILE_GRAPHS))
def test_file_ordering_rules_on_generated_graphs(tmp_path: Path, gid: str, main_first: bool) -> None:
    graph = FILE_GRAPHS[gid]
    sources = _objects(graph) if isinstance(graph, str) else _objects(*graph)
    objs = sorted(Path(s).with_suffix(".o").name for s in sources)  # addresses in name order
    if main_first:
        objs.remove("main.o")
        objs.insert(0, "main.o")
    _build_objects(tmp_path, sources, objs)
    compare_reports(NATIVE, ["-R", "map", "p", "gmon.out"], tmp_path)


def test_file_ordering_map_quirks(tmp_path: Path) -> None:
    """Hand-written maps: a file split over two runs of lines is two entries (printed twice), a
    name's last line wins, files without routines follow sorted, blank lines and padding ignored."""
    _build_objects(tmp_path, _objects("main>a:3 a>b:20 b>c:10"), ["main.o", "a.o", "b.o", "c.o"])
    maps = {
        "split": "main.o:0 T main\nb.o:0 T b\na.o:0 T a\nb.o:0 T c\n",
        "runs": "main.o:0 T main\nb.o:0 T b\nb.o:0 T zz\nb.o:0 T c\na.o:0 T a\n",
        "last-wins": "main.o:0 T main\nb.o:0 T b\na.o:0 T a\nb.o:0 T zz\nq.o:0 T a\n",
        "extras": "zz.o:0 D zdata\nmain.o:0 T main\n\n  a.o:0  T  a\naa.o:0 T nothere\nqq.o:1 B q\nb.o:0 T b",
    }
    for mid, text in maps.items():
        (tmp_path / mid).write_text(text)
        compare_reports(NATIVE, ["-R", mid, "p", "gmon.out"], tmp_path)
    # both fail: -r with -R (gprof's message), a line that is not `FILE:ADDR TYPE NAME`, no file
    (tmp_path / "bad").write_text("main.o:0 T main\nb.o 0 T b\n")
    for args in (["-r", "-R", "split"], ["-R", "bad"], ["-R", "nonexistent"]):
        compare_reports(NATIVE, [*args, "p", "gmon.out"], tmp_path)
    r = gmonlens(["-R", "bad", "p", "gmon.out"], tmp_path)
    assert r.err.strip() == "gmonlens: bad: line 2: not an `nm --print-file-name` line (FILE:ADDR TYPE NAME)"


# -R with other sections: gprof's sections see its -R symbol table (fileorder.py: each map
# entry's first routine named after its file, the others folded into the symbol before them).
# statics: one extern routine per file; calc and hdrinl: several, with statics between them.
MULTI = {
    "statics": PROGRAMS["statics"],
    "calc": PROGRAMS["calc"],
    "hdrinl": Program(
        "hdrinl",
        ("hdrinl_main.c", "hdrinl_render.c", "hdrinl_sum.c"),
        ("-O0", "-Wno-attributes"),
        args=("20000",),
    ),
}
SECTIONS = [
    (),
    ("-p",),
    ("-q",),
    ("-p", "-q"),
    ("-C",),
    ("-A",),
    ("-A", "-p", "-q"),
    ("-A", "-y"),
    ("-l",),
    ("-q", "-l"),
    ("-z",),
    ("-T",),
    ("-i", "-p"),
    ("-s", "-p"),
    ("-c", "-q"),
    ("-a", "-p", "-q"),
]


def _build_program(tmp_path: Path, name: str, reverse: bool) -> None:
    prog = MULTI[name]
    sources = {s: (prog.src_dir / s).read_text() for s in prog.sources}
    objs = sorted(Path(s).with_suffix(".o").name for s in sources)
    flags = ("-g", *prog.flags[1:])
    _build_objects(tmp_path, sources, objs[::-1] if reverse else objs, prog.args, prog.src_dir, flags)


@pytest.mark.parametrize("reverse", [False, True], ids=["link-sorted", "link-reversed"])
@pytest.mark.parametrize("name", list(MULTI))
def test_file_ordering_with_sections(tmp_path: Path, name: str, reverse: bool) -> None:
    _build_program(tmp_path, name, reverse)
    for opts in SECTIONS:
        compare_reports(NATIVE, ["-R", "map", *opts, "p", "gmon.out"], tmp_path)
    flat = gprof(NATIVE, ["-b", "-R", "map", "-p", "p", "gmon.out"], tmp_path).stdout
    if name == "calc":  # lexer.o's next_token keeps a symbol, named after the file; peek_token folds
        assert b"lexer.o" in flat and b"next_token" not in flat and b"peek_token" not in flat, flat
    if name == "statics":
        assert b"statics_s1.o" in flat


@pytest.mark.parametrize("reverse", [False, True], ids=["link-sorted", "link-reversed"])
def test_file_ordering_sum_file(tmp_path: Path, reverse: bool) -> None:
    """-s with -R: the same gmon.sum as gprof's, byte for byte (and the same report)."""
    _build_program(tmp_path, "calc", reverse)
    for opts in (["-s"], ["-s", "-p"], ["-s", "-q", "-l"]):
        (tmp_path / "gmon.sum").unlink(missing_ok=True)
        compare_reports(NATIVE, ["-R", "map", *opts, "p", "gmon.out"], tmp_path)  # gmonlens writes last
        ours = (tmp_path / "gmon.sum").read_bytes()
        (tmp_path / "gmon.sum").unlink()
        assert gprof(NATIVE, ["-b", "-R", "map", *opts, "p", "gmon.out"], tmp_path).returncode == 0
        assert (tmp_path / "gmon.sum").read_bytes() == ours, opts


def test_gprof_output_depends_on_its_heap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """gprof keeps an entry's later routines as symbols of their own when its uninitialised flag
    reads as set (MALLOC_PERTURB_=254 fills new memory with 0x01): lexer.o twice. gmonlens gives
    the clean-memory report."""
    _build_program(tmp_path, "calc", False)
    args = ["-b", "-R", "map", "-p", "p", "gmon.out"]
    clean = gprof(NATIVE, args, tmp_path).stdout
    monkeypatch.setenv("MALLOC_PERTURB_", "254")
    dirty = gprof(NATIVE, args, tmp_path).stdout
    assert clean.count(b"lexer.o") == 2 and dirty.count(b"lexer.o") == 4, (clean, dirty)  # + listing
    assert gmonlens(args[1:], tmp_path).stdout == clean


def test_file_ordering_json(tmp_path: Path) -> None:
    """--json with -R: the routines of gprof's -R symbol table and the listing as `file_ordering`;
    with -r, `function_ordering` (the text listings, one name per item)."""
    _build_program(tmp_path, "calc", False)
    listing = gmonlens(["-R", "map", "p", "gmon.out"], tmp_path).stdout.decode().split()
    assert listing == gprof(NATIVE, ["-b", "-R", "map", "p", "gmon.out"], tmp_path).stdout.decode().split()
    doc = json.loads(gmonlens(["--json", "-R", "map", "p", "gmon.out"], tmp_path).stdout)
    assert doc["file_ordering"] == listing
    names = {r["name"] for r in doc["routines"]}
    assert {"lexer.o", "parser.o", "eval.o", "main.o"} <= names, names
    assert not names & {"next_token", "peek_token", "parse_expr", "free_tree", "eval", "main"}, names
    assert "function_ordering" not in doc
    doc = json.loads(gmonlens(["--json", "-r", "p", "gmon.out"], tmp_path).stdout)
    want = gprof(NATIVE, ["-b", "-r", "p", "gmon.out"], tmp_path).stdout.decode().split()
    assert doc["function_ordering"] == want and "file_ordering" not in doc


def test_file_ordering_with_external_symbols(tmp_path: Path) -> None:
    """-S FILE with -R: gprof maps only the binary's own symbols, so the sections keep the routines'
    names and the listing is the map's files, sorted."""
    _build_program(tmp_path, "calc", False)
    nm = shutil.which("nm")
    assert nm is not None
    out = subprocess.run([nm, "-n", "p"], cwd=tmp_path, check=True, capture_output=True, timeout=60).stdout
    (tmp_path / "syms").write_bytes(
        b"".join(x + b"\n" for x in out.splitlines() if b" T " in x or b" t " in x)
    )
    for opts in ([], ["-p", "-q"], ["-C"]):
        compare_reports(NATIVE, ["-S", "syms", "-R", "map", *opts, "p", "gmon.out"], tmp_path)
    listing = gmonlens(["-S", "syms", "-R", "map", "p", "gmon.out"], tmp_path).stdout
    assert listing == b"eval.o\nlexer.o\nmain.o\nparser.o\n"


def test_only_d_is_refused() -> None:
    from gmonlens.commands.gprof_args import OPTIONS, parse_report_args

    assert [o.letter for o in OPTIONS if not o.supported] == ["d"]
    for extra in (["-l"], ["-s"], ["--json"], ["-s", "-p", "-q"], ["-A", "-l"]):
        assert parse_report_args(["-R", "map", *extra]).file_ordering == "map"


# Generated programs: each routine burns time and calls its own helper in helpers.c (outside the
# map, so the helper's parent says where the routine went); statics (`*`) are called by their
# file's `drive_<file>`. Maps: nm's, then transformed.
GENERATED = {
    "g1": ("a:a0,a1,a2*,a3,a4 b:b0,b1*,b2*,b3 c:c0,c1,c2,c3*", "main,a,c,b"),
    "g2": ("a:a0,a1,a2,a3,a4* b:b0 c:c0*,c1*,c2,c3", "c,a,b,main"),
    "g3": ("a:a0,a1* b:b0*,b1,b2,b3*,b4* c:c0*,c1*,c2,c3 d:d0", "d,b,c,a,main"),
}


def _generated(spec: str) -> dict[str, str]:
    files = {f: rs.split(",") for f, rs in (part.split(":") for part in spec.split())}
    names = [r.rstrip("*") for rs in files.values() for r in rs] + [f"drive_{f}" for f in files]
    glob = [r for rs in files.values() for r in rs if not r.endswith("*")]
    decl = "".join(f"void {r}(void);\n" for r in glob + [f"drive_{f}" for f in files])
    decl += "".join(f"void h_{r}(void);\n" for r in names)
    out = {"helpers.c": "".join(f"void h_{r}(void) {{}}\n" for r in names)}
    for f, rs in files.items():
        body = decl
        for k, r in enumerate(rs):
            st, r = r.endswith("*"), r.rstrip("*")
            body += f"{'static ' if st else ''}void __attribute__((noinline)) {r}(void) "
            body += f"{{ for (volatile int i = 0; i < {3000 * (k + 1)}; i++); h_{r}(); }}\n"
        calls = "".join(f" {r.rstrip('*')}();" for r in rs if r.endswith("*"))
        out[f"{f}.c"] = body + f"void drive_{f}(void) {{ h_drive_{f}();{calls} }}\n"
    loop = "".join(f" {r}();" for r in glob + [f"drive_{f}" for f in files])
    out["main.c"] = decl + f"int main(void) {{ for (int n = 0; n < 400; n++) {{{loop} }} return 0; }}\n"
    return out


def _maps(nm: str) -> dict[str, str]:
    lines = nm.splitlines()
    per_file: dict[str, list[str]] = {}
    for line in lines:
        per_file.setdefault(line.split(":")[0], []).append(line)
    first = lines[0].split()[2]
    return {
        "nm": nm,
        "within-reversed": "".join(f"{x}\n" for g in per_file.values() for x in g[::-1]),
        "all-reversed": "".join(f"{x}\n" for x in lines[::-1]),
        "partial": "".join(f"{x}\n" for x in lines[::2]),
        "extra-names": "".join(f"{x}\n{x.split(':')[0]}:0 T ghost_{i}\n" for i, x in enumerate(lines))
        + "zz.o:0 T nothere\n",
        "name-twice": f"dup.o:0 T {first}\n{nm}dup.o:0 T {first}\n",
    }


@pytest.mark.parametrize("gid", list(GENERATED))
def test_file_ordering_generated_programs(tmp_path: Path, gid: str) -> None:
    spec, link = GENERATED[gid]
    sources = _generated(spec)
    cc = shutil.which(NATIVE.cc)
    assert cc is not None
    for name, text in sources.items():
        (tmp_path / name).write_text(text)
        subprocess.run([cc, "-pg", "-g", "-O0", "-c", name], cwd=tmp_path, check=True, timeout=120)
    objs = [f"{o}.o" for o in link.split(",")] + ["helpers.o"]
    subprocess.run([cc, "-pg", *objs, "-o", "p"], cwd=tmp_path, check=True, timeout=120)
    subprocess.run([str(tmp_path / "p")], cwd=tmp_path, check=True, timeout=120)
    nm = shutil.which("nm")
    assert nm is not None
    mapped = [f"{f}.o" for f in sorted(link.split(","))]
    argv = [nm, "--extern-only", "--defined-only", "-v", "--print-file-name", *mapped]
    text = subprocess.run(argv, cwd=tmp_path, check=True, capture_output=True, timeout=120).stdout.decode()
    for mid, body in _maps(text).items():
        (tmp_path / mid).write_text(body)
        for opts in ([], ["-p", "-q", "-z"], ["-C"]):
            compare_reports(NATIVE, ["-R", mid, *opts, "p", "gmon.out"], tmp_path)
