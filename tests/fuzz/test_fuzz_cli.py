"""Fuzzing the CLI and the disk cache (issue 9), in bounded time for CI.

A real `gcc -pg -g` program is built at test time; seeded mutants of its binary (bit flips, byte
flips in the ELF header, section headers and the symbol/DWARF sections, truncation) and of its
gmon.out (bit flips, truncation, histogram header fields) go through `gmonlens report` with
several option sets (and `export`, `diff`), in a driver process (tests/fuzz/driver.py) with a per-input alarm; a crash
by signal is counted and the driver restarted after that input. Cache entries are mutated on
disk (checksum path) and as values re-stored with valid checksums (shape-check path), then read
and used. Every category must count 0 crashes, 0 hangs, 0 tracebacks; the counts are printed
(`pytest -s`) for the record.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import struct
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # builds its inputs with gcc/g++ at test time

HERE = Path(__file__).resolve().parent
PROGRAM = HERE.parent / "integration" / "programs" / "recursion.c"
SEED = int(os.environ.get("GMONLENS_FUZZ_SEED", "9"))  # longer hunts: another seed, a larger N
N_BINARY = N_PROFILE = int(os.environ.get("GMONLENS_FUZZ_N", "200"))
PER_INPUT = 20  # seconds before an input counts as a hang
MEMORY = 1 << 30  # the driver's address space: an input that costs more fails (issue 22)
N_COMPRESSED = int(os.environ.get("GMONLENS_FUZZ_N_COMPRESSED", "80"))
OPTION_SETS = [
    ["-b"],
    ["-b", "-l"],
    ["-b", "-c"],
    ["-s"],
    ["--json"],
    ["-b", "-p", "-q", "-z"],
    ["-A"],
    ["-i", "-C"],
]
EXPORTS = ["callgrind", "pprof", "dot"]


def command(k: int, binary: str, profiles: list[str], good: str) -> list[str]:
    """The k-th command line: mostly `report` with an option set, sometimes `export` or `diff`."""
    if k % 9 == 4:
        return ["export", "--format", EXPORTS[k % 3], binary, *profiles, "-o", f"out{k}"]
    if k % 9 == 7:
        return ["diff", binary, good, profiles[0]]
    return ["report", *OPTION_SETS[k % len(OPTION_SETS)], binary, *profiles]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    d = tmp_path_factory.mktemp("fuzzprog")
    shutil.copy(PROGRAM, d / "prog.c")
    subprocess.run(["gcc", "-pg", "-g", "-O0", "-o", "prog", "prog.c"], cwd=d, check=True, timeout=120)
    subprocess.run(["./prog", "3000"], cwd=d, check=True, timeout=120, capture_output=True)
    return d / "prog", d / "gmon.out"


def _sections(blob: bytes) -> list[tuple[int, int]]:
    """(offset, size) of each section of a 64-bit little-endian ELF file, plus the header table."""
    (shoff,) = struct.unpack_from("<Q", blob, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", blob, 0x3A)
    out = [(shoff, shentsize * shnum)]
    for k in range(shnum):
        off, size = struct.unpack_from("<QQ", blob, shoff + k * shentsize + 0x18)
        if size > 0 and off + size <= len(blob):
            out.append((off, size))
    return out


def mutate_binary(rng: random.Random, blob: bytes) -> bytes:
    b = bytearray(blob)
    how = rng.randrange(5)
    if how == 0:  # truncation
        return bytes(b[: rng.randrange(len(b))])
    if how == 1:  # ELF header fields
        for _ in range(rng.randint(1, 3)):
            b[rng.randrange(16, 64)] = rng.randrange(256)
        return bytes(b)
    if how == 2:  # section headers or one section's bytes (symtab, strtab, DWARF, notes, code)
        off, size = rng.choice(_sections(blob))
        for _ in range(rng.randint(1, 8)):
            b[off + rng.randrange(size)] ^= 1 << rng.randrange(8)
        return bytes(b)
    if how == 3:  # 64-bit fields set to extremes inside a section
        off, size = rng.choice(_sections(blob))
        if size >= 8:
            pos = off + rng.randrange(size - 7)
            b[pos : pos + 8] = struct.pack("<Q", rng.choice([0, 2**63, 2**64 - 1, 2**31, 0xFFFFFFFF]))
        return bytes(b)
    for _ in range(rng.randint(1, 16)):  # bit flips anywhere
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    return bytes(b)


def mutate_profile(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    how = rng.randrange(4)
    if how == 0:
        return bytes(b[: rng.randrange(len(b))])
    if how == 1 and len(b) > 45:  # the first histogram record's header: low, high, nbins, rate
        field = rng.choice([(21, 8), (29, 8), (37, 4), (41, 4)])
        value = rng.choice([0, 1, 2**31, 2**32 - 1, rng.randrange(2**32)])
        b[field[0] : field[0] + field[1]] = value.to_bytes(8, "little")[: field[1]]
        return bytes(b)
    if how == 2:  # a record of another kind spliced in
        pos = rng.randrange(20, len(b))
        return bytes(b[:pos] + bytes([rng.randrange(4)]) + rng.randbytes(rng.randrange(40)) + b[pos:])
    for _ in range(rng.randint(1, 16)):
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    return bytes(b)


def run_jobs(jobs: list[dict[str, object]], where: Path) -> Counter[str]:
    """Run the jobs in driver processes; restart after a crash. Returns outcome counts."""
    spec = where / "jobs.json"
    spec.write_text(json.dumps(jobs))
    counts: Counter[str] = Counter()
    bad: list[str] = []
    first = 0
    env = {**os.environ, "XDG_CACHE_HOME": str(where / "xdg"), "PYTHONPATH": str(HERE.parent)}
    env["GMONLENS_FUZZ_AS"] = str(MEMORY)
    while first < len(jobs):
        proc = subprocess.run(
            [sys.executable, str(HERE / "driver.py"), str(spec), str(first), str(PER_INPUT)],
            capture_output=True,
            text=True,
            env=env,
            timeout=PER_INPUT * 3 + 60 * 5,
        )
        started = first
        for line in proc.stdout.splitlines():
            msg = json.loads(line)
            if "start" in msg:
                started = msg["start"]
                continue
            counts[msg["outcome"]] += 1
            if msg["outcome"] not in ("ok", "error"):
                bad.append(f"{jobs[msg['i']]['argv']}: {msg['outcome']}: {msg['detail']}")
            first = msg["i"] + 1
        if proc.returncode != 0:  # died (signal) on job `started`
            counts["crash"] += 1
            bad.append(f"{jobs[started]['argv']}: crash (exit {proc.returncode}) {proc.stderr[-300:]}")
            first = started + 1
    assert not bad, "\n".join(bad[:10])
    return counts


def test_fuzz_cli(built: tuple[Path, Path], tmp_path: Path) -> None:
    binary, gmon = built
    rng = random.Random(SEED)
    blob, prof = binary.read_bytes(), gmon.read_bytes()
    jobs: list[dict[str, object]] = []
    for k in range(N_BINARY):
        p = tmp_path / f"bin{k}"
        p.write_bytes(mutate_binary(rng, blob))
        jobs.append({"argv": command(k, str(p), [str(gmon)], str(gmon)), "cwd": str(tmp_path)})
    for k in range(N_PROFILE):
        p = tmp_path / f"gmon{k}.out"
        p.write_bytes(mutate_profile(rng, prof))
        extra = [str(gmon)] if k % 5 == 0 else []  # summing with a good file
        jobs.append({"argv": command(k, str(binary), [str(p), *extra], str(gmon)), "cwd": str(tmp_path)})
    counts = run_jobs(jobs, tmp_path)
    print(f"\nfuzz CLI: {len(jobs)} inputs ({N_BINARY} binaries, {N_PROFILE} profiles): {dict(counts)}")
    assert counts["crash"] == counts["hang"] == counts["traceback"] == counts["multiline"] == 0
    assert counts["ok"] > 0 and counts["error"] > 0  # both paths were exercised


def mutate_compressed(rng: random.Random, blob: bytes) -> bytes:
    """A mutant aimed at a compressed debug section: its header's claimed size or type, its
    stream's bytes, or the section's header (size, type NOBITS)."""
    from elfpatch import SHT_NOBITS, sections

    secs = [s for s in sections(blob) if s.name.startswith((".debug_", ".zdebug_")) and s.size >= 12]
    if not secs:
        return mutate_binary(rng, blob)
    sec = rng.choice(secs)
    b = bytearray(blob)
    how = rng.randrange(4)
    if how == 0:  # the decompressed size it claims (gABI: ch_size at 8; GNU: 8 bytes after "ZLIB")
        at = sec.offset + (4 if sec.name.startswith(".zdebug_") else 8)
        value = rng.choice([0, 1, 1 << 30, 1 << 40, 2**64 - 1, rng.randrange(1 << 24)])
        b[at : at + 8] = value.to_bytes(8, "big" if sec.name.startswith(".zdebug_") else "little")
    elif how == 1:  # the compression type
        b[sec.offset : sec.offset + 4] = struct.pack("<I", rng.choice([0, 2, 3, 0xFFFFFFFF]))
    elif how == 2:  # the stream
        for _ in range(rng.randint(1, 8)):
            b[sec.offset + 12 + rng.randrange(sec.size - 12)] ^= 1 << rng.randrange(8)
    else:  # the section header: NOBITS with a huge size, or a size past the file
        size = rng.choice([1 << 31, 2**63, len(blob)])
        struct.pack_into("<I", b, sec.header_at + 4, SHT_NOBITS if rng.random() < 0.5 else 1)
        struct.pack_into("<Q", b, sec.header_at + 0x20, size)
    return bytes(b)


def test_fuzz_cli_compressed(built: tuple[Path, Path], tmp_path: Path) -> None:
    """Issue 22: the binary's debug sections compressed (gABI zlib and GNU .zdebug), mutated."""
    if shutil.which("objcopy") is None:
        pytest.skip("objcopy not installed")
    binary, gmon = built
    rng = random.Random(SEED)
    jobs: list[dict[str, object]] = []
    for style in ("zlib-gabi", "zlib-gnu"):
        packed = tmp_path / f"prog-{style}"
        r = subprocess.run(["objcopy", f"--compress-debug-sections={style}", str(binary), str(packed)])
        if r.returncode != 0:
            continue
        blob = packed.read_bytes()
        for k in range(N_COMPRESSED):
            p = tmp_path / f"{style}-{k}"
            p.write_bytes(mutate_compressed(rng, blob) if k % 3 else mutate_binary(rng, blob))
            jobs.append({"argv": command(k, str(p), [str(gmon)], str(gmon)), "cwd": str(tmp_path)})
    if not jobs:
        pytest.skip("objcopy compresses no debug sections here")
    counts = run_jobs(jobs, tmp_path)
    print(f"\nfuzz CLI, compressed sections: {len(jobs)} inputs: {dict(counts)}")
    assert counts["crash"] == counts["hang"] == counts["traceback"] == counts["multiline"] == 0
    assert counts["ok"] > 0
