"""payloads: the custom messages' JSON as PROTOCOL.md gives it, and the lenient reading of the
`gmonlens/callGraph` parameters (no compiler needed)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gmonlens.profile.certainty import Health
from gmonlens_ide.index import Place
from gmonlens_lsp import to_lsp, wire


def test_status_without_a_profile() -> None:
    assert wire.status("idle", "no profile", "file:///w", 0.0, 0, None, ()) == {
        "state": "idle",
        "message": "no profile",
        "totalSeconds": 0.0,
        "routines": 0,
        "folder": "file:///w",
        "baseline": None,
        "health": [],
    }
    health = (Health("few_samples", "few samples", "run longer"),)
    loaded = wire.status("loaded", "m", "u", 1.23456789, 3, None, health)
    assert loaded["totalSeconds"] == 1.234568
    assert loaded["health"] == [{"code": "few_samples", "message": "few samples", "fix": "run longer"}]


def test_lens_arguments_and_item_data() -> None:
    args = wire.lens_arguments("/w/a b.c", {"line": 3, "character": 5}, "_Z4workv")
    assert args == ["file:///w/a%20b.c", {"line": 3, "character": 5}, "_Z4workv"]
    assert wire.item_data(7, 2, "work") == {"routine": 7, "generation": 2, "name": "work"}


def test_call_graph_query_defaults_and_clamps() -> None:
    q = wire.call_graph_query({"whole": True}, 0.5, 0.1)
    assert (q.whole, q.depth, q.max_nodes, q.node_thres, q.edge_thres) == (True, 2, 500, 0.5, 0.1)
    assert q.position is None and q.uri is None
    q = wire.call_graph_query(
        {"depth": 99, "maxNodes": 0, "nodeThreshold": -1, "edgeThreshold": True}, 0.5, 0.1
    )
    assert (q.whole, q.depth, q.max_nodes, q.node_thres, q.edge_thres) == (False, 10, 1, 0.0, 0.0)
    q = wire.call_graph_query({"depth": "3", "whole": 1}, 0.5, 0.1)  # wrong types: defaults
    assert (q.whole, q.depth) == (False, 2)


def test_call_graph_query_by_cursor_reads_attributes_too() -> None:
    params = SimpleNamespace(
        textDocument=SimpleNamespace(uri="file:///a.c"), position={"line": 4, "character": 2}
    )
    q = wire.call_graph_query(params, 0.5, 0.1)
    assert q.uri == "file:///a.c" and q.position == {"line": 4, "character": 2}
    assert q.folder == "file:///a.c"  # the folder defaults to the document's
    whole = wire.call_graph_query({**vars(params), "whole": True}, 0.5, 0.1)
    assert whole.position is None  # the whole program: the cursor is not read
    with pytest.raises(ValueError):
        wire.call_graph_query({"textDocument": {"uri": "u"}, "position": {"line": "x"}}, 0.5, 0.1)


def test_render_takes_the_text_it_is_given() -> None:
    place = Place("/w/a.c", True, 2, 5, "work")
    rng = to_lsp.name_range(place, "int work(void)")
    assert (rng.start.line, rng.start.character, rng.end.character) == (1, 4, 8)
    unknown = to_lsp.name_range(place, "")  # no text: the declaration's column, zero width
    assert (unknown.start.character, unknown.end.character) == (4, 4)
    assert to_lsp.call_ranges([3, 9], unknown) == [to_lsp.line_range(3), to_lsp.line_range(9)]
    assert to_lsp.call_ranges([], unknown) == [unknown]
