"""objdump's names of addresses (binary/address_names.py), on hand-made symbols and PLT bytes;
tests/integration/test_disasm_names.py holds them against objdump -d on real programs."""

from __future__ import annotations

import struct

from gmonlens.binary.address_names import (
    EM_386,
    EM_AARCH64,
    EM_X86_64,
    AddressNames,
    Named,
    plt_names,
)

FUNC_GLOBAL, FUNC_WEAK, FUNC_LOCAL, NOTYPE_GLOBAL, IFUNC_GLOBAL = (0, 0), (0, 1), (0, 2), (2, 0), (3, 0)


def _named(address: int, name: str, kind: tuple[int, int], size: int = 0) -> Named:
    return Named(address, name, (*kind, -size))


def test_preferred_name_at_one_address() -> None:
    names = AddressNames.of(
        [
            _named(0x100, "free", FUNC_GLOBAL, 255),
            _named(0x100, "__free", FUNC_GLOBAL, 255),  # the smaller name
            _named(0x200, "gsignal", FUNC_WEAK, 49),
            _named(0x200, "raise", FUNC_GLOBAL, 49),  # global before weak
            _named(0x300, "_r_debug", FUNC_GLOBAL, 40),
            _named(0x300, "_r_debug_extended", FUNC_GLOBAL, 48),  # the larger
            _named(0x400, "_edata", NOTYPE_GLOBAL),
            _named(0x400, "__TMC_END__", FUNC_GLOBAL),  # typed before untyped
            _named(0x500, "__new_memcpy", IFUNC_GLOBAL, 246),
            _named(0x500, "__new_memcpy_ifunc", FUNC_LOCAL, 246),  # IFUNC last
        ]
    )
    assert [names(a) for a in (0x100, 0x200, 0x300, 0x400, 0x500)] == [
        "__free",
        "raise",
        "_r_debug_extended",
        "__TMC_END__",
        "__new_memcpy_ifunc",
    ]
    assert names(0x10F) == "__free+0xf"
    assert names(0xFF) is None


def test_relocated_slots_named_at_their_address_only() -> None:
    names = AddressNames.of(
        [
            _named(0x3FE8, "_GLOBAL_OFFSET_TABLE_", NOTYPE_GLOBAL),
            _named(0x4000, "aSyscall", FUNC_LOCAL, 0x300),
        ],
        {0x3FD0: "mcount@GLIBC_2.2.5", 0x4018: "mremap@GLIBC_2.2.5"},
    )
    assert names(0x3FD0) == "mcount@GLIBC_2.2.5"
    assert names(0x3FF0) == "_GLOBAL_OFFSET_TABLE_+0x8"
    assert names(0x4018) == "mremap@GLIBC_2.2.5"
    assert names(0x4030) == "aSyscall+0x30"  # not mremap@...+0x18


def _x64_jmp(at: int, slot: int, prefix: bytes = b"") -> bytes:
    size = len(prefix) + 6
    return prefix + b"\xff\x25" + struct.pack("<i", slot - (at + size))


def test_x86_64_plt_entries() -> None:
    slots = {0x4000: "stpcpy", 0x4008: "puts", 0x3FC0: "mcount"}
    # lazy .plt: PLT0 (push; jmp *GOT+16), then jmp *slot; push n; jmp PLT0
    plt0 = b"\xff\x35" + b"\0" * 4 + _x64_jmp(0x1026, 0x3FF8) + b"\x0f\x1f\x40\x00"
    entry = _x64_jmp(0x1030, 0x4000) + b"\x68\0\0\0\0" + b"\xe9\0\0\0\0"
    # .plt.sec with IBT: endbr64; bnd jmp *slot; nop
    sec = b"\xf3\x0f\x1e\xfa" + _x64_jmp(0x1084, 0x4008, b"\xf2") + b"\x0f\x1f\x44\x00\x00"
    # .plt.got: jmp *slot; xchg %ax,%ax
    got = _x64_jmp(0x10A0, 0x3FC0) + b"\x66\x90"
    found = plt_names(
        EM_X86_64,
        [(".plt", 0x1020, plt0 + entry), (".plt.sec", 0x1080, sec), (".plt.got", 0x10A0, got)],
        slots,
    )
    assert {(n.address, n.name) for n in found} == {
        (0x1030, "stpcpy@plt"),
        (0x1080, "puts@plt"),
        (0x10A0, "mcount@plt"),
    }


def test_i386_plt_entries() -> None:
    slots = {0x804C00C: "puts", 0x4010: "printf"}
    absolute = b"\xff\x25" + struct.pack("<I", 0x804C00C) + b"\x68\0\0\0\0"
    pic = b"\xff\xa3" + struct.pack("<i", 0x10) + b"\x68\0\0\0\0"  # jmp *0x10(%ebx), %ebx = .got.plt
    assert [(n.address, n.name) for n in plt_names(EM_386, [(".plt", 0x8049030, absolute)], slots)] == [
        (0x8049030, "puts@plt")
    ]
    assert [(n.address, n.name) for n in plt_names(EM_386, [(".plt", 0x1040, pic)], slots, got=0x4000)] == [
        (0x1040, "printf@plt")
    ]


def test_aarch64_plt_entries() -> None:
    # 0x810: adrp x16, 0x20000; ldr x17, [x16, #48]; add x16, x16, #0x30; br x17
    pc, page = 0x810, 0x20000
    imm = (page - (pc & ~0xFFF)) >> 12
    adrp = 0x90000010 | ((imm & 3) << 29) | ((imm >> 2) << 5)
    ldr = 0xF9400211 | ((48 // 8) << 10)
    code = struct.pack("<4I", adrp, ldr, 0x9100C210, 0xD61F0220)
    found = plt_names(EM_AARCH64, [(".plt", pc, code)], {page + 48: "puts"})
    assert [(n.address, n.name) for n in found] == [(pc, "puts@plt")]
