"""`gmonlens disasm` on every Linux target of issue 31 (ARM Thumb-2, A32 and ARMv5TE, RISC-V 64,
ppc64le, ppc64 ELFv1, ppc32, s390x, mips64el, mips): every instruction of `.text` spelt as the
target's own objdump -d spells it, and every listing checked against the target's gprof as x86's
are (tests/disasm_oracle.py: instructions add up to gprof's self seconds, line runs to `gprof -l`,
call instructions to the call graph's arcs, callee by callee). Builds are shared with
test_targets.py (same programs, session workshop)."""

from __future__ import annotations

import re
import subprocess

import pytest
from gprof_harness import Built, Workshop, gprof
from test_targets import OPT2, RECURSION, TARGETS

from disasm_oracle import check_program

PROGRAMS = {"recursion": RECURSION, "opt2": OPT2}
CASES = [pytest.param(t, p, id=f"{t}-{p}") for t in TARGETS for p in PROGRAMS]


def objdump_texts(tool: str, binary: str, arm: bool) -> dict[int, str]:
    """address -> `mnemonic operands` as objdump -d prints .text (comments, `<symbol>` dropped;
    ARM comments start with `@`, where `#` is an immediate's)."""
    argv = [tool, "-d", "-w", "--no-show-raw-insn", "-j", ".text", binary]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    comment = re.compile(r"\s+@.*$" if arm else r"\s+#.*$")
    texts = {}
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\t(.*)$", line)
        if m:
            text = re.sub(r"\s+<[^>]*>$", "", comment.sub("", m[2]))
            texts[int(m[1], 16)] = " ".join(text.split())
    return texts


def spelling_differences(binary: str, objdump: str) -> tuple[int, list[tuple[str, str, str]]]:
    """(instructions decoded, those whose text differs from objdump's) over `.text`."""
    from binaries import read_image
    from gmonlens.disasm.listing import Decoder

    image = read_image(binary)
    arm = image.machine == "EM_ARM"
    decoder = Decoder(
        image.machine, wide=image.address_size == 8, little=image.little_endian, mapping=image.arm_mapping
    )
    text = next(c for c in image.code_sections if c.name == ".text")
    want = objdump_texts(objdump, binary, arm)
    got = decoder.decode(text.data, text.address)
    # objdump shows a run of zero bytes as `...` (no address): those are not compared
    differ = [(hex(d.address), " ".join(d.text.split()), want[d.address]) for d in got
              if d.address in want and want[d.address] != " ".join(d.text.split())]  # fmt: skip
    return len(got), differ


@pytest.mark.parametrize(("target", "program"), CASES)
def test_objdump_spelling(workshop: Workshop, target: str, program: str) -> None:
    t = TARGETS[target]
    b = workshop.get(PROGRAMS[program], t)
    decoded, differ = spelling_differences(str(b.binary), t.tool("objdump"))
    assert decoded > 200 and not differ, differ[:10]


def _gprof(b: Built, *opts: str) -> str:
    out = gprof(b.target, ["-b", *opts, str(b.binary), str(b.gmon["out"])], b.dir)
    assert out.returncode == 0, out.err
    return out.stdout.decode(errors="replace")


@pytest.mark.parametrize(("target", "program"), CASES)
def test_listings_add_up_to_gprof(workshop: Workshop, target: str, program: str) -> None:
    b = workshop.get(PROGRAMS[program], TARGETS[target])
    checked, problems = check_program(
        str(b.binary), [str(b.gmon["out"])], _gprof(b, "-p"), _gprof(b, "-l", "-p"), _gprof(b, "-q")
    )
    assert checked > 0
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("target", ["mips", "armhf", "riscv64", "s390x", "ppc64le"])
def test_call_counts_on_call_instructions(workshop: Workshop, target: str) -> None:
    """The calls gprof counts sit on the target's call instructions (`jalr`/`bal`, `bl`, `jal`,
    `brasl`), with their counts."""
    from gprof_harness import GMONLENS, gmonlens_env

    from disasm_oracle import run_json

    b = workshop.get(RECURSION, TARGETS[target])
    doc = run_json(str(GMONLENS), ["main", str(b.binary), str(b.gmon["out"])], gmonlens_env())
    calls = {c["callee"]: (i["text"].split()[0], c["count"]) for i in doc["instructions"] for c in i["calls"]}
    mnemonics = {"mips": ("jalr", "bal"), "armhf": ("bl",), "riscv64": ("jal",), "s390x": ("brasl",),
                 "ppc64le": ("bl",)}[target]  # fmt: skip
    assert calls["middle"] == (calls["middle"][0], 8000) and calls["middle"][0] in mnemonics, calls
    assert calls["fact"][1] == 8000 and calls["even"][1] == 8000, calls
