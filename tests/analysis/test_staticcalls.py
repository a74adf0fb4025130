"""Unit tests of the static call scanner on hand-assembled machine code."""

from __future__ import annotations

import struct

import pytest

from gmonlens.common.errors import GmonlensError
from gmonlens.common.model import CodeSection
from gmonlens.profile import static_calls as staticcalls
from gmonlens.profile.static_calls import StaticCallsUnsupported, find_static_calls

NOP, RET = b"\x90", b"\xc3"


def call(at: int, target: int) -> bytes:
    """x86 `call rel32` placed at address `at`."""
    return b"\xe8" + struct.pack("<i", target - (at + 5))


def layout(base: int, routines: list[bytes]) -> tuple[CodeSection, list[int], list[int]]:
    """Routines packed back to back in `.text` at `base`; returns the section, starts and ends."""
    starts, data = [], b""
    for body in routines:
        starts.append(base + len(data))
        data += body
    ends = [*(s - 1 for s in starts[1:]), base + len(data) - 1]
    return CodeSection(".text", base, data), starts, ends


def x86(base: int, bodies: list[bytes], machine: str = "EM_X86_64", **kw: object) -> list[tuple[int, int]]:
    sec, starts, ends = layout(base, bodies)
    return find_static_calls(machine, [sec], starts, ends, **kw)  # type: ignore[arg-type]


# Routines of 16 bytes each at 0x1000, 0x1010, 0x1020, ...
A, B, C, D = 0x1000, 0x1010, 0x1020, 0x1030


def pad(code: bytes) -> bytes:
    assert len(code) <= 16
    return code + NOP * (16 - len(code))


@pytest.mark.parametrize("machine", ["EM_X86_64", "EM_386"])
def test_x86_call_rel32_forward_and_backward(machine: str) -> None:
    bodies = [
        pad(b"\x55" + call(A + 1, C) + RET),  # A -> C (forward)
        pad(call(B, A) + call(B + 5, B) + RET),  # B -> A (backward), B -> B (self)
        pad(RET),
    ]
    assert x86(A, bodies, machine) == [(0, 2), (1, 0), (1, 1)]


def test_i386_backward_call_wraps_in_32_bits() -> None:
    base = 0x8049000
    bodies = [pad(RET), pad(call(base + 16, base) + RET)]
    assert x86(base, bodies, "EM_386") == [(1, 0)]


def test_x86_e8_inside_other_instructions_is_not_a_call() -> None:
    # mov eax, imm32 whose immediate starts with E8 and whose next 4 bytes point at A
    rel = (A - (C + 1 + 5)) & 0xFFFFFFFF
    imm = b"\xb8\xe8" + struct.pack("<I", rel)[:3]  # B8 E8 r0 r1 r2 ; r3 starts the next instruction
    assert struct.pack("<I", rel)[3] == 0xFF
    mov_then_inc = imm + b"\xff\xc0"  # r3=FF, then C0: `inc eax`
    # call qword ptr [rax + rbp*8 + disp32]: FF 94 E8 disp32 -- the SIB byte is E8
    sib_call = b"\xff\x94\xe8" + struct.pack("<i", A - (D + 2 + 5))
    bodies = [pad(RET), pad(RET), pad(mov_then_inc + RET), pad(sib_call + RET)]
    # the byte scan gprof does would find C -> A and D -> A here
    assert x86(A, bodies) == []


def test_x86_data_in_code_does_not_count() -> None:
    # A: ret, then data: 0x0F 0x0B is ud2; `0x48 0xB8` + 8 bytes is movabs rax, imm64, which swallows
    # an E8 whose rel32 would point at B.
    e8_at = A + 3
    fake = b"\xe8" + struct.pack("<i", B - (e8_at + 5))
    data = RET + b"\x48\xb8" + fake + b"\x00\x00\x00"
    assert x86(A, [pad(data), pad(RET)]) == []


def test_x86_invalid_bytes_are_skipped_and_decoding_resumes() -> None:
    # 0x06 is invalid in 64-bit mode; the call after it must still be found
    assert x86(A, [pad(b"\x06\x06" + call(A + 2, B) + RET), pad(RET)]) == [(0, 1)]


def test_x86_bnd_prefixed_call_counts() -> None:
    assert x86(A, [pad(b"\xf2" + call(A + 1, B) + RET), pad(RET)]) == [(0, 1)]


def test_x86_targets_that_are_not_routine_entries_are_not_arcs() -> None:
    plt = CodeSection(".plt", 0x0F00, b"\xff\x25\x00\x00\x00\x00" * 4)
    text, starts, ends = layout(A, [pad(call(A, 0x0F06) + call(A + 5, B + 1) + RET), pad(RET)])
    # _init-like routine owning the PLT, then the .text routines
    starts, ends = [0x0E00, *starts], [A - 1, *ends]
    assert find_static_calls("EM_X86_64", [plt, text], starts, ends) == []


