"""`gmonlens disasm` against gprof: every routine with self time adds up to gprof's self seconds,
its line runs to `gprof -l`'s entries, its call instructions to gprof's arcs, callee by callee
(tests/disasm_oracle.py), natively, on i386 and on AArch64; the command's text, errors and syntax."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from gprof_harness import (
    AARCH64,
    GMONLENS,
    I686,
    NATIVE,
    Built,
    Program,
    Target,
    Workshop,
    gmonlens_env,
    gprof,
)

from binaries import read_image
from disasm_oracle import check_program

PROGRAMS = {
    "recursion": Program("recursion", ("recursion.c",), args=("30000",)),
    "cycles": Program("cycles", ("cycles.c",), args=("40000",)),
    "opt2": Program("opt2", ("opt2.c",), flags=("-O2",), args=("600000",)),
    "lineheat_O2": Program("lineheat_O2", ("lineheat.c",), flags=("-O2",), args=("6000000",)),
    "statics": Program(
        "statics", ("statics_main.c", "statics_s1.c", "statics_s2.c", "statics_s3.c"), args=("60000",)
    ),
    "shapes": Program("shapes", ("shapes.cpp",), args=("5000",)),
    "shapes_O2": Program("shapes_O2", ("shapes.cpp",), flags=("-O2",), args=("8000",)),
}
CROSS = {
    "recursion": Program("recursion", ("recursion.c",), args=("8000",)),
    "opt2": Program("opt2", ("opt2.c",), flags=("-O2",), args=("200000",)),
    "shapes": Program("shapes", ("shapes.cpp",), args=("400",)),
}
CASES: dict[str, tuple[Program, Target]] = {f"{n}-x86-64": (p, NATIVE) for n, p in PROGRAMS.items()}
CASES |= {f"{n}-{t.name}": (p, t) for n, p in CROSS.items() for t in (I686, AARCH64)}


def _gprof(built: Built, *opts: str) -> str:
    out = gprof(built.target, ["-b", *opts, str(built.binary), str(built.gmon["out"])], built.dir)
    assert out.returncode == 0, out.err
    return out.stdout.decode(errors="replace")


@pytest.mark.parametrize("case", list(CASES))
def test_listings_add_up_to_gprof(workshop: Workshop, case: str) -> None:
    program, target = CASES[case]
    built = workshop.get(program, target)
    lines = gprof(target, ["-b", "-l", "-p", str(built.binary), str(built.gmon["out"])], built.dir)
    line_text = lines.stdout.decode(errors="replace") if lines.returncode == 0 and lines.stdout else None
    checked, problems = check_program(
        str(built.binary), [str(built.gmon["out"])], _gprof(built, "-p"), line_text, _gprof(built, "-q")
    )
    assert checked > 0
    assert not problems, "\n".join(problems)


def _disasm(built: Built, *args: str) -> subprocess.CompletedProcess[bytes]:
    argv = [str(GMONLENS), "disasm", *args, str(built.binary), str(built.gmon["out"])]
    return subprocess.run(argv, capture_output=True, env=gmonlens_env(), timeout=120)


def test_command_text_and_json(workshop: Workshop) -> None:
    built = workshop.get(PROGRAMS["opt2"], NATIVE)
    text = _disasm(built, "checked")
    assert text.returncode == 0, text.stderr
    out = text.stdout.decode()
    assert out.startswith("checked (")
    assert "opt2.c:47" in out and "\x1b[" not in out  # source lines; no colour off a terminal
    assert any(line.startswith("*") for line in out.splitlines())  # the hot marker
    coloured = _disasm(built, "--color=always", "checked").stdout.decode()
    assert "\x1b[31m" in coloured
    doc = json.loads(_disasm(built, "--json", "main").stdout)
    assert doc["schema"] == "gmonlens-disasm/1" and doc["routine"] == "main"
    calls = [c for i in doc["instructions"] for c in i["calls"]]
    assert {c["callee"] for c in calls} >= {"checked", "tail_a"}
    assert all(c["estimate"] for c in calls)
    intel = json.loads(_disasm(built, "--json", "--syntax", "intel", "main").stdout)
    assert any("PTR" in i["text"] for i in intel["instructions"])


def test_cxx_names(workshop: Workshop) -> None:
    """Every C++ callee of main is found by the name the report prints and by its mangled name; a
    printed name shared by several routines (a constructor's C1 and C2 forms) lists each."""
    built = workshop.get(PROGRAMS["shapes"], NATIVE)
    doc = json.loads(_disasm(built, "--json", "main").stdout)
    callees = sorted({c["callee"] for i in doc["instructions"] for c in i["calls"]})
    printed_names = [n for n in callees if "::" in n and "(" in n]
    assert printed_names
    for printed in printed_names:
        by_printed = _disasm(built, "--json", printed)
        assert by_printed.returncode == 0, by_printed.stderr
        found = json.loads(by_printed.stdout)
        for listing in found if isinstance(found, list) else [found]:
            mangled = listing["name"]
            assert mangled.startswith("_Z")
            assert json.loads(_disasm(built, "--json", mangled).stdout)["routine"] == printed


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("no_such_routine",), "no routine matches 'no_such_routine'"),
        (("-l", "main"), "report output options"),
    ],
)
def test_command_errors(workshop: Workshop, args: tuple[str, ...], message: str) -> None:
    built = workshop.get(PROGRAMS["opt2"], NATIVE)
    res = _disasm(built, *args)
    assert res.returncode in (1, 2)
    err = res.stderr.decode()
    assert message in err and len(err.splitlines()) == 1, err


