"""Issue 22: everything that reaches a Markdown hover is shown, not obeyed: a routine named
`**[h](x)**`, `<img ...>`, a newline or a terminal escape cannot open a link, raw HTML, emphasis or
a table cell, nor break the table; the only links are the renderer's, to file URIs."""

from __future__ import annotations

import re

import pytest

from gmonlens_ide.markdown import text

HOSTILE = [
    "**[h](x)**",
    "<img src=x onerror=alert(1)>",
    "a|b|c",
    "two\nlines\r\n| x | y |",
    "\x1b[31mred\x1b[0m\x07",
    "`code` ~~gone~~ _em_ __strong__",
    "![i](https://evil.example/x.png)",
    "http://evil.example www.evil.example",
    "&lt;entity&gt; &#60;",
    "\\[escaped\\]",
    "\u2028\u2029\x85",
]


def _unescaped(md: str, chars: str) -> list[str]:
    """Characters of `chars` in `md` not preceded by an odd number of backslashes."""
    out = []
    for m in re.finditer(f"[{re.escape(chars)}]", md):
        run = len(md[: m.start()]) - len(md[: m.start()].rstrip("\\"))
        if run % 2 == 0:
            out.append(m.group(0))
    return out


@pytest.mark.parametrize("name", HOSTILE)
def test_text_is_inert(name: str) -> None:
    md = text(name)
    assert "\n" not in md and "\r" not in md
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or c in "\u2028\u2029" for c in md), md
    assert not _unescaped(md, "[]<>|`*!&~"), md
    assert "://" not in md and "www." not in md


def test_plain_names_stay_readable() -> None:
    for name in ("util_sum", "geo::scale(int)", "main", "x.constprop.0"):
        assert text(name) == name
