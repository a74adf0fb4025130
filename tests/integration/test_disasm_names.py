"""The disassembly's instruction text against GNU objdump -d, names included (issue 27 item 9):
calls through the PLT (`call 1030 <stpcpy@plt>`), RIP-relative operands with objdump's comment
(`call *0x2d61(%rip)        # 3fd0 <mcount@GLIBC_2.2.5>`, `lea 0x2e0a(%rip),%rbx        # 4080
<buf>`), every branch target's `<symbol+0xoff>`, AArch64's `adrp x16, 20000 <...>`; on PIE and
non-PIE -O2 programs, -fno-plt, C++, a static glibc program (its many aliases at one address),
i386 (PIC and not) and AArch64. x86: byte for byte, the mnemonic padded as objdump pads it;
AArch64 (objdump puts a tab after the mnemonic): with whitespace runs made one space, and
without objdump's `//` comments (`mov w0, #0x3 // #3`, `b.ne 8c8 <f+0x48> // b.any`), which
the listing does not write."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from gprof_harness import PROGRAMS_DIR

from binaries import open_elf, read_image
from gmonlens.binary.address_names import read_address_names
from gmonlens.disasm.listing import Decoder
from gmonlens.disasm.render import annotated, objdump_line

C_SOURCE = r"""#include <stdio.h>
#include <string.h>
#include <stdlib.h>
int counter;
static char buf[64];
int (*fp)(const char *);
__attribute__((noinline)) int work(const char *s) { strcpy(buf, s); counter += strlen(buf); return puts(buf); }
int main(int argc, char **argv) {
    fp = puts;
    for (int i = 0; i < 3; i++) work(argc > 1 ? argv[1] : "hello");
    fp("x");
    printf("%d\n", counter);
    return 0;
}
"""
# (compiler, flags, objdump, machine); each built with -pg -g
BUILDS = {
    "pie-O2": ("gcc", ("-O2",), "objdump", "EM_X86_64"),
    "nopie-O2": ("gcc", ("-O2", "-no-pie"), "objdump", "EM_X86_64"),
    "noplt-O2": ("gcc", ("-O2", "-fno-plt"), "objdump", "EM_X86_64"),
    "cet-O2": ("gcc", ("-O2", "-fcf-protection=full", "-Wl,-z,ibtplt"), "objdump", "EM_X86_64"),
    "O0": ("gcc", ("-O0",), "objdump", "EM_X86_64"),
    "static-O2": ("gcc", ("-O2", "-static"), "objdump", "EM_X86_64"),
    "cxx-O2": ("g++", ("-O2",), "objdump", "EM_X86_64"),
    "i686-O2": ("i686-linux-gnu-gcc", ("-O2",), "i686-linux-gnu-objdump", "EM_386"),
    "i686-nopie-O2": ("i686-linux-gnu-gcc", ("-O2", "-no-pie"), "i686-linux-gnu-objdump", "EM_386"),
    "aarch64-O2": ("aarch64-linux-gnu-gcc", ("-O2",), "aarch64-linux-gnu-objdump", "EM_AARCH64"),
}


def _build(tmp_path: Path, case: str) -> tuple[Path, str, str]:
    cc, flags, objdump, machine = BUILDS[case]
    for tool in (cc, objdump):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not installed")
    if cc == "g++":
        source = PROGRAMS_DIR / "shapes.cpp"
    else:
        source = tmp_path / "p.c"
        source.write_text(C_SOURCE)
    exe = tmp_path / "prog"
    proc = subprocess.run(
        [cc, "-pg", "-g", *flags, "-o", str(exe), str(source)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        if "-static" in flags or "ibtplt" in " ".join(flags):
            pytest.skip(f"cannot build {case}: {proc.stderr.strip()[:200]}")
        pytest.fail(proc.stderr)
    return exe, objdump, machine


def _objdump(tool: str, exe: Path) -> dict[int, str]:
    """address -> instruction text as objdump -d -w prints it (after the address's tab)."""
    out = subprocess.run(
        [tool, "-d", "-w", "--no-show-raw-insn", str(exe)], capture_output=True, text=True, check=True
    ).stdout
    texts = {}
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\t(.*)$", line)
        if m:
            texts[int(m[1], 16)] = m[2].rstrip()
    return texts


@pytest.mark.parametrize("case", list(BUILDS))
def test_instruction_text_is_objdumps(tmp_path: Path, case: str) -> None:
    exe, tool, machine = _build(tmp_path, case)
    want = _objdump(tool, exe)
    image = read_image(str(exe))
    with open_elf(str(exe)) as elf:
        names = read_address_names(elf)
    decoder = Decoder(machine)
    wide = machine == "EM_AARCH64"
    differ = []
    checked = named = 0
    for section in image.code_sections:
        for d in decoder.decode(section.data, section.address):
            expected = want.get(d.address)
            if expected is None or expected.startswith(("(bad)", ".byte", ".word", ".inst")):
                continue
            got = objdump_line(annotated(d.text, d.target, d.ref, names))
            if wide:  # objdump's `// #3` and `// b.any` comments are not written (README)
                expected, got = " ".join(re.split(r"\s//", expected)[0].split()), " ".join(got.split())
            checked += 1
            named += "<" in expected
            if got != expected:
                differ.append((hex(d.address), got, expected))
    assert checked > 100 and named > 10
    assert not differ, f"{len(differ)} of {checked} differ: {differ[:12]}"


def test_plt_calls_of_a_routine_listing(tmp_path: Path) -> None:
    """`gmonlens disasm work`: the listing shows the PLT calls and the mcount comment."""
    from gprof_harness import GMONLENS, gmonlens_env

    exe, _tool, _machine = _build(tmp_path, "pie-O2")
    subprocess.run([str(exe)], cwd=tmp_path, check=True, stdout=subprocess.DEVNULL)
    res = subprocess.run(
        [str(GMONLENS), "disasm", "work", str(exe), "gmon.out"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=gmonlens_env(),
    )
    assert res.returncode == 0, res.stderr
    assert re.search(r"call   [0-9a-f]+ <stpcpy@plt>", res.stdout), res.stdout
    assert re.search(r"call   \*0x[0-9a-f]+\(%rip\)        # [0-9a-f]+ <mcount@GLIBC_2\.2\.5>", res.stdout)
    assert re.search(r"jmp    [0-9a-f]+ <puts@plt>", res.stdout)
