"""render: lens titles, name ranges (UTF-16), hover markdown, on a real small profile."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from gmonlens_ide.index import Place
from gmonlens_ide.session import load_folder
from gmonlens_ide.settings import DEFAULT_LENS_TITLE, Settings
from gmonlens_ide.srcnames import source_name
from gmonlens_lsp import to_lsp, wire
from gmonlens_lsp.from_lsp import place_text, places_of


def test_lens_title_template() -> None:
    f = to_lsp.Figures(percent="42.0", self_s="0.31", total_s="0.37", calls="120", cycle=0, name="work")
    assert to_lsp.lens_title(DEFAULT_LENS_TITLE, f) == "42.0% · self 0.31 s · total 0.37 s · 120 calls"
    g = to_lsp.Figures(percent="1.5", self_s="0.00", total_s="0.01", calls="5+7", cycle=2, name="odd")
    assert (
        to_lsp.lens_title(DEFAULT_LENS_TITLE, g) == "1.5% · self 0.00 s · total 0.01 s · 5+7 calls · cycle 2"
    )
    assert to_lsp.lens_title("{name}: {calls}", g) == "odd: 5+7"
    assert to_lsp.lens_title("{bad}", f) == to_lsp.lens_title(DEFAULT_LENS_TITLE, f)  # falls back


@pytest.mark.parametrize(
    ("decl", "display", "expected"),
    [("accumulate<int>", "", "accumulate"), ("", "geo::Circle::area() const", "area"), ("", "kern.constprop.0", "kern"),
     ("operator!=<int>", "", "operator"), ("", "int geo::accumulate<int>(std::vector<int> const&)", "accumulate"),
     # members of function-local classes and lambdas: the scope after the enclosing function's parameters
     ("", "db::Version::Sample(db::Slice)::State::Match(void*, int)", "Match"),
     ("", "work(std::vector<long>&)::{lambda(long)#1}::operator()(long) const", "operator"),
     ("", "(anonymous namespace)::Env::Schedule(void (*)(void*), void*)", "Schedule"),
     ("", "unsigned long const& std::min<unsigned long>(unsigned long const&)", "min"),
     ("", "std::string name[abi:cxx11](int)", "name"), ("", "Foo::operator bool() const", "operator")],
)  # fmt: skip
def test_source_name(decl: str, display: str, expected: str) -> None:
    assert source_name(decl, display) == expected


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0.0, "0 s"), (2.5, "2.5 s"), (0.0031, "3.1 ms"), (1.25e-5, "12.5 µs"), (3e-9, "3 ns")],
)
def test_duration(seconds: float, text: str) -> None:
    assert to_lsp.duration(seconds) == text


def test_name_range_utf16(tmp_path: Path) -> None:
    p = Place(str(tmp_path / "x.c"), True, 3, 10, "work")
    text = "/* é😀 */ long work(int n)"
    r = to_lsp.name_range(p, text)
    # "😀" is two UTF-16 units: the name starts at UTF-16 offset len("/* é😀 */ long ") + 1
    start = len("/* é😀 */ long ") + 1
    assert r == types.Range(types.Position(2, start), types.Position(2, start + 4))
    missing = to_lsp.name_range(Place("/nope.c", False, 7, 5, "work"), "")
    assert missing.start == types.Position(6, 4)


@pytest.mark.integration
def test_hover_markdown_and_items(c_ws: Path) -> None:
    loaded = load_folder(str(c_ws), Settings(), 1).loaded
    assert loaded is not None
    p = loaded.profile
    work = next(r for r in p.routines if r.name == "work")
    md = to_lsp.hover_markdown(p, places_of(loaded, to_lsp.neighbours(p, work.id)), work.id)
    rows = md.splitlines()
    assert rows[0] == "**work**"
    assert any("400/400" in row and "[main" in row for row in rows)  # the caller
    assert any(row.startswith("| **[") and "**work" in row for row in rows)  # the primary line
    assert any("util_sum" in row for row in rows)
    assert "costs the same" in md and "Per call" in md
    even = next(r for r in p.routines if r.name == "is_even")
    assert "Member of **cycle" in to_lsp.hover_markdown(p, {}, even.id)
    place = loaded.index.place(work.id)
    item = to_lsp.call_item(p, work.id, place, place_text(place), loaded.binary, 1)
    assert item.name == "work" and item.uri.endswith("/src/main.c") and item.data["name"] == "work"
    assert item.detail.endswith("400 calls")
    hot = wire.hottest_entry(p, work, place)
    assert hot["calls"] == "400" and hot["line"] == item.selection_range.start.line


@pytest.mark.integration
def test_spontaneous_routine_has_no_call_count_and_hover_states_total(c_ws: Path) -> None:
    loaded = load_folder(str(c_ws), Settings(), 1).loaded
    assert loaded is not None
    p = loaded.profile
    main = next(r for r in p.routines if r.name == "main")
    assert main.calls == 0 and main.self_calls == 0  # gprof: <spontaneous>, blank "called"
    f = to_lsp.figures(p, main)
    title = to_lsp.lens_title(DEFAULT_LENS_TITLE, f)
    assert "calls" not in title and title == f"{f.percent}% · self {f.self_s} s · total {f.total_s} s"
    assert to_lsp.lens_title("{name} {calls} calls · {total}", f) == f"main {f.total_s}"
    md = to_lsp.hover_markdown(p, {}, main.id)
    assert f"Total **{f.total_s} s** (self {f.self_s} s + children" in md and "never called" in md
    work = next(r for r in p.routines if r.name == "work")
    fw = to_lsp.figures(p, work)
    assert f"Total **{fw.total_s} s**" in to_lsp.hover_markdown(p, {}, work.id)
    assert "400 calls." in to_lsp.hover_markdown(p, {}, work.id)


def test_lens_placeholders_error_samples_and_few_mark() -> None:
    f = to_lsp.Figures(percent="0.3", self_s="0.03", total_s="0.04", calls="2", cycle=0, name="rare",
                       self_err="0.02", total_err="0.02", samples="3", total_samples="4", few=True)  # fmt: skip
    assert (
        to_lsp.lens_title(DEFAULT_LENS_TITLE, f)
        == "0.3% · self 0.03 s · total 0.04 s · few samples · 2 calls"
    )
    assert to_lsp.lens_title(
        "{self} ± {self_err} s ({samples}) · {total} ± {total_err} ({total_samples}){few}", f
    ) == ("0.03 ± 0.02 s (3) · 0.04 ± 0.02 (4) · few samples")


@pytest.mark.integration
def test_hover_says_how_sure_and_hierarchy_marks_estimates(c_ws: Path) -> None:
    loaded = load_folder(str(c_ws), Settings(), 1).loaded
    assert loaded is not None
    p = loaded.profile
    cert = loaded.certainty
    main = next(r for r in p.routines if r.name == "main")
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
