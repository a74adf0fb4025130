"""Issue 22: executables that claim more than they hold. Each input is an honest 3-routine
`gcc -pg -g` program with one section edited (tests/elfpatch.py): a zlib bomb, a line program of
millions of rows, a NOBITS section of gigabytes, a `.zdebug_*` claim, a sparse tail of gigabytes.
`report`, `export` and `diff` run under RLIMIT_AS (an overrun fails, it does not swap): the
profile is still shown, the problem is one warning line naming the file, the section and the
limit; a hostile 1 MB input costs no more than an honest one."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from gprof_harness import GMONLENS, gmonlens_env

import elfpatch

MEMORY = 512 << 20  # address space of the child: the bound for a hostile 1 MB binary
QUICK = 60
SOURCE = """
#include <stdio.h>
static int leaf(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * x; return s; }
int mid(int x) { return leaf(x) + leaf(x / 2); }
int main(void) { long t = 0; for (int i = 0; i < 20000; i++) t += mid(i % 3000); printf("%ld\\n", t); return 0; }
"""


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory, profile_run: int) -> tuple[Path, Path]:
    """(binary, gmon.out) of the honest program (run again for each --profile-runs run)."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    d = tmp_path_factory.mktemp("hostile_elf")
    (d / "p.c").write_text(SOURCE)
    subprocess.run(["gcc", "-pg", "-g", "-O0", "-o", "p", "p.c"], cwd=d, check=True)
    subprocess.run(["./p"], cwd=d, check=True, capture_output=True)
    return d / "p", d / "gmon.out"


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run(args: list[str], cwd: Path, command: str = "report") -> subprocess.CompletedProcess[str]:
    env = gmonlens_env(XDG_CACHE_HOME=str(cwd / "cache"))
    return subprocess.run(
        [str(GMONLENS), command, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=QUICK,
        env=env,
        preexec_fn=_limit,
    )


def _copy(honest: tuple[Path, Path], tmp: Path, name: str, blob: bytes) -> Path:
    path = tmp / name
    path.write_bytes(blob)
    path.chmod(0o755)
    shutil.copy(honest[1], tmp / "gmon.out")
    return path


BOMBS: dict[str, Callable[[bytes], bytes]] = {
    "zlib-debug_str-1GiB": lambda b: elfpatch.debug_str_bomb(b, 1 << 30),
    "line-rows-20M": lambda b: elfpatch.line_bomb(b, 20_000_000),
    "line-rows-40M": lambda b: elfpatch.line_bomb(b, 40_000_000),
    "nobits-debug_str-2GiB": lambda b: elfpatch.nobits(b, ".debug_str", 2 << 30),
    "nobits-debug_line-2GiB": lambda b: elfpatch.nobits(b, ".debug_line", 2 << 30),
    "nobits-debug_info-2GiB": lambda b: elfpatch.nobits(b, ".debug_info", 2 << 30),
    "zlib-debug_info-claims-4GiB": lambda b: elfpatch.patch(
        b,
        ".debug_info",
        elfpatch.gabi_compressed(elfpatch.section_data(b, ".debug_info"), claimed=4 << 30),
        flags=elfpatch.SHF_COMPRESSED,
    ),
    "zlib-debug_abbrev-64MiB": lambda b: elfpatch.patch(
        b, ".debug_abbrev", elfpatch.zeros_compressed(64 << 20), flags=elfpatch.SHF_COMPRESSED
    ),
}
_BUILT: dict[str, bytes] = {}


def _bomb(binary: Path, bomb: str) -> bytes:
    if bomb not in _BUILT:
        _BUILT[bomb] = BOMBS[bomb](binary.read_bytes())
    return _BUILT[bomb]


COMMANDS = {
    "report-l": ("report", ["-b", "-l"]),
    "report": ("report", ["-b"]),
    "export": ("export", ["--format", "callgrind", "-o", "out.cg"]),
    "diff": ("diff", []),
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("bomb", BOMBS)
def test_bombs_cost_what_an_honest_binary_does(
    honest: tuple[Path, Path], tmp_path: Path, bomb: str, command: str
) -> None:
    binary = _copy(honest, tmp_path, "bomb", _bomb(honest[0], bomb))
    name, flags = COMMANDS[command]
    extra = ["gmon.out", "gmon.out"] if name == "diff" else ["gmon.out"]
    r = run([*flags, str(binary), *extra], tmp_path, name)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    if name == "report":
        assert "leaf" in r.stdout and "mid" in r.stdout  # the rest of the profile is still shown
    for line in r.stderr.splitlines():
        assert line.startswith("gmonlens") and "()" not in line, line
        assert str(binary) in line or "bomb" in line, line
    if bomb.startswith(("zlib", "line")) and command == "report-l":  # -l reads every DWARF section
        assert "limit" in r.stderr, r.stderr


def test_zdebug_sections_are_read(honest: tuple[Path, Path], tmp_path: Path) -> None:
    """GNU `.zdebug_*` (objcopy --compress-debug-sections=zlib-gnu) were read as no debug info."""
    if shutil.which("objcopy") is None:
        pytest.skip("objcopy not installed")
    for style in ("zlib-gnu", "zlib-gabi"):
        out = tmp_path / style
        r = subprocess.run(
            ["objcopy", f"--compress-debug-sections={style}", str(honest[0]), str(out)], capture_output=True
        )
        if r.returncode != 0:
            pytest.skip(f"objcopy cannot write {style}: {r.stderr!r}")
        shutil.copy(honest[1], tmp_path / "gmon.out")
        plain = run(["-b", "-l", str(honest[0]), "gmon.out"], tmp_path)
        packed = run(["-b", "-l", str(out), "gmon.out"], tmp_path)
        assert packed.returncode == 0 and not packed.stderr, packed.stderr
        assert packed.stdout == plain.stdout
        assert "(p.c:" in packed.stdout  # line symbols: the line table was read


def test_zstd_is_one_line_unsupported(honest: tuple[Path, Path], tmp_path: Path) -> None:
    blob = honest[0].read_bytes()
    zstd = elfpatch.gabi_compressed(
        elfpatch.section_data(blob, ".debug_line"), kind=elfpatch.ELFCOMPRESS_ZSTD
    )
    binary = _copy(
        honest, tmp_path, "zstd", elfpatch.patch(blob, ".debug_line", zstd, flags=elfpatch.SHF_COMPRESSED)
    )
    r = run(["-b", str(binary), "gmon.out"], tmp_path)
    assert r.returncode == 0 and "leaf" in r.stdout
    try:
        import compression.zstd  # type: ignore[import-not-found]  # noqa: F401

        pytest.skip("this Python decodes zstd")
    except ImportError:
        pass
    (line,) = r.stderr.splitlines()
    assert "zstd" in line and "unsupported" in line and ".debug_line" in line and str(binary) in line


@pytest.mark.parametrize("command", ["report", "export"])
def test_sparse_tail_is_never_read(honest: tuple[Path, Path], tmp_path: Path, command: str) -> None:
    """A 3.9 GB sparse copy (a few KB on disk) was read whole: 8 GB and 25 s."""
    binary = _copy(honest, tmp_path, "sparse", honest[0].read_bytes())
    os.truncate(binary, 3_900_000_000)
    flags = ["-b"] if command == "report" else ["--format", "callgrind", "-o", "out.cg"]
    r = run([*flags, str(binary), "gmon.out"], tmp_path, command)
    assert r.returncode == 0, r.stderr
    assert not r.stderr


def test_symbol_names_overlapping_to_the_end_are_budgeted(honest: tuple[Path, Path], tmp_path: Path) -> None:
    """A string table without NULs: every symbol's name runs to its end (quadratic in its size)."""
    blob = honest[0].read_bytes()
    symtab = elfpatch.section(blob, ".symtab")
    count = 40_000
    raw = elfpatch.section_data(blob, ".symtab")
    entry = next(
        bytearray(raw[i : i + 24]) for i in range(24, len(raw), 24) if raw[i + 4] & 0xF == 2
    )  # a FUNC
    table = bytearray(24)  # the null symbol
    for i in range(count):
        entry[0:4] = i.to_bytes(4, "little")
        table += entry
    names = b"x" * (1 << 20)
    out = elfpatch.patch(blob, ".symtab", bytes(table))
    out = elfpatch.patch(out, ".strtab", names)
    assert symtab.size < len(table)
    binary = _copy(honest, tmp_path, "names", out)
    r = run(["-b", str(binary), "gmon.out"], tmp_path)
    assert r.returncode != 0
    (line,) = r.stderr.splitlines()
    assert str(binary) in line and ".strtab" in line and "limit" in line, line


# ---- writes never go through a link planted in the current directory (issue 22) ----------------
@pytest.mark.parametrize("flags,output", [(["-A", "-y"], "p.c-ann"), (["-s"], "gmon.sum")])
def test_outputs_are_not_written_through_links(
    honest: tuple[Path, Path], tmp_path: Path, flags: list[str], output: str
) -> None:
    """gprof writes `main.c-ann` and `gmon.sum` through a link (a cloned repository's
    `main.c-ann -> ~/.bashrc` received the annotated source): gmonlens refuses, naming the link."""
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    work = tmp_path / "repo"
    work.mkdir()
    shutil.copy(honest[0].parent / "p.c", work / "p.c")
    shutil.copy(honest[1], work / "gmon.out")
    (work / output).symlink_to(victim)
    r = run([*flags, str(honest[0]), "gmon.out"], work)
    assert victim.read_text() == "precious\n"
    assert r.returncode != 0 and "Traceback" not in r.stderr
    (line,) = [ln for ln in r.stderr.splitlines() if "warning" not in ln]
    assert output in line and "link" in line, line
    assert (work / output).is_symlink()


def test_a_sparse_profile_is_not_read(honest: tuple[Path, Path], tmp_path: Path) -> None:
    """A 1.9 GB sparse gmon.out (4 KB on disk) was read whole: 32 s and 1.9 GB."""
    shutil.copy(honest[1], tmp_path / "gmon.out")
    os.truncate(tmp_path / "gmon.out", 1_900_000_000)
    if (tmp_path / "gmon.out").stat().st_blocks * 512 > 1 << 20:
        pytest.skip("this filesystem does not keep holes")
    r = run(["-b", str(honest[0]), "gmon.out"], tmp_path)
    assert r.returncode != 0 and "Traceback" not in r.stderr
    (line,) = r.stderr.splitlines()
    assert "gmon.out" in line and "sparse" in line, line


def test_dwarf_entries_are_budgeted(honest: tuple[Path, Path], tmp_path: Path) -> None:
    """A compressed `.debug_info` of 30 MB of copies of the unit (80,000 units, two million DIEs,
    150 KB on disk): -l decodes every DIE; it stops at the DWARF-entries limit, within 512 MB."""
    blob = honest[0].read_bytes()
    info = elfpatch.section_data(blob, ".debug_info")
    many = info * ((30 << 20) // len(info))
    bomb = elfpatch.patch(blob, ".debug_info", elfpatch.gabi_compressed(many), flags=elfpatch.SHF_COMPRESSED)
    binary = _copy(honest, tmp_path, "units", bomb)
    r = run(["-b", "-l", str(binary), "gmon.out"], tmp_path)
    assert r.returncode == 0 and "leaf" in r.stdout, r.stderr
    assert "DWARF entries" in r.stderr and "limit" in r.stderr and str(binary) in r.stderr, r.stderr
