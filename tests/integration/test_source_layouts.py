"""Source layouts real projects have, built with gcc -pg at test time, with gprof as the oracle
(issue 27, items 1-3):

- a unity build (`lib.c` #includes the real sources; BFD names `lib.c` for the included code,
  whose lines lie past its end), a same-named shorter file found through `-I` (gprof looks an
  absolute path up by its basename in each -I directory when the recorded path is gone), and a
  source shortened after the build: `-A` annotates a file holding none of the lines recorded for
  it ("0 Executable lines", "100.00 Percent of the file executed");
- two source files of one basename in different directories (`grammar/parser.c`,
  `runtime/parser.c`): a file symspec selects one of them, the one whose first routine comes
  last in the symbol table (gprof's source-file list puts each new file first, and the spec takes
  the first that fits);
- paths with `.` and `..` components (`gcc ../src/t.c` from a build directory, `./main.c`,
  `lib/src/./alloc.c`, DWARF 4 and 5): gprof prints them as BFD joins them, unnormalised, in -C
  (and sorts -C by them), -A's headers and -A's "could not locate" messages.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from gprof_harness import NATIVE, compare_reports, gmonlens, gprof, run_tool

# --- sources ------------------------------------------------------------------------------------

WORK_C = """/* the work */
#include <stdlib.h>

static int work(int n) {
    int s = 0;
    for (int i = 0; i < n; i++)
        s += i * i % 7;
    return s;
}

int a_run(int n) {
    int t = 0;
    for (int k = 0; k < 100; k++)
        t += work(n);
    return t;
}
"""
MAIN_C = """/* the driver */
#include <stdlib.h>
int a_run(int n);

