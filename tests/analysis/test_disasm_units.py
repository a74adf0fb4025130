"""The disassembly's pure parts: objdump's spelling of capstone's text (cases taken from objdump
2.40's output), and the per-instruction credit adding up to gprof's routine credit."""

from __future__ import annotations

import pytest

from gmonlens.common.model import HistogramRecord
from gmonlens.disasm.asmtext import objdump_text
from gmonlens.disasm.listing import credit
from gmonlens.profile.histogram import assign_samples


@pytest.mark.parametrize(
    ("arch", "mnemonic", "ops", "raw", "flags", "want"),
    [
        ("x64", "movq", "%rsp, %rbp", "4889e5", (), "mov %rsp,%rbp"),
        ("x64", "subq", "$8, %rsp", "4883ec08", (), "sub $0x8,%rsp"),
        ("x64", "callq", "0x10b0", "e8d7ffffff", (), "call 10b0"),
        ("x64", "retq", "", "c3", (), "ret"),
        (
            "x64",
            "nopw",
            "%cs:(%rax, %rax)",
            "662e0f1f840000000000",
            (True, False),
            "cs nopw 0x0(%rax,%rax,1)",
        ),
        ("x64", "nop", "", "6690", (), "xchg %ax,%ax"),
        ("x64", "sarq", "$1, %rsi", "48d1fe", (), "sar %rsi"),
        (
            "x64",
            "movabsq",
            "$0x4ec4ec4ec4ec4ec5, %rsi",
            "48bec54eecc44eecc44e",
            (),
            "movabs $0x4ec4ec4ec4ec4ec5,%rsi",
        ),
        ("x86", "movl", "$0xbb8, -0x1c(%ebp)", "c745e4b80b0000", (), "movl $0xbb8,-0x1c(%ebp)"),
        ("x86", "leal", "(%esi), %esi", "8d742600", (True, True), "lea 0x0(%esi,%eiz,1),%esi"),
        ("a64", "bl", "#0x850", "", (), "bl 850"),
        ("a64", "ldp", "x29, x30, [sp], #0x20", "", (), "ldp x29, x30, [sp], #32"),
        ("a64", "mov", "x1, #0", "", (), "mov x1, #0x0"),
        ("a64", "b.lo", "#0xa48", "", (), "b.cc a48"),
        ("a64", "tbnz", "w20, #0x1f, #0xc8c", "", (), "tbnz w20, #31, c8c"),
        # seen in a static glibc program (tests/integration/test_disasm_names.py)
        ("x64", "callq", "0", "e8f6ffffff", (), "call 0"),  # capstone's decimal target
        ("x64", "callq", "0xffffffffddccbbb0", "67e8aabbccdd", (), "addr32 call ddccbbb0"),
        ("x64", "wait", "", "9b", (), "fwait"),
        ("x64", "fucompi", "%st(1)", "dfe9", (), "fucomip %st(1),%st"),
        ("x64", "fucomi", "%st(0)", "dbe8", (), "fucomi %st(0),%st"),
        ("x64", "xbegin", "6", "c7f800000000", (), "xbegin 6"),
        ("x64", "xabort", "$-1", "c6f8ff", (), "xabort $0xff"),
        ("x64", "sarxl", "%ecx, %eax, %eax", "c4e272f7c0", (), "sarx %ecx,%eax,%eax"),
        ("x64", "movbeq", "(%rdi), %rax", "480f38f007", (), "movbe (%rdi),%rax"),
        (
            "x64",
            "vpaddb",
            "%ymm17, %ymm31, %ymm17 {%k5} {z}",
            "62a105adfcc9",
            (),
            "vpaddb %ymm17,%ymm31,%ymm17{%k5}{z}",
        ),
        ("x86", "pushl", "0x804bff8", "ff35f8bf0408", (), "push 0x804bff8"),
    ],
)
def test_objdump_spelling(
    arch: str, mnemonic: str, ops: str, raw: str, flags: tuple[bool, ...], want: str
) -> None:
    assert objdump_text(arch, mnemonic, ops, "att", bytes.fromhex(raw), *flags) == want


def test_intel_spelling() -> None:
    got = objdump_text("x64", "nop", "word ptr [rax + rax]", "intel", bytes.fromhex("660f1f440000"), True)
    assert got == "nop WORD PTR [rax+rax*1+0x0]"


@pytest.mark.parametrize("scale_bins", [(0x400, 0x200), (0x400, 0x1FF), (0x400, 0x100)])
def test_instruction_credit_adds_up_to_routine_credit(scale_bins: tuple[int, int]) -> None:
    span, bins = scale_bins
    counts = tuple((i * 7) % 5 for i in range(bins))
    h = HistogramRecord(0x1000, 0x1000 + span, counts, 100)
    routines = [0x1000, 0x1040, 0x10C3, 0x1200, 0x1400]
    whole, _ = assign_samples([h], routines, [True] * len(routines))
    for j in range(len(routines) - 1):
        lo, hi = routines[j], routines[j + 1]
        starts = list(range(lo, hi, 3))
        parts = credit([h], starts, hi, True)
        assert sum(parts) == pytest.approx(whole[j], abs=1e-9)
    assert credit([h], [0x1000, 0x1003], 0x1040, False) == [0.0, 0.0]


@pytest.mark.parametrize(
    ("syntax", "code", "want"),
    [
        # objdump 2.40 -D -b binary -m i386:x86-64 --adjust-vma=0x1000, each at 0x1000
        ("att", "3eff14c500100000", ("notrack call *0x1000(,%rax,8)", "call")),
        ("intel", "3eff14c500100000", ("notrack call QWORD PTR [rax*8+0x1000]", "call")),
        ("att", "3effd0", ("notrack call *%rax", "call")),
        ("att", "3eff20", ("notrack jmp *(%rax)", "jump")),
        ("att", "f2e800010000", ("bnd call 1106", "call")),
        ("att", "f2c3", ("bnd ret", "return")),
    ],
)
def test_cet_and_mpx_prefixed_branches(syntax: str, code: str, want: tuple[str, str]) -> None:
    """`notrack` (CET, -fcf-protection) and `bnd` prefixed calls are calls, spelt as objdump does."""
    pytest.importorskip("capstone")
    from gmonlens.disasm.listing import Decoder

    (insn,) = Decoder("EM_X86_64", syntax).decode(bytes.fromhex(code), 0x1000)
    assert (insn.text, insn.kind) == want
