"""The program the protocol examples are shown on (protocol/README.md), made without a compiler.

A small C file, its x86-64 machine code assembled here instruction by instruction (each tagged with
its source line), an ELF executable holding that code, its symbols and DWARF 4 (`tests/elfwriter.py`,
`tests/dwarfwriter.py`: declarations and the line table, recorded as built in `/build/example`), and
two runs' gmon.out (`tests/gmonwriter.py`): the current one and an older one, the baseline, where
`leaf` took half the time and `work` more. The program has what every message needs: a routine
with two callers (estimated edges), a cycle (`ping` <-> `pong`), hot lines, calls to disassemble,
a thread start (a `threads` health item), and changes against the baseline beyond noise.
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass
from pathlib import Path

from dwarfwriter import Subprogram, Unit, debug_sections
from elfwriter import STB_GLOBAL, STB_LOCAL, STT_FUNC, ElfSym, elf_file
from gmonwriter import Arc, Hist, gnu_file

SHN_UNDEF = 0
TEXT_ADDRESS = 0x401000
BUILT_IN = "/build/example"  # where the program was "compiled": DWARF's comp_dir
SOURCE = "src/main.c"
HZ = 100
BIN = 4  # bytes of code per histogram bin

MAIN_C = """\
/* The program of gmonlens's protocol examples (protocol/README.md): written, assembled and
   profiled by tests/protocol/example_program.py, no compiler involved. */
#include <pthread.h>

static long leaf(long x)
{
    return x * x + 1;
}

long work(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += leaf(i);
    return s;
}

int ping(int n);

int pong(int n)
{
    return n > 0 ? ping(n - 1) : 0;
}

int ping(int n)
{
    return n > 0 ? pong(n - 1) + 1 : 0;
}

