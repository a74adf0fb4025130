"""The editor's call-site lines and the exports' agree (one rule, `call_sites.call_site`): where
two calls to the callee share the recorded return address's window, both name the first call's
line, and the count is not shown on two lines. No compiler: AArch64 code assembled here."""

from __future__ import annotations

from pathlib import Path

from gmonlens.common.model import Arc, Profile, Routine
from gmonlens.dwarf.line_table import LineTable
from gmonlens.load.sourcemap import SourceMapper
from gmonlens.output.export_common import line_data
from gmonlens.profile.call_sites import CallFinder
from gmonlens_ide.index import SourceIndex


def _routine(rid: int, name: str, address: int, end: int) -> Routine:
    return Routine(rid, name, name, address, end, False, True, None, 0, 0.0, 0.0, 0.0, 0.0,
                   5, 0, 0, rid + 1, True, True, 1.0)  # fmt: skip


def _bl(at: int, target: int) -> bytes:
    return (0x94000000 | ((target - at) // 4) & 0x3FFFFFF).to_bytes(4, "little")


def test_editor_and_exports_name_the_same_call(tmp_path: Path) -> None:
    source = tmp_path / "main.c"
    source.write_text("x\n" * 20)
    caller, callee = _routine(0, "work", 0x1000, 0x101F), _routine(1, "f", 0x2000, 0x200F)
    arc = Arc(0, 1, 5, 0.0, 0.0, call_sites=((0x1000, 5),))  # `f(); f();` on lines 10 and 11
    profile = Profile((caller, callee), (arc,), (), (), ((), (0,)), ((0,), ()), 100, "seconds", "s",
                      0.0, 0.0, 0.0, False, True)  # fmt: skip
    nop = (0xD503201F).to_bytes(4, "little")
    code = _bl(0x1000, 0x2000) + _bl(0x1004, 0x2000) + nop * 6
    finder = CallFinder("EM_AARCH64", 8, [(0x1000, code)])
    table = LineTable((0x1000,), (([0x1000, 0x1004, 0x1008, 0x1020], [0, 0, 0, 0], [10, 11, 12, 13]),),
                      (str(source),))  # fmt: skip
    index = SourceIndex(profile, None, SourceMapper(str(tmp_path), {}), lambda: table, lambda: finder)
    assert index.call_site_lines(arc) == [(str(source), 10)]
    assert line_data(profile, (), table, finder).sites == {0: (((str(source), 10), 5),)}