def test_x86_indirect_calls_are_not_arcs() -> None:
    # call rax; call qword ptr [rip + disp32] (target would be a routine entry if read as rel32)
    ind = b"\xff\xd0" + b"\xff\x15" + struct.pack("<i", B - (A + 2 + 6))
    assert x86(A, [pad(ind + RET), pad(RET)]) == []


def test_only_text_is_scanned() -> None:
    init = CodeSection(".init", 0x0E00, call(0x0E00, A) + RET)
    text, starts, ends = layout(A, [pad(call(A, B) + RET), pad(RET)])
    assert find_static_calls("EM_X86_64", [init, text], [0x0E00, *starts], [A - 1, *ends]) == [(1, 2)]


def test_scan_order_callers_by_address_sites_ascending_with_repeats() -> None:
    bodies = [
        pad(call(A, C) + call(A + 5, B) + call(A + 10, C) + RET),
        pad(call(B, A) + RET),
        pad(RET),
    ]
    assert x86(A, bodies) == [(0, 2), (0, 1), (0, 2), (1, 0)]


def test_pc_ranges_clip_callers_and_callees() -> None:
    bodies = [pad(call(A, B) + call(A + 5, C) + RET), pad(call(B, A) + RET), pad(call(C, A) + RET)]
    assert x86(A, bodies, pc_ranges=None) == [(0, 1), (0, 2), (1, 0), (2, 0)]
    # callee must lie in a range; a caller outside every range is not scanned
    assert x86(A, bodies, pc_ranges=[(A, C)]) == [(0, 1), (1, 0)]
    # the scan stops at the range end: A's second call site (A+5) is outside [A, A+5)
    assert x86(A, bodies, pc_ranges=[(A, A + 5), (B, D)]) == [(0, 1), (1, 0), (2, 0)]
    # a callee in another range still counts
    assert x86(A, bodies, pc_ranges=[(B, C), (A, A + 1)]) == [(0, 1), (1, 0)]
    # no histogram: nothing
    assert x86(A, bodies, pc_ranges=[]) == []


def test_pc_ranges_first_overlapping_range_wins() -> None:
    # A's range overlaps both [A+5, B) and [A, A+5); the first one listed clips the scan
    bodies = [pad(call(A, B) + call(A + 5, B) + RET), pad(RET)]
    assert x86(A, bodies, pc_ranges=[(A + 5, B + 16), (A, A + 5)]) == [(0, 1)]
    assert x86(A, bodies, pc_ranges=[(A, A + 5), (A + 5, B + 16)]) == [(0, 1)]
    assert x86(A, bodies, pc_ranges=[(A + 6, B + 16), (A, A + 5)]) == []


def test_routine_with_empty_range_is_skipped() -> None:
    sec, starts, ends = layout(A, [pad(call(A, B) + RET), pad(RET)])
    # a last symbol past the end of .text (like data_start): end < start
    assert find_static_calls("EM_X86_64", [sec], [*starts, 0x4000], [*ends, sec.address + 31]) == [(0, 1)]


# --- AArch64 ------------------------------------------------------------------------------------

AR_NOP, AR_RET = 0xD503201F, 0xD65F03C0


def bl(at: int, target: int, link: bool = True) -> int:
    return (0x94000000 if link else 0x14000000) | (((target - at) >> 2) & 0x3FFFFFF)


def arm(base: int, routines: list[list[int]], **kw: object) -> list[tuple[int, int]]:
    bodies = [struct.pack(f"<{len(r)}I", *r) for r in routines]
    sec, starts, ends = layout(base, bodies)
    return find_static_calls("EM_AARCH64", [sec], starts, ends, **kw)  # type: ignore[arg-type]


def test_aarch64_bl_encodings_both_directions() -> None:
    base = 0x400000
    f, g, h = base, base + 16, base + 32
    assert bl(f, g) == 0x94000004
    assert bl(g, f) == 0x97FFFFFC
    routines = [
        [bl(f, h), AR_NOP, AR_NOP, AR_RET],  # f -> h forward
        [AR_NOP, bl(g + 4, f), bl(g + 8, g), AR_RET],  # g -> f backward, g -> g self
        [AR_RET, AR_NOP, AR_NOP, AR_NOP],
    ]
    assert arm(base, routines) == [(0, 2), (1, 0), (1, 1)]


def test_aarch64_far_backward_bl() -> None:
    # imm26 = -2**25 words: the most negative displacement (128 MiB back)
    base = 0x1000
    far = base + (1 << 27)
    assert bl(far, base) == 0x96000000
    sec = CodeSection(".text", far, struct.pack("<I", bl(far, base)))  # the callee's bytes don't matter
    assert find_static_calls("EM_AARCH64", [sec], [base, far], [far - 1, far + 3]) == [(1, 0)]


def test_aarch64_tail_call_b_counts_like_gprof() -> None:
    base = 0x1000
    # f: nop; b h   (g in between is not called)
    routines = [[AR_NOP, bl(base + 4, base + 16, link=False)], [AR_NOP, AR_NOP], [AR_RET, AR_NOP]]
    assert arm(base, routines) == [(0, 2)]