static void *worker(void *arg)
{
    work(1000);
    return arg;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    long s = work(4000);
    s += ping(10);
    pthread_join(t, 0);
    return (int)(s & 1);
}
"""


def line_of(text: str, needle: str, nth: int = 0) -> int:
    """1-based line of the `nth` line (0: first) of MAIN_C holding `needle`."""
    hits = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    return hits[nth]


L = lambda needle, nth=0: line_of(MAIN_C, needle, nth)  # noqa: E731

# An instruction: (source line, bytes), ("call", line, callee), ("jcc", line, opcode, label) or
# ("label", name). Encodings (AT&T as capstone prints them) in the comments.
PROLOGUE = (b"\x55", b"\x48\x89\xe5")  # push %rbp; mov %rsp,%rbp
EPILOGUE = (b"\x5d", b"\xc3")  # pop %rbp; ret
Item = tuple
# gas's multi-byte nops (`.p2align 4` between functions), by length: nopw %cs:0x0(%rax,%rax,1) and
# its shorter relatives
NOPS = {1: b"\x90", 2: b"\x66\x90", 3: b"\x0f\x1f\x00", 4: b"\x0f\x1f\x40\x00", 5: b"\x0f\x1f\x44\x00\x00",
        6: b"\x66\x0f\x1f\x44\x00\x00", 7: b"\x0f\x1f\x80\x00\x00\x00\x00",
        8: b"\x0f\x1f\x84\x00\x00\x00\x00\x00", 9: b"\x66\x0f\x1f\x84\x00\x00\x00\x00\x00",
        10: b"\x66\x2e\x0f\x1f\x84\x00\x00\x00\x00\x00"}  # fmt: skip


def padding(n: int) -> bytes:
    """`n` bytes of nops, the longest first."""
    out = b""
    while n > 0:
        k = min(n, 10)
        out += NOPS[k]
        n -= k
    return out


ROUTINES: dict[str, tuple[bool, list[Item]]] = {
    # name: (external, code)
    "leaf": (False, [
        *((L("static long leaf") + 1, b) for b in PROLOGUE),
        (L("return x * x"), b"\x48\x89\xf8"),  # mov %rdi,%rax
        (L("return x * x"), b"\x48\x0f\xaf\xc0"),  # imul %rax,%rax
        (L("return x * x"), b"\x48\x83\xc0\x01"),  # add $0x1,%rax
        *((L("return x * x") + 1, b) for b in EPILOGUE),
    ]),
    "work": (True, [
        *((L("long work(int n)") + 1, b) for b in PROLOGUE),
        (L("long s = 0;"), b"\x31\xdb"),  # xor %ebx,%ebx
        (L("for (int i"), b"\x31\xc9"),  # xor %ecx,%ecx
        ("label", "loop"),
        (L("s += leaf(i)"), b"\x89\xcf"),  # mov %ecx,%edi
        ("call", L("s += leaf(i)"), "leaf"),
        (L("s += leaf(i)"), b"\x48\x01\xc3"),  # add %rax,%rbx
        (L("for (int i"), b"\x83\xc1\x01"),  # add $0x1,%ecx
        (L("for (int i"), b"\x81\xf9\xa0\x0f\x00\x00"),  # cmp $0xfa0,%ecx
        ("jcc", L("for (int i"), 0x7C, "loop"),  # jl loop
        (L("return s;"), b"\x48\x89\xd8"),  # mov %rbx,%rax
        *((L("return s;") + 1, b) for b in EPILOGUE),
    ]),
    "pong": (True, [
        *((L("int pong(int n)") + 1, b) for b in PROLOGUE),
        (L("ping(n - 1) : 0"), b"\x31\xc0"),  # xor %eax,%eax
        (L("ping(n - 1) : 0"), b"\x85\xff"),  # test %edi,%edi
        ("jcc", L("ping(n - 1) : 0"), 0x7E, "end"),  # jle end
        (L("ping(n - 1) : 0"), b"\x83\xef\x01"),  # sub $0x1,%edi
        ("call", L("ping(n - 1) : 0"), "ping"),
        ("label", "end"),
        *((L("ping(n - 1) : 0") + 1, b) for b in EPILOGUE),
    ]),
    "ping": (True, [
        *((L("int ping(int n)", 1) + 1, b) for b in PROLOGUE),
        (L("pong(n - 1) + 1"), b"\x31\xc0"),  # xor %eax,%eax
        (L("pong(n - 1) + 1"), b"\x85\xff"),  # test %edi,%edi
        ("jcc", L("pong(n - 1) + 1"), 0x7E, "end"),  # jle end
        (L("pong(n - 1) + 1"), b"\x83\xef\x01"),  # sub $0x1,%edi
        ("call", L("pong(n - 1) + 1"), "pong"),
        (L("pong(n - 1) + 1"), b"\x83\xc0\x01"),  # add $0x1,%eax
        ("label", "end"),
        *((L("pong(n - 1) + 1") + 1, b) for b in EPILOGUE),
    ]),
    "worker": (False, [
        *((L("static void *worker") + 1, b) for b in PROLOGUE),
        (L("static void *worker") + 1, b"\x53"),  # push %rbx
        (L("static void *worker") + 1, b"\x48\x89\xfb"),  # mov %rdi,%rbx
        (L("work(1000);"), b"\xbf\xe8\x03\x00\x00"),  # mov $0x3e8,%edi
        ("call", L("work(1000);"), "work"),
        (L("return arg;"), b"\x48\x89\xd8"),  # mov %rbx,%rax
        (L("return arg;") + 1, b"\x5b"),  # pop %rbx
        *((L("return arg;") + 1, b) for b in EPILOGUE),
    ]),
    "main": (True, [
        *((L("int main(void)") + 1, b) for b in PROLOGUE),
        (L("long s = work(4000);"), b"\xbf\xa0\x0f\x00\x00"),  # mov $0xfa0,%edi
        ("call", L("long s = work(4000);"), "work"),
        (L("long s = work(4000);"), b"\x48\x89\xc3"),  # mov %rax,%rbx
        (L("s += ping(10);"), b"\xbf\x0a\x00\x00\x00"),  # mov $0xa,%edi
        ("call", L("s += ping(10);"), "ping"),
        (L("s += ping(10);"), b"\x48\x98"),  # cltq
        (L("s += ping(10);"), b"\x48\x01\xc3"),  # add %rax,%rbx
        (L("return (int)(s & 1);"), b"\x89\xd8"),  # mov %ebx,%eax
        (L("return (int)(s & 1);"), b"\x83\xe0\x01"),  # and $0x1,%eax
        *((L("return (int)(s & 1);") + 1, b) for b in EPILOGUE),
    ]),
    # glibc's start-up code linked in after main (no source, no DWARF): `repz ret`
    "__libc_csu_fini": (True, [(0, b"\xf3\xc3")]),
}  # fmt: skip
NO_SOURCE = frozenset({"__libc_csu_fini"})

# (caller, callee) -> calls, as the run counted them: main and worker call work (4000 + 1000
# iterations of leaf), ping(10) recurses through pong down to 0
CALLS = {("main", "work"): 1, ("worker", "work"): 1, ("work", "leaf"): 5000, ("main", "ping"): 1,
         ("ping", "pong"): 5, ("pong", "ping"): 5}  # fmt: skip

# (routine, index of the instruction among its code) -> samples of the current run and the
# baseline's (1/HZ s each)
SAMPLES = {
    ("leaf", 0): (12, 6), ("leaf", 3): (110, 55), ("leaf", 4): (38, 19),
    ("work", 4): (10, 20), ("work", 6): (25, 45), ("work", 7): (15, 25), ("work", 8): (10, 20),
    ("pong", 3): (2, 2), ("ping", 3): (3, 3), ("main", 9): (2, 2),
}  # fmt: skip


@dataclass(frozen=True)
class Assembled:
    text: bytes
    start: dict[str, int]  # routine -> address
    end: dict[str, int]
    rows: list[tuple[int, int]]  # (address, line) of every instruction, by address
    insns: dict[tuple[str, int], int]  # (routine, instruction index) -> address
    returns: dict[tuple[str, str], int]  # (caller, callee) -> the call's return address


def _size(item: Item) -> int:
    return 0 if item[0] == "label" else 5 if item[0] == "call" else 2 if item[0] == "jcc" else len(item[1])


def assemble() -> Assembled:
    """The routines one after another from TEXT_ADDRESS, each 16-byte aligned (nop padding, which
    gprof counts as the routine's: its code ends where the next symbol starts)."""
    start: dict[str, int] = {}
    labels: dict[tuple[str, str], int] = {}
    at = TEXT_ADDRESS
    for name, (_ext, code) in ROUTINES.items():  # pass 1: addresses
        at += -at % 16
        start[name] = at
        for item in code:
            if item[0] == "label":
                labels[(name, item[1])] = at
            at += _size(item)
    text, rows = bytearray(), []
    insns: dict[tuple[str, int], int] = {}
    returns: dict[tuple[str, str], int] = {}
    end: dict[str, int] = {}
    for name, (_ext, code) in ROUTINES.items():  # pass 2: bytes
        text += padding(start[name] - TEXT_ADDRESS - len(text))
        k = 0
        for item in code:
            if item[0] == "label":
                continue
            at = TEXT_ADDRESS + len(text)
            if item[0] == "call":
                text += b"\xe8" + struct.pack("<i", start[item[2]] - (at + 5))
                returns[(name, item[2])] = at + 5
            elif item[0] == "jcc":
                text += bytes([item[2]]) + struct.pack("<b", labels[(name, item[3])] - (at + 2))
            else:
                text += item[1]
            rows.append((at, item[1] if item[0] in ("call", "jcc") else item[0]))
            insns[(name, k)] = at
            k += 1
        end[name] = TEXT_ADDRESS + len(text)
    text += padding(-len(text) % BIN)
    return Assembled(bytes(text), start, end, rows, insns, returns)


def elf(a: Assembled) -> bytes:
    symbols = [
        ElfSym(name, a.start[name], a.end[name] - a.start[name], STT_FUNC, STB_GLOBAL if ext else STB_LOCAL)
        for name, (ext, _code) in ROUTINES.items()
    ]
    symbols.append(ElfSym("pthread_create@GLIBC_2.34", 0, 0, STT_FUNC, STB_GLOBAL, SHN_UNDEF))
    symbols.append(ElfSym("pthread_join@GLIBC_2.34", 0, 0, STT_FUNC, STB_GLOBAL, SHN_UNDEF))
    with_source = [name for name in ROUTINES if name not in NO_SOURCE]
    decl = {
        name: (L(name + "("), MAIN_C.splitlines()[L(name + "(") - 1].index(name + "(") + 1)
        for name in with_source
    }
    decl["ping"] = (L("int ping(int n)", 1), 5)  # the definition, not the declaration before pong
    subprograms = [
        Subprogram(name, decl[name][0], decl[name][1], a.start[name], a.end[name], ext)
        for name, (ext, _code) in ROUTINES.items()
        if name not in NO_SOURCE
    ]
    high = a.start[min(NO_SOURCE, key=a.start.__getitem__)]  # the unit's code: up to glibc's
    rows = [(at, line) for at, line in a.rows if at < high]
    unit = Unit(SOURCE, BUILT_IN, TEXT_ADDRESS, high, subprograms, rows)
    return elf_file(TEXT_ADDRESS, a.text, symbols, extra=debug_sections(unit))


def gmon(a: Assembled, baseline: bool) -> bytes:
    """A run's gmon.out: the histogram over `.text` (BIN bytes a bin), then the arcs (the return
    address in the caller, a pc in the callee past its prologue), as glibc writes them."""
    counts = [0] * (len(a.text) // BIN)
    for (name, k), (now, before) in SAMPLES.items():
        counts[(a.insns[(name, k)] - TEXT_ADDRESS) // BIN] += before if baseline else now
    high = TEXT_ADDRESS + len(a.text)
    arcs = [Arc(a.returns[(caller, callee)], a.start[callee] + 4, n) for (caller, callee), n in CALLS.items()]
    return gnu_file([Hist(TEXT_ADDRESS, high, counts, prof_rate=HZ), *arcs])


LAUNCHER = "run-tests"  # a test driver (compiled without -pg) that runs `prog`: what gmonlens/record records
LAUNCHER_C = "tests/run.c"


def launcher() -> bytes:
    """`run-tests`: a program whose one unit was compiled without -pg (its DWARF producer says
    -O2, no -pg), with a `main` of `xor %eax,%eax; ret` (it is never run: the examples' recording
    is made without a process, tests/protocol/scenario.py)."""
    text = b"\x31\xc0\xc3" + padding(13)
    unit = Unit(LAUNCHER_C, BUILT_IN, TEXT_ADDRESS, TEXT_ADDRESS + 3,
                [Subprogram("main", 3, 5, TEXT_ADDRESS, TEXT_ADDRESS + 3, True)], [(TEXT_ADDRESS, 4)],
                producer="GNU C17 (tests/dwarfwriter.py) -mtune=generic -march=x86-64 -g -O2")  # fmt: skip
    return elf_file(TEXT_ADDRESS, text, [ElfSym("main", TEXT_ADDRESS, 3)], extra=debug_sections(unit))


def write_workspace(ws: Path) -> None:
    """`ws`: src/main.c, the executable `prog`, `gmon.out`, the baseline's `old/gmon.out`, a budget
    file `perf/budgets.yaml`; file
    times in build order (the source, then the binary, then the runs), so no health item says the
    binary or a source changed since."""
    a = assemble()
    (ws / "src").mkdir(parents=True)
    (ws / "old").mkdir()
    (ws / SOURCE).write_text(MAIN_C)
    (ws / "prog").write_bytes(elf(a))
    os.chmod(ws / "prog", 0o755)
    (ws / "gmon.out").write_bytes(gmon(a, baseline=False))
    (ws / "old" / "gmon.out").write_bytes(gmon(a, baseline=True))
    write_suite(ws, a)
    (ws / "perf").mkdir()  # the `budgets` setting's file (gmonlens check's): work is called twice
    (ws / "perf" / "budgets.yaml").write_text(
        "binary: ../prog\nprofiles: [../gmon.out]\nrules:\n  - {calls: work, max: 2}\n"
    )
    (ws / LAUNCHER).write_bytes(launcher())
    os.chmod(ws / LAUNCHER, 0o755)
    t0 = 1_700_000_000
    for name, t in (
        (SOURCE, t0),
        (LAUNCHER, t0),
        ("prog", t0 + 10),
        ("old/gmon.out", t0 + 20),
        ("gmon.out", t0 + 30),
    ):
        os.utime(ws / name, (t, t))


SUITE = "gmonlens-test"
SUITE_TESTS = (("work.small", "passed", 0.4, False), ("work.large", "failed", 1.2, True))


def write_suite(ws: Path, a: Assembled) -> None:
    """A `gmonlens test` folder (`gmonlens-test/`, index schema gmonlens-test/1): two tests of
    `prog`, the older run's profile and the current one's."""
    tests = []
    for name, status, duration, current in SUITE_TESTS:
        (ws / SUITE / name).mkdir(parents=True)
        (ws / SUITE / name / "gmon.out.100").write_bytes(gmon(a, baseline=not current))
        samples = sum(before if not current else now for now, before in SAMPLES.values())
        tests.append({"name": name, "status": status, "duration": duration, "binary": "../prog",
                      "profiles": [f"{name}/gmon.out.100"], "seconds": samples / HZ, "other_binaries": []})  # fmt: skip
    index = {"schema": "gmonlens-test/1", "runner": "commands", "tests": tests}
    (ws / SUITE / "index.json").write_text(json.dumps(index, indent=1))
