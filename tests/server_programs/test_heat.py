"""Line heat on the server side: the per-file index (heat.py) and its LSP rendering (to_lsp.py), on a
hand-made LineHeat, and on the cproject fixture (a real -O0 profile)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gmonlens.common.model import Profile, Routine
from gmonlens.profile.line_heat import LineFigure, LineHeat, LineSpan
from gmonlens_ide.session import line_heat, load_folder
from gmonlens_ide.settings import Settings

pytestmark = pytest.mark.integration  # builds its inputs with gcc at test time


def _routine(rid: int, name: str, address: int, ticks: float) -> Routine:
    return Routine(rid, name, name, address, address + 15, False, True, None, 0, ticks, 0.0, ticks, 0.0,
                   1, 0, 0, rid + 1, True, True, 1.0)  # fmt: skip


def _profile(*routines: Routine) -> Profile:
    n = len(routines)
    return Profile(
        routines, (), (), (), ((),) * n, ((),) * n, 100, "seconds", "s", 2.0, 40.0, 40.0, True, True
    )


def _heat(tmp_path: Path) -> tuple[LineHeat, Profile, Path]:
    header, source = tmp_path / "mix.h", tmp_path / "main.c"
    profile = _profile(_routine(0, "work", 0x100, 30.0), _routine(1, "main", 0x200, 10.0))
    spans = (
        LineSpan(0x100, 0x108, 0, str(header), 3, 24.0),
        LineSpan(0x108, 0x110, 0, str(source), 9, 6.0),
        LineSpan(0x200, 0x208, 1, str(header), 3, 8.0),
        LineSpan(0x208, 0x210, 1, str(source), 20, 2.0),
    )
    lines = {
        str(header): (LineFigure(str(header), 3, 32.0, ((0, 24.0), (1, 8.0))),),
        str(source): (
            LineFigure(str(source), 9, 6.0, ((0, 6.0),)),
            LineFigure(str(source), 20, 2.0, ((1, 2.0),)),
        ),
    }
    return LineHeat(spans, lines, 40.0, 100), profile, source


def test_real_profile_lines_sum_to_self_time(c_ws: Path) -> None:
    outcome = load_folder(str(c_ws), Settings(), 1)
    loaded = outcome.loaded
    assert loaded is not None
    index = line_heat(loaded)
    assert index is not None and line_heat(loaded) is index  # computed once
    main_c = index.for_path(str(c_ws / "src" / "main.c"))
    assert main_c is not None
    helper = loaded.profile.routine_named("helper")
    assert helper is not None
    in_helper = sum(s for h in main_c.lines for name, s in h.routines if name == "helper")
    assert abs(in_helper - loaded.profile.seconds(helper.self_ticks)) < 1e-9
    assert all(h.line >= 1 for h in main_c.lines)
