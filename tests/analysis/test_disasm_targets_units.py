"""Each architecture's spelling of instructions as its objdump -d prints them (disasm/isa.py,
spell_*.py), on instructions taken from gcc -O2 code of each target with the text the target's
objdump 2.40 printed for them (recorded once; the integration tests compare whole programs).
No toolchain needed: capstone only."""

from __future__ import annotations

import pytest

from gmonlens.disasm.listing import Decoder
from gmonlens.profile.call_sites import other_calls

# (machine[/ARM mode], ELFCLASS64, little-endian, address, bytes, objdump's text)
CASES = [
    # riscv64: riscv64-linux-gnu-objdump
    ("EM_RISCV", True, True, 0x890, "4111", "add sp,sp,-16"),
    ("EM_RISCV", True, True, 0x892, "06e4", "sd ra,8(sp)"),
    ("EM_RISCV", True, True, 0x896, "2a84", "mv s0,a0"),
    ("EM_RISCV", True, True, 0x89A, "eff07ffe", "jal 880"),
    ("EM_RISCV", True, True, 0x89E, "97170000", "auipc a5,0x1"),
    ("EM_RISCV", True, True, 0x8A2, "83b7277e", "ld a5,2018(a5)"),
    ("EM_RISCV", True, True, 0x8B8, "a1b7", "j 800"),
    ("EM_RISCV", True, True, 0x8DA, "0569", "lui s2,0x1"),
    ("EM_RISCV", True, True, 0x8DC, "8547", "li a5,1"),
    ("EM_RISCV", True, True, 0x8E2, "63d98700", "bge a5,s0,8f4"),
    ("EM_RISCV", True, True, 0x8F0, "1b090500", "sext.w s2,a0"),
    ("EM_RISCV", True, True, 0x90A, "3be7c602", "remw a4,a3,a2"),
    ("EM_RISCV", True, True, 0x910, "fd26", "addw a3,a3,31"),
    ("EM_RISCV", True, True, 0x916, "e39ab7fe", "bne a5,a1,90a"),
    # armhf-t2: arm-linux-gnueabihf-objdump
    ("EM_ARM/t", False, True, 0x568, "18b4", "push {r3, r4}"),
    ("EM_ARM/t", False, True, 0x56C, "fff7f0ef", "blx 550"),
    ("EM_ARM/t", False, True, 0x570, "054b", "ldr r3, [pc, #20]"),
    ("EM_ARM/t", False, True, 0x572, "0246", "mov r2, r0"),
    ("EM_ARM/t", False, True, 0x576, "7b44", "add r3, pc"),
    ("EM_ARM/t", False, True, 0x580, "18bc", "pop {r3, r4}"),
    ("EM_ARM/t", False, True, 0x582, "fff7d5bf", "b.w 530"),
    ("EM_ARM/t", False, True, 0x586, "00bf", "nop"),
    ("EM_ARM/t", False, True, 0x594, "2de9f84f", "stmdb sp!, {r3, r4, r5, r6, r7, r8, r9, sl, fp, lr}"),
    ("EM_ARM/t", False, True, 0x59E, "0128", "cmp r0, #1"),
    ("EM_ARM/t", False, True, 0x5A0, "d8bf", "it le"),
    ("EM_ARM/t", False, True, 0x5A6, "05dd", "ble.n 5b4"),
    ("EM_ARM/t", False, True, 0x5AA, "0a22", "movs r2, #10"),
    # armel: arm-linux-gnueabi-objdump
    ("EM_ARM/a", False, True, 0x558, "04e02de5", "push {lr}"),
    ("EM_ARM/a", False, True, 0x55C, "f7ffffeb", "bl 540"),
    ("EM_ARM/a", False, True, 0x560, "1c309fe5", "ldr r3, [pc, #28]"),
    ("EM_ARM/a", False, True, 0x568, "03308fe0", "add r3, pc, r3"),
    ("EM_ARM/a", False, True, 0x56C, "0020a0e1", "mov r2, r0"),
    ("EM_ARM/a", False, True, 0x580, "e8ffffea", "b 528"),
    ("EM_ARM/a", False, True, 0x59C, "010050e3", "cmp r0, #1"),
    ("EM_ARM/a", False, True, 0x5A0, "48419fd5", "ldrle r4, [pc, #328]"),
    ("EM_ARM/a", False, True, 0x5A4, "040000da", "ble 5bc"),
    ("EM_ARM/a", False, True, 0x5D0, "041041e2", "sub r1, r1, #4"),
    ("EM_ARM/a", False, True, 0x5D8, "9e32c0e0", "smull r3, r0, lr, r2"),
    ("EM_ARM/a", False, True, 0x5DC, "c23fa0e1", "asr r3, r2, #31"),
    ("EM_ARM/a", False, True, 0x5E0, "c03163e0", "rsb r3, r3, r0, asr #3"),
    ("EM_ARM/a", False, True, 0x5F0, "0430a1e5", "str r3, [r1, #4]!"),
    # ppc64le: powerpc64le-linux-gnu-objdump
    ("EM_PPC64", True, True, 0x7A0, "180041f8", "std r2,24(r1)"),
    ("EM_PPC64", True, True, 0x7A4, "288182e9", "ld r12,-32472(r2)"),
    ("EM_PPC64", True, True, 0x7A8, "a603897d", "mtctr r12"),
    ("EM_PPC64", True, True, 0x7AC, "2004804e", "bctr"),
    ("EM_PPC64", True, True, 0x8E0, "02004c3c", "addis r2,r12,2"),
    ("EM_PPC64", True, True, 0x8E4, "20764238", "addi r2,r2,30240"),
    ("EM_PPC64", True, True, 0x8E8, "a602087c", "mflr r0"),
    ("EM_PPC64", True, True, 0x8F0, "781b7f7c", "mr r31,r3"),
    ("EM_PPC64", True, True, 0x8F8, "91ff21f8", "stdu r1,-112(r1)"),
    ("EM_PPC64", True, True, 0x8FC, "e5feff4b", "bl 7e0"),
    ("EM_PPC64", True, True, 0x904, "00000060", "nop"),
    ("EM_PPC64", True, True, 0x930, "a603087c", "mtlr r0"),
    ("EM_PPC64", True, True, 0x934, "2000804e", "blr"),
    ("EM_PPC64", True, True, 0x974, "b80b803b", "li r28,3000"),
    # ppc32: powerpc-linux-gnu-objdump
    ("EM_PPC", False, False, 0x660, "7c0802a6", "mflr r0"),
    ("EM_PPC", False, False, 0x664, "90010004", "stw r0,4(r1)"),
    ("EM_PPC", False, False, 0x668, "4800099d", "bl 1004"),
    ("EM_PPC", False, False, 0x66C, "9421fff0", "stwu r1,-16(r1)"),
    ("EM_PPC", False, False, 0x674, "429f0005", "bcl 20,4*cr7+so,678"),
    ("EM_PPC", False, False, 0x678, "7c651b78", "mr r5,r3"),
    ("EM_PPC", False, False, 0x684, "3fde0002", "addis r30,r30,2"),
    ("EM_PPC", False, False, 0x68C, "3bde7850", "addi r30,r30,30800"),
    ("EM_PPC", False, False, 0x690, "813e8010", "lwz r9,-32752(r30)"),
    ("EM_PPC", False, False, 0x69C, "4cc63182", "crclr 4*cr1+eq"),
    ("EM_PPC", False, False, 0x6B0, "7c0803a6", "mtlr r0"),
    ("EM_PPC", False, False, 0x6B4, "4e800020", "blr"),
    ("EM_PPC", False, False, 0x6B8, "60000000", "nop"),
    ("EM_PPC", False, False, 0x6D8, "2c030001", "cmpwi r3,1"),
    # s390x: s390x-linux-gnu-objdump
    ("EM_S390", True, False, 0x978, "e3e0f0080024", "stg %r14,8(%r15)"),
    ("EM_S390", True, False, 0x97E, "c0e5ffffffcd", "brasl %r14,918"),
    ("EM_S390", True, False, 0x984, "e3e0f0080004", "lg %r14,8(%r15)"),
    ("EM_S390", True, False, 0x98A, "c41800001323", "lgrl %r1,2fd0"),
    ("EM_S390", True, False, 0x990, "b9040042", "lgr %r4,%r2"),
    ("EM_S390", True, False, 0x994, "c03000000399", "larl %r3,10c6"),
    ("EM_S390", True, False, 0x9A0, "c0f4ffffff9c", "jg 8d8"),
    ("EM_S390", True, False, 0x9A6, "0707", "nopr %r7"),
    ("EM_S390", True, False, 0x9BA, "eb6ff0300024", "stmg %r6,%r15,48(%r15)"),
    ("EM_S390", True, False, 0x9C0, "e3f0ff60ff71", "lay %r15,-160(%r15)"),
    ("EM_S390", True, False, 0x9C6, "a72e0001", "chi %r2,1"),
    ("EM_S390", True, False, 0x9CA, "a72400ab", "jh b20"),
    ("EM_S390", True, False, 0x9CE, "a7b80bb8", "lhi %r11,3000"),
    ("EM_S390", True, False, 0x9D2, "c02e51d07eae", "llihf %r2,1372618414"),
    # mips: mips-linux-gnu-objdump
    ("EM_MIPS", False, False, 0x7C0, "3c1c0002", "lui gp,0x2"),
    ("EM_MIPS", False, False, 0x7C4, "279c8a20", "addiu gp,gp,-30176"),
    ("EM_MIPS", False, False, 0x7C8, "0399e021", "addu gp,gp,t9"),
    ("EM_MIPS", False, False, 0x7D0, "afbc0000", "sw gp,0(sp)"),
    ("EM_MIPS", False, False, 0x7D4, "03e00825", "move at,ra"),
    ("EM_MIPS", False, False, 0x7DC, "8f99806c", "lw t9,-32660(gp)"),
    ("EM_MIPS", False, False, 0x7E0, "0320f809", "jalr t9"),
    ("EM_MIPS", False, False, 0x7E4, "00000000", "nop"),
    ("EM_MIPS", False, False, 0x804, "03200008", "jr t9"),
    ("EM_MIPS", False, False, 0x860, "28840002", "slti a0,a0,2"),
    ("EM_MIPS", False, False, 0x864, "1080006d", "beqz a0,a1c"),
    ("EM_MIPS", False, False, 0x86C, "24160bb8", "li s6,3000"),
    ("EM_MIPS", False, False, 0x888, "00860018", "mult a0,a2"),
    ("EM_MIPS", False, False, 0x88C, "000417c3", "sra v0,a0,0x1f"),
    # mips64el: mips64el-linux-gnuabi64-objdump
    ("EM_MIPS", True, True, 0xC60, "f0ffbd67", "daddiu sp,sp,-16"),
    ("EM_MIPS", True, True, 0xC64, "0000bcff", "sd gp,0(sp)"),
    ("EM_MIPS", True, True, 0xC68, "02001c3c", "lui gp,0x2"),
    ("EM_MIPS", True, True, 0xC6C, "2de09903", "daddu gp,gp,t9"),
    ("EM_MIPS", True, True, 0xC78, "2508e003", "move at,ra"),
    ("EM_MIPS", True, True, 0xC7C, "c88099df", "ld t9,-32568(gp)"),
    ("EM_MIPS", True, True, 0xC80, "09f82003", "jalr t9"),
    ("EM_MIPS", True, True, 0xC84, "00000000", "nop"),
    ("EM_MIPS", True, True, 0xCAC, "0800e003", "jr ra"),
    ("EM_MIPS", True, True, 0xD04, "02008428", "slti a0,a0,2"),
    ("EM_MIPS", True, True, 0xD08, "6f008010", "beqz a0,ec8"),
    ("EM_MIPS", True, True, 0xD10, "b80b1524", "li s5,3000"),
    ("EM_MIPS", True, True, 0xD38, "1c006600", "dmult v1,a2"),
    ("EM_MIPS", True, True, 0xD3C, "c32f0300", "sra a1,v1,0x1f"),
]


