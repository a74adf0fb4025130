"""Line heat over LSP (pytest-lsp): inlay hints on hot lines (range, threshold, label settings),
the `gmonlens/lineHeat` request, and the hover of a function inlined into others, on a -O2 workspace
moved away from where it was built (mix() from mix.h is inlined into work())."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from gmonlens.load.loader import load
from routine_keys import named

from .lspclient import open_doc, position_of, session, state_of, uri, wait_status
from .workspaces import build_moved

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio]

LABEL = re.compile(r"^\d+\.\d\d s · \d+\.\d%( · few samples)?$")  # the default label


@pytest.fixture(scope="session")
def heatproject(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_moved("heatproject", tmp_path_factory.mktemp("ws"))


def whole(path: Path) -> types.Range:
    return types.Range(types.Position(0, 0), types.Position(len(path.read_text().splitlines()), 0))


async def hints(client: Any, path: Path, rng: types.Range | None = None) -> list[types.InlayHint]:
    u = await open_doc(client, path)
    # the heat is computed in the background after a load; until then a client that can refresh (as
    # this one) gets no hints (tests/server/test_heat_requests.py); lineHeat waits for it
    await line_heat(client, path)
    result = await client.text_document_inlay_hint_async(
        types.InlayHintParams(text_document=types.TextDocumentIdentifier(uri=u), range=rng or whole(path))
    )
    return list(result or [])


async def line_heat(client: Any, path: Path) -> Any:
    return await client.protocol.send_request_async("gmonlens/lineHeat", {"textDocument": {"uri": uri(path)}})


async def test_inlay_hints_and_line_heat_request(heatproject: Path, tmp_path: Path) -> None:
    async with session([heatproject], tmp_path / "cache") as client:
        assert client.init_result.capabilities.inlay_hint_provider, "inlay hints not registered statically"
        assert state_of(await wait_status(client)) == "loaded"
        main_c, mix_h = heatproject / "src" / "main.c", heatproject / "src" / "mix.h"
        # the header's inlined loop carries most of the time
        got = await hints(client, mix_h)
        assert got, "no hint in mix.h"
        texts = mix_h.read_text().splitlines()
        for h in got:
            assert isinstance(h.label, str) and LABEL.match(h.label), h.label
            assert h.position.character == len(texts[h.position.line]), "hint not at the end of its line"
            assert "work" in str(h.tooltip)
        top = max(got, key=lambda h: float(h.label.split("%")[0].split("·")[1]))
        assert "r = (r * 31)" in texts[top.position.line]
        # whole-file figures: every line with time, summing (with main.c) to the total self time
        heat_h, heat_c = await line_heat(client, mix_h), await line_heat(client, main_c)
        lines = [*heat_h.lines, *heat_c.lines]
        assert {entry.line for entry in heat_h.lines} >= {h.position.line for h in got}
        assert all(entry.routine == "work" for entry in heat_h.lines)
        build = heatproject / "build"
        profile = load(str(build / "app"), [str(build / "gmon.out")]).profile
        self_seconds = sum(profile.seconds(r.self_ticks) for r in profile.routines)
        assert sum(entry.seconds for entry in lines) == pytest.approx(self_seconds, abs=1e-5)
        work = named(profile.routines)["work"]
        in_work = sum(r.seconds for e in lines for r in e.routines if r.name == "work")
        assert in_work == pytest.approx(profile.seconds(work.self_ticks), abs=1e-5)
        # only the requested range
        work_line = position_of(main_c, "long work").line
        ret = position_of(main_c, "return s;").line
        part = await hints(client, main_c, types.Range(types.Position(work_line, 0), types.Position(ret, 0)))
        assert part and all(work_line <= h.position.line <= ret for h in part), part
        everything = await hints(client, main_c)
        assert len(everything) > len(part)


async def test_threshold_and_label_settings(heatproject: Path, tmp_path: Path) -> None:
    settings = {"lineHeatMinPercent": 40, "lineHeatLabel": "{routine}: {seconds}s"}
    async with session([heatproject], tmp_path / "cache", init_options={"gmonlens": settings}) as client:
        await wait_status(client)
        mix_h = heatproject / "src" / "mix.h"
        got = await hints(client, mix_h)
        assert [h.position.line for h in got] == [position_of(mix_h, "r = (r * 31)").line], got
        assert re.match(r"^work: \d+\.\d\ds$", str(got[0].label)), got[0].label
        assert await hints(client, heatproject / "src" / "main.c") == []


async def test_bad_heat_settings_are_reported(heatproject: Path, tmp_path: Path) -> None:
    settings = {"lineHeatMinPercent": "lots", "lineHeatLabel": "{bogus}"}
    async with session([heatproject], tmp_path / "cache", init_options={"gmonlens": settings}) as client:
        await wait_status(client)
        logs = " ".join(m.message for m in client.log_messages)
        assert "`lineHeatMinPercent` must be a number" in logs, logs
        assert "`lineHeatLabel` has a bad placeholder" in logs, logs
        got = await hints(client, heatproject / "src" / "mix.h")  # defaults apply
        assert got and all(LABEL.match(str(h.label)) for h in got)


async def test_hover_on_inlined_function(heatproject: Path, tmp_path: Path) -> None:
    async with session([heatproject], tmp_path / "cache") as client:
        await wait_status(client)
        mix_h = heatproject / "src" / "mix.h"
        u = await open_doc(client, mix_h)
        params = types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=u), position=position_of(mix_h, "mix(", offset=1)
        )
        deadline = time.monotonic() + 90  # the scopes come with the cache warm-up
        text = ""
        while time.monotonic() < deadline:
            hover = await client.text_document_hover_async(params)
            text = hover.contents.value if hover else ""
            if "inlined" in text:
                break
            await asyncio.sleep(0.5)
        assert "**mix**, inlined" in text, text
        assert "[work](" in text and "Line samples" in text, text
