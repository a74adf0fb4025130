"""Hostile input through the CLI (issue 9): files that are not regular files, sizes that lie,
damaged notes, an unwritable gmon.sum, non-UTF-8 names, many histogram records. Each case: one
stderr line naming the file and a non-zero exit (or gprof's own report), never a traceback or hang."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
from gprof_harness import GMONLENS, NATIVE, Built, Program, Result, Workshop, gmonlens, gmonlens_env, gprof

from binaries import read_image
from gmonwriter import Hist, gnu_file, read_gnu

PROGRAM = Program("recursion", ("recursion.c",), args=("30000",))
QUICK = 30  # seconds: every case here answers in well under one; a hang fails instead of blocking


@pytest.fixture(scope="module")
def prog(workshop: Workshop) -> Built:
    return workshop.get(PROGRAM)


def one_line_error(r: Result, path: str | Path | bytes) -> str:
    assert b"Traceback" not in r.stderr, r.err
    assert r.returncode != 0, f"expected failure, got exit 0; stderr: {r.err!r}"
    lines = r.stderr.splitlines()
    assert len(lines) == 1, f"expected one stderr line, got {r.err!r}"
    name = path if isinstance(path, bytes) else os.fsencode(str(path))
    assert name in lines[0], f"stderr does not name {path!r}: {lines[0]!r}"
    return lines[0].decode("utf-8", "replace")


def run(args: list[str | bytes], cwd: Path) -> Result:
    argv = [
        os.fsencode(str(GMONLENS)),
        b"report",
        *(a if isinstance(a, bytes) else os.fsencode(a) for a in args),
    ]
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, timeout=QUICK, env=gmonlens_env())
    return Result(tuple(map(os.fsdecode, argv)), proc.returncode, proc.stdout, proc.stderr)


# ---- not regular files -----------------------------------------------------------------------------
@pytest.mark.parametrize("role", ["profile", "binary"])
@pytest.mark.parametrize("kind", ["fifo", "fifo-link", "socket", "dev-zero", "dev-urandom", "dev-null"])
def test_not_a_regular_file(prog: Built, tmp_path: Path, role: str, kind: str) -> None:
    """A FIFO used to block forever, /dev/zero grew to gigabytes, /dev/urandom ran out of memory."""
    if kind.startswith("fifo"):
        bad = tmp_path / "pipe"
        os.mkfifo(bad)
        if kind == "fifo-link":
            (tmp_path / "link").symlink_to(bad)
            bad = tmp_path / "link"
    elif kind == "socket":
        bad = tmp_path / "sock"
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(bad))
    else:
        bad = Path("/dev/" + kind[4:])
    args = [str(prog.binary), str(bad)] if role == "profile" else [str(bad), str(prog.gmon["out"])]
    line = one_line_error(run(args, tmp_path), bad)
    assert "regular file" in line or "socket" in line, line


def test_profile_error_names_the_profile_not_the_binary(prog: Built, tmp_path: Path) -> None:
    line = one_line_error(run([str(prog.binary), "/dev/zero"], tmp_path), "/dev/zero")
    assert str(prog.binary) not in line


# ---- a damaged build-id note: gprof ignores it, so do we ---------------------------------------------
def test_flipped_byte_in_build_id_note(prog: Built, tmp_path: Path) -> None:
    from elftools.elf.elffile import ELFFile

    with prog.binary.open("rb") as fh:
        note = ELFFile(fh).get_section_by_name(".note.gnu.build-id")
        if note is None:
            pytest.skip("the toolchain writes no build-id note")
        offset = note["sh_offset"]
    data = bytearray(prog.binary.read_bytes())
    data[offset + 15] ^= 0xFF  # the last byte of the note's name "GNU\0": pyelftools' ArrayError
    b = tmp_path / "flipped"
    b.write_bytes(bytes(data))
    expected = gprof(NATIVE, ["-b", str(b), str(prog.gmon["out"])], tmp_path)
    actual = gmonlens(["-b", str(b), str(prog.gmon["out"])], tmp_path)
    assert "Traceback" not in actual.err, actual.err
    assert actual.returncode == expected.returncode == 0
    assert actual.stdout == expected.stdout


# ---- -s: gmon.sum cannot be written --------------------------------------------------------------------
def test_sum_file_is_a_directory(prog: Built, tmp_path: Path) -> None:
    (tmp_path / "gmon.sum").mkdir()
    one_line_error(run(["-s", str(prog.binary), str(prog.gmon["out"])], tmp_path), "gmon.sum")


def test_sum_in_unwritable_folder(prog: Built, tmp_path: Path) -> None:
    if os.geteuid() == 0:
        where = Path("/sys")  # root ignores permission bits; sysfs refuses new files (EACCES)
    else:
        where = tmp_path / "ro"
        where.mkdir()
        where.chmod(0o555)
    one_line_error(run(["-s", str(prog.binary), str(prog.gmon["out"])], where), "gmon.sum")


# ---- file names that are not UTF-8 ---------------------------------------------------------------------
def test_non_utf8_profile_name(prog: Built, tmp_path: Path) -> None:
    name = os.fsencode(str(tmp_path)) + b"/gmon-\xff\xfe.out"
    shutil.copy(prog.gmon["out"], name)
    expected = gprof(NATIVE, ["-b", str(prog.binary), str(prog.gmon["out"])], tmp_path)
    r = run(["-b", str(prog.binary), name], tmp_path)
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.err
    assert r.stdout == expected.stdout
    missing = os.fsencode(str(tmp_path)) + b"/missing-\xff.out"
    one_line_error(run([str(prog.binary), missing], tmp_path), missing)


def test_non_utf8_symbol_name_printed_as_bytes(workshop: Workshop, tmp_path: Path) -> None:
    """gprof prints a symbol's bytes as they are; so does the report (no UnicodeEncodeError)."""
    src = tmp_path / "latin.c"
    src.write_bytes(
        b'int caf(int x) __asm__("caf\\351");\nint caf(int x) { return x + 1; }\n'
        b"int main(void) { int s = 0; for (int i = 0; i < 3000000; i++) s = caf(s); return s & 1; }\n"
    )
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    subprocess.run(["gcc", "-pg", "-O0", "-o", "latin", "latin.c"], cwd=tmp_path, check=True, timeout=120)
    subprocess.run(["./latin"], cwd=tmp_path, check=False, timeout=120)
    expected = gprof(NATIVE, ["-b", "latin", "gmon.out"], tmp_path)
    r = run(["-b", "latin", "gmon.out"], tmp_path)
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.err
    assert b"caf\xe9" in expected.stdout
    assert r.stdout == expected.stdout


