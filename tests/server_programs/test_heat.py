"""Line heat on the server side: the per-file index (heat.py) and its LSP rendering (to_lsp.py), on a
hand-made LineHeat, and on the cproject fixture (a real -O0 profile)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gmonlens_ide.session import line_heat, load_folder
from gmonlens_ide.settings import Settings

pytestmark = pytest.mark.integration  # builds its inputs with gcc at test time


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
