"""The flame graph request keeps its tree per loaded profile and parameters: a repeated request
(zoom, re-open, search) answers without rebuilding it; other parameters or a reload build anew."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gmonlens_lsp.features import flame_graph

from .test_heat_requests import Served

pytestmark = pytest.mark.integration  # builds its inputs with gcc at test time


@pytest.mark.integration  # builds its inputs with gcc at test time
@pytest.mark.asyncio
async def test_flame_tree_built_once_per_profile_and_parameters(
    c_ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[float] = []
    real = flame_graph.flame_tree

    def counted(profile: Any, min_fraction: float, max_frames: int, open_cycles: bool = False) -> Any:
        calls.append(min_fraction)
        return real(profile, min_fraction, max_frames, open_cycles=open_cycles)

    monkeypatch.setattr(flame_graph, "flame_tree", counted)
    s = Served(c_ws, True, monkeypatch)
    ask = s.server.protocol.fm.features[flame_graph.FLAME_GRAPH]
    first = await ask({})
    assert first is not None and first["frames"] and len(calls) == 1
    assert await ask({}) == first and len(calls) == 1  # the same request: the tree kept
    assert await ask({"minPercent": 0.1}) == first and len(calls) == 1  # the default, said
    other = await ask({"minPercent": 5})
    assert other is not None and other["minPercent"] == 5.0 and len(calls) == 2  # other parameters
    assert await ask({"minPercent": 5}) == other and len(calls) == 2
    s.reload()  # a new load: nothing kept from the old one
    again = await ask({})
    assert len(calls) == 3 and again is not None and again["generation"] == first["generation"] + 1
    assert again["frames"] == first["frames"]