def test_stripped_binary(workshop: Workshop, tmp_path: Path) -> None:
    built = workshop.get(PROGRAMS["opt2"], NATIVE)
    stripped = tmp_path / "stripped"
    subprocess.run(["strip", "-o", str(stripped), str(built.binary)], check=True)
    res = subprocess.run(
        [str(GMONLENS), "disasm", "main", str(stripped), str(built.gmon["out"])],
        capture_output=True,
        env=gmonlens_env(),
        timeout=60,
    )
    assert res.returncode == 1 and len(res.stderr.decode().splitlines()) == 1, res.stderr


OBJDUMP = {"x86-64": "objdump", "i686": "i686-linux-gnu-objdump", "aarch64": "aarch64-linux-gnu-objdump"}
MACHINE = {"x86-64": "EM_X86_64", "i686": "EM_386", "aarch64": "EM_AARCH64"}


def objdump_texts(tool: str, binary: str, intel: bool) -> dict[int, str]:
    """address -> `mnemonic operands` as objdump -d prints .text (comments and <symbol> dropped)."""
    argv = [
        tool,
        "-d",
        "-w",
        "--no-show-raw-insn",
        "-j",
        ".text",
        *(["-M", "intel"] if intel else []),
        binary,
    ]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    texts = {}
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\t(.*)$", line)
        if m:
            t = re.sub(r"\s+//.*$" if "aarch64" in tool else r"\s+#.*$", "", m[2])
            texts[int(m[1], 16)] = " ".join(re.sub(r"\s+<[^>]*>$", "", t).split())
    return texts


@pytest.mark.parametrize(
    ("program", "target", "syntax"),
    [
        ("opt2", NATIVE, "att"),
        ("opt2", NATIVE, "intel"),
        ("shapes_O2", NATIVE, "att"),
        ("opt2", I686, "att"),
        ("shapes", I686, "att"),
        ("opt2", AARCH64, "att"),
        ("shapes", AARCH64, "att"),
    ],
)
def test_objdump_spelling(workshop: Workshop, program: str, target: Target, syntax: str) -> None:
    """Every instruction of .text as objdump -d spells it (SQLite's 271,390 x86-64 instructions
    were all identical in AT&T when this was written; Intel: 15 `comisd` operand sizes differ)."""
    from gmonlens.disasm.listing import Decoder

    built = workshop.get((PROGRAMS | CROSS)[program], target)
    if shutil.which(OBJDUMP[target.name]) is None:
        pytest.skip(f"{OBJDUMP[target.name]} not installed")
    image = read_image(str(built.binary))
    text = next(c for c in image.code_sections if c.name == ".text")
    want = objdump_texts(OBJDUMP[target.name], str(built.binary), syntax == "intel")
    got = Decoder(MACHINE[target.name], syntax).decode(text.data, text.address)
    differ = [(hex(d.address), d.text, want[d.address]) for d in got if want.get(d.address, d.text) != d.text]
    assert len(got) > 100 and not differ, differ[:10]