static int twice(int n) { return 2 * n; }

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int r = 0;
    for (int i = 0; i < 20; i++)
        r += twice(a_run(n));
    return r == 12345;
}
"""
SHORT_C = "/* short */\nint shadow;\n"
# two parser.c: the runtime's first routine is static, so it comes first in .symtab (locals
# before globals) and the grammar's file is the last new one: gprof's spec picks the grammar's
GRAMMAR_C = """int g_spin(int n) { int s = 0; for (int i = 0; i < n; i++) s += i % 3; return s; }
int g_rule(int n) { return g_spin(n) + 1; }
"""
RUNTIME_C = """static int r_spin(int n) { int s = 0; for (int i = 0; i < n; i++) s += i % 5; return s; }
int r_step(int n) { return r_spin(n) + 2; }
"""
PARSER_MAIN_C = """#include <stdlib.h>
int g_rule(int); int r_step(int);
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int t = 0;
    for (int i = 0; i < 300; i++) t += g_rule(n) + r_step(n);
    return t == 7;
}
"""
OOT_T_C = """#include <stdlib.h>
int aux(int n);
static int spin(int n) { int s = 0; for (int i = 0; i < n; i++) s += i % 3; return s; }
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int t = 0;
    for (int i = 0; i < 300; i++) t += spin(n) + aux(n);
    return t == 7;
}
"""
OOT_AUX_C = "int aux(int n) { int s = 0; for (int i = 0; i < n; i++) s += i % 5; return s; }\n"


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _build(cwd: Path, out: Path, sources: list[str], *flags: str) -> None:
    argv = ["gcc", "-pg", "-g", "-O0", *flags, "-o", str(out), *sources]
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def _run(exe: Path, *args: str) -> Path:
    """Run `exe` in its directory; its gmon.out, renamed after the binary."""
    subprocess.run([str(exe), *args], cwd=exe.parent, check=True, timeout=120, stdout=subprocess.DEVNULL)
    gmon = exe.parent / f"gmon.{exe.name}"
    (exe.parent / "gmon.out").rename(gmon)
    return gmon


@pytest.fixture(scope="module")
def layouts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every layout, built and run once."""
    if shutil.which("gprof") is None or shutil.which("gcc") is None:
        pytest.skip("gcc and gprof (GNU binutils) needed")
    root = tmp_path_factory.mktemp("layouts")
    # a unity build
    _write(root / "unity", {"a.c": WORK_C, "b.c": MAIN_C, "lib.c": '#include "a.c"\n#include "b.c"\n'})
    _build(root / "unity", root / "unity" / "prog", ["lib.c"])
    _run(root / "unity" / "prog", "20000")
    # -I shadowing: absolute paths recorded, src/a.c gone, other/a.c a shorter file of that name
    shadow = root / "shadow"
    _write(shadow, {"src/a.c": WORK_C, "src/main.c": MAIN_C, "other/a.c": SHORT_C})
    _build(shadow, shadow / "prog", [str(shadow / "src" / "a.c"), str(shadow / "src" / "main.c")])
    _run(shadow / "prog", "20000")
    (shadow / "src" / "a.c").unlink()
    # a source shortened after the build
    short = root / "short"
    _write(short, {"a.c": WORK_C, "main.c": MAIN_C})
    _build(short, short / "prog", ["a.c", "main.c"])
    _run(short / "prog", "20000")
    (short / "a.c").write_text(SHORT_C)
    # two parser.c
    same = root / "same"
    _write(same, {"grammar/parser.c": GRAMMAR_C, "runtime/parser.c": RUNTIME_C, "main.c": PARSER_MAIN_C})
    _build(same, same / "prog", ["grammar/parser.c", "runtime/parser.c", "main.c"])
    _run(same / "prog", "30000")
    # out of tree: build/../src/t.c and build/aux.c (the unnormalised path sorts first in -C)
    oot = root / "oot"
    _write(oot, {"src/t.c": OOT_T_C, "build/aux.c": OOT_AUX_C})
    for name, flags in (("t5", ()), ("t4", ("-gdwarf-4",))):
        _build(oot / "build", oot / "build" / name, ["../src/t.c", "aux.c"], *flags)
        _run(oot / "build" / name, "30000")
    # `./main.c` and `lib/src/./alloc.c`, DWARF 5 and 4; then a copy whose sources are gone
    dot = root / "dot"
    _write(
        dot,
        {
            "lib/src/alloc.c": OOT_AUX_C.replace("aux", "alloc_aux"),
            "main.c": OOT_T_C.replace("aux", "alloc_aux"),
        },
    )
    for name, flags in (("d5", ()), ("d4", ("-gdwarf-4",))):
        _build(dot, dot / name, ["lib/src/./alloc.c", "./main.c"], *flags)
        _run(dot / name, "30000")
    gone = root / "gone"
    _write(gone, {"src/t.c": OOT_T_C, "build/aux.c": OOT_AUX_C})
    _build(gone / "build", gone / "build" / "t5", ["../src/t.c", "aux.c"])
    _run(gone / "build" / "t5", "30000")
    (gone / "src" / "t.c").unlink()
    return root


def _compare_plain(args: list[str], cwd: Path) -> None:
    """`gprof ARGS` and `gmonlens report ARGS` without -b: stdout byte for byte, and the same
    messages on stderr (each program's name aside)."""
    want = gprof(NATIVE, args, cwd)
    got = gmonlens(args, cwd)
    assert "Traceback" not in got.err, got.err
    assert want.returncode == 0 and got.returncode == 0, (want.err, got.err)
    assert got.stdout == want.stdout
    assert _messages(got.err, "gmonlens") == _messages(want.err, "gprof")


def _messages(err: str, tool: str) -> list[str]:
    return [line.removeprefix(f"{tool}: ") for line in err.splitlines() if "locate" in line]


# --- item 1: -A on a file holding none of its lines --------------------------------------------

ANNOTATE = [("-A",), ("-A", "-l"), ("-A", "-z"), ("-A", "-l", "-z")]
LAYOUT_ARGS = {"unity": (), "shadow": ("-Iother",), "short": ()}


