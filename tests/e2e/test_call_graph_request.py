"""`gmonlens/callGraph` over LSP (pytest-lsp): the graph around the routine under the cursor to a
depth, re-centred on a node of an earlier answer, and the whole program pruned like the dot export;
figures held against the engine's profile (gprof's call graph)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gmonlens.load.loader import load
from routine_keys import Named, named

from .lspclient import open_doc, position_of, session, state_of, uri, wait_status

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio]


async def call_graph(client: Any, params: dict[str, Any]) -> Any:
    return await client.protocol.send_request_async("gmonlens/callGraph", params)


def names(result: Any) -> Named[Any]:
    """The answer's nodes by name (the program has two `helper`s: looking one up fails)."""
    return named(result.nodes, "displayName")


async def test_call_graph_around_cursor_and_whole(cproject: Path, tmp_path: Path) -> None:
    profile = load(str(cproject / "build" / "app"), [str(cproject / "build" / "gmon.out")]).profile
    async with session([cproject], tmp_path / "cache") as client:
        assert state_of(await wait_status(client)) == "loaded"
        main_c = cproject / "src" / "main.c"
        await open_doc(client, main_c)
        pos = position_of(main_c, "long work", offset=5)
        at = {
            "textDocument": {"uri": uri(main_c)},
            "position": {"line": pos.line, "character": pos.character},
        }

        # depth 1 around work(): its caller main, its callees helper, util_sum and clamp
        g = await call_graph(client, {**at, "depth": 1})
        got = names(g)
        assert set(got) == {"work", "main", "helper", "util_sum", "clamp"}, set(got)
        assert g.center == got["work"].id and g.depth == 1
        work = named(profile.routines)["work"]
        assert got["work"].calls == work.calls
        assert got["work"].totalSeconds == pytest.approx(profile.seconds(work.total_ticks), abs=1e-6)
        assert got["work"].uri == uri(main_c) and got["work"].line == position_of(main_c, "long work").line
        edges = {(e.caller, e.callee): e for e in g.edges}
        arc = next(a for a in profile.arcs if a.parent == got["main"].id and a.child == got["work"].id)
        edge = edges[(got["main"].id, got["work"].id)]
        assert edge.calls == arc.count
        assert edge.seconds == pytest.approx(profile.seconds(arc.self_ticks + arc.child_ticks), abs=1e-6)

        # depth 2 reaches util.c's helper through util_sum
        g2 = await call_graph(client, {**at, "depth": 2})
        assert len(g2.nodes) > len(g.nodes)

        # re-centre on a node of the earlier answer: is_even, in a cycle with is_odd
        alone = await call_graph(client, {**at, "depth": 0})
        assert [n.displayName for n in alone.nodes] == ["work"] and list(alone.edges) == []
        main_id = got["main"].id
        g3 = await call_graph(
            client, {"folder": g.folder, "routine": main_id, "generation": g.generation, "depth": 1}
        )
        got3 = names(g3)
        assert {"main", "work", "is_even"} <= set(got3)
        assert got3["is_even"].cycle is not None
        assert any(c.number == got3["is_even"].cycle for c in g3.cycles)

        # by name (a client holding an answer of an older generation)
        g4 = await call_graph(client, {"folder": g.folder, "name": "is_even", "depth": 1})
        got4 = names(g4)
        assert {"is_even", "is_odd"} <= set(got4)
        assert any(e.inCycle for e in g4.edges)
        assert got4["is_odd"].cycle == got4["is_even"].cycle
        (cyc,) = g4.cycles
        whole_cycle = profile.cycle(cyc.number)
        assert sorted(cyc.members) == sorted(cyc.allMembers) == sorted(whole_cycle.members)
        assert cyc.calls == whole_cycle.calls and cyc.internalCalls == whole_cycle.self_calls
        assert cyc.totalSeconds == pytest.approx(profile.seconds(whole_cycle.total_ticks), abs=1e-6)

        # the whole program, pruned with the dot export's default thresholds
        whole = await call_graph(client, {"whole": True})
        assert whole.nodeThreshold == 0.5 and whole.edgeThreshold == 0.1 and whole.center is None
        for n in whole.nodes:
            assert n.percent >= 0.5, n
        assert {"main", "work"} <= set(names(whole))
        strict = await call_graph(client, {"whole": True, "nodeThreshold": 50})
        assert set(names(strict)) <= {"main", "work", "helper", "util_sum", "clamp"}
        assert all(n.percent >= 50 for n in strict.nodes)

        # not on a routine: null
        blank = position_of(main_c, "#include <stdio.h>")
        assert (
            await call_graph(
                client,
                {"textDocument": {"uri": uri(main_c)}, "position": {"line": blank.line, "character": 0}},
            )
        ) is None


async def test_flame_graph_adds_up_and_edges_marked(cproject: Path, tmp_path: Path) -> None:
    """`gmonlens/flameGraph`: the roots add up to gprof's call-graph total, each routine's frames to
    its total; frames carry their source; callGraph edges say whether their time is an estimate."""
    profile = load(str(cproject / "build" / "app"), [str(cproject / "build" / "gmon.out")]).profile
    async with session([cproject], tmp_path / "cache") as client:
        assert state_of(await wait_status(client)) == "loaded"
        fg = await client.protocol.send_request_async("gmonlens/flameGraph", {"minPercent": 0.001})
        frames = fg.frames
        assert fg.totalSeconds == pytest.approx(profile.seconds(profile.print_ticks), abs=1e-5)
        assert sum(f.seconds for f in frames if f.parent == -1) == pytest.approx(fg.totalSeconds, abs=1e-4)
        per: dict[int, float] = {}
        for f in frames:
            if f.routine is not None:
                per[f.routine] = per.get(f.routine, 0.0) + f.seconds
        for r in profile.routines:
            if not r.cycle and r.total_ticks > 0:
                assert per.get(r.id, 0.0) == pytest.approx(profile.seconds(r.total_ticks), abs=1e-4), r.name
        work = named(frames, "name")["work"]
        assert work.uri.endswith("/src/main.c") and work.line is not None
        assert frames[0].parent == -1 and all(f.parent < i for i, f in enumerate(frames))
        whole = await call_graph(client, {"whole": True, "nodeThreshold": 0, "edgeThreshold": 0})
        by_name = names(whole)
        edge = next(
            e for e in whole.edges if e.caller == by_name["main"].id and e.callee == by_name["work"].id
        )
        assert edge.estimated is False  # work has one caller: its whole time, exact
        assert any(e.estimated for e in whole.edges) == any(
            len({a.parent for a in profile.arcs if a.child == r.id and a.count and a.parent != r.id}) > 1
            for r in profile.routines
            if not r.cycle
        )
