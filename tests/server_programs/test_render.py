"""render: lens titles, name ranges (UTF-16), hover markdown, on a real small profile."""

from __future__ import annotations

from pathlib import Path

import pytest

from gmonlens_ide.session import load_folder
from gmonlens_ide.settings import DEFAULT_LENS_TITLE, Settings
from gmonlens_lsp import to_lsp, wire
from gmonlens_lsp.from_lsp import place_text, places_of
from routine_keys import named

pytestmark = pytest.mark.integration  # builds its inputs with gcc at test time


def test_hover_markdown_and_items(c_ws: Path) -> None:
    loaded = load_folder(str(c_ws), Settings(), 1).loaded
    assert loaded is not None
    p = loaded.profile
    work = named(p.routines, "name")["work"]
    md = to_lsp.hover_markdown(p, places_of(loaded, to_lsp.neighbours(p, work.id)), work.id)
    rows = md.splitlines()
    assert rows[0] == "**work**"
    assert any("400/400" in row and "[main" in row for row in rows)  # the caller
    assert any(row.startswith("| **[") and "**work" in row for row in rows)  # the primary line
    assert any("util_sum" in row for row in rows)
    assert "costs the same" in md and "Per call" in md
    even = named(p.routines, "name")["is_even"]
    assert "Member of **cycle" in to_lsp.hover_markdown(p, {}, even.id)
    place = loaded.index.place(work.id)
    item = to_lsp.call_item(p, work.id, place, place_text(place), loaded.binary, 1)
    assert item.name == "work" and item.uri.endswith("/src/main.c") and item.data["name"] == "work"
    assert item.detail.endswith("400 calls")
    hot = wire.hottest_entry(p, work, place)
    assert hot["calls"] == "400" and hot["line"] == item.selection_range.start.line


def test_spontaneous_routine_has_no_call_count_and_hover_states_total(c_ws: Path) -> None:
    loaded = load_folder(str(c_ws), Settings(), 1).loaded
    assert loaded is not None
    p = loaded.profile
    main = named(p.routines, "name")["main"]
    assert main.calls == 0 and main.self_calls == 0  # gprof: <spontaneous>, blank "called"
    f = to_lsp.figures(p, main)
    title = to_lsp.lens_title(DEFAULT_LENS_TITLE, f)
    assert "calls" not in title and title == f"{f.percent}% · self {f.self_s} s · total {f.total_s} s"
    assert to_lsp.lens_title("{name} {calls} calls · {total}", f) == f"main {f.total_s}"
    md = to_lsp.hover_markdown(p, {}, main.id)
    assert f"Total **{f.total_s} s** (self {f.self_s} s + children" in md and "no recorded calls" in md
    work = named(p.routines, "name")["work"]
    fw = to_lsp.figures(p, work)
    assert f"Total **{fw.total_s} s**" in to_lsp.hover_markdown(p, {}, work.id)
    assert "400 calls." in to_lsp.hover_markdown(p, {}, work.id)


def test_hover_says_how_sure_and_hierarchy_marks_estimates(c_ws: Path) -> None:
    loaded = load_folder(str(c_ws), Settings(), 1).loaded
    assert loaded is not None
    p = loaded.profile
    cert = loaded.certainty
    main = named(p.routines, "name")["main"]
    f = to_lsp.figures(p, main)
    md = to_lsp.hover_markdown(p, {}, main.id, cert)
    assert f"Self **{f.self_s} ± {f.self_err} s** ({f.samples} samples)" in md
    assert f"total **{f.total_s} ± {f.total_err} s** ({f.total_samples} samples)" in md
    c = cert.routines[main.id]
    if c.children_estimated_seconds >= 0.005:
        assert c.split is not None
        assert f"s of {p.seconds(main.prop_child_ticks):.2f} s** children time estimated" in md
        assert f"has {c.split.callers} callers" in md
    else:
        assert "Children time exact" in md
    details = {
        to_lsp.arc_detail(p, a, cert.estimated_arc(p, i)) for i, a in enumerate(p.arcs) if not a.is_static
    }
    assert any(d.endswith(" · exact") for d in details)
    assert all(
        d.endswith((" · exact", "(callee has several callers)")) or "calls ·" not in d for d in details
    )