@pytest.mark.parametrize("layout", list(LAYOUT_ARGS))
@pytest.mark.parametrize("args", ANNOTATE, ids=lambda a: "_".join(a))
def test_annotate_file_without_its_lines(layouts: Path, layout: str, args: tuple[str, ...]) -> None:
    cwd = layouts / layout
    compare_reports(NATIVE, [*args, *LAYOUT_ARGS[layout], "prog", "gmon.prog"], cwd)


@pytest.mark.parametrize("layout", list(LAYOUT_ARGS))
def test_annotate_file_without_its_lines_full_report(layouts: Path, layout: str) -> None:
    """Without -b (the report's explanations too) and with the -I directory given absolute."""
    cwd = layouts / layout
    dirs = [f"-I{cwd / 'other'}"] if layout == "shadow" else []
    _compare_plain(["-A", *dirs, "prog", "gmon.prog"], cwd)


# --- item 2: a file symspec two source files share ---------------------------------------------

SPECS = ["parser.c", "parser.c:1", "parser.c:2", "parser.c:r_spin", "parser.c:g_spin", "main.c"]
SPEC_OPTIONS = [("-p",), ("-P",), ("-q",), ("-Q",), ("-A",), ("-C",), ("-A", "-J"), ("-C", "-Z")]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("option", SPEC_OPTIONS, ids="".join)
def test_shared_basename_file_spec(layouts: Path, option: tuple[str, ...], spec: str) -> None:
    args = [*option[:-1], f"{option[-1]}{spec}"]
    compare_reports(NATIVE, [*args, "prog", "gmon.prog"], layouts / "same")


@pytest.mark.parametrize("option", ["-e", "-E", "-f", "-F", "-n", "-N"])
@pytest.mark.parametrize("spec", ["parser.c", "parser.c:1"])
def test_shared_basename_file_spec_separate(layouts: Path, option: str, spec: str) -> None:
    compare_reports(NATIVE, [option, spec, "prog", "gmon.prog"], layouts / "same")


def test_shared_basename_with_annotation(layouts: Path) -> None:
    compare_reports(NATIVE, ["-A", "-C", "-q", "-pparser.c", "prog", "gmon.prog"], layouts / "same")
    compare_reports(NATIVE, ["-l", "-pparser.c", "prog", "gmon.prog"], layouts / "same")


# --- item 3: paths as DWARF records them ------------------------------------------------------

DOTTED = {"oot/t5": "build", "oot/t4": "build", "dot/d5": "", "dot/d4": ""}


@pytest.mark.parametrize("args", [("-C",), ("-C", "-z"), ("-l", "-C"), ("-A",), ("-A", "-z")], ids="_".join)
@pytest.mark.parametrize("case", list(DOTTED))
def test_dotted_paths_as_recorded(layouts: Path, case: str, args: tuple[str, ...]) -> None:
    layout, exe = case.split("/")
    cwd = layouts / layout / DOTTED[case]
    compare_reports(NATIVE, [*args, exe, f"gmon.{exe}"], cwd)


def test_could_not_locate_names_the_recorded_path(layouts: Path) -> None:
    cwd = layouts / "gone" / "build"
    _compare_plain(["-b", "-A", "t5", "gmon.t5"], cwd)
    assert (
        b"../src/t.c" in run_tool([shutil.which("gprof") or "gprof", "-b", "-A", "t5", "gmon.t5"], cwd).stderr
    )


def test_relative_search_dir_for_a_dotted_path(layouts: Path) -> None:
    """The gone source found again through -I: DIR/basename, from the recorded, dotted path."""
    cwd = layouts / "gone" / "build"
    os.makedirs(cwd / "copy", exist_ok=True)
    (cwd / "copy" / "t.c").write_text(OOT_T_C)
    _compare_plain(["-b", "-A", "-Icopy", "t5", "gmon.t5"], cwd)
