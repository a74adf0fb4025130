"""tree-sitter (a unity build: `lib.c` includes `./alloc.c`, `./parser.c`, ...) with the JSON
grammar's generated `parser.c`, gcc -pg -g -O2 (issue 27's layouts, real): `report` against
`gprof -b` byte for byte with -A (a unity file holding none of its lines' routines), file symspecs
naming `parser.c` (two files share the name), -C (paths with `./`); the disassembly's text
against objdump -d, names included."""

from __future__ import annotations

import re
import subprocess

import pytest

from binaries import open_elf, read_image
from gmonlens.binary.address_names import read_address_names
from gmonlens.disasm.listing import Decoder
from gmonlens.disasm.render import annotated, objdump_line

from . import programs

GMONLENS = programs.ROOT / ".venv" / "bin" / "gmonlens"
OPTIONS = [
    (),
    ("-A",),
    ("-A", "-l"),
    ("-A", "-z"),
    ("-pparser.c",),
    ("-qparser.c",),
    ("-Aparser.c",),
    ("-Cparser.c",),
    ("-C",),
    ("-C", "-z"),
    ("-l", "-C"),
    ("-Fparser.c",),
    ("-Nparser.c",),
    ("-e", "parser.c"),
    ("-pparser.c:100",),
    ("-plib.c",),
]


@pytest.fixture(scope="module")
def ts_prog() -> programs.RealProgram:
    programs.need("gcc", "gprof")
    return programs.tree_sitter_json()


@pytest.mark.parametrize("args", OPTIONS, ids=lambda a: "_".join(a) or "default")
def test_report_as_gprof(ts_prog: programs.RealProgram, args: tuple[str, ...]) -> None:
    argv = ["-b", *args, str(ts_prog.binary), str(ts_prog.gmon)]
    cwd = ts_prog.binary.parent
    want = subprocess.run(["gprof", *argv], cwd=cwd, capture_output=True, timeout=600)
    got = subprocess.run([str(GMONLENS), "report", *argv], cwd=cwd, capture_output=True, timeout=600)
    assert b"Traceback" not in got.stderr, got.stderr.decode()
    assert (want.returncode == 0) == (got.returncode == 0), got.stderr.decode()
    assert got.stdout == want.stdout, f"gmonlens report {' '.join(argv)} differs from gprof"


def test_disassembly_text_is_objdumps(ts_prog: programs.RealProgram) -> None:
    out = subprocess.run(
        ["objdump", "-d", "-w", "--no-show-raw-insn", str(ts_prog.binary)], capture_output=True, text=True
    ).stdout
    want = {int(m[1], 16): m[2].rstrip() for m in re.finditer(r"(?m)^\s*([0-9a-f]+):\t(.*)$", out)}
    image = read_image(str(ts_prog.binary))
    with open_elf(str(ts_prog.binary)) as elf:
        names = read_address_names(elf)
    decoder = Decoder(image.machine)
    differ, checked = [], 0
    for section in image.code_sections:
        for d in decoder.decode(section.data, section.address):
            expected = want.get(d.address)
            if expected is None:
                continue
            checked += 1
            got = objdump_line(annotated(d.text, d.target, d.ref, names))
            if got != expected:
                differ.append((hex(d.address), got, expected))
    assert checked > 10000
    assert not differ, f"{len(differ)} of {checked}: {differ[:10]}"
