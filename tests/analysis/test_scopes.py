"""The function BFD names at an address (innermost code range) and runs of equal names (-s)."""

from __future__ import annotations

from gmonlens.dwarf.scopes import FunctionScopes


def test_innermost_range_names_the_address() -> None:
    # outer function 0x100-0x200 with an inlined copy of `inl` at 0x140-0x160
    scopes = FunctionScopes.build([(0x100, 0x200, "outer"), (0x140, 0x160, "inl")])
    assert scopes.run_start(0x120) == 0x100
    assert scopes.run_start(0x150) == 0x140  # inside the inlined copy
    assert scopes.run_start(0x170) == 0x160  # back in `outer`: a new run starts after the copy
    assert scopes.run_start(0x0FF) is None
    assert scopes.run_start(0x200) is None


def test_adjacent_copies_of_one_function_form_one_run() -> None:
    scopes = FunctionScopes.build([(0x100, 0x200, "f"), (0x120, 0x130, "g"), (0x130, 0x140, "g")])
    assert scopes.run_start(0x13F) == 0x120


def test_equal_ranges_later_die_wins() -> None:
    scopes = FunctionScopes.build([(0x100, 0x110, "outer"), (0x100, 0x110, "inner")])
    assert scopes.names == ("inner",)