@pytest.mark.parametrize(
    ("machine", "wide", "little", "address", "raw", "text"), CASES, ids=[f"{c[0]}-{c[5]}" for c in CASES]
)
def test_instruction_as_objdump_spells_it(
    machine: str, wide: bool, little: bool, address: int, raw: str, text: str
) -> None:
    machine, _, mode = machine.partition("/")
    decoder = Decoder(machine, wide=wide, little=little, mapping=((0, mode),) if mode else ())
    (insn, *_rest) = decoder.decode(bytes.fromhex(raw), address)
    assert insn.size == len(raw) // 2
    assert " ".join(insn.text.split()) == text


def test_arm_mapping_symbols_switch_modes_and_mark_data() -> None:
    """A32, then Thumb, then a literal pool word: each decoded as its mapping symbol says."""
    code = bytes.fromhex("04e02de5024600007c1a0000")
    decoder = Decoder("EM_ARM", wide=False, mapping=((0x100, "a"), (0x104, "t"), (0x108, "d")))
    got = [(d.address, " ".join(d.text.split())) for d in decoder.decode(code, 0x100)]
    assert got == [
        (0x100, "push {lr}"),
        (0x104, "mov r2, r0"),
        (0x106, "movs r0, r0"),
        (0x108, ".word 0x00001a7c"),
    ]


@pytest.mark.parametrize(
    ("machine", "wide", "little", "raw", "want"),
    [
        ("EM_RISCV", True, True, "eff07ffe8297", [(0x1000, 0x1004, 0xFE6), (0x1004, 0x1006, None)]),
        (
            "EM_MIPS",
            False,
            False,
            "0320f8090000000004110003",
            [(0x1000, 0x1008, None), (0x1008, 0x1010, 0x1018)],
        ),
        ("EM_S390", True, False, "c0e5ffffffe40de1", [(0x1000, 0x1006, 0xFC8), (0x1006, 0x1008, None)]),
        ("EM_PPC64", True, True, "b9ffff4b2104804e", [(0x1000, 0x1004, 0xFB8), (0x1004, 0x1008, None)]),
    ],
    ids=["riscv", "mips", "s390x", "ppc64le"],
)
def test_calls_and_their_return_addresses(
    machine: str, wide: bool, little: bool, raw: str, want: list[tuple[int, int, int | None]]
) -> None:
    """jal/jalr (ra), jalr/bal returning past the delay slot, brasl/basr, bl/bctrl."""
    assert other_calls(machine, bytes.fromhex(raw), 0x1000, wide, little, ()) == want
