"""The flame graph request keeps its tree per loaded profile and parameters: a repeated request
(zoom, re-open, search) answers without rebuilding it; other parameters or a reload build anew."""

from __future__ import annotations

from typing import Any

from gmonlens_ide.session import Memo


def test_memo_is_bounded_least_recent_first() -> None:
    m = Memo(size=2)
    built: list[str] = []

    def make(k: str) -> Any:
        return lambda: built.append(k) or k.upper()

    assert m.get("a", make("a")) == "A" and m.get("b", make("b")) == "B"
    assert m.get("a", make("a")) == "A" and built == ["a", "b"]  # held
    m.get("c", make("c"))  # drops b, the least recently used
    m.get("a", make("a"))
    m.get("b", make("b"))
    assert built == ["a", "b", "c", "b"]