def test_aarch64_non_calls_are_not_arcs() -> None:
    base = 0x1000
    g = base + 16
    b_cond = 0x54000000 | (((g - (base + 4)) >> 2) << 5)  # b.eq g
    blr = 0xD63F0200  # blr x16
    mid = bl(base + 8, g + 4)  # into the middle of g
    data_word = bl(base + 12, g) & 0x03FFFFFF  # a literal with BL's imm26 bits but top byte 0x00
    routines = [[AR_NOP, b_cond, mid, data_word], [AR_RET, blr, AR_NOP, AR_NOP]]
    assert arm(base, routines) == []


def test_aarch64_pc_ranges() -> None:
    base = 0x1000
    f, g = base, base + 16
    routines = [[bl(f, g), AR_NOP, AR_NOP, AR_RET], [bl(g, f), AR_NOP, AR_NOP, AR_RET]]
    assert arm(base, routines, pc_ranges=[(f, g)]) == []
    assert arm(base, routines, pc_ranges=[(f, g + 16)]) == [(0, 1), (1, 0)]


# --- MIPS: jal to a routine's entry, jalr into $ra as <indirect child> (read off mips-linux-gnu-gprof)

M_NOP, M_JR_RA = 0x00000000, 0x03E00008


def jal(target: int) -> int:
    return 0x0C000000 | (target >> 2) & 0x3FFFFFF


def mips(base: int, routines: list[list[int]], little: bool, **kw: object) -> list[tuple[int, int]]:
    bodies = [struct.pack(("<" if little else ">") + f"{len(r)}I", *r) for r in routines]
    sec, starts, ends = layout(base, bodies)
    return find_static_calls("EM_MIPS", [sec], starts, ends, little_endian=little, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("little", [False, True], ids=["mips", "mipsel"])
def test_mips_jal_and_jalr(little: bool) -> None:
    base = 0x400000
    f, g, h = base, base + 16, base + 32
    routines = [
        [jal(h), M_NOP, 0x0320F809, M_JR_RA],  # f -> h, jalr $t9: <indirect child>
        [jal(f), jal(g), jal(h + 4), M_JR_RA],  # g -> f (backward), g -> g, not into h's middle
        [
            0x03208009,
            0x0320F808,
            0x0321F849,
            M_JR_RA,
        ],  # jalr $s0,$t9 (no: rd 16), jr $t9 (no), rt/sa bits: yes
    ]
    assert mips(base, routines, little) == [(0, 2), (0, -1), (1, 0), (1, 1), (2, -1)]


def test_mips_jal_on_a_64_bit_address_space_finds_nothing() -> None:
    """gprof keeps the pc's bits 28..31 of 32: above 4 GiB no target is a routine's entry."""
    base = 0x120000000
    routines = [[jal(base + 16), M_NOP, 0x0320F809, M_JR_RA], [M_JR_RA, M_NOP, M_NOP, M_NOP]]
    assert mips(base, routines, True) == [(0, -1)]


# --- errors -------------------------------------------------------------------------------------


def test_unsupported_architecture_is_one_line() -> None:
    with pytest.raises(StaticCallsUnsupported) as info:
        find_static_calls("EM_RISCV", [], [], [], arch="riscv:rv64")
    assert isinstance(info.value, GmonlensError)
    assert str(info.value) == "-c is not supported on architecture riscv:rv64"
    assert not staticcalls.is_supported("EM_RISCV")
    assert all(staticcalls.is_supported(m) for m in ("EM_X86_64", "EM_386", "EM_AARCH64"))


def test_missing_capstone_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(staticcalls, "_capstone", None)
    with pytest.raises(StaticCallsUnsupported, match="capstone") as info:
        find_static_calls("EM_X86_64", [], [], [])
    assert "\n" not in str(info.value)
    # AArch64 does not need it
    assert find_static_calls("EM_AARCH64", [], [], []) == []


@pytest.fixture(params=["fast", "public-api"])
def decoder(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Runs a test with the ctypes fast path and with capstone's public `disasm_lite`."""
    if request.param == "public-api":
        monkeypatch.setattr(staticcalls, "_fast_call_decoder", lambda cs: None)
    return str(request.param)


def test_both_x86_decoders_agree(decoder: str) -> None:
    rel = (A - (C + 1 + 5)) & 0xFFFFFFFF
    bodies = [
        pad(b"\x55" + call(A + 1, C) + b"\xff\xd0" + RET),
        pad(b"\xf2" + call(B + 1, A) + call(B + 6, B) + RET),
        pad(b"\xb8\xe8" + struct.pack("<I", rel)[:3] + b"\xff\xc0" + RET),
        pad(b"\xff\x94\xe8" + struct.pack("<i", A - (D + 2 + 5)) + RET),
    ]
    assert x86(A, bodies) == [(0, 2), (1, 0), (1, 1)]
    assert x86(A, bodies, "EM_386") == [(0, 2), (1, 0), (1, 1)]
