"""The call-site rule (`call_sites.call_site`): one call instruction per recorded return address,
decoded from AArch64 code assembled here (BL/BLR need no disassembler library)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from gmonlens.profile.call_sites import CallFinder, _indirect_call_length, arc_call_sites, call_site

CALLEE, OTHER = 0x2000, 0x3000
NOP, BLR_X1 = 0xD503201F, 0xD63F0020


def bl(at: int, target: int) -> int:
    """AArch64 `BL target` at address `at` (imm26 in words)."""
    return 0x94000000 | (((target - at) // 4) & 0x3FFFFFF)


def finder(*words: int) -> CallFinder:
    """A finder over code at 0x1000 made of `words` (16-byte granule: 64-bit target)."""
    code = b"".join(w.to_bytes(4, "little") for w in words)
    return CallFinder("EM_AARCH64", 8, [(0x1000, code)])


CALLER = (0x1000, 0x101F)


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ((bl(0x1000, CALLEE), NOP, NOP, NOP), 0x1000),  # the one call of the window
        ((NOP, bl(0x1004, CALLEE), bl(0x1008, CALLEE), NOP), 0x1004),  # two: the first
        ((BLR_X1, bl(0x1004, CALLEE), NOP, NOP), 0x1004),  # a direct call beats an indirect one
        ((bl(0x1000, OTHER), BLR_X1, BLR_X1, NOP), 0x1004),  # no direct call: the first indirect
        ((bl(0x1000, OTHER), NOP, NOP, NOP), 0x1000),  # no candidate: the recorded address
    ],
    ids=["one", "two-direct", "direct-first", "indirect", "none"],
)
def test_one_call_per_recorded_return_address(words: tuple[int, ...], expected: int) -> None:
    assert call_site(finder(*words), 0x1000, CALLER, CALLEE) == expected


def test_window_is_the_granule_after_the_recorded_address() -> None:
    # the call at 0x100c returns to 0x1010: outside [0x1000, 0x1010), inside the next window
    f = finder(NOP, NOP, NOP, bl(0x100C, CALLEE), NOP)
    assert call_site(f, 0x1000, CALLER, CALLEE) == 0x1000
    assert call_site(f, 0x1010, CALLER, CALLEE) == 0x100C


def test_without_a_finder_the_recorded_address_stands() -> None:
    assert call_site(None, 0x1234, CALLER, CALLEE) == 0x1234


def test_arc_call_sites_in_record_order() -> None:
    routines = [SimpleNamespace(address=0x1000, end_address=0x103F), SimpleNamespace(address=CALLEE)]
    p = SimpleNamespace(routines=routines)
    arc = SimpleNamespace(parent=0, child=1, call_sites=((0x1010, 2), (0x1000, 3)))
    f = finder(bl(0x1000, CALLEE), bl(0x1004, CALLEE), NOP, NOP, NOP, bl(0x1014, CALLEE))
    assert arc_call_sites(p, arc, f) == [(0x1014, 2), (0x1000, 3)]  # type: ignore[arg-type]


# ---- the fit rule's byte check (`CallFinder.may_return_at`), against capstone ----------------------

X86_MODES = [pytest.param("EM_X86_64", 8, id="x86-64"), pytest.param("EM_386", 4, id="i386")]
DISP = b"\x11\x22\x33\x44"


def _decoder(machine: str) -> Any:
    capstone = pytest.importorskip("capstone")
    mode = capstone.CS_MODE_64 if machine == "EM_X86_64" else capstone.CS_MODE_32
    return capstone.Cs(capstone.CS_ARCH_X86, mode)


@pytest.mark.parametrize(("machine", "size"), X86_MODES)
def test_every_ff_form_has_capstones_length_when_it_is_a_call(machine: str, size: int) -> None:
    """All 256 ModRM bytes (and all 256 SIB bytes where ModRM asks for one) after FF: the length
    the byte check gives is capstone's where capstone decodes a call (near, /2, or far, /3), 0
    where it decodes anything else."""
    cs = _decoder(machine)
    forms = 0
    for modrm in range(256):
        for sib in range(256) if modrm & 7 == 4 and modrm >> 6 != 3 else (0x90,):
            rest = bytes([modrm, sib]) + DISP
            insn = next(cs.disasm_lite(b"\xff" + rest, 0x1000, 1), None)
            is_call = insn is not None and insn[2].startswith("call")
            assert _indirect_call_length(rest) == (insn[1] if is_call else 0), (rest.hex(), insn)
            forms += 1
    assert forms == 232 + 24 * 256  # ModRM bytes without a SIB, and those with one times every SIB


@pytest.mark.parametrize(("machine", "size"), X86_MODES)
@pytest.mark.parametrize(
    "insn",
    [
        "e811223344",  # call rel32
        "ffd0",  # call *%rax
        "41ffd3",  # call *%r11 (REX.B)
        "ff15" + DISP.hex(),  # call *disp32(%rip) (-fno-plt's call to mcount)
        "ff10",  # call *(%rax)
        "ff14c5" + DISP.hex(),  # call *disp32(,%rax,8) (a jump table of functions)
        "ff1424",  # call *(%rsp)
        "ff5008",  # call *8(%rax)
        "ff542408",  # call *8(%rsp)
        "ff9011223344",  # call *disp32(%rax)
        "ff941011223344",  # call *disp32(%rax,%rdx)
        "3effd0",  # notrack call *%rax (CET)
        "666648e811223344",  # data16 data16 rex.W call (the TLS general-dynamic sequence)
    ],
)
def test_a_call_is_seen_where_capstone_decodes_one(machine: str, size: int, insn: str) -> None:
    """Behind other code: the byte check says a call returns at the address capstone's call
    returns to (never no where a decoder says yes)."""
    cs = _decoder(machine)
    code = bytes.fromhex("4889e5" + "90" * 6 + insn + "cc" * 8)
    decoded = list(cs.disasm_lite(code, 0x1000))
    calls = [at + n for at, n, mnemonic, _ in decoded if mnemonic.split()[-1] == "call"]  # "notrack call" too
    assert calls, f"{insn} is not a call in {machine}"
    f = CallFinder(machine, size, [(0x1000, code)])
    assert all(f.may_return_at(ret, 0x1000) for ret in calls)
    assert not f.may_return_at(calls[0] + 1, 0x1000)  # an INT3 ends there


def test_a_call_starting_before_the_low_bound_is_not_seen() -> None:
    f = CallFinder("EM_X86_64", 8, [(0x1000, bytes.fromhex("e811223344c3"))])
    assert f.may_return_at(0x1005, 0x1000) and not f.may_return_at(0x1005, 0x1001)


def test_aarch64_byte_check_reads_the_word_before() -> None:
    f = finder(NOP, bl(0x1004, CALLEE), BLR_X1, NOP)
    assert [a for a in range(0x1000, 0x1014) if f.may_return_at(a, 0x1000)] == [0x1008, 0x100C]
    assert not f.may_return_at(0x1008, 0x1008)  # the BL starts before the low bound


def test_other_machines_are_not_read() -> None:
    f = CallFinder("EM_RISCV", 8, [(0x1000, b"\x00" * 16)])
    assert not f.knows_encodings and not f.may_return_at(0x1008, 0x1000)


@pytest.mark.parametrize("insn", ["3effd0", "f2e8" + "00010000"])
def test_prefixed_calls_are_call_sites(insn: str) -> None:
    """capstone spells these "notrack call" and "bnd call": the call-site rule finds them."""
    pytest.importorskip("capstone")
    code = bytes.fromhex("90" * 4 + insn + "c3")
    f = CallFinder("EM_X86_64", 8, [(0x1000, code)])
    ret = 0x1004 + len(bytes.fromhex(insn))
    assert f.call_returns(0x1000, 0x1000 + len(code)) == [ret]
