"""render: lens titles, name ranges (UTF-16), hover markdown, on a real small profile."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from gmonlens_ide.index import Place
from gmonlens_ide.settings import DEFAULT_LENS_TITLE
from gmonlens_ide.srcnames import source_name
from gmonlens_lsp import to_lsp


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
