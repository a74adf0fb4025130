"""The call-site rule (`callsites.call_site`): one call instruction per recorded return address,
decoded from AArch64 code assembled here (BL/BLR need no disassembler library)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gmonlens.callsites import CallFinder, arc_call_sites, call_site

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