# ---- 32,000 one-bin histogram records -------------------------------------------------------------------
def test_32000_one_bin_histogram_records(tmp_path: Path) -> None:
    """1.4 MB of one-bin records took 80 s (gprof: 0.7 s): the CLI must finish inside `QUICK`
    seconds and print gprof's report byte for byte. Timing: bench/hist_records.py."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    funcs = [f"void f{k}(void) {{" + " x++;" * 600 + " }" for k in range(40)]
    calls = "".join(f"f{k}();" for k in range(40))
    src = ["static volatile int x;", *funcs, f"int main(void){{for(int i=0;i<200;i++){{{calls}}}return 0;}}"]
    (tmp_path / "big.c").write_text("\n".join(src) + "\n")
    subprocess.run(["gcc", "-pg", "-O0", "-o", "big", "big.c"], cwd=tmp_path, check=True, timeout=120)
    subprocess.run(["./big"], cwd=tmp_path, check=True, timeout=120)
    arcs = [r for r in read_gnu((tmp_path / "gmon.out").read_bytes()) if not isinstance(r, Hist)]
    text = next(
        ln
        for ln in subprocess.run(
            ["readelf", "-SW", "big"], cwd=tmp_path, capture_output=True, text=True, check=True
        ).stdout.splitlines()
        if " .text " in ln
    )
    fields = text.split(".text")[1].split()
    start = int(fields[1], 16) // 4 * 4 + 4
    last = (int(fields[1], 16) + int(fields[3], 16) + 3) // 4 * 4 - 4  # a run covers all of .text
    step = (last - start) // 32000 // 4 * 4
    hists = [Hist(start + step * i, start + step * i + 4, [i % 3]) for i in range(32000)]
    hists.append(Hist(last, last + 4, [1]))
    (tmp_path / "many.out").write_bytes(gnu_file(hists + arcs))
    expected = gprof(NATIVE, ["-b", "big", "many.out"], tmp_path)
    r = run(["-b", "big", "many.out"], tmp_path)
    assert b"Traceback" not in r.stderr, r.err
    assert r.returncode == expected.returncode == 0
    assert r.stdout == expected.stdout


# ---- a cache entry of the wrong shape is rebuilt, never trusted ----------------------------------------
def test_lines_entry_of_wrong_shape(prog: Built, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lines entry {address: 5} gave the CLI a TypeError traceback; now it is dropped and rebuilt."""
    from gmonlens.load import diskcache
    from gmonlens.load.loader import LINES_BFD_KIND, LINES_BFD_STATIC_KIND, LINES_KIND, LINES_STATIC_KIND

    cache_home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_home))
    image = read_image(str(prog.binary))
    key = diskcache.binary_key(str(prog.binary), image.build_id)
    bad = {s.value: 5 for s in image.symbols}
    # the CLI reads one of them (gprof's file naming or DWARF's; the static routines' or all)
    kinds = (LINES_KIND, LINES_BFD_KIND, LINES_STATIC_KIND, LINES_BFD_STATIC_KIND)
    assert all(diskcache.store(kind, key, bad) for kind in kinds)
    expected = gprof(NATIVE, ["-b", str(prog.binary), str(prog.gmon["out"])], tmp_path)
    env = gmonlens_env(XDG_CACHE_HOME=str(cache_home))
    actual = gmonlens(["-b", str(prog.binary), str(prog.gmon["out"])], tmp_path, env=env)
    assert "Traceback" not in actual.err, actual.err
    assert actual.returncode == 0 and actual.stdout == expected.stdout
    assert any(diskcache.load(kind, key, lambda v: v) != bad for kind in kinds), "entry kept"


def test_annotated_source_file_cannot_be_written(tmp_path: Path) -> None:
    """-A -y writes FILE-ann into the current directory: a directory of that name gave an
    IsADirectoryError traceback."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    shutil.copy(Path(__file__).parent / "programs" / "recursion.c", tmp_path)
    subprocess.run(
        ["gcc", "-pg", "-g", "-O0", "-o", "rec", "recursion.c"], cwd=tmp_path, check=True, timeout=120
    )
    subprocess.run(["./rec", "3000"], cwd=tmp_path, check=True, timeout=120, capture_output=True)
    (tmp_path / "recursion.c-ann").mkdir()
    one_line_error(run(["-A", "-y", "rec", "gmon.out"], tmp_path), "recursion.c-ann")