def test_routine_without_code(workshop: Workshop, tmp_path: Path) -> None:
    """A routine of a -S table at an address no executable section holds: one line naming it."""
    built = workshop.get(PROGRAMS["opt2"], NATIVE)
    nm = subprocess.run(["nm", str(built.binary)], capture_output=True, text=True, check=True).stdout
    table = [line for line in nm.splitlines() if line.endswith((" T main", " T checked"))]
    syms = tmp_path / "syms.txt"
    syms.write_text("\n".join([*table, "0000000000000010 T ghost"]) + "\n")
    res = _disasm(built, "-S", str(syms), "ghost")
    err = res.stderr.decode()
    assert res.returncode == 1 and "ghost: no code at 0x10" in err and len(err.splitlines()) == 1, err


def test_path_as_the_editor_shows_it(workshop: Workshop) -> None:
    """`disasm programs/opt2.c:checked`: a path relative to the workspace (the recorded one is
    absolute) names the routine; a path that is not the recorded file's says which one is."""
    built = workshop.get(PROGRAMS["opt2"], NATIVE)
    for spec in ("programs/opt2.c:checked", "integration/programs/opt2.c:checked", "opt2.c:checked"):
        res = _disasm(built, "--json", spec)
        assert res.returncode == 0, res.stderr
        assert json.loads(res.stdout)["routine"] == "checked"
    res = _disasm(built, "src/opt2.c:checked")
    err = res.stderr.decode()
    assert res.returncode == 1 and len(err.splitlines()) == 1, err
    assert "no routine matches 'src/opt2.c:checked'" in err and "programs/opt2.c" in err


class _CountingStdout(io.RawIOBase):
    """An unbuffered stdout (as under PYTHONUNBUFFERED=1 or `python -u`) that counts its writes."""

    def __init__(self) -> None:
        self.writes = 0
        self.data = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, b: bytes) -> int:  # type: ignore[override]
        self.writes += 1
        self.data += b
        return len(b)


@pytest.mark.parametrize("spec", ["main", "opt2.c"], ids=["one", "several"])
def test_json_written_in_few_large_writes(
    workshop: Workshop, monkeypatch: pytest.MonkeyPatch, spec: str
) -> None:
    """`disasm --json` hands stdout a few large writes, not one per JSON token: on an unbuffered
    stdout each write is a system call (a 56,000-instruction routine took 5.6 s, 5x the text),
    and the document is the listing's `to_json`."""
    from gmonlens.commands.disasm_command import parse_disasm_args, run_disasm
    from gmonlens.common.options import AnalysisOptions
    from gmonlens.disasm.render import to_json
    from gmonlens.disasm.session import DisasmContext

    built = workshop.get(PROGRAMS["opt2"], NATIVE)
    monkeypatch.setenv("XDG_CACHE_HOME", str(built.dir / "cache-json-writes"))
    raw = _CountingStdout()
    out = io.TextIOWrapper(raw, write_through=True)  # type: ignore[arg-type]
    monkeypatch.setattr("sys.stdout", out)
    assert run_disasm(parse_disasm_args(["--json", spec, str(built.binary), str(built.gmon["out"])])) == 0
    out.flush()
    got = json.loads(bytes(raw.data))
    ctx = DisasmContext.open(str(built.binary), [str(built.gmon["out"])], AnalysisOptions(), spec)
    listings = [ctx.listing(rid) for rid in ctx.find(spec)]
    display = ctx.display_names(listings)
    docs = [to_json(x, display, ctx.target_names, "att") for x in listings]
    assert got == (docs[0] if len(docs) == 1 else docs)
    assert sum(len(d["instructions"]) for d in docs) > 20 and (len(docs) > 1) == (spec == "opt2.c")
    assert raw.writes <= 4, raw.writes
