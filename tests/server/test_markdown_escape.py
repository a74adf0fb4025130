"""Issue 22: everything that reaches a Markdown hover is shown, not obeyed: a routine named
`**[h](x)**`, `<img ...>`, a newline or a terminal escape cannot open a link, raw HTML, emphasis or
a table cell, nor break the table; the only links are the renderer's, to file URIs."""

from __future__ import annotations

import pytest

from gmonlens_ide.markdown import text
from markdown_checks import HOSTILE, unescaped


@pytest.mark.parametrize("name", HOSTILE)
def test_text_is_inert(name: str) -> None:
    md = text(name)
    assert "\n" not in md and "\r" not in md
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or c in "\u2028\u2029" for c in md), md
    assert not unescaped(md, "[]<>|`*!&~"), md
    assert "://" not in md and "www." not in md


def test_plain_names_stay_readable() -> None:
    for name in ("util_sum", "geo::scale(int)", "main", "x.constprop.0"):
        assert text(name) == name
