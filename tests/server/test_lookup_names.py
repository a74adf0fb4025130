"""The name forms `gmonlens_ide.lookup` reads (no profile needed): parameters cut where they are,
names as a person writes them."""

from __future__ import annotations

import pytest

from gmonlens_ide.lookup import plain, without_params


@pytest.mark.parametrize(
    ("display", "bare", "written"),
    [
        ("geo::Circle::area() const", "geo::Circle::area", "geo::Circle::area"),
        ("Table<128>::index(int)", "Table<128>::index", "Table::index"),
        ("lib::(anonymous namespace)::scan(int)", "lib::(anonymous namespace)::scan", "lib::scan"),
        # the parameters are the last group: not `(anonymous namespace)`
        (
            "unsigned long (anonymous namespace)::index<128ul>(char const*)",
            "unsigned long (anonymous namespace)::index<128ul>",
            "unsigned long index",
        ),
        ("f(Slice)::State::Match(void*)", "f(Slice)::State::Match", "f(Slice)::State::Match"),
        ("std::ostream::operator<<(int)", "std::ostream::operator<<", "std::ostream::operator<<"),
        ("Foo::operator()(int) const", "Foo::operator()", "Foo::operator()"),
        ("Foo::operator->()", "Foo::operator->", "Foo::operator->"),
        ("bool operator< <int>(A<int> const&)", "bool operator< <int>", "bool operator<"),
        (
            "std::vector<int, std::allocator<int> >::push_back(int const&)",
            "std::vector<int, std::allocator<int> >::push_back",
            "std::vector::push_back",
        ),
        ("clamp", "clamp", "clamp"),
    ],
)
def test_name_forms(display: str, bare: str, written: str) -> None:
    assert without_params(display) == bare
    assert plain(display) == written
